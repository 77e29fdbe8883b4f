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
after a ``?``: ``blueprint:PATH?threshold=0.3`` drops actions the policy plays with probability below 0.3 and
``blueprint:PATH?purify=1`` always plays the most likely action
(:class:`~pokerai.agents.blueprint.BlueprintAgent`); ``allin=solve`` answers
an all-in the menu does not have with a solved call-or-fold game
(:mod:`pokerai.search.allin`; default ``policy``: the network). ``search:PATH`` plays the
same blueprint with real-time search on the river
(:class:`~pokerai.agents.search.SearchAgent`), with the options
``threshold``, ``purify`` and ``allin`` as for ``blueprint:`` and ``iterations=N``
(the most CFR+ iterations of a river solve, default 1000), ``budget_ms=M``
(milliseconds a solve may take, default 65; ``none`` for no limit),
``full_iterations=F`` (iterations at which the solve's strategy fully
replaces the blueprint's, default 100), ``max_raises=R`` (raises inside the
river subgame, default 2; ``none`` for no cap) and ``safe=1`` (the safe
re-solving gadget; one blueprint call per subgame decision, so use a larger
budget), e.g.
``search:PATH?budget_ms=300&threshold=0.3``. ``river_allin=1`` puts all-in
at any size on the river search's menu (the blueprint's may cap it at a few
pots). ``opponent_threshold=T`` thresholds the blueprint at ``T`` instead
of ``threshold`` where it models the opponent's past actions in the beliefs
of the river, turn and preflop solves (``0``: every action the network plays
at all). ``turn=1`` also searches the
turn, depth-limited (:mod:`pokerai.search.turn`), with ``turn_budget_ms``
(the turn solve's milliseconds after its leaves are built, default 1000;
``none``), ``turn_max_raises`` (default 1), ``turn_leaves`` (``depth_limited``,
the default, or ``blueprint``) and ``river_cards`` (river cards per leaf
rollout, default 8, at least 5; ``all``). ``preflop=1`` also searches preflop
decisions (:mod:`pokerai.search.preflop`: leaves valued by all-in equity), with
``preflop_budget_ms`` (default 5000; ``none``) and ``preflop_max_raises``
(default 2). An unknown or
malformed option is a ``ValueError``. Anything else is a ``ValueError`` that
names the spec and lists the valid ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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

    Defaults are read from the constants the agents use; ``tests/agents/test_spec.py`` holds
    the option keys equal to the ones :func:`make_agent` parses.
    """
    from pokerai.agents import search as search_agent
    from pokerai.agents.opponent import DEFAULT_MIN_SHOWDOWNS
    from pokerai.search.hunl import DEFAULT_RESPONSE_PRIOR
    from pokerai.search.turn import DEFAULT_RIVER_CARDS

    probability = "probability in (0, 1]"
    blueprint_options = (
        SpecOption("threshold", "0", "drop actions the policy plays less often than this, then renormalise"),
        SpecOption("purify", "0", "1: always play the most likely action"),
        SpecOption(
            "allin", "policy", "an all-in the menu lacks: 'policy' (the network) or 'solve' (a solved game)"
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
            "the blueprint with real-time search on the river (turn and preflop optional)",
            (
                *blueprint_options,
                SpecOption(
                    "iterations",
                    str(search_agent.DEFAULT_ITERATIONS),
                    "most CFR+ iterations of a river solve",
                ),
                SpecOption(
                    "budget_ms",
                    f"{search_agent.DEFAULT_BUDGET_MS:g}",
                    "milliseconds a river solve may take ('none')",
                ),
                SpecOption(
                    "full_iterations",
                    str(search_agent.DEFAULT_FULL_ITERATIONS),
                    "iterations at which the solve's strategy fully replaces the blueprint's",
                ),
                SpecOption(
                    "max_raises",
                    str(search_agent.DEFAULT_MAX_RAISES),
                    "raises inside the river subgame ('none')",
                ),
                SpecOption("safe", "0", "1: the safe re-solving gadget (needs a larger budget)"),
                SpecOption("river_allin", "0", "1: all-in at any size on the river search's menu"),
                SpecOption(
                    "opponent_threshold",
                    "threshold",
                    "threshold of the blueprint where it models the opponent's past actions",
                ),
                SpecOption("turn", "0", "1: also search the turn, depth-limited"),
                SpecOption(
                    "turn_budget_ms",
                    f"{search_agent.DEFAULT_TURN_BUDGET_MS:g}",
                    "the turn solve's milliseconds after its leaves are built ('none')",
                ),
                SpecOption(
                    "turn_max_raises", str(search_agent.DEFAULT_TURN_MAX_RAISES), "raises in the turn subgame"
                ),
                SpecOption(
                    "turn_leaves", "depth_limited", "turn leaf values: 'depth_limited' or 'blueprint'"
                ),
                SpecOption(
                    "river_cards", str(DEFAULT_RIVER_CARDS), "river cards per turn-leaf rollout (>= 5, 'all')"
                ),
                SpecOption("preflop", "0", "1: also search preflop (leaves valued by all-in equity)"),
                SpecOption(
                    "preflop_budget_ms",
                    f"{search_agent.DEFAULT_PREFLOP_BUDGET_MS:g}",
                    "milliseconds of a preflop solve ('none')",
                ),
                SpecOption(
                    "preflop_max_raises",
                    str(search_agent.DEFAULT_PREFLOP_MAX_RAISES),
                    "raises in the preflop subgame ('none')",
                ),
                SpecOption("check_cap", "0", "1: learn the opponent's river check cap from showdowns"),
                SpecOption("cap_showdowns", str(DEFAULT_MIN_SHOWDOWNS), "showdowns before check_cap acts"),
                SpecOption("responses", "0", "1: learn the opponent's river responses to bets"),
                SpecOption(
                    "response_prior",
                    f"{DEFAULT_RESPONSE_PRIOR:g}",
                    "pseudo-counts before responses are trusted",
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


def _blueprint(path: str) -> Agent:
    from pokerai.agents.blueprint import ALLIN_ANSWERS, load_blueprint_agent

    path, options = _options(path, {"threshold", "purify", "allin"})
    threshold = _number(options.get("threshold", "0"), "threshold")
    purify = options.get("purify", "0")
    if purify not in ("0", "1"):
        raise ValueError(f"purify={purify!r} is not 0 or 1")
    allin = options.get("allin", "policy")
    if allin not in ALLIN_ANSWERS:
        raise ValueError(f"allin={allin!r} is not one of {', '.join(ALLIN_ANSWERS)}")
    return load_blueprint_agent(path, sample=purify == "0", threshold=threshold, allin=allin)


def _search(path: str) -> Agent:
    from pokerai.agents.blueprint import ALLIN_ANSWERS
    from pokerai.agents.opponent import DEFAULT_MIN_SHOWDOWNS
    from pokerai.agents.search import (
        DEFAULT_BUDGET_MS,
        DEFAULT_FULL_ITERATIONS,
        DEFAULT_ITERATIONS,
        DEFAULT_MAX_RAISES,
        DEFAULT_PREFLOP_BUDGET_MS,
        DEFAULT_PREFLOP_MAX_RAISES,
        DEFAULT_TURN_BUDGET_MS,
        DEFAULT_TURN_MAX_RAISES,
        load_search_agent,
    )
    from pokerai.search.hunl import DEFAULT_RESPONSE_PRIOR
    from pokerai.search.turn import DEFAULT_RIVER_CARDS

    path, options = _options(
        path,
        {
            "threshold", "purify", "iterations", "budget_ms", "full_iterations", "max_raises", "safe",
            "turn", "turn_budget_ms", "turn_max_raises", "turn_leaves", "river_cards",
            "preflop", "preflop_budget_ms", "preflop_max_raises", "allin", "river_allin",
            "opponent_threshold", "check_cap", "cap_showdowns", "responses", "response_prior",
        },
    )  # fmt: skip
    threshold = _number(options.get("threshold", "0"), "threshold")
    opponent = options.get("opponent_threshold")
    opponent_threshold = None if opponent is None else _number(opponent, "opponent_threshold")
    purify = options.get("purify", "0")
    if purify not in ("0", "1"):
        raise ValueError(f"purify={purify!r} is not 0 or 1")
    iterations = _whole_number(options.get("iterations", str(DEFAULT_ITERATIONS)), "iterations")
    budget = options.get("budget_ms", str(DEFAULT_BUDGET_MS))
    budget_ms = None if budget == "none" else _number(budget, "budget_ms")
    full_iterations = _whole_number(
        options.get("full_iterations", str(DEFAULT_FULL_ITERATIONS)), "full_iterations"
    )
    raises = options.get("max_raises", str(DEFAULT_MAX_RAISES))
    max_raises = None if raises == "none" else _whole_number(raises, "max_raises")
    safe = options.get("safe", "0")
    if safe not in ("0", "1"):
        raise ValueError(f"safe={safe!r} is not 0 or 1")
    turn = options.get("turn", "0")
    if turn not in ("0", "1"):
        raise ValueError(f"turn={turn!r} is not 0 or 1")
    turn_only = sorted(key for key in options if key.startswith("turn_") or key == "river_cards")
    if turn == "0" and turn_only:
        raise ValueError(f"{turn_only[0]}= needs turn=1 (turn options do nothing without turn search)")
    turn_budget = options.get("turn_budget_ms", str(DEFAULT_TURN_BUDGET_MS))
    turn_budget_ms = None if turn_budget == "none" else _number(turn_budget, "turn_budget_ms")
    turn_raises = options.get("turn_max_raises", str(DEFAULT_TURN_MAX_RAISES))
    turn_max_raises = None if turn_raises == "none" else _whole_number(turn_raises, "turn_max_raises")
    preflop = options.get("preflop", "0")
    if preflop not in ("0", "1"):
        raise ValueError(f"preflop={preflop!r} is not 0 or 1")
    preflop_only = sorted(key for key in options if key.startswith("preflop_"))
    if preflop == "0" and preflop_only:
        raise ValueError(
            f"{preflop_only[0]}= needs preflop=1 (preflop options do nothing without preflop search)"
        )
    preflop_budget = options.get("preflop_budget_ms", str(DEFAULT_PREFLOP_BUDGET_MS))
    preflop_budget_ms = None if preflop_budget == "none" else _number(preflop_budget, "preflop_budget_ms")
    preflop_raises = options.get("preflop_max_raises", str(DEFAULT_PREFLOP_MAX_RAISES))
    preflop_max_raises = (
        None if preflop_raises == "none" else _whole_number(preflop_raises, "preflop_max_raises")
    )
    cards = options.get("river_cards", str(DEFAULT_RIVER_CARDS))
    river_cards = None if cards == "all" else _whole_number(cards, "river_cards")
    allin = options.get("allin", "policy")
    if allin not in ALLIN_ANSWERS:
        raise ValueError(f"allin={allin!r} is not one of {', '.join(ALLIN_ANSWERS)}")
    river_allin = options.get("river_allin", "0")
    if river_allin not in ("0", "1"):
        raise ValueError(f"river_allin={river_allin!r} is not 0 or 1")
    check_cap = options.get("check_cap", "0")
    if check_cap not in ("0", "1"):
        raise ValueError(f"check_cap={check_cap!r} is not 0 or 1")
    if check_cap == "0" and "cap_showdowns" in options:
        raise ValueError("cap_showdowns= needs check_cap=1 (it does nothing without the opponent model)")
    cap_showdowns = _whole_number(options.get("cap_showdowns", str(DEFAULT_MIN_SHOWDOWNS)), "cap_showdowns")
    if cap_showdowns < 1:
        raise ValueError(f"cap_showdowns={cap_showdowns} is not a positive whole number")
    responses = options.get("responses", "0")
    if responses not in ("0", "1"):
        raise ValueError(f"responses={responses!r} is not 0 or 1")
    if responses == "0" and "response_prior" in options:
        raise ValueError("response_prior= needs responses=1 (it does nothing without the opponent model)")
    response_prior = _number(options.get("response_prior", str(DEFAULT_RESPONSE_PRIOR)), "response_prior")
    return load_search_agent(
        path,
        sample=purify == "0",
        threshold=threshold,
        iterations=iterations,
        budget_ms=budget_ms,
        full_iterations=full_iterations,
        max_raises=max_raises,
        safe=safe == "1",
        turn=turn == "1",
        turn_budget_ms=turn_budget_ms,
        turn_max_raises=turn_max_raises,
        turn_leaves=options.get("turn_leaves", "depth_limited"),
        river_cards=river_cards,
        preflop=preflop == "1",
        preflop_budget_ms=preflop_budget_ms,
        preflop_max_raises=preflop_max_raises,
        allin=allin,
        river_allin=river_allin == "1",
        opponent_threshold=opponent_threshold,
        check_cap=check_cap == "1",
        cap_min_showdowns=cap_showdowns,
        responses=responses == "1",
        response_prior=response_prior,
    )


def _whole_number(text: str, name: str) -> int:
    if not text.isdigit():
        raise ValueError(f"{name}={text!r} is not a non-negative whole number")
    return int(text)


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

PATH_AGENT_KINDS: tuple[str, ...] = ("blueprint", "search")
"""Spec kinds that take a path (``KIND:PATH``); those without a factory are not available yet."""


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
        if kind in PATH_AGENT_KINDS:
            raise ValueError(
                f"agent spec {spec!r}: {kind} agents are not available yet; valid specs: {_valid_specs()}"
            )
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
