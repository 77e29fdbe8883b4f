"""AIVAT: exact unbiasedness on Kuhn and Leduc by enumeration, and its hold'em estimate."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.agents.base import Agent, HandSummary, Observation, RangePolicy
from pokerai.agents.baselines import AllInAgent, CallAgent, RaiseAgent, RandomAgent
from pokerai.agents.exploiters import ShoverAgent
from pokerai.engine.cards import parse_cards
from pokerai.engine.equity import equity as exact_equity
from pokerai.engine.state import HUNLState
from pokerai.eval.aivat import AIVATConfig, GamePolicy, game_aivat, hand_aivat, showdown_equities
from pokerai.eval.duplicate import duplicate_match, play_hand
from pokerai.games.kuhn import KuhnPoker
from pokerai.games.leduc import LeducPoker
from pokerai.games.protocol import Game, State
from pokerai.solvers.best_response import tree_of
from pokerai.solvers.policy import TabularPolicy

# ---------------------------------------------------------------------- exact enumeration


def _terminals(game: Game, policy: TabularPolicy) -> Iterator[tuple[list[int], float, State]]:
    """Every terminal trajectory with its probability under chance and ``policy`` (both players)."""

    def walk(
        state: State, trajectory: list[int], probability: float
    ) -> Iterator[tuple[list[int], float, State]]:
        if state.is_terminal():
            yield trajectory, probability, state
            return
        if state.is_chance():
            pairs = list(state.chance_outcomes())
        else:
            pairs = list(policy.action_probabilities(state).items())
        for action, p in pairs:
            if p > 0:
                yield from walk(state.child(action), [*trajectory, action], probability * p)

    return walk(game.initial_state(), [], 1.0)


def _random_policy(game: Game, seed: int) -> TabularPolicy:
    tree = tree_of(game)
    rng = np.random.default_rng(seed)
    return TabularPolicy.from_weights(tree, rng.random(tree.legal_mask.shape) ** 2)


def _hashed_value(state: State) -> float:
    """An arbitrary (but fixed) value of each state: AIVAT is unbiased for any value function."""
    digest = hashlib.sha256(str(state).encode()).digest()
    return int.from_bytes(digest[:4], "little") / 2**32 * 6.0 - 3.0


def _exact_values(policy: TabularPolicy, player: int) -> Callable[[State], float]:
    """The exact expected return of ``player`` from each state when both play ``policy``."""
    cache: dict[str, float] = {}

    def value(state: State) -> float:
        key = str(state)
        if key not in cache:
            if state.is_terminal():
                cache[key] = state.returns()[player]
            else:
                pairs = (
                    state.chance_outcomes()
                    if state.is_chance()
                    else policy.action_probabilities(state).items()
                )
                cache[key] = sum(p * value(state.child(a)) for a, p in pairs if p > 0)
        return cache[key]

    return value


GAMES: list[Game] = [KuhnPoker(), LeducPoker()]
KNOWN = [(True, True), (True, False), (False, True), (False, False)]
VALUES = ["zero", "hashed", "exact"]
# Every Kuhn case by default; the Leduc grid (10-15 s a case) is marked slow.
CASES = [
    pytest.param(
        game,
        known,
        values,
        marks=() if game.name == "kuhn" else pytest.mark.slow,
        id=f"{game.name}-{''.join('k' if k else 'u' for k in known)}-{values}",
    )
    for game in GAMES
    for known in KNOWN
    for values in VALUES
]


@pytest.mark.parametrize(("game", "known", "values"), CASES)
def test_the_exact_expectation_of_aivat_is_the_expected_value(
    game: Game, known: tuple[bool, bool], values: str
) -> None:
    policy = _random_policy(game, seed=7)
    for player in (0, 1):
        value: Callable[[State], float] = {
            "zero": lambda state: 0.0,
            "hashed": _hashed_value,
            "exact": _exact_values(policy, player),
        }[values]
        policies: list[GamePolicy | None] = [policy if known[p] else None for p in (0, 1)]
        expected_result = expected_estimate = 0.0
        for trajectory, probability, terminal in _terminals(game, policy):
            expected_result += probability * terminal.returns()[player]
            expected_estimate += probability * game_aivat(game, trajectory, player, policies, value)
        assert expected_estimate == pytest.approx(expected_result, abs=1e-9)
        assert expected_result == pytest.approx(
            _exact_values(policy, player)(game.initial_state()), abs=1e-12
        )


@pytest.mark.parametrize(
    "game", [GAMES[0], pytest.param(GAMES[1], marks=pytest.mark.slow)], ids=lambda game: game.name
)
def test_with_the_exact_values_and_both_policies_known_every_estimate_is_the_game_value(game: Game) -> None:
    policy = _random_policy(game, seed=3)
    value = _exact_values(policy, 0)
    target = value(game.initial_state())
    estimates = [
        game_aivat(game, trajectory, 0, [policy, policy], value)
        for trajectory, _, _ in _terminals(game, policy)
    ]
    assert np.allclose(estimates, target, atol=1e-12)


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_one_known_seat_with_good_values_removes_most_of_the_variance(game: Game) -> None:
    policy = _random_policy(game, seed=5)
    value = _exact_values(policy, 0)
    probabilities, plain, corrected = [], [], []
    for trajectory, probability, terminal in _terminals(game, policy):
        probabilities.append(probability)
        plain.append(terminal.returns()[0])
        corrected.append(game_aivat(game, trajectory, 0, [policy, None], value))
    weights = np.array(probabilities)
    mean = weights @ np.array(plain)

    def variance(values: list[float]) -> float:
        return float(weights @ (np.array(values) - mean) ** 2)

    assert weights @ np.array(corrected) == pytest.approx(mean, abs=1e-9)
    assert variance(corrected) < 0.5 * variance(plain)


def test_a_trajectory_that_does_not_end_the_game_is_refused() -> None:
    policy = _random_policy(KuhnPoker(), seed=1)
    with pytest.raises(ValueError, match="does not end"):
        game_aivat(KuhnPoker(), [0, 1], 0, [policy, policy], lambda state: 0.0)


# ---------------------------------------------------------------------- hold'em


def test_sampled_equities_match_exact_ones() -> None:
    hands = np.array([parse_cards("AhKh"), parse_cards("7c2d"), parse_cards("QsQd")], dtype=np.int64)
    opponent = (parse_cards("JcJs")[0], parse_cards("JcJs")[1])
    board = parse_cards("Jd8h2s")
    rng = np.random.default_rng(0)
    sampled = showdown_equities(hands, opponent, board, 4000, rng)
    exact = [exact_equity(list(hand), list(opponent), board).equity[0] for hand in hands.tolist()]
    assert sampled == pytest.approx(exact, abs=0.02)
    turn = [*board, parse_cards("3c")[0]]
    exact_turn = [exact_equity(list(hand), list(opponent), turn).equity[0] for hand in hands.tolist()]
    assert showdown_equities(hands, opponent, turn, 1, rng) == pytest.approx(exact_turn, abs=1e-12)


def _hand(agents: tuple[Agent, Agent], seed: int) -> HUNLState:
    rng = np.random.default_rng(seed)
    state = HUNLState.new(button=seed & 1, rng=rng)
    return play_hand(state, agents, [np.random.default_rng([seed, 1]), np.random.default_rng([seed, 2])])


def test_checking_down_is_valued_at_exactly_zero_whatever_the_cards() -> None:
    # Two known agents that always check or call: every card's luck is a chance event with a control
    # variate, and the last one is exact, so each hand's estimate is its expected value, 0.
    results, estimates = [], []
    for seed in range(40):
        state = _hand((CallAgent(), CallAgent()), seed)
        results.append(state.returns()[0])
        estimates.append(hand_aivat(state, 0, (CallAgent(), CallAgent()), np.random.default_rng(seed)))
    assert np.any(np.array(results) != 0)
    assert estimates == pytest.approx([0.0] * 40, abs=1e-9)


class _Liar(CallAgent):
    """Checks or calls, but says it always raises all-in where it may."""

    name = "liar"

    def range_policy(self, observation: Observation, hands: npt.NDArray[np.int64]) -> RangePolicy | None:
        return AllInAgent().range_policy(observation, hands)


def test_a_known_agent_whose_policy_denies_its_action_is_an_error() -> None:
    state = _hand((_Liar(), CallAgent()), 1)
    with pytest.raises(ValueError, match="probability 0"):
        hand_aivat(state, 0, (_Liar(), CallAgent()), np.random.default_rng(0))


@pytest.mark.parametrize(
    "agents",
    [(RaiseAgent(), CallAgent()), (AllInAgent(), RandomAgent()), (RandomAgent(), RaiseAgent())],
    ids=["raise-call", "allin-random", "random-raise"],
)
def test_hold_em_aivat_agrees_with_the_plain_mean_and_has_less_variance(agents: tuple[Agent, Agent]) -> None:
    plain, corrected = [], []
    config = AIVATConfig(boards=24)
    for seed in range(150):
        state = _hand(agents, seed)
        plain.append(state.returns()[0])
        corrected.append(hand_aivat(state, 0, agents, np.random.default_rng([seed, 99]), config))
    plain_array, corrected_array = np.array(plain, float), np.array(corrected, float)
    spread = np.sqrt(plain_array.var() / len(plain) + corrected_array.var() / len(corrected))
    assert abs(plain_array.mean() - corrected_array.mean()) < 4 * spread
    assert corrected_array.var() < plain_array.var()


def _without_and_with_lookahead(
    agents: tuple[Agent, Agent], player: int, hands: int = 300
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``player``'s results over ``hands`` hands, and AIVAT's estimates of them without and with the
    lookahead (the same boards for both)."""
    plain: list[float] = []
    flat: list[float] = []
    ahead: list[float] = []
    configs = ((AIVATConfig(boards=24, lookahead=0), flat), (AIVATConfig(boards=24), ahead))
    for seed in range(hands):
        state = _hand(agents, seed)
        plain.append(state.returns()[player])
        for config, estimates in configs:
            estimates.append(hand_aivat(state, player, agents, np.random.default_rng([seed, 9]), config))
    return np.array(plain, float), np.array(flat, float), np.array(ahead, float)


@pytest.mark.parametrize("shover_seat", [0, 1])
def test_looking_one_step_ahead_keeps_the_mean_and_removes_more_variance(shover_seat: int) -> None:
    # The random agent often folds to the shove; valuing the shove as called misjudges it.
    agents: tuple[Agent, Agent] = (ShoverAgent(0.5), RandomAgent())
    if shover_seat:
        agents = (agents[1], agents[0])
    plain_array, flat_array, ahead_array = _without_and_with_lookahead(agents, 0)
    for one, other in ((ahead_array, flat_array), (ahead_array, plain_array)):
        difference = one - other
        assert abs(difference.mean()) < 4 * difference.std() / np.sqrt(len(difference))
    assert ahead_array.var() < 0.8 * flat_array.var() and flat_array.var() < plain_array.var()


@pytest.mark.parametrize("shover_seat", [0, 1])
def test_an_unknown_seats_answer_to_a_bet_is_valued_by_its_real_cards_without_bias(shover_seat: int) -> None:
    # The heuristic's policy is unknown; it folds weak hands to the shove. Valuing the shove as called
    # misjudges those hands; the better of fold and call for its real hand, against the shover's
    # range after the shove, misjudges fewer. Both estimators are unbiased: on the same hands their
    # difference has mean 0.
    from pokerai.agents.heuristic import HeuristicAgent

    agents: tuple[Agent, Agent] = (ShoverAgent(0.5), HeuristicAgent())
    if shover_seat:
        agents = (agents[1], agents[0])
    _, flat_array, ahead_array = _without_and_with_lookahead(agents, shover_seat)
    difference = ahead_array - flat_array
    assert np.count_nonzero(difference) > 10  # the look ahead changed some hands
    assert abs(difference.mean()) < 4 * difference.std() / np.sqrt(len(difference))
    assert ahead_array.var() < 0.8 * flat_array.var()


def test_a_duplicate_match_reports_aivat_when_a_policy_is_known() -> None:
    result = duplicate_match(RaiseAgent(), RandomAgent(), 60, seed=4, aivat=None)
    assert result.aivat_results is not None and result.aivat_results.shape == result.a_results.shape
    summary = result.aivat
    assert summary is not None and summary.ci95[0] <= summary.mbb_per_hand <= summary.ci95[1]
    payload = result.to_json()["aivat"]
    assert payload is not None and set(payload) == {"mbb_per_hand", "ci95", "variance_reduction"}
    assert duplicate_match(RaiseAgent(), RandomAgent(), 60, seed=4, aivat=False).aivat is None
    # The same seed gives the same AIVAT estimates, with any number of workers.
    again = duplicate_match(RaiseAgent(), RandomAgent(), 60, seed=4, workers=2, aivat=True)
    assert again.aivat_results is not None
    assert np.array_equal(again.aivat_results, result.aivat_results)


class _Learner(CallAgent):
    """Checks or calls; asked for its policy only while a hand runs (before ``end_hand``), as an agent
    that learns from each hand's end needs."""

    name = "learner"
    in_hand = False

    def begin_hand(self, player: int, button: int) -> None:
        self.in_hand = True

    def end_hand(self, summary: HandSummary) -> None:
        self.in_hand = False

    def range_policy(self, observation: Observation, hands: npt.NDArray[np.int64]) -> RangePolicy | None:
        assert self.in_hand, "asked for the policy after the hand ended"
        return super().range_policy(observation, hands)


def test_a_duplicate_match_scores_each_hand_before_the_agents_learn_from_it() -> None:
    result = duplicate_match(_Learner(), RandomAgent(), 20, seed=6, aivat=True)
    assert result.aivat_results is not None and np.all(np.isfinite(result.aivat_results))


def test_aivat_is_off_by_default_when_no_policy_is_known() -> None:
    from pokerai.agents.heuristic import HeuristicAgent

    assert duplicate_match(HeuristicAgent(), HeuristicAgent(), 3, seed=1, aivat=None).aivat is None


def test_an_lbr_run_scores_lbr_with_aivat_over_the_targets_hands() -> None:
    from pokerai.eval.lbr import LBR_MENUS, lbr_match

    result = lbr_match(RandomAgent(), 30, seed=2, lbr_config=LBR_MENUS["lisy-bowling"], aivat=None)
    assert result.aivat_results is not None and result.aivat_results.shape == (30,)
    assert result.to_json()["aivat"] is not None
    assert not np.array_equal(result.aivat_results, result.exploiter_results)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"boards": 0}, "boards 0 is not a positive whole number"),
        ({"boards": True}, "boards True is not a positive whole number"),
        ({"growth": (1.0, 0.5, 1.0)}, "is not three numbers >= 1"),
        ({"growth": (1.0, 1.0)}, "is not three numbers >= 1"),
        ({"lookahead": -1}, "lookahead -1 is not a whole number >= 0"),
        ({"lookahead": 2.5}, "lookahead 2.5 is not a whole number >= 0"),
    ],
)
def test_bad_aivat_settings_are_refused(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        AIVATConfig(**settings)
