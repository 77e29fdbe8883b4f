"""SplitMix64, the 64-bit generator of the compiled samplers (layer 0).

Steele, Lea & Flood, "Fast Splittable Pseudorandom Number Generators" (OOPSLA 2014), with
Stafford's "variant 13" finaliser. The state advances by :data:`GAMMA`; each output is
:func:`mix64` of the new state. All three functions are numba kernels that compiled code calls
directly (the samplers of :mod:`pokerai.solvers.mccfr` and :mod:`pokerai.tabular.mccfr`, the
abstraction's runouts, the traversal keys of :mod:`pokerai.deepcfr.traversal`); called from
Python with an ``np.uint64`` they return Python ints.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GAMMA = np.uint64(0x9E3779B97F4A7C15)
"""The increment of the state: the odd integer nearest 2**64 over the golden ratio."""
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
"""The first multiplier of the finaliser (also a seed multiplier of its own, odd and well mixed)."""
MIX_2 = np.uint64(0x94D049BB133111EB)
_UNIT = 1.0 / 9007199254740992.0
"""2**-53: a 53-bit integer times this is a float in [0, 1)."""


@njit(cache=True)
def mix64(z):
    """The finaliser: a well-mixed 64-bit integer from any ``np.uint64`` (or each of an array of them)."""
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def splitmix64(state):
    """One step from ``state``: the next state and its output, both ``np.uint64``."""
    state = state + GAMMA
    return state, mix64(state)


@njit(cache=True)
def next_uniform(rng_state):
    """The next float in [0, 1) of the stream whose state is ``rng_state[0]`` (uint64 ``[1]``), advanced."""
    rng_state[0] += GAMMA
    return float(mix64(rng_state[0]) >> np.uint64(11)) * _UNIT


__all__ = ["GAMMA", "MIX_1", "MIX_2", "mix64", "next_uniform", "splitmix64"]
