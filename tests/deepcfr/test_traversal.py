"""Batched external-sampling traversals: same samples batched or not, legal masks respected."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.deepcfr.encoding import make_encoder
from pokerai.deepcfr.traversal import TraversalSamples, run_traversals
from pokerai.games.hunl import HUNLGame
from pokerai.games.leduc import LeducPoker, LeducState
from pokerai.games.protocol import CHANCE, Game


def uniform(
    player: int, records: npt.NDArray[np.void], masks: npt.NDArray[np.bool_]
) -> npt.NDArray[np.float64]:
    return masks / masks.sum(axis=1, keepdims=True)


def skewed(
    player: int, records: npt.NDArray[np.void], masks: npt.NDArray[np.bool_]
) -> npt.NDArray[np.float64]:
    """A legal but non-uniform strategy that differs between the players."""
    weights = masks * (1.0 + np.arange(masks.shape[1]) * (player + 1))
    return weights / weights.sum(axis=1, keepdims=True)


def canonical(samples: TraversalSamples) -> list[tuple[bytes, bytes, bytes]]:
    rows = zip(samples.advantage_records, samples.advantage_masks, samples.advantage_targets, strict=True)
    return sorted((record.tobytes(), mask.tobytes(), target.tobytes()) for record, mask, target in rows)


@pytest.mark.parametrize(
    ("game", "chance", "count", "terminal_responses"),
    [
        (LeducPoker(), "sample", 60, False),
        (HUNLGame(), "sample", 60, False),
        (LeducPoker(), "enumerate", 3, False),
        (HUNLGame(), "sample", 40, True),
    ],
    ids=["leduc", "hunl", "leduc-enumerated-chance", "hunl-expected-terminal-responses"],
)
def test_batched_and_one_call_per_node_give_the_same_samples(
    game: Game, chance: str, count: int, terminal_responses: bool
) -> None:
    encoder = make_encoder(game)
    row_calls = [0]

    def one_row_at_a_time(
        player: int, records: npt.NDArray[np.void], masks: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.float64]:
        row_calls[0] += len(records)
        return np.concatenate(
            [skewed(player, records[i : i + 1], masks[i : i + 1]) for i in range(len(records))]
        )

    runs = [
        run_traversals(
            game,
            encoder,
            strategy,
            traverser=1,
            count=count,
            iteration=3,
            seed=9,
            concurrent=concurrent,
            chance=chance,
            terminal_responses=terminal_responses,
        )
        for concurrent, strategy in ((1, one_row_at_a_time), (1, skewed), (7, skewed), (512, skewed))
    ]
    assert row_calls[0] == runs[0].queries  # the one-call-per-node baseline asks once per node
    assert runs[0].queries == runs[0].nodes
    assert runs[3].calls < runs[3].queries / 5  # batching merges queries
    for other in runs[1:]:
        assert canonical(other) == canonical(runs[0])
        assert np.array_equal(np.sort(other.root_values), np.sort(runs[0].root_values))
        assert other.nodes == runs[0].nodes


def test_samples_respect_masks_and_strategies() -> None:
    game = HUNLGame()
    encoder = make_encoder(game)
    samples = run_traversals(game, encoder, skewed, traverser=0, count=40, iteration=2, seed=1)
    assert len(samples.advantage_records) > 0 and len(samples.strategy_records) > 0
    # Regrets are zero on illegal slots; strategy targets are what strategy_fn returned.
    assert (samples.advantage_targets[~samples.advantage_masks] == 0).all()
    for player in (0, 1):
        rows = samples.strategy_players == player
        expected = skewed(player, samples.strategy_records[rows], samples.strategy_masks[rows])
        assert np.allclose(samples.strategy_targets[rows], expected)
    # The traverser's advantage samples are its own decisions; strategy samples the opponent's.
    assert set(np.unique(samples.strategy_players).tolist()) == {1}
    assert (samples.advantage_records["player"] == 0).all()


def test_leduc_root_values_average_to_the_game_value_of_uniform_play() -> None:
    game = LeducPoker()
    encoder = make_encoder(game)
    samples = run_traversals(game, encoder, uniform, traverser=0, count=4000, iteration=1, seed=5)
    # Exact expected value of uniform play for player 0 (best_response.expected_values).
    from pokerai.solvers.best_response import expected_values, tree_of
    from pokerai.solvers.policy import TabularPolicy

    value, _ = expected_values(TabularPolicy.uniform(tree_of(game)))
    standard_error = samples.root_values.std() / np.sqrt(samples.root_values.size)
    assert abs(samples.root_values.mean() - value) < 4 * standard_error


def test_bad_arguments() -> None:
    game = LeducPoker()
    with pytest.raises(ValueError, match="concurrent"):
        run_traversals(
            game, make_encoder(game), uniform, traverser=0, count=1, iteration=1, seed=0, concurrent=0
        )


# ---------------------------------------------------------------- enumerated chance


def pure_opponent(traverser: int):  # type: ignore[no-untyped-def]
    """The traverser plays ``skewed``; the opponent always takes its highest legal slot."""

    def strategy(
        player: int, records: npt.NDArray[np.void], masks: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.float64]:
        if player == traverser:
            return skewed(player, records, masks)
        last = masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)
        return np.eye(masks.shape[1])[last]

    return strategy


@pytest.mark.parametrize("traverser", [0, 1])
def test_enumerated_chance_with_a_pure_opponent_is_exact(traverser: int) -> None:
    # Nothing is left to sample: one traversal's root value is the profile's exact value, and
    # the regret samples of each information state average to its exact regrets.
    from pokerai.solvers.best_response import expected_values, tree_of
    from pokerai.solvers.policy import TabularPolicy

    game = LeducPoker()
    tree = tree_of(game)
    strategy = pure_opponent(traverser)
    table = np.zeros((tree.num_infosets, tree.num_actions))
    for player in (0, 1):
        rows = tree.player_slices[player]
        table[rows] = strategy(player, np.zeros(0), tree.legal_mask[rows])
    value = expected_values(TabularPolicy(tree, table))[traverser]

    samples = run_traversals(
        game,
        make_encoder(game),
        strategy,
        traverser=traverser,
        count=2,
        iteration=1,
        seed=3,
        chance="enumerate",
    )
    assert np.allclose(samples.root_values, value, atol=1e-12)

    # Exact regrets at every history the opponent's pure play reaches, grouped by record.
    encoder: Any = make_encoder(game)
    exact: dict[bytes, list[npt.NDArray[np.float64]]] = {}

    def walk(state: LeducState) -> float:
        if state.is_terminal():
            return float(state.returns()[traverser])
        if state.is_chance():
            outcomes = state.chance_outcomes()
            return sum(probability * walk(state.child(card)) for card, probability in outcomes)
        player = state.current_player()
        mask = np.zeros((1, game.num_distinct_actions), dtype=bool)
        mask[0, list(state.legal_actions())] = True
        probabilities = strategy(player, np.zeros(0), mask)[0]
        if player != traverser:
            return walk(state.child(int(np.argmax(probabilities))))
        values = np.zeros(game.num_distinct_actions)
        for action in state.legal_actions():
            values[action] = walk(state.child(action))
        node_value = float(probabilities @ values)
        key = np.array([encoder.record(state, player)], dtype=encoder.record_dtype).tobytes()
        exact.setdefault(key, []).append((values - node_value) * mask[0])
        return node_value

    walk(game.initial_state())
    sampled: dict[bytes, list[npt.NDArray[np.float32]]] = {}
    for record, target in zip(samples.advantage_records, samples.advantage_targets, strict=True):
        sampled.setdefault(record.tobytes(), []).append(target)
    assert sampled.keys() == exact.keys()
    for key, regrets in exact.items():
        assert len(sampled[key]) == 2 * len(regrets)  # each reachable history once per traversal
        assert np.allclose(np.mean(sampled[key], axis=0), np.mean(regrets, axis=0), atol=1e-5)


def test_enumerated_chance_refuses_what_it_cannot_do() -> None:
    game = LeducPoker()
    with pytest.raises(ValueError, match="chance must be 'sample' or 'enumerate'"):
        run_traversals(
            game, make_encoder(game), uniform, traverser=0, count=1, iteration=1, seed=0, chance="all"
        )

    class Lopsided:
        """A chance node with unequal outcomes (0.3 and 0.7), each ending the game."""

        def current_player(self) -> int:
            return CHANCE

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return [(0, 0.3), (1, 0.7)]

        def child(self, outcome: int) -> LeducState:
            return LeducState(cards=(0, 2), rounds=("rf",))

    class LopsidedGame:
        num_distinct_actions = 3

        def initial_state(self) -> Lopsided:
            return Lopsided()

    with pytest.raises(ValueError, match="equally likely"):
        run_traversals(
            LopsidedGame(),
            make_encoder(game),
            uniform,
            traverser=0,
            count=1,
            iteration=1,
            seed=0,
            chance="enumerate",
        )
    # Sampling such a node is fine: player 1 folded to a raise and loses its ante.
    samples = run_traversals(
        LopsidedGame(), make_encoder(game), uniform, traverser=1, count=2, iteration=1, seed=0
    )
    assert np.array_equal(samples.root_values, [-1.0, -1.0])


def test_all_in_equity_changes_values_not_the_nodes_visited() -> None:
    game = HUNLGame()
    encoder = make_encoder(game)
    runs = [
        run_traversals(game, encoder, skewed, traverser=0, count=40, iteration=1, seed=3, all_in_equity=flag)
        for flag in (False, True)
    ]
    deal_once, over_run_outs = runs
    assert over_run_outs.nodes == deal_once.nodes
    assert np.array_equal(over_run_outs.advantage_records, deal_once.advantage_records)
    assert np.array_equal(over_run_outs.strategy_records, deal_once.strategy_records)
    # The skewed strategy shoves often, so some all-ins are called before the river and valued
    # differently; folds and river showdowns are not, so many targets stay exactly the same.
    same = np.all(over_run_outs.advantage_targets == deal_once.advantage_targets, axis=1)
    assert 0 < same.sum() < same.size
    assert not np.array_equal(over_run_outs.root_values, deal_once.root_values)


# ---------------------------------------------------------------- expected terminal responses


@pytest.mark.parametrize("traverser", [0, 1])
def test_expected_terminal_responses_keep_the_mean_and_cut_the_variance(traverser: int) -> None:
    from pokerai.solvers.best_response import expected_values, tree_of
    from pokerai.solvers.policy import TabularPolicy

    game = LeducPoker()
    encoder = make_encoder(game)
    value, _ = expected_values(TabularPolicy.uniform(tree_of(game)))
    exact = value if traverser == 0 else -value
    spreads = {}
    for expected in (False, True):
        samples = run_traversals(
            game, encoder, uniform, traverser=traverser, count=4000, iteration=1, seed=5,
            terminal_responses=expected,
        )  # fmt: skip
        standard_error = samples.root_values.std() / np.sqrt(samples.root_values.size)
        assert abs(samples.root_values.mean() - exact) < 4 * standard_error
        spreads[expected] = samples.root_values.std()
    assert spreads[True] < spreads[False]


def test_expected_terminal_responses_visit_the_nodes_external_sampling_visits() -> None:
    # The same draws as external sampling, so the same records, masks and strategy samples:
    # only the values (and so the advantage targets) change. That keeps every sample's
    # distribution, so the targets stay unbiased, not only the root values.
    game = HUNLGame()
    encoder = make_encoder(game)
    sampled, expected = (
        run_traversals(
            game, encoder, skewed, traverser=1, count=60, iteration=3, seed=2, terminal_responses=flag
        )
        for flag in (False, True)
    )
    for field in ("advantage_records", "advantage_masks", "strategy_records", "strategy_targets"):
        assert np.array_equal(getattr(sampled, field), getattr(expected, field)), field
    assert sampled.nodes == expected.nodes
    assert not np.array_equal(sampled.advantage_targets, expected.advantage_targets)
    assert not np.array_equal(sampled.root_values, expected.root_values)
