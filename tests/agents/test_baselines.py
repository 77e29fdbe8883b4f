"""The simple baseline agents: legal actions, exact probabilities, the pot raise, call beats random.

Also holds ``random_observations`` and ``duplicate_match`` (a small self-contained duplicate
match), shared with the heuristic tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest

from pokerai.agents.base import Agent, Observation
from pokerai.agents.baselines import AllInAgent, CallAgent, RaiseAgent, RandomAgent, pot_raise_to
from pokerai.engine.cards import parse_cards
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState
from tests.engine.test_state import random_config

FOLD, CHECK, CALL, RAISE = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.RAISE
SIMPLE_AGENTS: tuple[type[Agent], ...] = (RandomAgent, CallAgent, RaiseAgent, AllInAgent)


def random_states(seed: int, hands: int, *, vary_config: bool = True) -> Iterator[HUNLState]:
    """Every decision point of ``hands`` hands played with random legal actions (deep, short, odd stacks)."""
    rng = np.random.default_rng(seed)
    player = RandomAgent()
    for _ in range(hands):
        config = random_config(rng) if vary_config else HUNLConfig()
        state = HUNLState.new(config, int(rng.integers(2)), rng=rng)
        while not state.is_over:
            yield state
            observation = Observation.from_state(state)
            # Bias towards small raises and calls so that hands reach later streets.
            if observation.min_raise_to is not None and rng.random() < 0.2:
                action = observation.raise_to(observation.min_raise_to)
            elif rng.random() < 0.5:
                action = observation.check_or_call()
            else:
                action = player.act(observation, rng)
            state = state.clone()
            state.apply(action)


@dataclass(frozen=True)
class MatchResult:
    """A duplicate match from the first agent's side: mbb per hand and the 95% CI half-width."""

    mbb_per_hand: float
    ci95: float
    deals: int

    def __str__(self) -> str:
        return f"{self.mbb_per_hand:+.0f} ± {self.ci95:.0f} mbb/hand over {self.deals} deals (4 hands each)"


def play_hand(
    config: HUNLConfig,
    button: int,
    deck: list[int],
    agents: tuple[Agent, Agent],
    seeds: tuple[list[int], list[int]],
) -> int:
    """Player 0's chips won in one hand; ``agents[i]`` plays player i with ``default_rng(seeds[i])``."""
    state = HUNLState.new(config, button, deck=deck)
    rngs = [np.random.default_rng(seeds[0]), np.random.default_rng(seeds[1])]
    for player, agent in enumerate(agents):
        agent.begin_hand(player, button)
    while not state.is_over:
        actor = state.to_act
        assert actor is not None
        action = agents[actor].act(Observation.from_state(state), rngs[actor])
        state.apply(action)
    return state.returns()[0]


def duplicate_match(
    first: Agent, second: Agent, deals: int, seed: int, config: HUNLConfig | None = None
) -> MatchResult:
    """``first``'s result over ``deals`` deals, each played four times; the CI is over deals.

    Each deal (two hole-card pairs X, Y and a board) is played with ``first`` on the button
    and in the big blind, each time once holding X and once holding Y (so the standard
    duplicate pair -- same cards by seat, agents swapped -- is included). Each agent's rng
    is seeded by the deal and its position, so hands that differ only by whose cards are
    whose share their random numbers: an unbiased estimate with much of the luck cancelled.
    A deal's four-hand mean is one sample of the CI.
    """
    config = config if config is not None else HUNLConfig()
    rng = np.random.default_rng(seed)
    per_deal = np.empty(deals)
    for index in range(deals):
        deck = rng.permutation(52)[:9].tolist()
        swapped = [*deck[2:4], *deck[0:2], *deck[4:]]
        deal_seed = int(rng.integers(2**31))
        button_seed, big_blind_seed = [deal_seed, 0], [deal_seed, 1]
        total = 0
        for cards in (deck, swapped):
            # first is player 0: on the button, then in the big blind.
            total += play_hand(config, 0, cards, (first, second), (button_seed, big_blind_seed))
            total += play_hand(config, 1, cards, (first, second), (big_blind_seed, button_seed))
        per_deal[index] = total / 4
    per_deal_mbb = per_deal / config.big_blind * 1000
    half_width = 1.96 * float(per_deal_mbb.std(ddof=1)) / math.sqrt(deals)
    return MatchResult(float(per_deal_mbb.mean()), half_width, deals)


# ---------------------------------------------------------------------------------------- legality


@pytest.mark.parametrize("agent_type", SIMPLE_AGENTS, ids=lambda t: t.name)
def test_every_action_is_legal_and_probabilities_sum_to_one(agent_type: type[Agent]) -> None:
    agent = agent_type()
    rng = np.random.default_rng(7)
    decisions = 0
    for state in random_states(seed=1, hands=150):
        observation = Observation.from_state(state)
        action = agent.act(observation, rng)
        state.verify(action)  # raises if illegal
        probability = agent.action_probability(observation, action)
        assert probability is not None and probability > 0
        # The full distribution over kinds and raise sizes sums to 1.
        total = sum(
            agent.action_probability(observation, Action(observation.player, kind, observation.call_amount))
            or 0.0
            for kind in (FOLD, CHECK, CALL)
        )
        low, high = observation.min_raise_to, observation.max_raise_to
        if low is not None:
            assert high is not None
            if isinstance(agent, RandomAgent):
                # Uniform: every legal size has the same probability (checked at a few), none outside.
                sizes = {low, high, (low + high) // 2, int(rng.integers(low, high + 1))}
                each = {
                    agent.action_probability(observation, Action(observation.player, RAISE, a)) for a in sizes
                }
                assert len(each) == 1
                total += each.pop() * (high - low + 1)
            else:
                # Deterministic: at most one raise size (the chosen one, if a raise) has any mass.
                sizes = {low, high, (low + high) // 2, action.amount if action.kind is RAISE else low}
                total += sum(
                    agent.action_probability(observation, Action(observation.player, RAISE, a)) or 0.0
                    for a in sizes
                )
            assert agent.action_probability(observation, Action(observation.player, RAISE, high + 1)) == 0.0
        assert total == pytest.approx(1.0)
        decisions += 1
    assert decisions > 500


@pytest.mark.parametrize("agent_type", SIMPLE_AGENTS, ids=lambda t: t.name)
def test_same_rng_same_actions(agent_type: type[Agent]) -> None:
    states = list(random_states(seed=2, hands=30))
    first = [agent_type().act(Observation.from_state(s), np.random.default_rng(5)) for s in states]
    second = [agent_type().act(Observation.from_state(s), np.random.default_rng(5)) for s in states]
    assert first == second


def test_random_agent_covers_every_legal_kind_uniformly() -> None:
    state = HUNLState.new(deck=parse_cards("AhKh 2c7d 3s4s5s Td Jc"))  # the button (player 0) faces the blind
    observation = Observation.from_state(state)
    assert observation.legal_actions == (FOLD, CALL, RAISE)
    rng = np.random.default_rng(0)
    actions = [RandomAgent().act(observation, rng) for _ in range(3000)]
    counts = {kind: sum(a.kind is kind for a in actions) for kind in (FOLD, CALL, RAISE)}
    assert all(900 < count < 1100 for count in counts.values()), counts
    raises = [a.amount for a in actions if a.kind is RAISE]
    assert min(raises) >= 200 and max(raises) <= 20_000
    assert np.mean(raises) == pytest.approx((200 + 20_000) / 2, rel=0.1)
    assert RandomAgent().action_probability(observation, Action(0, RAISE, 250)) == pytest.approx(
        1 / 3 / (20_000 - 200 + 1)
    )
    assert RandomAgent().action_probability(observation, Action(0, RAISE, 150)) == 0.0  # below the minimum
    assert RandomAgent().action_probability(observation, Action(0, CHECK)) == 0.0  # facing a bet


def test_random_agent_never_folds_when_it_may_check() -> None:
    for state in random_states(seed=3, hands=60):
        observation = Observation.from_state(state)
        if CHECK in observation.legal_actions:
            assert RandomAgent().action_probability(observation, Action(observation.player, FOLD)) == 0.0


# ------------------------------------------------------------------------------- deterministic agents


def test_call_agent_checks_or_calls_with_probability_one() -> None:
    state = HUNLState.new(deck=parse_cards("AhKh 2c7d 3s4s5s Td Jc"))
    observation = Observation.from_state(state)
    agent = CallAgent()
    assert agent.act(observation, np.random.default_rng(0)) == Action(0, CALL, 50)
    assert agent.action_probability(observation, Action(0, CALL, 50)) == 1.0
    assert agent.action_probability(observation, Action(0, CALL)) == 1.0  # amount left out
    assert agent.action_probability(observation, Action(0, FOLD)) == 0.0
    assert agent.action_probability(observation, Action(0, RAISE, 300)) == 0.0
    state.call()
    observation = Observation.from_state(state)  # the big blind may check
    assert agent.act(observation, np.random.default_rng(0)) == Action(1, CHECK)


def test_pot_raise_hand_computed() -> None:
    # Blinds 50/100: the button owes 50; pot after calling 200; raise to 100 + 200 = 300.
    state = HUNLState.new(deck=parse_cards("AhKh 2c7d 3s4s5s Td Jc"))
    assert pot_raise_to(Observation.from_state(state)) == 300
    assert RaiseAgent().act(Observation.from_state(state), np.random.default_rng(0)) == Action(0, RAISE, 300)
    state.raise_to(300)
    # The big blind faces 300 with 100 in: owes 200; pot after calling 600; raise to 300 + 600 = 900.
    assert pot_raise_to(Observation.from_state(state)) == 900
    state.call()
    # Flop, pot 600, nobody has bet: a pot bet is 600. The big blind (player 1) acts first.
    assert state.street == 1 and state.to_act == 1
    assert RaiseAgent().act(Observation.from_state(state), np.random.default_rng(0)) == Action(1, RAISE, 600)
    state.raise_to(200)
    # Player 0 faces 200 into 800: owes 200; pot after calling 1000; raise to 200 + 1000 = 1200.
    observation = Observation.from_state(state)
    assert pot_raise_to(observation) == 1200
    assert RaiseAgent().action_probability(observation, Action(0, RAISE, 1200)) == 1.0
    assert RaiseAgent().action_probability(observation, Action(0, CALL, 200)) == 0.0


def test_raise_agent_goes_all_in_when_the_pot_raise_exceeds_the_stack() -> None:
    state = HUNLState.new(HUNLConfig(50, 100, (250, 10_000)), deck=parse_cards("AhKh 2c7d 3s4s5s Td Jc"))
    observation = Observation.from_state(state)
    assert pot_raise_to(observation) == 300
    assert RaiseAgent().act(observation, np.random.default_rng(0)) == Action(0, RAISE, 250)
    state.raise_to(250)
    # Player 1 faces an all-in: raising is not legal, so it calls.
    assert RaiseAgent().act(Observation.from_state(state), np.random.default_rng(0)) == Action(1, CALL, 150)


def test_allin_agent_shoves_or_calls() -> None:
    state = HUNLState.new(deck=parse_cards("AhKh 2c7d 3s4s5s Td Jc"))
    observation = Observation.from_state(state)
    assert AllInAgent().act(observation, np.random.default_rng(0)) == Action(0, RAISE, 20_000)
    assert AllInAgent().action_probability(observation, Action(0, RAISE, 20_000)) == 1.0
    assert AllInAgent().action_probability(observation, Action(0, RAISE, 19_999)) == 0.0
    state.raise_to(20_000)
    assert AllInAgent().act(Observation.from_state(state), np.random.default_rng(0)) == Action(
        1, CALL, 19_900
    )


def test_probability_of_another_players_action_is_zero() -> None:
    state = HUNLState.new(deck=parse_cards("AhKh 2c7d 3s4s5s Td Jc"))
    observation = Observation.from_state(state)
    for agent_type in SIMPLE_AGENTS:
        assert agent_type().action_probability(observation, Action(1, CALL, 50)) == 0.0


# ---------------------------------------------------------------------------------------- matches


def test_duplicate_match_of_an_agent_against_itself_is_exactly_zero() -> None:
    # Each hand has a mirror in the deal's four (same cards by position, players swapped) with the
    # same random numbers by position, so self-play cancels exactly, random or not.
    result = duplicate_match(RandomAgent(), RandomAgent(), deals=100, seed=0)
    assert result.mbb_per_hand == 0.0 and result.ci95 == 0.0
    different = duplicate_match(RandomAgent(), CallAgent(), deals=100, seed=0)
    assert different.mbb_per_hand != 0.0


def test_call_beats_random() -> None:
    result = duplicate_match(CallAgent(), RandomAgent(), deals=300, seed=11)
    assert result.mbb_per_hand - result.ci95 > 0, str(result)


@pytest.mark.slow
def test_call_beats_random_large() -> None:
    result = duplicate_match(CallAgent(), RandomAgent(), deals=3000, seed=12)
    print(f"call vs random: {result}")
    assert result.mbb_per_hand - result.ci95 > 0, str(result)
