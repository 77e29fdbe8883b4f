"""Agents named by a spec string, as on the command line: ``random``, ``call``, ``heuristic``, ...

``make_agent(spec)`` builds a fresh agent. The exploiters of
:mod:`pokerai.agents.exploiters` take an option after a ``?``: ``shover?p=0.1``
(push or fold, shoving with probability ``p`` at its first decision of a hand,
default 0.3) and ``minraise?p=0.5`` (min-raises with probability ``p`` whenever
it may, default 0.8), with ``0 < p <= 1``; ``station`` (calls with any pair or
draw) takes none. Specs with a colon name an agent
that loads a file: ``blueprint:PATH`` plays an exported blueprint, Deep CFR
(a folder written by :func:`pokerai.deepcfr.export.export_policy`, or its
``policy.pt``) or tabular MCCFR (a folder with ``strategy.npz``), with options
after a ``?``: ``threshold`` drops actions the policy plays with probability below it
(default 0.3 for a network; 0, the probabilities as they are, for a tabular strategy) and
``allin`` says how an all-in the menu does not have is answered: ``solve`` (the default) with a solved
call-or-fold game (:mod:`pokerai.search.allin`), ``policy`` by the network
(:class:`~pokerai.agents.blueprint.BlueprintAgent`). ``search:PATH`` plays the same
blueprint with real-time search at every postflop street
(:class:`~pokerai.agents.search.SearchAgent`), with the options ``threshold`` and
``allin`` as for ``blueprint:`` and the keys of its
:class:`~pokerai.search.config.SearchConfig` (``configs/search_default.yaml`` writes out
their defaults), dotted below a street: ``river.budget_ms=M`` (milliseconds a river solve
may take; ``none`` for no limit), ``turn.iterations=0`` (the blueprint plays the turn),
``safe=1`` (the safe re-solving gadget) and the rest that ``pokerai agents`` lists, e.g.
``search:PATH?river.budget_ms=300&threshold=0.3``.
:func:`~pokerai.search.config.with_overrides` checks them all. An unknown or
malformed option is a ``ValueError``. Anything else is a ``ValueError`` that
names the spec and lists the valid ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pokerai.agents.base import Agent
from pokerai.agents.baselines import AllInAgent, CallAgent, RaiseAgent, RandomAgent
from pokerai.agents.exploiters import MinRaiserAgent, ShoverAgent, StationAgent


def _heuristic() -> Agent:
    from pokerai.agents.heuristic import HeuristicAgent

    return HeuristicAgent()


_FACTORIES: dict[str, Callable[[], Agent]] = {
    "random": RandomAgent,
    "call": CallAgent,
    "raise": RaiseAgent,
    "allin": AllInAgent,
    "heuristic": _heuristic,
    "shover": ShoverAgent,
    "station": StationAgent,
    "minraise": MinRaiserAgent,
}

AGENT_NAMES: tuple[str, ...] = tuple(_FACTORIES)
"""The specs ``make_agent`` accepts without a path (some also take ``?`` options)."""


@dataclass(frozen=True)
class SpecOption:
    """One ``KEY=VALUE`` option of an agent spec: its key, its default as written, and what it does."""

    key: str
    default: str
    help: str


@dataclass(frozen=True)
class SpecInfo:
    """An agent spec as ``pokerai agents`` lists it: the spec, one line on how it plays, its options."""

    spec: str
    summary: str
    options: tuple[SpecOption, ...] = ()


def agent_catalogue() -> tuple[SpecInfo, ...]:
    """Every spec :func:`make_agent` accepts, with its options and their defaults (``pokerai agents``).

    Defaults are read from the constants the agents use (the search's from
    :class:`~pokerai.search.config.SearchConfig`, each key's help from its field);
    ``tests/cli/test_startup.py`` holds the option keys equal to the ones :func:`make_agent` parses.
    """
    from pokerai.config import dotted_field, dotted_keys, dotted_value, option_text
    from pokerai.search.config import SearchConfig

    defaults = SearchConfig()
    probability = "probability in (0, 1]"
    blueprint_options = (
        SpecOption(
            "threshold",
            DEFAULT_THRESHOLD,
            "drop actions the policy plays less often than this, then renormalise",
        ),
        SpecOption(
            "allin",
            DEFAULT_ALLIN,
            "an all-in the menu lacks: 'solve' (a solved game) or 'policy' (the network)",
        ),
    )
    return (
        SpecInfo("random", "uniform over the legal action kinds; a uniform raise size"),
        SpecInfo("call", "checks when it may, calls otherwise; never folds or raises"),
        SpecInfo("raise", "raises the pot whenever it may (all-in when that exceeds the stack)"),
        SpecInfo("allin", "goes all-in whenever raising is legal; checks or calls otherwise"),
        SpecInfo("heuristic", "rule-based: equity against a random hand, pot odds, a few bet sizes"),
        SpecInfo(
            "shover",
            "push or fold: shoves any two cards with probability p at its first decision",
            (SpecOption("p", "0.3", probability),),
        ),
        SpecInfo("station", "never folds a pair or a draw; never raises"),
        SpecInfo(
            "minraise",
            "min-raises with probability p whenever it may; never folds",
            (SpecOption("p", "0.8", probability),),
        ),
        SpecInfo(
            "blueprint:PATH",
            "an exported blueprint folder (Deep CFR or tabular MCCFR) played straight",
            blueprint_options,
        ),
        SpecInfo(
            "search:PATH",
            "the blueprint with real-time search at every postflop street",
            (
                *blueprint_options,
                *(
                    SpecOption(
                        key,
                        option_text(dotted_value(defaults, key)),
                        dotted_field(SearchConfig, key)[1].metadata["help"],
                    )
                    for key in dotted_keys(SearchConfig)
                ),
            ),
        ),
    )


def _probability_option(factory: Callable[..., Agent]) -> Callable[[str], Agent]:
    """A factory of ``NAME?p=P`` specs: ``P`` a number in (0, 1], passed to ``factory`` (its
    default when the spec gives no ``p``)."""

    def build(text: str) -> Agent:
        _, options = _options(text, {"p"})
        if "p" not in options:
            return factory()
        p = _number(options["p"], "p")
        if not 0 < p <= 1:
            raise ValueError(f"p={options['p']!r} is not a probability in (0, 1]")
        return factory(p)

    return build


_OPTION_FACTORIES: dict[str, Callable[[str], Agent]] = {
    "shover": _probability_option(ShoverAgent),
    "minraise": _probability_option(MinRaiserAgent),
}
"""Plain specs that take ``?`` options: the factory gets the whole spec (``NAME?KEY=VALUE&...``)."""


_BLUEPRINT_KEYS = frozenset({"threshold", "allin"})
"""The options of ``blueprint:`` specs, which ``search:`` specs take too."""
DEFAULT_THRESHOLD = "0.3 (network), 0 (tabular)"
"""The ``threshold`` of ``blueprint:`` and ``search:`` specs that give none, as ``pokerai agents``
shows it (:func:`~pokerai.agents.blueprint.default_threshold`)."""
DEFAULT_ALLIN = "solve"
"""The ``allin`` of ``blueprint:`` and ``search:`` specs that give none."""


def _blueprint_options(options: dict[str, str]) -> dict[str, Any]:
    """The blueprint agent's keywords (``threshold``, ``allin``) from a spec's options."""
    from pokerai.agents.blueprint import ALLIN_ANSWERS

    threshold = _number(options["threshold"], "threshold") if "threshold" in options else None
    allin = options.get("allin", DEFAULT_ALLIN)
    if allin not in ALLIN_ANSWERS:
        raise ValueError(f"allin={allin!r} is not one of {', '.join(ALLIN_ANSWERS)}")
    return {"threshold": threshold, "allin": allin}


def _blueprint(path: str) -> Agent:
    from pokerai.agents.blueprint import load_blueprint_agent

    path, options = _options(path, set(_BLUEPRINT_KEYS))
    return load_blueprint_agent(path, **_blueprint_options(options))


def _search(path: str) -> Agent:
    """A search agent: the blueprint agent's options, and the search's applied to its default config."""
    from pokerai.agents.search import load_search_agent
    from pokerai.config import dotted_keys
    from pokerai.search.config import SearchConfig, load_search_config, with_overrides

    path, options = _options(path, {*_BLUEPRINT_KEYS, *dotted_keys(SearchConfig)})
    search_options = {key: value for key, value in options.items() if key not in _BLUEPRINT_KEYS}
    config = with_overrides(load_search_config(), search_options)
    return load_search_agent(path, config, **_blueprint_options(options))


def _options(path: str, known: set[str]) -> tuple[str, dict[str, str]]:
    """``PATH?key=value&key=value`` -> (PATH, {key: value}); an unknown or malformed option is an error."""
    path, _, query = path.partition("?")
    options: dict[str, str] = {}
    for item in filter(None, query.split("&")):
        key, equals, value = item.partition("=")
        if not equals or not value:
            raise ValueError(f"option {item!r} is not KEY=VALUE")
        if key not in known:
            raise ValueError(f"unknown option {key!r}; options: {', '.join(sorted(known))}")
        options[key] = value
    return path, options


def _number(text: str, name: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a number") from None


_PATH_FACTORIES: dict[str, Callable[[str], Agent]] = {"blueprint": _blueprint, "search": _search}

PATH_AGENT_KINDS: tuple[str, ...] = tuple(_PATH_FACTORIES)
"""Spec kinds that take a path (``KIND:PATH``)."""


def make_agent(spec: str) -> Agent:
    """A fresh agent for ``spec`` (e.g. ``"heuristic"``); a bad spec is a ``ValueError`` naming it."""
    if not isinstance(spec, str):
        raise ValueError(f"agent spec {spec!r} is not a string; valid specs: {_valid_specs()}")
    name = spec.strip()
    if ":" in name:
        kind, _, path = name.partition(":")
        path_factory = _PATH_FACTORIES.get(kind)
        if path_factory is not None:
            if not path.strip():
                raise ValueError(f"agent spec {spec!r} names no file: write {kind}:PATH")
            try:
                return path_factory(path.strip())
            except ValueError as error:
                raise ValueError(f"agent spec {spec!r}: {error}") from None
        raise ValueError(f"unknown agent spec {spec!r} (kind {kind!r}); valid specs: {_valid_specs()}")
    base, question, _ = name.partition("?")
    if question and base in _OPTION_FACTORIES:
        try:
            return _OPTION_FACTORIES[base](name)
        except ValueError as error:
            raise ValueError(f"agent spec {spec!r}: {error}") from None
    if question and base in _FACTORIES:
        raise ValueError(f"agent spec {spec!r}: {base} takes no options")
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown agent spec {spec!r}; valid specs: {_valid_specs()}")
    return factory()


def _valid_specs() -> str:
    return ", ".join([*AGENT_NAMES, *(f"{kind}:PATH" for kind in PATH_AGENT_KINDS)])


__all__ = ["AGENT_NAMES", "PATH_AGENT_KINDS", "SpecInfo", "SpecOption", "agent_catalogue", "make_agent"]
