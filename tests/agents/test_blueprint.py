"""The blueprint agent: the learning game's record and menu rebuilt from an Observation, legal play."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerai.abstraction.bets import slot_actions
from pokerai.agents.base import Observation
from pokerai.agents.baselines import RandomAgent
from pokerai.agents.blueprint import (
    BlueprintAgent,
    blueprint_seat,
    replay_observation,
)
from pokerai.agents.spec import make_agent
from pokerai.deepcfr.encoding import HUNLEncoder
from pokerai.deepcfr.export import Blueprint
from pokerai.deepcfr.trainer import DeepCFRTrainer, load_deepcfr_config
from pokerai.engine.state import Action, HUNLConfig, HUNLState
from pokerai.eval.duplicate import duplicate_match
from pokerai.games.holdem import HUNL_RECORD_DTYPE, decision_records, decision_view
from pokerai.games.hunl import HUNLGame, HUNLGameState
from tests.deepcfr.tiny import TINY_HUNL


@pytest.fixture(scope="module")
def blueprint(hunl_blueprint_dir: Path) -> Blueprint:
    return Blueprint.load(hunl_blueprint_dir)


def as_record(values: tuple[Any, ...]) -> np.ndarray:
    record = np.empty(1, dtype=HUNL_RECORD_DTYPE)
    record[0] = values
    return record


def mirrored(state: HUNLGameState) -> HUNLState:
    """The same hand in the engine with the button as player 1: hole cards and actions swapped."""
    deal = state.engine.deal
    engine = HUNLState.new(state.game.config, button=1, deck=[*deal[2:4], *deal[0:2], *deal[4:]])
    for action in state.engine.history:
        engine.apply(Action(1 - action.player, action.kind, action.amount))
    return engine


def random_decisions(game: HUNLGame, hands: int, seed: int) -> list[HUNLGameState]:
    """Every decision of ``hands`` hands of ``game`` played with uniformly random legal slots."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(hands):
        state = game.deal(rng)
        while state.current_player() in (0, 1):
            states.append(state)
            state = state.child(int(rng.choice(state.legal_actions())))
    return states


def test_record_and_menu_from_an_observation_match_the_learning_game() -> None:
    game = HUNLGame()
    encoder = HUNLEncoder(game)
    states = random_decisions(game, hands=150, seed=7)
    assert {state.street for state in states} == {0, 1, 2, 3}
    assert {state.current_player() for state in states} == {0, 1}
    assert max(state.raises_this_street for state in states) >= 2
    for state in states:
        seat = state.current_player()
        expected = as_record(encoder.record(state, seat))
        for engine in (state.engine, mirrored(state)):
            observation = Observation.from_state(engine)
            assert blueprint_seat(observation) == seat
            replayed = replay_observation(observation)
            assert decision_records(decision_view(replayed), [observation.hole_cards]) == expected
            if replayed.board:  # the hand on a board of its own, the same cards dealt in another order
                board = [[*replayed.board[2::-1], *replayed.board[3:]]]
                assert decision_records(decision_view(replayed), [observation.hole_cards], board) == expected
            mask, actions = slot_actions(replayed, game.bets)
            np.testing.assert_array_equal(mask, state.legal_mask())
            for slot in state.legal_actions():
                action = actions[slot]
                assert action is not None
                assert (action.kind, action.amount) == (
                    state.slot_action(slot).kind,
                    state.slot_action(slot).amount,
                )
                assert action.player == observation.player


def test_inconsistent_observations_are_refused() -> None:
    state = HUNLState.new(HUNLConfig(), 0, deck=list(range(9)))
    state.raise_to(300)
    observation = Observation.from_state(state)
    with pytest.raises(ValueError, match="not the observed"):
        replay_observation(dataclasses.replace(observation, pot=999))
    with pytest.raises(ValueError, match="not distinct card ids"):
        replay_observation(dataclasses.replace(observation, hole_cards=(2, 2)))
    with pytest.raises(ValueError, match="does not replay"):
        replay_observation(
            dataclasses.replace(observation, history=(*observation.history, *observation.history))
        )


@pytest.mark.parametrize(
    "config",
    [HUNLConfig(), HUNLConfig(1, 2, (300, 300)), HUNLConfig(50, 100, (1_000, 30_000))],
    ids=["blueprint game", "1/2 150bb", "uneven stacks"],
)
def test_the_agent_plays_only_legal_actions(blueprint: Blueprint, config: HUNLConfig) -> None:
    agent = BlueprintAgent(blueprint)
    thresholded = BlueprintAgent(blueprint, threshold=0.5)
    opponent = RandomAgent()  # off-menu bet sizes
    rng = np.random.default_rng(3)
    decisions = 0
    for hand in range(30):
        state = HUNLState.new(config, hand % 2, rng=rng)
        while state.to_act is not None:
            observation = Observation.from_state(state)
            for player in (agent, thresholded):
                action = player.act(observation, rng)
                assert state.can_apply(action), (action, state)
            probabilities, actions = agent.decision(observation)
            distinct = {(a.kind, a.amount) for a in actions if a is not None}
            total = sum(
                agent.action_probability(observation, Action(observation.player, kind, amount)) or 0.0
                for kind, amount in distinct
            )
            assert total == pytest.approx(1.0)
            assert (thresholded.action_probability(observation, thresholded.act(observation, rng)) or 0) > 0
            assert float(np.sum(probabilities)) == pytest.approx(1.0)
            decisions += 1
            mover = agent if state.to_act == hand % 2 else opponent
            state.apply(mover.act(observation, rng))
    assert decisions > 60


def test_sampling_follows_the_policy(blueprint: Blueprint) -> None:
    agent = BlueprintAgent(blueprint)
    observation = Observation.from_state(HUNLState.new(HUNLConfig(), 0, deck=list(range(9))))
    probabilities, actions = agent.decision(observation)
    rng = np.random.default_rng(0)
    counts = np.zeros(len(actions))
    for _ in range(2000):
        chosen = agent.act(observation, rng)
        counts[next(slot for slot, a in enumerate(actions) if a == chosen)] += 1
    np.testing.assert_allclose(counts / counts.sum(), probabilities, atol=0.04)


def test_thresholding(blueprint: Blueprint) -> None:
    config = HUNLConfig()
    plain = BlueprintAgent(blueprint)
    rng = np.random.default_rng(3)
    checked = 0
    for hand in range(30):
        state = HUNLState.new(config, hand % 2, rng=rng)
        observation = Observation.from_state(state)
        probabilities, _ = plain.decision(observation)
        for threshold in (0.2, 0.5, 0.99):
            kept, _ = BlueprintAgent(blueprint, threshold=threshold).decision(observation)
            assert kept.sum() == pytest.approx(1.0)
            dropped = probabilities < threshold
            if dropped.all():  # nothing reaches the threshold: the most likely slot is played
                assert kept[int(np.argmax(probabilities))] == 1.0
            else:
                assert (kept[dropped] == 0).all()
                survivors = probabilities[~dropped]
                np.testing.assert_allclose(kept[~dropped], survivors / survivors.sum())
            checked += 1
    assert checked == 90
    with pytest.raises(ValueError, match=r"threshold 1\.5"):
        BlueprintAgent(blueprint, threshold=1.5)


def test_blueprint_spec_options(hunl_blueprint_dir: Path) -> None:
    agent = make_agent(f"blueprint:{hunl_blueprint_dir}?threshold=0.25")
    assert isinstance(agent, BlueprintAgent) and agent.threshold == 0.25
    agent = make_agent(f"blueprint:{hunl_blueprint_dir}?allin=policy&threshold=0.1")
    assert isinstance(agent, BlueprintAgent) and agent.allin == "policy" and agent.threshold == 0.1
    for bad, message in (
        ("?colour=red", "unknown option 'colour'"),
        ("?threshold=high", "not a number"),
        ("?threshold", "not KEY=VALUE"),
        ("?purify=1", "unknown option 'purify'; options: allin, threshold$"),
        ("?threshold=2", "not a probability"),
    ):
        with pytest.raises(ValueError, match=message):
            make_agent(f"blueprint:{hunl_blueprint_dir}{bad}")


def test_make_agent_loads_a_blueprint_folder(hunl_blueprint_dir: Path, tmp_path: Path) -> None:
    agent = make_agent(f"blueprint:{hunl_blueprint_dir}")
    assert isinstance(agent, BlueprintAgent) and agent.name == "blueprint"
    assert isinstance(make_agent(f"blueprint:{hunl_blueprint_dir / 'policy.pt'}"), BlueprintAgent)
    missing = f"blueprint:{tmp_path / 'nowhere'}"
    with pytest.raises(ValueError, match="does not exist") as error:
        make_agent(missing)
    assert repr(missing) in str(error.value)
    with pytest.raises(ValueError, match="names no file"):
        make_agent("blueprint:")


def test_only_hold_em_blueprints_are_played(tmp_path: Path) -> None:
    leduc = DeepCFRTrainer(load_deepcfr_config({**TINY_HUNL, "game": "leduc"}), tmp_path)
    with pytest.raises(ValueError, match="plays only HUNL"):
        BlueprintAgent(Blueprint.from_trainer(leduc))


def test_a_duplicate_match_against_random_runs(blueprint: Blueprint) -> None:
    result = duplicate_match(BlueprintAgent(blueprint), RandomAgent(), 20, seed=5)
    assert result.hands == 40 and result.a == "blueprint"
    again = duplicate_match(BlueprintAgent(blueprint), RandomAgent(), 20, seed=5)
    np.testing.assert_array_equal(result.a_results, again.a_results)


def test_another_games_chips_are_read_in_the_blueprints_big_blinds(blueprint: Blueprint) -> None:
    """The same betting at 1/2 and at the blueprint's 50/100 gives the same record and policy."""
    agent = BlueprintAgent(blueprint)
    small = HUNLState.new(HUNLConfig(1, 2, (400, 400)), 1, deck=list(range(9)))
    large = HUNLState.new(HUNLConfig(), 1, deck=list(range(9)))
    for raise_to_in_small_blinds in (6, None, None, 5, 15):
        views = [Observation.from_state(state) for state in (small, large)]
        records = [
            decision_records(
                decision_view(replay_observation(view), 100 / view.config.big_blind), [view.hole_cards]
            )
            for view in views
        ]
        assert records[0] == records[1]
        np.testing.assert_array_equal(agent.decision(views[0])[0], agent.decision(views[1])[0])
        for state, scale in ((small, 1), (large, 50)):
            if raise_to_in_small_blinds is None:
                state.check_or_call()
            else:
                state.raise_to(raise_to_in_small_blinds * scale)
    assert small.street == large.street == 1
