"""The tabular blueprint's kept board tables give the buckets the card abstraction gives."""

from __future__ import annotations

import numpy as np

from pokerai.tabular.blueprint import TABLE_FROM_HANDS, TabularBlueprint


def test_kept_board_tables_agree_with_the_abstraction() -> None:
    blueprint = TabularBlueprint.load("checkpoints/hunl_blueprint")
    rng = np.random.default_rng(3)
    for street, size in ((1, 3), (2, 4), (3, 5)):
        for count in (3, TABLE_FROM_HANDS, 500):
            deck = rng.permutation(52)
            boards = np.tile(deck[:size], (count, 1))
            boards[count // 2 :, -1] = deck[size]  # two boards, one of them for half the hands
            hands = np.array([np.sort(rng.choice(deck[size + 1 :], 2, replace=False)) for _ in range(count)])
            expected = np.asarray(blueprint.abstraction.bucket(street, hands, boards), dtype=np.int64)
            for _ in range(2):  # built, then read from the kept tables
                np.testing.assert_array_equal(blueprint._buckets(street, hands, boards), expected)
