"""The settings of hold'em real-time search, as frozen dataclasses (layer 5, no torch).

:class:`SearchConfig` is everything :class:`pokerai.agents.search.SearchAgent` searches
with: one street's search per street (:class:`PreflopSearch`, :class:`FlopSearch`,
:class:`TurnSearch`, :class:`RiverSearch`, all :class:`StreetSearch`, each with its own
defaults) and the settings every searched street shares (the safe gadget, the opponent's
threshold, the river's open all-in, the learnt opponent models). A street whose
``iterations`` is 0 is not searched: the blueprint plays it. The blueprint agent's own
options (``threshold``, ``sample``, ``allin``, ``allin_budget_ms``) are not here.

The dataclasses' defaults are the agent's defaults, so that the package needs no file to
play; ``configs/search_default.yaml`` writes them out with a comment per key, and
``tests/search/test_search_config.py`` holds the two equal. :func:`load_search_config`
reads a YAML file or a mapping through :func:`pokerai.config.load_config`, which checks
every value (bounds in each field's metadata, cross-field rules in ``__post_init__``) and
names the bad key in a :class:`~pokerai.config.ConfigError`.

:func:`with_overrides` applies the ``KEY=VALUE`` options of a ``search:PATH?...`` agent
spec to a config through the same loader. A key is a config key, dotted below a street
(``river.budget_ms=100``, ``turn.iterations=200``, ``safe=1``); the flat keys of earlier
specs (``budget_ms=100``, ``iterations=200``, ...) are aliases listed in :data:`SPEC_ALIASES`.
"""

from __future__ import annotations

import dataclasses
import os
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pokerai.config import ConfigError, config_to_dict, load_config
from pokerai.search.responses import DEFAULT_MIN_SHOWDOWNS, DEFAULT_RESPONSE_PRIOR

Pipeline = Literal["river", "street"]
"""Which search the agent runs: each street's own solve, or the street pipeline at every searched street."""
TurnLeaves = Literal["depth_limited", "blueprint"]
"""Turn leaf kinds: the opponent picks among the four continuations, or both play the blueprint."""
ResponseStreets = Literal["river", "postflop"]
"""The streets whose answers the learnt response models count."""


def _is_number(value: object) -> bool:
    """Whether ``value`` is a number that ``__post_init__`` can compare. Any other value is left to
    the loader, which names its key and the type it expects."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_ITERATIONS = {"min": 0, "help": "most CFR+ iterations of a solve; 0: no search, the blueprint plays"}
_BUDGET_MS = {"help": "milliseconds a solve may take (positive); none: no time limit"}
_FULL_ITERATIONS = {
    "min": 1,
    "help": "iterations at which the solve's strategy fully replaces the blueprint's",
}
_MAX_RAISES = {"min": 0, "help": "raises inside the subgame; none: no cap"}


@dataclass(frozen=True)
class StreetSearch:
    """How one street is searched: the solve's iteration and time budgets, the blend, the raise cap.

    The search is a CFR+ solve of the street's subgame for at most ``iterations`` iterations
    or ``budget_ms`` milliseconds, whichever ends first; the agent then plays the blend of
    the solved strategy and the blueprint's with weight ``min(iterations run /
    full_iterations, 1)``. ``iterations`` 0 does not search (the blueprint plays the street).
    ``safe`` sets the re-solving gadget on this street alone (None: :attr:`SearchConfig.safe`).
    Each street's subclass sets its own defaults.
    """

    iterations: int = field(default=0, metadata=_ITERATIONS)
    budget_ms: float | None = field(default=None, metadata=_BUDGET_MS)
    full_iterations: int = field(default=100, metadata=_FULL_ITERATIONS)
    max_raises: int | None = field(default=2, metadata=_MAX_RAISES)
    safe: bool | None = field(
        default=None,
        metadata={"help": "the safe re-solving gadget on this street; none: as the top-level safe"},
    )

    def __post_init__(self) -> None:
        if self.budget_ms is not None and _is_number(self.budget_ms) and not self.budget_ms > 0:
            raise ValueError(
                f"budget_ms must be a positive number of milliseconds or none, got {self.budget_ms}"
            )


_LEAVES = {"help": "leaf values: depth_limited (four continuations) or blueprint"}
_BIAS = {"min": 1.0, "help": "factor on the favoured action's probability in a biased continuation"}
_BUCKETS = {
    "min": 2,
    "help": "street pipeline: hands merged into this many buckets that share a strategy "
    "(k-means on their values); none: every hand its own",
}


@dataclass(frozen=True)
class PreflopSearch(StreetSearch):
    """The preflop search of the street pipeline (``pipeline: street``), off by default.

    The preflop subgame runs to the end of the preflop betting: all-in equity at called
    all-ins, equity on the pot where a flop is to come (no blueprint leaves yet). Its tree
    has 100 nodes at the first decision with ``max_raises`` 2, 316 with 3.
    """

    budget_ms: float | None = field(default=5000.0, metadata=_BUDGET_MS)
    buckets: int | None = field(default=169, metadata=_BUCKETS)


@dataclass(frozen=True)
class FlopSearch(StreetSearch):
    """The flop search of the street pipeline (``pipeline: street``, :mod:`pokerai.search.street`); off.

    At a leaf (the flop's betting closed with chips behind) the opponent picks among the four
    continuation strategies (``leaves="depth_limited"``) or both play the blueprint
    (``"blueprint"``); each is valued by blueprint rollouts of the turn's betting over
    ``turn_cards`` seeded turn cards, at most ``rollout_raises`` raises, ending in the
    river's check-down equity. A biased continuation multiplies its favoured actions by ``bias``.
    """

    budget_ms: float | None = field(default=1000.0, metadata=_BUDGET_MS)
    max_raises: int | None = field(default=1, metadata=_MAX_RAISES)
    leaves: TurnLeaves = field(default="depth_limited", metadata=_LEAVES)
    turn_cards: int = field(
        default=3, metadata={"min": 2, "max": 8, "help": "turn cards per leaf rollout, 2 to 8"}
    )
    rollout_raises: int | None = field(
        default=1,
        metadata={"min": 0, "help": "raises in the turn trees of the leaf rollouts; none: no cap"},
    )
    bias: float = field(default=5.0, metadata=_BIAS)
    buckets: int | None = field(default=200, metadata=_BUCKETS)


@dataclass(frozen=True)
class TurnSearch(StreetSearch):
    """The turn search of the street pipeline (``pipeline: street``, :mod:`pokerai.search.street`); off.

    ``budget_ms`` bounds the whole decision, leaves included. Each raise more multiplies the
    leaves and their rollouts. At a leaf the opponent picks among the four continuation
    strategies (``leaves="depth_limited"``) or both play the blueprint (``"blueprint"``); the
    leaves are valued by blueprint rollouts over ``river_cards`` sampled river cards (none:
    all 48), with at most ``rollout_raises`` raises in the rollouts' river trees, and a biased
    continuation multiplies its favoured action's probability by ``bias``.
    """

    budget_ms: float | None = field(default=1000.0, metadata=_BUDGET_MS)
    max_raises: int | None = field(default=1, metadata=_MAX_RAISES)
    leaves: TurnLeaves = field(default="depth_limited", metadata=_LEAVES)
    river_cards: int | None = field(
        default=8,
        metadata={"min": 5, "max": 48, "help": "river cards per leaf rollout, 5 to 48; none: all 48"},
    )
    rollout_raises: int | None = field(
        default=1,
        metadata={"min": 0, "help": "raises in the river trees of the leaf rollouts; none: no cap"},
    )
    bias: float = field(default=5.0, metadata=_BIAS)
    buckets: int | None = field(default=200, metadata=_BUCKETS)


@dataclass(frozen=True)
class RiverSearch(StreetSearch):
    """The river search (:func:`pokerai.search.river.solve_river`), on by default.

    The time budget usually stops the solve before ``iterations``. It covers beliefs, tree
    and solve; a decision overshoots it by a few milliseconds (the last chunk of iterations
    and the blend), so the default sits below the 75 ms goal per decision
    (``docs/BENCHMARKS.md`` has the measured times). By ``full_iterations`` the solve's
    exploitability within the subgame is a small fraction of the blueprint's. The tree grows
    about threefold with each raise more.
    """

    iterations: int = field(default=1000, metadata=_ITERATIONS)
    budget_ms: float | None = field(default=65.0, metadata=_BUDGET_MS)


@dataclass(frozen=True)
class SearchConfig:
    """Everything the search agent searches with (module docstring): read by :func:`load_search_config`."""

    preflop: PreflopSearch = field(default_factory=PreflopSearch)
    flop: FlopSearch = field(default_factory=FlopSearch)
    turn: TurnSearch = field(default_factory=TurnSearch)
    river: RiverSearch = field(default_factory=RiverSearch)
    pipeline: Pipeline = field(
        default="river",
        metadata={
            "help": "river: the river solve from the current decision (search/river.py); street: the "
            "street pipeline (search/street.py) re-solves every searched street from its start"
        },
    )
    floor: float = field(
        default=0.05,
        metadata={
            "min": 0.0,
            "help": "street pipeline: the floor in [0, 1) on each opponent action's probability in its range",
        },
    )
    path_floor: float = field(
        default=0.0,
        metadata={
            "min": 0.0,
            "help": "street pipeline: the floor in [0, 1) on each action the opponent took on the street "
            "being solved, before the decision (0: those come out of the solve alone)",
        },
    )
    safe: bool = field(
        default=False,
        metadata={
            "help": "the safe re-solving gadget on every searched street whose own safe is none (one "
            "blueprint call per subgame node: give it a larger budget)"
        },
    )
    opponent_threshold: float | None = field(
        default=None,
        metadata={
            "min": 0.0,
            "help": "threshold in [0, 1) of the blueprint's model of the opponent's past actions "
            "(0: all it plays at all); none: the agent's threshold",
        },
    )
    river_allin: bool = field(
        default=False, metadata={"help": "all-in at any size on the river search's menu"}
    )
    check_cap: bool = field(
        default=False, metadata={"help": "learn the opponent's river check cap from its showdowns"}
    )
    cap_showdowns: int = field(
        default=DEFAULT_MIN_SHOWDOWNS,
        metadata={"min": 1, "help": "showdowns after the opponent's river check before check_cap acts"},
    )
    responses: bool = field(
        default=False,
        metadata={"help": "learn how the opponent answers the first river bet (not with safe)"},
    )
    response_streets: ResponseStreets = field(
        default="river",
        metadata={
            "help": "streets whose first bet's answers responses learns: river, or postflop (flop, turn "
            "and river; needs pipeline: street)"
        },
    )
    response_raises: bool = field(
        default=False,
        metadata={
            "help": "responses also learns the answers to the agent's raises over the opponent's bets "
            "and raises (needs pipeline: street)"
        },
    )
    response_prior: float = field(
        default=DEFAULT_RESPONSE_PRIOR,
        metadata={
            "help": "observations at which the responses and aggression models are trusted half (positive)"
        },
    )
    aggression: bool = field(
        default=False,
        metadata={
            "help": "learn how often the opponent raises postflop and floor its path actions by how far "
            "that is from the blueprint's share (needs pipeline: street; trusted half at response_prior "
            "decisions)"
        },
    )
    aggression_showdowns: bool = field(
        default=False,
        metadata={
            "help": "aggression scales the floors on the opponent's bets and raises by how weak the hands "
            "it showed after them were, against the blueprint's"
        },
    )
    aggression_overbets: bool = field(
        default=False,
        metadata={
            "help": "aggression also floors the opponent's raises of more than 3 pots by how often it "
            "makes them (the blueprint never does)"
        },
    )

    def __post_init__(self) -> None:
        threshold = self.opponent_threshold
        if threshold is not None and _is_number(threshold) and not threshold < 1.0:
            raise ValueError(
                f"opponent_threshold must be in [0, 1) or none (the agent's threshold), "
                f"got {self.opponent_threshold}"
            )
        if _is_number(self.response_prior) and not self.response_prior > 0:
            raise ValueError(f"response_prior must be a positive number, got {self.response_prior}")
        modelled = (3,) if self.response_streets == "river" else (1, 2, 3)  # the streets, flop 1 to river 3
        if self.responses and any(self.safe_on(street) for street in modelled):
            raise ValueError("responses does not work with safe (the gadget's tree has no modelled nodes)")
        if _is_number(self.floor) and not self.floor < 1.0:
            raise ValueError(f"floor must be in [0, 1), got {self.floor}")
        if _is_number(self.path_floor) and not self.path_floor < 1.0:
            raise ValueError(f"path_floor must be in [0, 1), got {self.path_floor}")
        if self.pipeline == "river" and _is_number(self.path_floor) and self.path_floor > 0:
            raise ValueError("path_floor needs pipeline: street (the river search starts at the decision)")
        if self.pipeline == "river":
            for name in ("preflop", "flop", "turn"):
                iterations = getattr(self, name).iterations
                if _is_number(iterations) and iterations > 0:
                    raise ValueError(
                        f"{name} search needs pipeline: street (the river pipeline searches the river only)"
                    )
        if self.pipeline == "river" and self.aggression:
            raise ValueError("aggression needs pipeline: street (it floors the street's path actions)")
        if self.pipeline == "river" and self.response_raises:
            raise ValueError(
                "response_raises needs pipeline: street (the river pipeline models first bets only)"
            )
        if self.pipeline == "river" and self.response_streets != "river":
            raise ValueError(
                "response_streets: postflop needs pipeline: street (the river pipeline searches the river)"
            )
        if self.pipeline == "street":
            river_only = [name for name in ("river_allin", "check_cap") if getattr(self, name)]
            if river_only:
                raise ValueError(
                    f"{river_only[0]} needs pipeline: river (the street pipeline has no such option)"
                )

    def street(self, street: int) -> StreetSearch:
        """The search of ``street`` (:class:`~pokerai.engine.state.Street`: 0 preflop to 3 river)."""
        return (self.preflop, self.flop, self.turn, self.river)[street]

    def safe_on(self, street: int) -> bool:
        """Whether ``street``'s solves use the safe gadget: its own ``safe``, else the top-level one."""
        own = self.street(street).safe
        return bool(self.safe if own is None else own)


STREETS = ("preflop", "flop", "turn", "river")
"""The street fields of :class:`SearchConfig`, in the order of play."""


def load_search_config(source: str | os.PathLike[str] | Mapping[str, Any] | None = None) -> SearchConfig:
    """A checked :class:`SearchConfig` from a YAML file (a path) or a mapping; None: the defaults.

    Missing keys take their defaults. Raises :class:`~pokerai.config.ConfigError` naming the
    file and the key of any bad value.
    """
    return load_config({} if source is None else source, SearchConfig)


# ---------------------------------------------------------------------------- agent spec options


@dataclass(frozen=True)
class SpecAlias:
    """A flat key of earlier ``search:`` specs: the config keys it sets.

    ``help`` says what it sets (``pokerai agents`` lists it).
    """

    targets: tuple[str, ...]
    help: str


SPEC_ALIASES: dict[str, SpecAlias] = {
    "iterations": SpecAlias(("river.iterations",), "river.iterations"),
    "budget_ms": SpecAlias(("river.budget_ms",), "river.budget_ms"),
    "full_iterations": SpecAlias(
        tuple(f"{street}.full_iterations" for street in STREETS), "every street's full_iterations"
    ),
    "max_raises": SpecAlias(("river.max_raises",), "river.max_raises"),
}
"""The flat keys of earlier ``search:`` specs, which the reproduction commands in ``docs/`` use."""

_NEEDS = {
    "cap_showdowns": ("check_cap",),
    "response_prior": ("responses", "aggression"),
    "response_streets": ("responses",),
    "response_raises": ("responses",),
    "aggression_showdowns": ("aggression",),
    "aggression_overbets": ("aggression",),
}
"""Config keys refused without one of their models switched on, since they would do nothing."""


def config_keys() -> tuple[str, ...]:
    """Every key of :class:`SearchConfig` as a spec writes it: dotted below a street, in field order."""
    keys: list[str] = []
    hints = typing.get_type_hints(SearchConfig)
    for item in dataclasses.fields(SearchConfig):
        nested = hints[item.name]
        if isinstance(nested, type) and dataclasses.is_dataclass(nested):
            keys += [f"{item.name}.{inner.name}" for inner in dataclasses.fields(nested)]
        else:
            keys.append(item.name)
    return tuple(keys)


def spec_keys() -> tuple[str, ...]:
    """Every key :func:`with_overrides` accepts: the config keys, then the aliases."""
    return (*config_keys(), *SPEC_ALIASES)


def config_field(key: str) -> tuple[Any, dataclasses.Field[Any]]:
    """The type hint and the dataclass field of the (dotted) config ``key``; KeyError if there is none."""
    cls: Any = SearchConfig
    *parents, name = key.split(".")
    for parent in parents:
        cls = typing.get_type_hints(cls)[parent]
    fields = {item.name: item for item in dataclasses.fields(cls)}
    return typing.get_type_hints(cls)[name], fields[name]


def config_value(config: SearchConfig, key: str) -> Any:
    """The value of the (dotted) ``key`` in ``config``: ``config_value(config, "river.budget_ms")``."""
    value: Any = config
    for part in key.split("."):
        value = getattr(value, part)
    return value


def spec_value(value: Any) -> str:
    """A config value as a spec writes it: ``none``, ``0``/``1`` for booleans, ``65`` for 65.0."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def with_overrides(config: SearchConfig, options: Mapping[str, str]) -> SearchConfig:
    """``config`` with a spec's ``KEY=VALUE`` options applied, checked by the loader (module docstring).

    Keys are :func:`spec_keys`. A value is read from the spec's text: ``none`` is None, ``1``
    and ``0`` (or ``true``/``false``) are booleans where the key is one, whole numbers and
    decimals are numbers, and anything else stays text for the loader to judge. Raises
    :class:`~pokerai.config.ConfigError` (a ``ValueError``) that names the option for an
    unknown key, a bad value, two options that set the same key, a model's key without the
    model on, and a config that breaks a cross-field rule.
    """
    known = spec_keys()
    data = config_to_dict(config)
    set_by: dict[str, str] = {}
    for key, text in options.items():
        if key not in known:
            raise ConfigError(f"unknown search option {key!r}; options: {', '.join(known)}")
        alias = SPEC_ALIASES.get(key)
        targets = (key,) if alias is None else alias.targets
        for target in targets:
            if target in set_by:
                raise ConfigError(f"{set_by[target]}= and {key}= both set {target}; give one of them")
            set_by[target] = key
        for target in targets:
            hint, _ = config_field(target)
            _put(data, target, _spec_text_value(text, hint))
        _load(data, "" if alias is None else f"{key}={text}: ")  # the loader names a config key
    result = _load(data, "")
    for key in options:
        needs = _NEEDS.get(key, ())
        if needs and not any(getattr(result, model) for model in needs):
            wanted = " or ".join(f"{model}=1" for model in needs)
            raise ConfigError(f"{key}= needs {wanted} ({key} does nothing without it)")
    return result


def _put(data: dict[str, Any], key: str, value: Any) -> None:
    """Set the dotted ``key`` of the nested mapping ``data`` to ``value``."""
    *parents, name = key.split(".")
    for parent in parents:
        data = data[parent]
    data[name] = value


def _load(data: Mapping[str, Any], prefix: str) -> SearchConfig:
    try:
        return load_config(data, SearchConfig)
    except ConfigError as error:
        raise ConfigError(f"{prefix}{error}") from None


def _spec_text_value(text: str, hint: Any) -> Any:
    """The value of a spec option's ``text`` for a field of type ``hint`` (:func:`with_overrides`)."""
    if text == "none":
        return None
    options = typing.get_args(hint) if typing.get_origin(hint) is not None else (hint,)
    if bool in options:
        return {"1": True, "0": False, "true": True, "false": False}.get(text, text)
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            continue
    return text


__all__ = [
    "SPEC_ALIASES",
    "STREETS",
    "FlopSearch",
    "PreflopSearch",
    "ResponseStreets",
    "RiverSearch",
    "SearchConfig",
    "SpecAlias",
    "StreetSearch",
    "TurnLeaves",
    "TurnSearch",
    "config_field",
    "config_keys",
    "config_value",
    "load_search_config",
    "spec_keys",
    "spec_value",
    "with_overrides",
]
