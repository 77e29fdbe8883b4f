"""The settings of hold'em real-time search, as frozen dataclasses (layer 5, no torch).

:class:`SearchConfig` is everything :class:`pokerai.agents.search.SearchAgent` searches
with: one street's search per postflop street (:class:`FlopSearch`, :class:`TurnSearch`,
:class:`RiverSearch`, all :class:`StreetSearch`, each with its own defaults) and the
settings every searched street shares (the opponent's floor and threshold, the safe
gadget). A street whose ``iterations`` is 0 is not searched: the blueprint plays it, as it
plays the preflop. The blueprint agent's own options (``threshold``, ``sample``,
``allin``, ``allin_budget_ms``) are not here.

The dataclasses' defaults are the agent's defaults, so that the package needs no file to
play; ``configs/search_default.yaml`` writes them out with a comment per key, and
``tests/search/test_search_config.py`` holds the two equal. :func:`load_search_config`
reads a YAML file or a mapping through :func:`pokerai.config.load_config`, which checks
every value (bounds in each field's metadata, cross-field rules in ``__post_init__``) and
names the bad key in a :class:`~pokerai.config.ConfigError`.

:func:`with_overrides` applies the ``KEY=VALUE`` options of a ``search:PATH?...`` agent
spec to a config through the same loader. A key is a config key, dotted below a street
(``river.budget_ms=100``, ``turn.iterations=0``, ``safe=1``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pokerai.config import load_config, with_text_options


def _is_number(value: object) -> bool:
    """Whether ``value`` is a number that ``__post_init__`` can compare. Any other value is left to
    the loader, which names its key and the type it expects."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_ITERATIONS = {"min": 0, "help": "most CFR+ iterations of a solve; 0: no search, the blueprint plays"}
_BUDGET_MS = {"help": "milliseconds a solve may take, its leaves included (positive); none: no time limit"}
_FULL_ITERATIONS = {
    "min": 1,
    "help": "iterations at which the solve's strategy fully replaces the blueprint's",
}
_MAX_RAISES = {"min": 0, "help": "raises off the street's path inside the subgame; none: no cap"}
_ROLLOUT_RAISES = {"min": 0, "help": "raises in the betting of the leaf rollouts; none: no cap"}
_BIAS = {"min": 1.0, "help": "factor on the favoured action's probability in a biased continuation"}
_BUCKETS = {
    "min": 2,
    "help": "hands merged into this many buckets that share a strategy (k-means on their values); "
    "none: every hand its own",
}


@dataclass(frozen=True)
class StreetSearch:
    """How one street is searched: the solve's iteration and time budgets, the blend, the raise cap.

    The search is a CFR+ solve of the street's subgame for at most ``iterations`` iterations
    or ``budget_ms`` milliseconds, whichever ends first (matches, LBR and the report drop the
    budget, so that a seed reproduces their figures: each street's default ``iterations`` is the
    median count its default budget ran on 2 idle cores over LBR's questions); the agent then
    plays the blend of the solved strategy and the blueprint's with weight ``min(iterations run /
    full_iterations, 1)``. ``iterations`` 0 does not search (the blueprint plays the street).
    Each street's subclass sets its own defaults.
    """

    iterations: int = field(default=1000, metadata=_ITERATIONS)
    budget_ms: float | None = field(default=900.0, metadata=_BUDGET_MS)
    full_iterations: int = field(default=100, metadata=_FULL_ITERATIONS)
    max_raises: int | None = field(default=1, metadata=_MAX_RAISES)

    def __post_init__(self) -> None:
        if self.budget_ms is not None and _is_number(self.budget_ms) and not self.budget_ms > 0:
            raise ValueError(
                f"budget_ms must be a positive number of milliseconds or none, got {self.budget_ms}"
            )


@dataclass(frozen=True)
class FlopSearch(StreetSearch):
    """The flop search (:mod:`pokerai.search.street`).

    At a leaf (the flop's betting closed with chips behind) the opponent picks among the four
    continuation strategies, each valued by blueprint rollouts of the turn's betting over
    ``turn_cards`` seeded turn cards, at most ``rollout_raises`` raises, ending in the river's
    check-down equity. A biased continuation multiplies its favoured actions by ``bias``.
    With ``max_raises`` 1 the solve's first bet off the path cannot be raised.
    """

    iterations: int = field(default=900, metadata=_ITERATIONS)
    turn_cards: int = field(
        default=3, metadata={"min": 2, "max": 8, "help": "turn cards per leaf rollout, 2 to 8"}
    )
    rollout_raises: int | None = field(default=1, metadata=_ROLLOUT_RAISES)
    bias: float = field(default=5.0, metadata=_BIAS)
    buckets: int | None = field(default=200, metadata=_BUCKETS)


@dataclass(frozen=True)
class TurnSearch(StreetSearch):
    """The turn search (:mod:`pokerai.search.street`).

    ``budget_ms`` bounds the whole decision, leaves included. At a leaf the opponent picks
    among the four continuation strategies, valued by blueprint rollouts over
    ``river_cards`` sampled river cards (none: all 48), with at most ``rollout_raises``
    raises in the rollouts' river trees; a biased continuation multiplies its favoured
    action's probability by ``bias``.
    """

    iterations: int = field(default=700, metadata=_ITERATIONS)
    river_cards: int | None = field(
        default=8,
        metadata={"min": 5, "max": 48, "help": "river cards per leaf rollout, 5 to 48; none: all 48"},
    )
    rollout_raises: int | None = field(default=1, metadata=_ROLLOUT_RAISES)
    bias: float = field(default=5.0, metadata=_BIAS)
    buckets: int | None = field(default=200, metadata=_BUCKETS)


@dataclass(frozen=True)
class RiverSearch(StreetSearch):
    """The river search (:mod:`pokerai.search.street`): to the end of the hand, no leaves. The tree
    grows about threefold with each raise more."""

    iterations: int = field(default=70, metadata=_ITERATIONS)
    budget_ms: float | None = field(default=75.0, metadata=_BUDGET_MS)
    full_iterations: int = field(default=40, metadata=_FULL_ITERATIONS)
    max_raises: int | None = field(default=2, metadata=_MAX_RAISES)


@dataclass(frozen=True)
class SearchConfig:
    """Everything the search agent searches with (module docstring): read by :func:`load_search_config`."""

    flop: FlopSearch = field(default_factory=FlopSearch)
    turn: TurnSearch = field(default_factory=TurnSearch)
    river: RiverSearch = field(default_factory=RiverSearch)
    floor: float = field(
        default=0.05,
        metadata={
            "min": 0.0,
            "help": "the floor in [0, 1) on each of the opponent's earlier actions' probability in its range",
        },
    )
    safe: bool = field(
        default=False,
        metadata={
            "help": "the safe re-solving gadget on every searched street (one blueprint call per subgame "
            "node: give it a larger budget)"
        },
    )
    opponent_threshold: float = field(
        default=0.0,
        metadata={
            "min": 0.0,
            "help": "threshold in [0, 1) of the blueprint's model of the opponent's past actions "
            "(0: all it plays at all)",
        },
    )

    def __post_init__(self) -> None:
        if _is_number(self.opponent_threshold) and not self.opponent_threshold < 1.0:
            raise ValueError(f"opponent_threshold must be in [0, 1), got {self.opponent_threshold}")
        if _is_number(self.floor) and not self.floor < 1.0:
            raise ValueError(f"floor must be in [0, 1), got {self.floor}")

    def street(self, street: int) -> StreetSearch | None:
        """The search of ``street`` (:class:`~pokerai.engine.state.Street`, 0 preflop to 3 river);
        None for the preflop, which the blueprint plays."""
        return (None, self.flop, self.turn, self.river)[street]

    def searches(self, street: int) -> bool:
        """Whether ``street`` is searched: a postflop street with iterations."""
        search = self.street(street)
        return search is not None and search.iterations > 0


STREETS = ("flop", "turn", "river")
"""The street fields of :class:`SearchConfig`, in the order of play."""


def load_search_config(source: str | os.PathLike[str] | Mapping[str, Any] | None = None) -> SearchConfig:
    """A checked :class:`SearchConfig` from a YAML file (a path) or a mapping; None: the defaults.

    Missing keys take their defaults. Raises :class:`~pokerai.config.ConfigError` naming the
    file and the key of any bad value.
    """
    return load_config({} if source is None else source, SearchConfig)


# ---------------------------------------------------------------------------- agent spec options


def with_overrides(config: SearchConfig, options: Mapping[str, str]) -> SearchConfig:
    """``config`` with a spec's ``KEY=VALUE`` options applied, checked by the loader (module docstring).

    Keys are the config's dotted keys (:func:`~pokerai.config.dotted_keys`); values are read as
    :func:`~pokerai.config.with_text_options` says. Raises :class:`~pokerai.config.ConfigError` (a
    ``ValueError``) that names the option for an unknown key, a bad value and a config that breaks
    a cross-field rule.
    """
    return with_text_options(config, options, "search option")


__all__ = [
    "STREETS",
    "FlopSearch",
    "RiverSearch",
    "SearchConfig",
    "StreetSearch",
    "TurnSearch",
    "load_search_config",
    "with_overrides",
]
