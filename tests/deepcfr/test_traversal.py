"""Batched external-sampling traversals: same samples batched or not, legal masks respected."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.deepcfr.encoding import make_encoder
from pokerai.deepcfr.traversal import TraversalSamples, run_traversals
from pokerai.games.hunl import HUNLGame
from pokerai.games.leduc import LeducPoker
from pokerai.games.protocol import Game


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


@pytest.mark.parametrize("game", [LeducPoker(), HUNLGame()], ids=["leduc", "hunl"])
def test_batched_and_one_call_per_node_give_the_same_samples(game: Game) -> None:
    encoder = make_encoder(game)
    runs = [
        run_traversals(
            game,
            encoder,
            skewed,
            traverser=1,
            count=60,
            iteration=3,
            seed=9,
            concurrent=concurrent,
            batch=batch,
        )
        for concurrent, batch in ((1, False), (1, True), (7, True), (512, True))
    ]
    assert runs[0].calls == runs[0].queries  # the unbatched baseline asks once per node
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
