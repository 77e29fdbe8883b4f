"""Duplicate matches: seat swapping, confidence intervals, conservation, reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.agents.base import Agent, Observation
from pokerai.engine.history import parse_acpc
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState
from pokerai.eval.duplicate import Z95, check_conservation, duplicate_match, mean_ci95, play_hand
from tests.eval.toy_agents import FoldAgent, StrengthAgent, UniformKindAgent


def test_mean_ci95_is_the_normal_interval() -> None:
    values = np.array([1.0, 2.0, 3.0, 4.0])
    estimate = mean_ci95(values, scale=10.0)
    half = Z95 * np.std(values, ddof=1) / 2 * 10.0
    assert estimate.mean == pytest.approx(25.0)
    assert (estimate.low, estimate.high) == pytest.approx((25.0 - half, 25.0 + half))


def test_self_play_mirrors_exactly_with_common_random_numbers() -> None:
    result = duplicate_match(StrengthAgent(), StrengthAgent(), 100, seed=3)
    # Hand 2 of each pair replays hand 1 with the agents swapped: A's results cancel pair by pair.
    assert np.array_equal(result.a_results[:, 0], -result.a_results[:, 1])
    assert np.any(result.a_results != 0)
    assert result.mbb_per_hand == 0.0 and result.ci95 == (0.0, 0.0)


@pytest.mark.parametrize("make", [UniformKindAgent, StrengthAgent])
def test_self_play_is_zero_within_its_ci_and_duplicate_beats_plain(make: type[Agent]) -> None:
    result = duplicate_match(make(), make(), 300, seed=11, mirror_randomness=False)
    low, high = result.ci95
    assert low <= 0.0 <= high
    assert result.estimate.half_width < result.plain_estimate.half_width
    assert result.estimate.mean == pytest.approx(result.plain_estimate.mean)


def test_duplicate_ci_is_much_narrower_for_a_card_driven_agent() -> None:
    result = duplicate_match(StrengthAgent(), StrengthAgent(), 300, seed=11, mirror_randomness=False)
    assert result.estimate.half_width < 0.75 * result.plain_estimate.half_width


def test_a_real_edge_is_detected() -> None:
    result = duplicate_match(StrengthAgent(), FoldAgent(), 300, seed=5)
    assert result.ci95[0] > 0  # folding to every bet loses the blinds


def test_seats_are_swapped_with_the_same_cards() -> None:
    seen: list[tuple[str, int, tuple[int, int], int]] = []

    class Spy(Agent):
        def __init__(self, name: str) -> None:
            self.name = name

        def act(self, observation: Observation, rng: np.random.Generator) -> Action:
            assert type(observation) is Observation
            seen.append((self.name, observation.player, observation.hole_cards, observation.button))
            return observation.check_or_call()

    duplicate_match(Spy("A"), Spy("B"), 1, seed=9)
    first_decision = {(name, player): cards for name, player, cards, _ in seen}
    assert first_decision[("A", 0)] == first_decision[("B", 0)]
    assert first_decision[("A", 1)] == first_decision[("B", 1)]
    assert first_decision[("A", 0)] != first_decision[("A", 1)]
    assert len({button for *_, button in seen}) == 1


def test_reproducible_and_independent_of_workers() -> None:
    one = duplicate_match(UniformKindAgent(), StrengthAgent(), 40, seed=2)
    again = duplicate_match(UniformKindAgent(), StrengthAgent(), 40, seed=2)
    two = duplicate_match(UniformKindAgent(), StrengthAgent(), 40, seed=2, workers=2)
    other = duplicate_match(UniformKindAgent(), StrengthAgent(), 40, seed=3)
    assert np.array_equal(one.a_results, again.a_results)
    assert np.array_equal(one.a_results, two.a_results)
    assert not np.array_equal(one.a_results, other.a_results)
    assert two.workers == 2 and one.hands == 80


def test_check_conservation_catches_lost_chips() -> None:
    state = HUNLState.new(HUNLConfig(), 0, rng=np.random.default_rng(0))
    with pytest.raises(AssertionError, match="not over"):
        check_conservation(state)
    state.fold()
    assert check_conservation(state) == (-50, 50)
    state.stacks[1] -= 1
    with pytest.raises(AssertionError, match="not conserved"):
        check_conservation(state)


def test_every_hand_is_checked_for_conservation(monkeypatch: pytest.MonkeyPatch) -> None:
    import pokerai.eval.duplicate as duplicate

    checked: list[tuple[int, int]] = []

    def spy(state: HUNLState) -> tuple[int, int]:
        checked.append(check_conservation(state))
        return checked[-1]

    monkeypatch.setattr(duplicate, "check_conservation", spy)
    result = duplicate.duplicate_match(UniformKindAgent(), StrengthAgent(), 25, seed=1)
    assert len(checked) == 50
    assert sum(returns[0] for returns in checked[::2]) == result.a_results[:, 0].sum()


def test_illegal_action_names_the_agent() -> None:
    class Cheater(Agent):
        name = "cheater"

        def act(self, observation: Observation, rng: np.random.Generator) -> Action:
            return Action(observation.player, ActionKind.RAISE, 10**9)

    state = HUNLState.new(HUNLConfig(), 0, rng=np.random.default_rng(0))
    rngs = [np.random.default_rng(1), np.random.default_rng(2)]
    with pytest.raises(ValueError, match="agent 'cheater' chose an illegal action"):
        play_hand(state, [Cheater(), Cheater()], rngs)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_bad_counts_are_errors(bad: object) -> None:
    with pytest.raises(ValueError, match="positive whole number"):
        duplicate_match(FoldAgent(), FoldAgent(), bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="workers"):
        duplicate_match(FoldAgent(), FoldAgent(), 1, workers=bad)  # type: ignore[arg-type]


def test_log_has_every_hand_as_a_state_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "match.log"
    result = duplicate_match(UniformKindAgent(), StrengthAgent(), 10, seed=4, log_path=path)
    lines = path.read_text().splitlines()
    assert len(lines) == 20 and all(line.startswith("STATE:") for line in lines)
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed
    for index, line in enumerate(lines):
        assert line.split(":")[1] == str(index)
        parsed = parse_acpc(line)
        pair, hand = divmod(index, 2)
        names = line.split(":")[-1].split("|")
        results = [int(x) for x in line.split(":")[-2].split("|")]
        a_seat = names.index("uniform")
        assert results[a_seat] == result.a_results[pair, hand]
        assert parsed is not None


def test_heuristic_beats_call() -> None:
    from pokerai.agents.spec import make_agent

    result = duplicate_match(make_agent("heuristic"), make_agent("call"), 100, seed=0)
    assert result.ci95[0] > 0


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["random", "call", "raise"])
def test_heuristic_beats_the_simple_baselines(opponent: str) -> None:
    from pokerai.agents.spec import make_agent

    result = duplicate_match(make_agent("heuristic"), make_agent(opponent), 300, seed=1, workers=2)
    assert result.ci95[0] > 0, result.to_json()


def test_call_beats_random_by_the_hand_computed_edge_with_swapped_cards() -> None:
    """``call`` never bets, so ``random`` folds only as the button facing the big blind: a third
    of its button hands, losing the 50-chip small blind. Everything else is a showdown at even
    equity, so call's edge is 1/2 x 1/3 x 50 chips = 8.33 chips = 83.3 mbb/hand. A two-hand
    duplicate cannot resolve it under ``random``'s all-in swings; exchanging the hole cards
    as well cancels the cards' luck, because the card-blind agents repeat their actions."""
    from pokerai.agents import CallAgent, RandomAgent

    result = duplicate_match(CallAgent(), RandomAgent(), 3000, seed=0, swap_cards=True)
    assert result.hands == 12_000 and result.to_json()["swap_cards"] is True
    low, high = result.ci95
    assert 0 < low <= 1000 / 12 <= high
    assert high - low < 20
    plain = duplicate_match(CallAgent(), RandomAgent(), 300, seed=0)
    assert plain.ci95[0] < 0 < plain.ci95[1], "the two-hand duplicate cannot tell"


def test_swapped_cards_self_play_is_exactly_zero() -> None:
    from pokerai.agents import RandomAgent

    result = duplicate_match(RandomAgent(), RandomAgent(), 100, seed=3, swap_cards=True)
    assert result.a_results.shape == (100, 4)
    assert result.mbb_per_hand == 0.0 and result.ci95 == (0.0, 0.0)
