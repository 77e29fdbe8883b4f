"""Solve a postflop spot: two ranges, a board, a pot and stacks, a bet menu; exploitability out.

The pipeline is config -> :func:`build_spot` (validated tree and hands, with the memory it will
need, nothing large allocated) -> :func:`solve_spot` (Discounted CFR until the exploitability
target) -> :class:`SpotSolution` (browse the strategy node by node, EV and equity per hand, save
and load). Values are in chips; a player's EV at a node is its expected share of the pot there
(postflop-solver's ``expected_values``), so both players' EVs sum to the pot at that node.
Exploitability is the mean of the two players' best-response gains against the average
strategy, in % of the starting pot.
"""

from __future__ import annotations

import io
import json
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from pokerai.atomic import write_atomically
from pokerai.engine.cards import format_card, format_cards, parse_card, parse_cards, rank_of, suit_of
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.ranges import hand_class_name, range_combos
from pokerai.solvers.postflop import kernel as K
from pokerai.solvers.postflop.game import SUIT_PAIRS, Layout, layout, swap_card
from pokerai.solvers.postflop.sizes import parse_sizes
from pokerai.solvers.postflop.tree import ActionNode, TreeConfig, action_label, build_tree, count_nodes

STREETS = ("flop", "turn", "river")
PLAYERS = ("oop", "ip")
FORMAT = "pokerai-spot-1"
KIND_NAMES = {K.PLAYER: "player", K.CHANCE: "chance", K.FOLD: "fold", K.SHOWDOWN: "showdown"}


class SpotError(ValueError):
    """A spot that cannot be built or solved, said in one sentence."""


@dataclass(frozen=True)
class SpotConfig:
    """A spot as players type it.

    Attributes:
        board: 3, 4 or 5 cards (``"Td9d6h"``); the spot starts on that street.
        oop, ip: the ranges of the player out of position (first to act) and in position.
        pot, stack: the pot and the effective stack behind, in chips.
        bets, raises: postflop-solver's size strings, for every street and both players.
        overrides: ``(street, player, bets, raises)`` with street ``flop|turn|river`` and player
            ``oop|ip|both``: other sizes there.
        raise_cap: most raises on a street (``None``: as many as the stacks allow).
        add_allin_threshold, force_allin_threshold, merging_threshold: postflop-solver's all-in rules.
    """

    board: str
    oop: str
    ip: str
    pot: int
    stack: int
    bets: str = "60%,e,a"
    raises: str = "2.5x"
    overrides: tuple[tuple[str, str, str, str], ...] = ()
    raise_cap: int | None = None
    add_allin_threshold: float = 1.5
    force_allin_threshold: float = 0.15
    merging_threshold: float = 0.1


@dataclass(eq=False)
class Spot:
    """A built spot (:func:`build_spot`): its tree, hands and the memory a solve needs."""

    config: SpotConfig
    board: tuple[int, ...]
    hands: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]
    weights: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]
    tree: ActionNode
    layout: Layout
    action_nodes: dict[str, int]
    memory_bytes: int

    @property
    def num_nodes(self) -> int:
        return self.layout.num_nodes

    @cached_property
    def pairs(self) -> float:
        """The weight of the hand pairs that share no card: the normaliser of the root's values."""
        return _pair_weight(self.hands, self.weights)


def _pair_weight(hands: Sequence[npt.NDArray[np.int64]], weights: Sequence[npt.NDArray[np.float64]]) -> float:
    return float(weights[0] @ _compatible_reach(hands[0], hands[1], weights[1]))


def _int(value: Any, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise SpotError(f"{name} must be a whole number of chips of at least {least}, got {value!r}")
    return int(value)


def _tree_config(config: SpotConfig, street: int) -> TreeConfig:
    default = parse_sizes(config.bets, config.raises)
    sizes = [[default, default] for _ in STREETS]
    for entry in config.overrides:
        if len(entry) != 4:
            raise SpotError(f"a size override is (street, player, bets, raises), got {entry!r}")
        name, player, bets, raises = entry
        if name not in STREETS:
            raise SpotError(f"a size override names street {name!r}; streets are flop, turn and river")
        if player not in (*PLAYERS, "both"):
            raise SpotError(f"a size override names player {player!r}; players are oop, ip and both")
        parsed = parse_sizes(bets, raises)
        for p, who in enumerate(PLAYERS):
            if player in (who, "both"):
                sizes[STREETS.index(name)][p] = parsed
    if config.raise_cap is not None:
        _int(config.raise_cap, "the raise cap", 0)
    for name in ("add_allin_threshold", "force_allin_threshold", "merging_threshold"):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
            raise SpotError(f"{name.replace('_', ' ')} must be a non-negative number, got {value!r}")
    return TreeConfig(
        street=street, pot=config.pot, stack=config.stack,
        sizes=tuple((a, b) for a, b in sizes),
        raise_cap=config.raise_cap, add_allin_threshold=float(config.add_allin_threshold),
        force_allin_threshold=float(config.force_allin_threshold),
        merging_threshold=float(config.merging_threshold),
    )  # fmt: skip


def _board(text: str) -> tuple[int, ...]:
    try:
        cards = parse_cards(text)
    except ValueError as error:
        raise SpotError(f"the board: {error}") from None
    if len(cards) not in (3, 4, 5):
        raise SpotError(f"a board has 3, 4 or 5 cards, got {len(cards)} in {text!r}")
    return tuple(cards)


def format_bytes(count: float) -> str:
    """``count`` bytes in kB, MB or GB, three significant figures."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= size:
            return f"{count / size:.3g} {unit}"
    return f"{int(count)} bytes"


_FIXED_HAND = re.compile(r"^\s*([2-9TJQKA][cdhs])([2-9TJQKA][cdhs])\s*(?::.*)?$", re.IGNORECASE)


def _check_fixed_hands(name: str, text: str, board: Sequence[int]) -> None:
    """A range item that names one hand (``AsKs``) may not hold a board card; a class (``AK``) just
    loses the hands that do."""
    if not isinstance(text, str):
        return
    for item in text.split(","):
        match = _FIXED_HAND.match(item)
        if not match:
            continue
        for card_text in match.groups():
            try:
                card = parse_card(card_text[0].upper() + card_text[1].lower())
            except ValueError:
                continue
            if card in board:
                raise SpotError(
                    f"the {name} range's hand {item.strip()} holds {format_card(card)}, which is on the board"
                )


def estimate_memory(layout: Layout, threads: int = 1, locked: bool = False) -> int:
    """Bytes a solve of ``layout`` allocates: regrets and strategy sums (float32), with locks the locked
    strategies (float32), the kernel's tables and each thread's buffers."""
    tables = sum(np.asarray(a).nbytes for a in layout.kernel)
    hands = int(layout.kernel.nh.max())
    buffers = (layout.depth + 1) * (2 * layout.actions + 1) * hands * 8
    cut = len(layout.cuts) * int(layout.kernel.b_cards[0]) * hands * 8
    return (3 if locked else 2) * 4 * layout.storage + tables + max(threads, 1) * buffers + cut


def build_spot(
    config: SpotConfig, *, max_memory_bytes: int | None = None, threads: int = 1, locked: bool = False
) -> Spot:
    """Validate ``config`` and build its tree and hands; raises :class:`SpotError` in one sentence.

    The returned spot says the memory a solve with ``threads`` threads (and ``locked`` nodes) will
    need; a spot that needs more than ``max_memory_bytes`` is refused before its largest tables are
    built (the storage itself is allocated only by the solve).
    """
    if not isinstance(config, SpotConfig):
        raise SpotError(f"expected a SpotConfig, got {type(config).__name__}")
    board = _board(config.board)
    pot = _int(config.pot, "the pot", 1)
    _int(config.stack, "the stack", 1)
    del pot
    hands, weights = [], []
    for name, text in (("OOP", config.oop), ("IP", config.ip)):
        _check_fixed_hands(name, text, board)
        try:
            cards, weight = range_combos(text, dead=board)
        except ValueError as error:
            raise SpotError(f"the {name} range: {error}") from None
        if len(cards) == 0:
            raise SpotError(f"the {name} range is empty once the board's cards are removed")
        hands.append(np.asarray(cards, dtype=np.int64))
        weights.append(np.asarray(weight, dtype=np.float64))
    try:
        tree = build_tree(_tree_config(config, len(board) - 3))
    except SpotError:
        raise
    except ValueError as error:
        raise SpotError(str(error)) from None
    pair_weight = _pair_weight(hands, weights)
    if pair_weight <= 0:
        raise SpotError("no hand of the OOP range can meet a hand of the IP range (they share cards)")

    def check(memory: int) -> None:
        if max_memory_bytes is not None and memory > max_memory_bytes:
            raise SpotError(
                f"this spot needs {format_bytes(memory)}, more than the {format_bytes(max_memory_bytes)} "
                "allowed: narrow the ranges or use fewer sizes"
            )

    spot_layout = layout(tree, board, hands, weights, config.pot, check)
    memory = estimate_memory(spot_layout, threads, locked)
    check(memory)
    return Spot(config, board, (hands[0], hands[1]), (weights[0], weights[1]), tree, spot_layout,
                count_nodes(tree), memory)  # fmt: skip


@dataclass
class _Solver:
    """Passes over a spot's tree; with ``threads > 1`` the subtrees below the first street's chance nodes
    are shared among threads (the kernels release the GIL), which changes no number."""

    spot: Spot
    state: K.State
    threads: int = 1
    pool: ThreadPoolExecutor | None = None
    weights: npt.NDArray[np.float32] = field(init=False)

    def __post_init__(self) -> None:
        hands = int(self.spot.layout.kernel.nh.max())
        self.weights = np.zeros((2, hands), dtype=np.float32)
        for player in range(2):
            self.weights[player, : len(self.spot.weights[player])] = self.spot.weights[player]

    def traverse(self, player: int, mode: int) -> npt.NDArray[np.float64]:
        lay = self.spot.layout
        k = lay.kernel
        hands = int(k.nh.max())
        result = np.zeros(hands, dtype=np.float32)
        reach = self.weights[1 - player]
        if self.threads <= 1 or len(lay.cuts) == 0:
            no_reach, no_values = np.zeros((1, 1), np.float32), np.zeros((1, 1, 1), np.float32)
            K.traverse(
                k, self.state, player, reach, result, mode, lay.depth, lay.actions, 0, no_reach, no_values
            )
            return result[: k.nh[player]].astype(np.float64)
        if self.pool is None:
            self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="spot")
        cut_reach = np.zeros((len(lay.cuts), hands), np.float32)
        cut_values = np.zeros((len(lay.cuts), int(k.b_cards[0]), hands), np.float32)
        depth, actions = lay.depth, lay.actions
        K.traverse(k, self.state, player, reach, result, mode, depth, actions, 1, cut_reach, cut_values)

        def share(first: int) -> None:
            K.cut_tasks(k, self.state, lay.cuts, player, mode, depth, actions, cut_reach, cut_values, first,
                        self.threads)  # fmt: skip

        for task in [self.pool.submit(share, first) for first in range(self.threads)]:
            task.result()
        K.traverse(k, self.state, player, reach, result, mode, depth, actions, 2, cut_reach, cut_values)
        return result[: k.nh[player]].astype(np.float64)

    def load_kernels(self) -> None:
        """Compile the kernels for this spot's types, or load them from numba's cache, without running
        them (once per process; a solve's clock starts after)."""
        lay = self.spot.layout
        k, hands = lay.kernel, int(lay.kernel.nh.max())
        vector, rows, blocks = (
            np.zeros(hands, np.float32),
            np.zeros((1, 1), np.float32),
            np.zeros((1, 1, 1), np.float32),
        )
        arguments = (k, self.state, 0, vector, vector, 0, lay.depth, lay.actions, 0, rows, blocks)
        K.traverse.compile(tuple(numba.typeof(a) for a in arguments))
        iterate = (k, self.state, 0, 0, self.weights, lay.depth, lay.actions)
        K.iterate.compile(tuple(numba.typeof(a) for a in iterate))
        if self.threads > 1 and len(lay.cuts):
            tasks = (k, self.state, lay.cuts, 0, 0, lay.depth, lay.actions, rows, blocks, 0, self.threads)
            K.cut_tasks.compile(tuple(numba.typeof(a) for a in tasks))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None

    def root_values(self, mode: int) -> tuple[float, float]:
        """Each player's value (chips since the spot began, per pair of hands) under ``mode``."""
        pairs = self.spot.pairs
        return tuple(  # type: ignore[return-value]
            float(self.spot.weights[p] @ self.traverse(p, mode)) / pairs for p in range(2)
        )

    def exploitability_pct(self) -> float:
        best = self.root_values(K.BEST_RESPONSE)
        return 100.0 * (best[0] + best[1]) / 2 / self.spot.config.pot


def decision_at(spot: Spot, path: Sequence[str]) -> tuple[int, tuple[str, ...]]:
    """The player to act at ``path`` (action labels and, where a card comes, the card) and the labels
    of its actions; :class:`SpotError` if the path leaves the tree or ends elsewhere than at a
    decision, or passes a card that the spot solves as an isomorphic one."""
    place = _decision(spot, path)
    return place.player, place.labels


def _decision(spot: Spot, path: Sequence[str]) -> _Place:
    place = _locate(spot, tuple(path), allow_swaps=False)
    if place.kind != "player":
        raise SpotError(
            f"only a player's decision can be locked; {_path_text(place.path)} is a {place.kind} node"
        )
    return place


def check_locks(spot: Spot, locks: Mapping[tuple[str, ...], Any] | None) -> None:
    """Raise :class:`SpotError` if ``locks`` (as :func:`solve_spot` takes them) do not fit ``spot``."""
    _lock_array(spot, locks)


def _lock_array(spot: Spot, locks: Mapping[tuple[str, ...], Any] | None) -> npt.NDArray[np.float32]:
    if not locks:
        return np.zeros(1, dtype=np.float32)
    locked = np.full(spot.layout.storage, np.nan, dtype=np.float32)
    for path, strategy in locks.items():
        place = _decision(spot, path)
        rows = np.asarray(strategy, dtype=np.float64)
        actor, count = place.player, len(place.labels)
        shape = (len(spot.hands[actor]), count)
        if rows.shape != shape:
            raise SpotError(
                f"the lock at {_path_text(place.path)} must be a strategy of shape {shape}, got {rows.shape}"
            )
        free = np.asarray(np.isnan(rows).all(axis=1), dtype=bool)
        fixed = rows[~free]
        if np.isnan(fixed).any() or (fixed < 0).any() or not np.allclose(fixed.sum(axis=1), 1.0, atol=1e-6):
            raise SpotError(
                f"each locked hand's strategy at {_path_text(place.path)} must be probabilities summing to 1"
            )
        _check_lock_symmetry(spot, actor, rows, place.path)
        block = np.where(free[:, None], np.nan, rows).T.astype(np.float32)
        locked[place.offset : place.offset + count * shape[0]] = block.reshape(-1)
    return locked


def _check_lock_symmetry(
    spot: Spot, actor: int, rows: npt.NDArray[np.float64], path: tuple[str, ...]
) -> None:
    """A lock must keep the suit symmetry the spot's merged cards rely on."""
    swaps = spot.layout.kernel.swap_hand[actor]
    for swap in set(int(s) for s in spot.layout.kernel.iso_swap[: int(spot.layout.kernel.b_iso_count.sum())]):
        other = rows[swaps[swap, : len(rows)]]
        if not np.array_equal(np.isnan(rows), np.isnan(other)) or not np.allclose(
            np.nan_to_num(rows), np.nan_to_num(other)
        ):
            a, b = SUIT_PAIRS[swap]
            raise SpotError(
                f"the lock at {_path_text(path)} treats hands differently that differ only by swapping "
                f"suits {'cdhs'[a]} and {'cdhs'[b]}, which this spot merges; lock suit-symmetric strategies "
                "(by hand class)"
            )


def solve_spot(
    spot: Spot,
    *,
    target_pct: float = 0.5,
    max_iterations: int = 1000,
    threads: int = 1,
    check_every: int = 10,
    progress: Callable[[int, float], bool | None] | None = None,
    stop: Callable[[], bool] | None = None,
    locks: Mapping[tuple[str, ...], Any] | None = None,
) -> SpotSolution:
    """Discounted CFR on ``spot`` until its exploitability is at most ``target_pct`` % of the pot.

    The exploitability is measured before the first iteration, every ``check_every`` iterations and
    after the last; ``progress(iterations, exploitability_pct)`` is called with each measurement and
    may return ``False`` to stop; ``stop()``, asked after every iteration, stops it when true (the
    exploitability is then measured once more). ``threads > 1`` solves the subtrees below the first street's
    chance nodes in parallel (numba threads; the result does not depend on it). ``locks`` maps a
    path (:meth:`SpotSolution.node`) to the acting player's strategy there, ``[hands, actions]``, a
    row of NaN leaving that hand free: locked hands play it and the rest re-solve against it. The
    solution's ``seconds`` and ``checks`` count from the first measurement, once the kernels are
    compiled or loaded from numba's cache (about 0.15 s, once per process, when cached).
    """
    if not (isinstance(target_pct, (int, float)) and target_pct >= 0):
        raise SpotError(f"the target must be a non-negative % of the pot, got {target_pct!r}")
    for value, name in ((max_iterations, "the iteration cap"), (check_every, "the check interval")):
        _int(value, name, 0 if name == "the iteration cap" else 1)
    _int(threads, "the thread count", 1)
    state = K.State(
        np.zeros(spot.layout.storage, dtype=np.float32), np.zeros(spot.layout.storage, dtype=np.float32),
        _lock_array(spot, locks), np.zeros(3),
    )  # fmt: skip
    solver = _Solver(spot, state, threads)
    solver.load_kernels()
    started = time.perf_counter()
    try:
        return _iterate(solver, target_pct, max_iterations, check_every, progress, stop, started)
    finally:
        solver.close()


def _iterate(
    solver: _Solver, target_pct: float, max_iterations: int, check_every: int,
    progress: Callable[[int, float], bool | None] | None, stop: Callable[[], bool] | None, started: float,
) -> SpotSolution:  # fmt: skip
    """:func:`solve_spot`'s loop."""
    spot, state = solver.spot, solver.state
    exploitability = solver.exploitability_pct()
    iteration = 0
    checks = [(0, time.perf_counter() - started, exploitability)]
    halted = progress is not None and progress(0, exploitability) is False
    while not halted and exploitability > target_pct and iteration < max_iterations:
        count = 1
        if stop is None and (solver.threads <= 1 or len(spot.layout.cuts) == 0):
            # One thread: the iterations up to the next check in one kernel call.
            count = min(check_every - iteration % check_every, max_iterations - iteration)
            lay = spot.layout
            K.iterate(lay.kernel, state, iteration, count, solver.weights, lay.depth, lay.actions)
        else:
            state.discount[:] = K.discount(iteration)
            for player in range(2):
                solver.traverse(player, K.TRAIN)
        iteration += count
        asked = stop is not None and stop()
        if asked or iteration % check_every == 0 or iteration == max_iterations:
            exploitability = solver.exploitability_pct()
            checks.append((iteration, time.perf_counter() - started, exploitability))
            halted = asked or (progress is not None and progress(iteration, exploitability) is False)
    oop, ip = solver.root_values(K.AVERAGE)
    half = spot.config.pot / 2
    return SpotSolution(
        spot, state, iteration, time.perf_counter() - started, exploitability, half + oop, half + ip,
        estimate_memory(spot.layout, solver.threads, state.locked.shape[0] > 1), checks,
    )  # fmt: skip


@dataclass
class _Place:
    """Where a path leads: an action node in an instance, with the suit permutation that maps the
    path's real cards to the stored (canonical) ones."""

    path: tuple[str, ...]
    node: int
    inst: int
    board: tuple[int, ...]
    suits: tuple[int, ...]
    reach: list[npt.NDArray[np.float64]]
    kind: str = ""
    player: int = -1
    labels: tuple[str, ...] = ()
    offset: int = -1


def _path_text(path: Sequence[str]) -> str:
    return "the root" if not path else "/".join(path)


def _labels(node: ActionNode) -> tuple[str, ...]:
    return tuple(action_label(name, amount) for name, amount in node.actions)


def _locate(spot: Spot, path: tuple[str, ...], *, allow_swaps: bool, state: K.State | None = None) -> _Place:
    """Follow ``path`` from the root; with ``state`` also each player's reach along it (average strategy)."""
    lay, k = spot.layout, spot.layout.kernel
    place = _Place((), 0, 0, spot.board, (0, 1, 2, 3), [w.copy() for w in spot.weights])
    for step in path:
        kind = int(k.a_kind[place.node])
        node = lay.nodes[place.node]
        if kind == K.PLAYER:
            labels = _labels(node)
            if step not in labels:
                raise SpotError(
                    f"at {_path_text(place.path)} the step {step!r} is not one of {', '.join(labels)}"
                )
            c = labels.index(step)
            if state is not None:
                actor = int(k.a_player[place.node])
                strategy = _node_strategy(spot, state, place.node, place.inst, actor)
                # The stored strategy is in the stored suits; the reach is in the real ones.
                place.reach[actor] = place.reach[actor] * strategy[c][_stored_index(spot, place, actor)]
            place = _Place((*place.path, step), int(k.a_first[place.node]) + c, place.inst, place.board,
                           place.suits, place.reach)  # fmt: skip
        elif kind == K.CHANCE:
            try:
                card = parse_card(step)
            except ValueError:
                raise SpotError(f"at {_path_text(place.path)} a card comes; {step!r} is not a card") from None
            if card in place.board:
                raise SpotError(f"{step} is already on the board {format_cards(place.board)}")
            board_id = int(k.i_board[place.inst])
            stored = _map_card(card, place.suits)
            first = int(k.b_child[board_id])
            dealt = [int(c) for c in k.b_card[first : first + k.b_cards[board_id]]]
            suits = place.suits
            if stored not in dealt:
                swap = next(
                    (
                        s
                        for j, c in enumerate(dealt)
                        for s in _iso(k, first + j)
                        if swap_card(stored, *SUIT_PAIRS[s]) == c
                    ),
                    None,
                )
                if swap is None or not allow_swaps:
                    canonical = (
                        format_card(_unmap_card(swap_card(stored, *SUIT_PAIRS[swap]), suits))
                        if swap is not None
                        else "?"
                    )
                    raise SpotError(
                        f"{step} is solved as its isomorphic card {canonical}: lock at {canonical} instead"
                    )
                a, b = SUIT_PAIRS[swap]
                suits = tuple(b if s == a else a if s == b else s for s in suits)
                stored = swap_card(stored, a, b)
            j = dealt.index(stored)
            chance = int(k.a_local[place.node])
            inst = int(k.i_child[place.inst]) + chance * int(k.b_cards[board_id]) + j
            reach = place.reach
            if state is not None:
                reach = [_remove_card(spot, p, r, card) for p, r in enumerate(reach)]
            place = _Place(
                (*place.path, step), int(k.a_first[place.node]), inst, (*place.board, card), suits, reach
            )
        else:
            raise SpotError(f"{_path_text(place.path)} ends the hand; nothing follows it")
    kind = int(k.a_kind[place.node])
    place.kind = KIND_NAMES[kind]
    if kind == K.PLAYER:
        place.player = int(k.a_player[place.node])
        place.labels = _labels(lay.nodes[place.node])
        place.offset = int(k.i_offset[place.inst] + k.a_local[place.node])
    return place


def _iso(k: K.Kernel, board: int) -> list[int]:
    first = int(k.b_iso_first[board])
    return [int(s) for s in k.iso_swap[first : first + k.b_iso_count[board]]]


def _map_card(card: int, suits: Sequence[int]) -> int:
    """The stored card of a real one: ``suits[s]`` is where real suit ``s`` is stored."""
    return 4 * rank_of(card) + suits[suit_of(card)]


def _unmap_card(card: int, suits: Sequence[int]) -> int:
    return 4 * rank_of(card) + list(suits).index(suit_of(card))


def _remove_card(
    spot: Spot, player: int, reach: npt.NDArray[np.float64], card: int
) -> npt.NDArray[np.float64]:
    hands = spot.hands[player]
    return np.where((hands == card).any(axis=1), 0.0, reach)


def _node_strategy(spot: Spot, state: K.State, node: int, inst: int, actor: int) -> npt.NDArray[np.float64]:
    k = spot.layout.kernel
    out = np.zeros((int(k.a_num[node]), int(k.nh.max())), dtype=np.float32)
    K.average_strategy(k, state, node, int(k.i_offset[inst] + k.a_local[node]), actor, out)
    return out[:, : k.nh[actor]].astype(np.float64)


class NodeView:
    """One node of a solved spot, for the hands of the player who acts there (OOP's elsewhere).

    Attributes are those of :meth:`SpotSolution.node`; ``hands`` are in the real suits of the path
    (the stored strategy of an isomorphic card is mapped back).
    """

    def __init__(self, solution: SpotSolution, place: _Place) -> None:
        spot, k = solution.spot, solution.spot.layout.kernel
        node = spot.layout.nodes[place.node]
        self.path = place.path
        self.kind = place.kind
        self.player = place.player
        self.street = node.street
        self.board = place.board
        self.committed = node.committed
        self.pot = spot.config.pot + sum(node.committed)
        self.actions: tuple[str, ...] = place.labels
        if place.kind == "chance":
            self.actions = tuple(format_card(c) for c in range(52) if c not in place.board)
        who = place.player if place.player >= 0 else 0
        self._solution, self._place, self._who = solution, place, who
        self.hands = spot.hands[who]
        self._stored = _stored_index(spot, place, who)  # each real hand's stored hand
        self.reach = place.reach[who]
        if place.kind == "player":
            self.strategy = _node_strategy(spot, solution.state, place.node, place.inst, who)[
                :, self._stored
            ].T
        else:
            self.strategy = np.ones((len(self.hands), 0))
        del k

    @property
    def ev(self) -> npt.NDArray[np.float64]:
        """Each hand's expected share of the pot at this node (chips; 0 where the hand cannot be here)."""
        values, norm = self._solution._values_at(self._place, self._who)
        ev = np.where(norm > 0, values / np.where(norm > 0, norm, 1), 0.0)
        base = self._solution.spot.config.pot / 2 + self.committed[self._who]
        return np.where((self.reach > 0) & (norm > 0), base + ev, 0.0)

    @property
    def equity(self) -> npt.NDArray[np.float64]:
        """Each hand's showdown equity against the opponent's range here, over every run-out."""
        return self._solution._equity_at(self._place, self._who)

    def by_class(self) -> dict[str, dict[str, Any]]:
        """Hand class -> reach-weighted ``weight``, ``strategy`` (per action), ``ev`` and ``equity``."""
        ev, equity = self.ev, self.equity
        groups: dict[str, list[int]] = {}
        for i, (a, b) in enumerate(self.hands):
            if self.reach[i] > 0:
                groups.setdefault(hand_class_name(int(a), int(b)), []).append(i)
        out: dict[str, dict[str, Any]] = {}
        for name, rows in groups.items():
            w = self.reach[rows]
            total = float(w.sum())
            out[name] = {
                "weight": total,
                "strategy": [float(x) for x in (w @ self.strategy[rows]) / total]
                if self.strategy.shape[1]
                else [],
                "ev": float(w @ ev[rows] / total),
                "equity": float(w @ equity[rows] / total),
            }
        return out


@dataclass(eq=False)
class SpotSolution:
    """A solved spot: figures of the solve, and its strategy (:meth:`node`)."""

    spot: Spot
    state: K.State
    iterations: int
    seconds: float
    exploitability_pct: float
    oop_ev: float
    ip_ev: float
    memory_bytes: int
    checks: list[tuple[int, float, float]] = field(default_factory=list)
    """Each measurement of the solve: (iterations, seconds since it began, exploitability in % of the pot)."""
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    def node(self, path: Sequence[str] = ()) -> NodeView:
        """The node reached by ``path``: action labels (``"Check"``, ``"Bet 120"``) and, where a card
        comes, the card (``"Qc"``)."""
        place = _locate(self.spot, tuple(path), allow_swaps=True, state=self.state)
        return NodeView(self, place)

    def _values_at(
        self, place: _Place, player: int
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``player``'s counterfactual values at ``place`` (average strategies), in real suits, and each
        hand's normaliser (the opponent's reach of the hands that share no card with it)."""
        key = ("values", place.path, player)
        if key not in self._cache:
            spot, k = self.spot, self.spot.layout.kernel
            lay = spot.layout
            opponent = 1 - player
            stored_reach = self._stored_vector(place, opponent, place.reach[opponent])
            reach = np.zeros(int(k.nh.max()), dtype=np.float32)
            reach[: k.nh[opponent]] = stored_reach
            out = np.zeros(int(k.nh.max()), dtype=np.float32)
            scr = K.scratch(lay.depth, lay.actions, int(k.nh.max()))
            K.run(
                k,
                self.state,
                place.node,
                place.inst,
                player,
                reach,
                out,
                K.AVERAGE,
                0,
                np.zeros((1, 1), np.float32),
                np.zeros((1, 1, 1), np.float32),
                scr,
            )
            values = self._real_vector(place, player, out[: k.nh[player]].astype(np.float64))
            norm = _compatible_reach(spot.hands[player], spot.hands[opponent], place.reach[opponent])
            self._cache[key] = (values, norm)
        return self._cache[key]

    def _stored_vector(
        self, place: _Place, player: int, real: npt.NDArray[np.float64]
    ) -> npt.NDArray[np.float64]:
        stored = np.zeros(len(real))
        stored[_stored_index(self.spot, place, player)] = real
        return stored

    def _real_vector(
        self, place: _Place, player: int, stored: npt.NDArray[np.float64]
    ) -> npt.NDArray[np.float64]:
        return np.asarray(stored[_stored_index(self.spot, place, player)], dtype=np.float64)

    def _equity_at(self, place: _Place, player: int) -> npt.NDArray[np.float64]:
        key = ("equity", place.path, player)
        if key not in self._cache:
            self._cache[key] = equity_vs_range(
                place.board, self.spot.hands[player], self.spot.hands[1 - player], place.reach[1 - player]
            )
        return self._cache[key]

    def summary(self) -> dict[str, Any]:
        spot = self.spot
        return {
            "iterations": self.iterations,
            "seconds": round(self.seconds, 4),
            "exploitability_pct": self.exploitability_pct,
            "oop_ev": self.oop_ev,
            "ip_ev": self.ip_ev,
            "memory_bytes": self.memory_bytes,
            "num_nodes": spot.num_nodes,
            "checks": [[i, round(t, 4), e] for i, t, e in self.checks],
            "board": format_cards(spot.board),
            "pot": spot.config.pot,
            "stack": spot.config.stack,
        }

    def to_json(self) -> dict[str, Any]:
        """The summary, the root by hand class and by hand, and the strategy of every player node of the
        first street (what ``pokerai spot --json`` prints)."""
        out = self.summary()
        root = self.node(())
        classes = root.by_class()
        ev, equity = root.ev, root.equity
        out["root"] = {
            "player": PLAYERS[root.player] if root.player >= 0 else None,
            "actions": list(root.actions),
            "strategy_by_class": {c: v["strategy"] for c, v in classes.items()},
            "ev_by_class": {c: v["ev"] for c, v in classes.items()},
            "equity_by_class": {c: v["equity"] for c, v in classes.items()},
            "hands": {
                format_cards(h): {
                    "strategy": [float(x) for x in root.strategy[i]],
                    "ev": float(ev[i]),
                    "equity": float(equity[i]),
                    "weight": float(root.reach[i]),
                }
                for i, h in enumerate(root.hands)
            },
        }
        out["strategy"] = {
            _path_text(path) if path else "": {
                "player": PLAYERS[view.player],
                "actions": list(view.actions),
                "hands": {
                    format_cards(h): [float(x) for x in view.strategy[i]] for i, h in enumerate(view.hands)
                },
            }
            for path, view in self._first_street_nodes()
        }
        return out

    def _first_street_nodes(self) -> list[tuple[tuple[str, ...], NodeView]]:
        found, stack = [], [()]  # type: list[tuple[tuple[str, ...], NodeView]], list[tuple[str, ...]]
        while stack:
            path = stack.pop()
            view = self.node(path)
            if view.kind != "player":
                continue
            found.append((path, view))
            stack.extend((*path, label) for label in reversed(view.actions))
        return found

    def save(self, path: str | Path) -> Path:
        """Write the solution to ``path`` atomically (a temporary file renamed over it)."""
        meta = {"format": FORMAT, "config": asdict(self.spot.config), **self.summary()}

        def write(stream: Any) -> None:
            buffer = io.BytesIO()
            np.savez_compressed(
                buffer, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
                regret=self.state.regret, strategy_sum=self.state.strategy_sum, locked=self.state.locked,
            )  # fmt: skip
            stream.write(buffer.getvalue())

        return write_atomically(path, write)


def load_solution(path: str | Path) -> SpotSolution:
    """A solution written by :meth:`SpotSolution.save`; :class:`SpotError` if the file is missing, not one
    or damaged."""
    target = Path(path)
    if not target.is_file():
        raise SpotError(f"no solved spot at {target}")
    try:
        with np.load(target, allow_pickle=False) as data:
            meta = json.loads(bytes(data["meta"]).decode())
            arrays = {name: np.array(data[name]) for name in ("regret", "strategy_sum", "locked")}
    except Exception as error:  # any unreadable file gets the same sentence
        raise SpotError(f"{target} is not a readable solved spot ({type(error).__name__})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise SpotError(f"{target} is not a solved spot of format {FORMAT}")
    try:
        return _solution_from(meta, arrays, target)
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, SpotError):
            raise
        raise SpotError(f"{target} is a damaged solved spot ({type(error).__name__}: {error})") from None


def _solution_from(meta: dict[str, Any], arrays: dict[str, npt.NDArray[Any]], target: Path) -> SpotSolution:
    config_fields = dict(meta["config"])
    config_fields["overrides"] = tuple(tuple(x) for x in config_fields.get("overrides", ()))
    spot = build_spot(SpotConfig(**config_fields))
    storage = (spot.layout.storage,)
    shapes = (arrays["regret"].shape, arrays["strategy_sum"].shape, arrays["locked"].shape)
    if shapes[0] != storage or shapes[1] != storage or shapes[2] not in (storage, (1,)):
        raise SpotError(f"{target} does not match its spot's tree (it was written by another version)")
    state = K.State(arrays["regret"], arrays["strategy_sum"], arrays["locked"], np.zeros(3))
    return SpotSolution(
        spot, state, int(meta["iterations"]), float(meta["seconds"]), float(meta["exploitability_pct"]),
        float(meta["oop_ev"]), float(meta["ip_ev"]), int(meta["memory_bytes"]),
        [(int(i), float(t), float(e)) for i, t, e in meta.get("checks", [])],
    )  # fmt: skip


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _stored_index(spot: Spot, place: _Place, player: int) -> npt.NDArray[np.int64]:
    hands = spot.hands[player]
    index = {(int(a), int(b)): i for i, (a, b) in enumerate(hands)}
    return np.array(
        [index[_pair(_map_card(int(a), place.suits), _map_card(int(b), place.suits))] for a, b in hands],
        dtype=np.int64,
    )


def _compatible_reach(
    own: npt.NDArray[np.int64], other: npt.NDArray[np.int64], reach: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """For each of ``own`` hands, ``reach`` summed over the ``other`` hands that share no card with it."""
    per_card = np.zeros(52)
    np.add.at(per_card, other[:, 0], reach)
    np.add.at(per_card, other[:, 1], reach)
    index = {(int(a), int(b)): i for i, (a, b) in enumerate(other)}
    same = np.array([reach[index[(int(a), int(b))]] if (int(a), int(b)) in index else 0.0 for a, b in own])
    return np.asarray(reach.sum() - per_card[own[:, 0]] - per_card[own[:, 1]] + same, dtype=np.float64)


def equity_vs_range(
    board: Sequence[int],
    own: npt.NDArray[np.int64],
    other: npt.NDArray[np.int64],
    reach: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """Each ``own`` hand's showdown equity (ties half) against ``other`` hands weighted by ``reach``, over
    every run-out of ``board``; 0 for a hand that holds a board card or meets no hand."""
    from itertools import combinations

    board = tuple(board)
    deck = [c for c in range(52) if c not in board]
    wins = np.zeros(len(own))
    ties_total = np.zeros(len(own))
    total = np.zeros(len(own))
    for runout in combinations(deck, 5 - len(board)):
        cards = board + runout
        own_ok = np.asarray(~np.isin(own, cards).any(axis=1), dtype=bool)
        other_ok = np.asarray(~np.isin(other, cards).any(axis=1), dtype=bool)
        r = np.where(other_ok, reach, 0.0)
        own_rank = _ranks(own, cards, own_ok)
        other_rank = _ranks(other, cards, other_ok)
        w, lose, compat = _win_lose(own, own_rank, own_ok, other, other_rank, r)
        wins += np.where(own_ok, w, 0.0)
        ties_total += np.where(own_ok, compat - w - lose, 0.0)
        total += np.where(own_ok, compat, 0.0)
    return np.where(total > 0, (wins + ties_total / 2) / np.where(total > 0, total, 1), 0.0)


def _ranks(
    hands: npt.NDArray[np.int64], board: Sequence[int], ok: npt.NDArray[np.bool_]
) -> npt.NDArray[np.int64]:
    seven = np.concatenate([np.broadcast_to(np.array(board, dtype=np.int64), (len(hands), 5)), hands], axis=1)
    seven = np.where(ok[:, None], seven, np.arange(7))
    return rank_hands(seven, validate=False).astype(np.int64)


def _win_lose(
    own: npt.NDArray[np.int64], own_rank: npt.NDArray[np.int64], own_ok: npt.NDArray[np.bool_],
    other: npt.NDArray[np.int64], other_rank: npt.NDArray[np.int64], reach: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:  # fmt: skip
    """Per own hand: the card-free reach of weaker, of stronger, and of all other hands."""
    compat = _compatible_reach(own, other, reach)
    order = np.argsort(other_rank, kind="stable")
    sorted_rank = other_rank[order]
    sorted_reach = reach[order]
    cum = np.concatenate([[0.0], np.cumsum(sorted_reach)])
    per_card_cum = np.zeros((53, len(order) + 1))
    for column in range(2):
        onehot = np.zeros((52, len(order)))
        onehot[other[order, column], np.arange(len(order))] = sorted_reach
        per_card_cum[:52, 1:] += np.cumsum(onehot, axis=1)
    below = np.searchsorted(sorted_rank, own_rank, side="left")
    above = np.searchsorted(sorted_rank, own_rank, side="right")
    weaker = cum[below] - per_card_cum[own[:, 0], below] - per_card_cum[own[:, 1], below]
    stronger = (
        (cum[-1] - cum[above])
        - (per_card_cum[own[:, 0], -1] - per_card_cum[own[:, 0], above])
        - (per_card_cum[own[:, 1], -1] - per_card_cum[own[:, 1], above])
    )
    return weaker, stronger, compat


__all__ = [
    "NodeView", "Spot", "SpotConfig", "SpotError", "SpotSolution", "build_spot", "check_locks",
    "decision_at", "equity_vs_range", "estimate_memory", "format_bytes", "load_solution", "solve_spot",
]  # fmt: skip
