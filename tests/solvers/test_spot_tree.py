"""The spot solver's action tree against postflop-solver's ``ActionTree``.

The recorded node counts and lines come from postflop-solver itself: ``benchmarks/peers/spot_tree.rs``
prints its tree for a spot, one line per node. To regenerate them (about 40 s to build)::

    /work/shared/tools/build_postflop_solver.sh /tmp/pfs_tree benchmarks/peers/spot_tree.rs
    python tests/solvers/test_spot_tree.py /tmp/pfs_tree/target/release/examples/spot_tree

The slow test builds the peer and compares every line of every recorded spot live.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from pokerai.solvers.postflop.sizes import BetSizes, SizeError, parse_sizes
from pokerai.solvers.postflop.tree import (
    CHANCE,
    FOLD,
    PLAYER,
    SHOWDOWN,
    ActionNode,
    TreeConfig,
    action_label,
    build_tree,
    count_nodes,
    iter_nodes,
)

ROOT = Path(__file__).resolve().parents[2]
PEER_EXAMPLE = ROOT / "benchmarks" / "peers" / "spot_tree.rs"
BUILD_SCRIPT = ROOT.parent / "shared" / "tools" / "build_postflop_solver.sh"
DEBIAN_CRATES = ("librust-rayon-dev", "librust-regex-dev", "librust-once-cell-dev")
STREETS = ("flop", "turn", "river")


@dataclass(frozen=True)
class Spot:
    """A spot as ``spot_tree`` takes it. ``sizes``: one (bets, raises) pair for every street and
    both players, three (per street) or six (per street, OOP then IP)."""

    street: int
    pot: int
    stack: int
    sizes: tuple[tuple[str, str], ...]
    add_allin: float = 1.5
    force_allin: float = 0.15
    merging: float = 0.1

    def config(self, raise_cap: int | None = None) -> TreeConfig:
        parsed = [parse_sizes(bets, raises) for bets, raises in self.sizes]
        per_street: list[tuple[BetSizes, BetSizes]]
        if len(parsed) == 1:
            per_street = [(parsed[0], parsed[0])] * 3
        elif len(parsed) == 3:
            per_street = [(sizes, sizes) for sizes in parsed]
        else:
            per_street = [(parsed[2 * street], parsed[2 * street + 1]) for street in range(3)]
        return TreeConfig(
            self.street, self.pot, self.stack, tuple(per_street), raise_cap,
            self.add_allin, self.force_allin, self.merging,
        )  # fmt: skip

    def peer_arguments(self) -> list[str]:
        return [
            STREETS[self.street], str(self.pot), str(self.stack), *(s for pair in self.sizes for s in pair),
            "--add", str(self.add_allin), "--force", str(self.force_allin), "--merge", str(self.merging),
        ]  # fmt: skip


BENCHMARK = ("60%,e,a", "2.5x")
PER_PLAYER = (("33%", "3x"), ("50%,a", "2.5x"), ("e", "a"), ("75%", "2x"), ("a", ""), ("50%", ""))
SPOTS: dict[str, Spot] = {
    # the spots of benchmarks/bench_spot.py
    "river-benchmark": Spot(2, 200, 900, (BENCHMARK,)),
    "turn-benchmark": Spot(1, 200, 900, (BENCHMARK,)),
    "flop-benchmark": Spot(0, 100, 400, (("33%,75%", "3x"),)),
    # stack-to-pot ratios small and large
    "river-small-spr": Spot(2, 100, 50, (("33%,75%", "3x,a"),)),
    "turn-deep": Spot(1, 100, 5000, (("50%,100%", "2.5x"),)),
    "flop-geometric": Spot(0, 100, 1000, (("e", "a"),)),
    "turn-four-sizes": Spot(1, 100, 1000, (("25%,50%,100%,150%", "2x,3x"),)),
    "flop-four-sizes": Spot(0, 100, 200, (("25%,50%,100%,150%", "2x,3x"),)),
    # stacks so short that bets are forced all-in
    "river-tiny-stack": Spot(2, 100, 10, (("33%", "2x"),)),
    "turn-tiny-stack": Spot(1, 100, 12, (("50%", "2x"),)),
    "flop-one-chip": Spot(0, 100, 1, (("50%", "2.5x"),)),
    # merging close sizes, off, and wide
    "river-merge": Spot(2, 100, 1000, (("75%,80%,85%", "2x"),)),
    "river-merge-off": Spot(2, 100, 1000, (("75%,80%,85%", "2x"),), merging=0.0),
    "river-merge-wide": Spot(2, 100, 1000, (("33%,50%,75%,100%", "2x,3x"),), merging=0.5),
    # the all-in thresholds
    "turn-no-allin-rules": Spot(1, 100, 600, (BENCHMARK,), add_allin=0.0, force_allin=0.0),
    "turn-eager-allin": Spot(1, 100, 600, (("33%,75%", "3x"),), add_allin=3.0, force_allin=0.3),
    # sizes per street and player, chips with a raise cap, geometric with counts and caps
    "flop-per-player": Spot(0, 100, 400, PER_PLAYER),
    "flop-per-street": Spot(0, 100, 300, (("33%", "3x"), ("66%", "2.5x"), ("100%", "a"))),
    "turn-chips-and-cap": Spot(1, 100, 300, (("100c,a", "20c2r"),)),
    "river-geometric-caps": Spot(2, 100, 500, (("2e,3e200%", "e,a"),)),
}

# postflop-solver's counts (player, chance, terminal), from `spot_tree` (see the module docstring).
RECORDED = {
    "river-benchmark": (10, 0, 17),
    "turn-benchmark": (76, 17, 113),
    "flop-benchmark": (436, 104, 669),
    "river-small-spr": (4, 0, 5),
    "turn-deep": (328, 23, 577),
    "flop-geometric": (60, 22, 69),
    "turn-four-sizes": (2308, 137, 4281),
    "flop-four-sizes": (560, 176, 829),
    "river-tiny-stack": (4, 0, 5),
    "turn-tiny-stack": (8, 3, 9),
    "flop-one-chip": (12, 8, 13),
    "river-merge": (14, 0, 25),
    "river-merge-off": (38, 0, 73),
    "river-merge-wide": (16, 0, 29),
    "turn-no-allin-rules": (98, 17, 149),
    "turn-eager-allin": (140, 19, 233),
    "flop-per-player": (133, 50, 167),
    "flop-per-street": (96, 34, 117),
    "turn-chips-and-cap": (48, 11, 73),
    "river-geometric-caps": (10, 0, 17),
}

# postflop-solver's whole tree for two spots, as `spot_tree` prints it (tabs written as spaces).
RECORDED_LINES = {
    "river-benchmark": """
Root player 0 0 0
Root/Check player 1 0 0
Root/Check/Check showdown -1 0 0
Root/Check/Bet(120) player 0 0 120
Root/Check/Bet(120)/Fold fold 0 0 120
Root/Check/Bet(120)/Call showdown -1 120 120
Root/Check/Bet(120)/Raise(300) player 1 300 120
Root/Check/Bet(120)/Raise(300)/Fold fold 1 300 120
Root/Check/Bet(120)/Raise(300)/Call showdown -1 300 300
Root/Check/Bet(120)/Raise(300)/AllIn(900) player 0 300 900
Root/Check/Bet(120)/Raise(300)/AllIn(900)/Fold fold 0 300 900
Root/Check/Bet(120)/Raise(300)/AllIn(900)/Call showdown -1 900 900
Root/Check/AllIn(900) player 0 0 900
Root/Check/AllIn(900)/Fold fold 0 0 900
Root/Check/AllIn(900)/Call showdown -1 900 900
Root/Bet(120) player 1 120 0
Root/Bet(120)/Fold fold 1 120 0
Root/Bet(120)/Call showdown -1 120 120
Root/Bet(120)/Raise(300) player 0 120 300
Root/Bet(120)/Raise(300)/Fold fold 0 120 300
Root/Bet(120)/Raise(300)/Call showdown -1 300 300
Root/Bet(120)/Raise(300)/AllIn(900) player 1 900 300
Root/Bet(120)/Raise(300)/AllIn(900)/Fold fold 1 900 300
Root/Bet(120)/Raise(300)/AllIn(900)/Call showdown -1 900 900
Root/AllIn(900) player 1 900 0
Root/AllIn(900)/Fold fold 1 900 0
Root/AllIn(900)/Call showdown -1 900 900
""",
    "flop-one-chip": """
Root player 0 0 0
Root/Check player 1 0 0
Root/Check/Check chance -1 0 0
Root/Check/Check/Chance player 0 0 0
Root/Check/Check/Chance/Check player 1 0 0
Root/Check/Check/Chance/Check/Check chance -1 0 0
Root/Check/Check/Chance/Check/Check/Chance player 0 0 0
Root/Check/Check/Chance/Check/Check/Chance/Check player 1 0 0
Root/Check/Check/Chance/Check/Check/Chance/Check/Check showdown -1 0 0
Root/Check/Check/Chance/Check/Check/Chance/Check/AllIn(1) player 0 0 1
Root/Check/Check/Chance/Check/Check/Chance/Check/AllIn(1)/Fold fold 0 0 1
Root/Check/Check/Chance/Check/Check/Chance/Check/AllIn(1)/Call showdown -1 1 1
Root/Check/Check/Chance/Check/Check/Chance/AllIn(1) player 1 1 0
Root/Check/Check/Chance/Check/Check/Chance/AllIn(1)/Fold fold 1 1 0
Root/Check/Check/Chance/Check/Check/Chance/AllIn(1)/Call showdown -1 1 1
Root/Check/Check/Chance/Check/AllIn(1) player 0 0 1
Root/Check/Check/Chance/Check/AllIn(1)/Fold fold 0 0 1
Root/Check/Check/Chance/Check/AllIn(1)/Call chance -1 1 1
Root/Check/Check/Chance/Check/AllIn(1)/Call/Chance showdown -1 1 1
Root/Check/Check/Chance/AllIn(1) player 1 1 0
Root/Check/Check/Chance/AllIn(1)/Fold fold 1 1 0
Root/Check/Check/Chance/AllIn(1)/Call chance -1 1 1
Root/Check/Check/Chance/AllIn(1)/Call/Chance showdown -1 1 1
Root/Check/AllIn(1) player 0 0 1
Root/Check/AllIn(1)/Fold fold 0 0 1
Root/Check/AllIn(1)/Call chance -1 1 1
Root/Check/AllIn(1)/Call/Chance chance -1 1 1
Root/Check/AllIn(1)/Call/Chance/Chance showdown -1 1 1
Root/AllIn(1) player 1 1 0
Root/AllIn(1)/Fold fold 1 1 0
Root/AllIn(1)/Call chance -1 1 1
Root/AllIn(1)/Call/Chance chance -1 1 1
Root/AllIn(1)/Call/Chance/Chance showdown -1 1 1
""",
}

_KINDS = {PLAYER: "player", CHANCE: "chance", FOLD: "fold", SHOWDOWN: "showdown"}
_PEER_NAMES = {
    "fold": "Fold",
    "check": "Check",
    "call": "Call",
    "bet": "Bet",
    "raise": "Raise",
    "allin": "AllIn",
}


def peer_lines(root: ActionNode) -> list[str]:
    """Our tree in ``spot_tree``'s format (tab-separated), depth-first."""
    lines = []
    for path, node in iter_nodes(root):
        steps = ["Root"]
        for action in path:
            if action is None:
                steps.append("Chance")
            elif action[0] in ("fold", "check", "call"):
                steps.append(_PEER_NAMES[action[0]])
            else:
                steps.append(f"{_PEER_NAMES[action[0]]}({action[1]})")
        fields = ["/".join(steps), _KINDS[node.kind], str(node.player), *map(str, node.committed)]
        lines.append("\t".join(fields))
    return lines


def counts_tuple(root: ActionNode) -> tuple[int, int, int]:
    counts = count_nodes(root)
    return counts["player"], counts["chance"], counts["terminal"]


@pytest.mark.parametrize("name", sorted(SPOTS))
def test_node_counts_equal_postflop_solvers(name: str) -> None:
    assert counts_tuple(build_tree(SPOTS[name].config())) == RECORDED[name]


@pytest.mark.parametrize("name", sorted(RECORDED_LINES))
def test_whole_tree_equals_postflop_solvers(name: str) -> None:
    expected = [line.replace(" ", "\t") for line in RECORDED_LINES[name].strip().splitlines()]
    assert peer_lines(build_tree(SPOTS[name].config())) == expected


def test_the_tree_is_well_formed() -> None:
    """Player nodes have one child per action and alternate within a street; a chance node has
    one child on the next street; terminals have none; committed chips never shrink nor pass the stack."""
    spot = SPOTS["flop-benchmark"]
    root = build_tree(spot.config())
    for _, node in iter_nodes(root):
        assert all(0 <= chips <= spot.stack for chips in node.committed)
        if node.kind == PLAYER:
            assert len(node.actions) == len(node.children) >= 2
            for (name, _), child in zip(node.actions, node.children, strict=True):
                assert all(
                    after >= before for after, before in zip(child.committed, node.committed, strict=True)
                )
                if child.kind == PLAYER:
                    assert (child.street, child.player) == (node.street, 1 - node.player)
                if name == "fold":
                    assert (child.kind, child.player) == (FOLD, node.player)
        elif node.kind == CHANCE:
            assert len(node.children) == 1 and node.children[0].street == node.street + 1
            assert node.committed[0] == node.committed[1]
        else:
            assert node.children == () and node.actions == ()
            assert node.kind == FOLD or node.street == 2


def _hand_spot(street: int, raise_cap: int | None) -> TreeConfig:
    """Pot 100, stack 1000, bets of half the pot, raises to twice the bet, no all-in added or forced."""
    return Spot(street, 100, 1000, (("50%", "2x"),), add_allin=0.0, force_allin=0.0).config(raise_cap)


def test_raise_cap_zero_and_one_on_the_river() -> None:
    # Cap 0: check-check, check-bet-fold/call, bet-fold/call: 4 player nodes (root, IP after the
    # check, each facing a bet), 5 terminals (a showdown, two folds, two calls).
    assert counts_tuple(build_tree(_hand_spot(2, 0))) == (4, 0, 5)
    # Cap 1: each player facing a bet may also raise to 100 once, and facing that raise only folds
    # or calls: 2 more player nodes and 4 more terminals.
    assert counts_tuple(build_tree(_hand_spot(2, 1))) == (6, 0, 9)
    root = build_tree(_hand_spot(2, 1))
    facing_bet = root.children[1]
    assert facing_bet.actions == (("fold", 0), ("call", 0), ("raise", 100))
    assert facing_bet.children[2].actions == (("fold", 0), ("call", 0))
    # No cap: re-raises to 200, 400 and 800, then all-in.
    assert counts_tuple(build_tree(_hand_spot(2, None)))[0] > 6


def test_raise_cap_counts_per_street() -> None:
    # Turn with cap 0: 4 player nodes and 2 folds on the turn; 3 ways to close it (check-check, a
    # call by OOP, a call by IP), each a chance node before the river tree of 4 player nodes and 5 terminals.
    assert counts_tuple(build_tree(_hand_spot(1, 0))) == (4 + 3 * 4, 3, 2 + 3 * 5)


def test_action_labels() -> None:
    assert [
        action_label(name, amount) for name, amount in build_tree(SPOTS["river-benchmark"].config()).actions
    ] == [
        "Check",
        "Bet 120",
        "All-in 900",
    ]
    assert (action_label("fold", 0), action_label("call", 0), action_label("raise", 300)) == (
        "Fold",
        "Call",
        "Raise 300",
    )
    with pytest.raises(ValueError, match="unknown action"):
        action_label("shove", 900)


def test_a_malformed_size_is_one_sentence() -> None:
    with pytest.raises(SizeError, match=r"^bet size '60' is not one of"):
        parse_sizes("60", "2.5x")
    with pytest.raises(SizeError, match="empty"):
        parse_sizes("60%,,a", "")


def test_a_raise_multiple_is_not_a_bet_size() -> None:
    """postflop-solver rejects ``x`` (a multiple of the bet faced) among bet sizes."""
    with pytest.raises(SizeError, match="only a raise"):
        parse_sizes("2.5x", "")
    assert parse_sizes("", "2.5x").raise_[0].ratio == 2.5


@pytest.mark.parametrize(("pot", "stack"), [(0, 100), (-5, 100), (100, 0), (100, -1)])
def test_a_pot_or_stack_that_is_not_positive_is_refused(pot: int, stack: int) -> None:
    config = Spot(2, 100, 100, (BENCHMARK,)).config()
    bad = TreeConfig(config.street, pot, stack, config.sizes)
    with pytest.raises(ValueError, match="must be a positive whole number"):
        build_tree(bad)


def test_other_bad_configs_are_refused() -> None:
    config = Spot(2, 100, 100, (BENCHMARK,)).config()
    with pytest.raises(ValueError, match="raise cap"):
        build_tree(TreeConfig(2, 100, 100, config.sizes, raise_cap=-1))
    with pytest.raises(ValueError, match="starting street"):
        build_tree(TreeConfig(3, 100, 100, config.sizes))
    with pytest.raises(ValueError, match="merging threshold"):
        build_tree(TreeConfig(2, 100, 100, config.sizes, merging_threshold=-0.1))
    with pytest.raises(ValueError, match="more than 100 nodes"):
        build_tree(SPOTS["turn-benchmark"].config(), max_nodes=100)


def _build_peer(build_dir: Path) -> Path:
    completed = subprocess.run(
        [str(BUILD_SCRIPT), str(build_dir), str(PEER_EXAMPLE)], capture_output=True, text=True, check=True
    )
    return Path(completed.stdout.strip().splitlines()[-1]) / "spot_tree"


@pytest.fixture(scope="module")
def peer_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("cargo") is None or not BUILD_SCRIPT.exists():
        pytest.skip("postflop-solver cannot be built here: needs cargo and ../shared/tools")
    for package in DEBIAN_CRATES:
        if subprocess.run(["dpkg", "-s", package], capture_output=True, check=False).returncode != 0:
            pytest.skip(f"postflop-solver cannot be built here: the Debian package {package} is missing")
    return _build_peer(tmp_path_factory.mktemp("postflop-solver"))


def run_peer(binary: Path, spot: Spot) -> tuple[list[str], tuple[int, int, int]]:
    output = subprocess.run(
        [str(binary), *spot.peer_arguments()], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    counts = dict(field.split("=") for field in output[-1].split()[2:])
    return output[:-1], (int(counts["player"]), int(counts["chance"]), int(counts["terminal"]))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SPOTS))
def test_every_line_equals_postflop_solvers_live(peer_binary: Path, name: str) -> None:
    lines, counts = run_peer(peer_binary, SPOTS[name])
    assert counts == RECORDED[name]
    assert peer_lines(build_tree(SPOTS[name].config())) == lines


def _regenerate(binary: Path) -> None:
    """Prints RECORDED and RECORDED_LINES as postflop-solver's ``spot_tree`` gives them."""
    print("RECORDED = {")
    for name, spot in SPOTS.items():
        print(f"    {name!r}: {run_peer(binary, spot)[1]},")
    print("}")
    for name in RECORDED_LINES:
        print(f"\n{name}:")
        print("\n".join(line.replace("\t", " ") for line in run_peer(binary, SPOTS[name])[0]))


if __name__ == "__main__":
    _regenerate(Path(sys.argv[1]))
