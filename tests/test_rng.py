"""SplitMix64 (pokerai.rng): the reference outputs, from Python and from compiled code."""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerai.rng import GAMMA, mix64, next_uniform, splitmix64

MASK = (1 << 64) - 1
REFERENCE = [6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431]
"""The first outputs of Vigna's reference splitmix64.c seeded with 1234567."""


def _python_mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def test_the_stream_gives_the_reference_outputs() -> None:
    state = np.uint64(1234567)
    outputs = []
    for _ in REFERENCE:
        state, output = splitmix64(state)
        state = np.uint64(state)
        outputs.append(int(output))
    assert outputs == REFERENCE


def test_the_finaliser_matches_python_integers_on_scalars_and_arrays() -> None:
    values = np.random.default_rng(3).integers(0, 2**63, size=200, dtype=np.uint64) * np.uint64(2)
    values[:2] = (np.uint64(0), np.uint64(MASK))
    expected = [_python_mix(int(value)) for value in values]
    assert [int(mix64(value)) for value in values] == expected
    assert mix64(values).tolist() == expected


@njit(cache=True)
def _draws(seed: int, count: int) -> np.ndarray:
    state = np.full(1, np.uint64(seed), dtype=np.uint64)
    result = np.empty(count)
    for index in range(count):
        result[index] = next_uniform(state)
    return result


def test_compiled_code_draws_the_stream_as_uniforms_in_the_unit_interval() -> None:
    draws = _draws(1234567, len(REFERENCE))
    np.testing.assert_array_equal(draws, [(value >> 11) * 2.0**-53 for value in REFERENCE])
    many = _draws(7, 10_000)
    assert many.min() >= 0.0 and many.max() < 1.0 and abs(many.mean() - 0.5) < 0.01
    assert int(GAMMA) == 0x9E3779B97F4A7C15
