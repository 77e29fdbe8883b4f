"""The table that ``pokerai play``, ``acpc`` and ``analyze`` seat a bot at, and the bot they seat by default.

Blinds are :data:`SMALL_BLIND` / :data:`BIG_BLIND` chips; every solve the bot runs there stops after
:data:`TABLE_BUDGET_S` seconds where its spec sets no budget. :data:`DEFAULT_BOT` searches every
postflop street over the tabular MCCFR blueprint shipped in ``checkpoints/hunl_blueprint``;
:func:`load_agent` builds the agent a command-line option names (the default bot for none).
"""

from __future__ import annotations

from pathlib import Path

from pokerai.agents.base import Agent, Observation
from pokerai.agents.spec import make_agent
from pokerai.engine.state import HUNLState
from pokerai.shipped import package_checkpoints

SMALL_BLIND, BIG_BLIND = 50, 100
"""The blinds in chips of every hand at the table (and the analyzer's spots)."""
TABLE_BUDGET_S = 2.0
"""Seconds of CFR+ iterations each solve of the bot may take at the table, where its spec sets no budget
(the default bot's all-in answers; docs/BENCHMARKS.md has their times)."""
DEFAULT_BLUEPRINT = Path("checkpoints") / "hunl_blueprint"
"""The shipped blueprint, relative to the repository root (or the working directory): the tabular
MCCFR strategy of ``configs/hunl_blueprint.yaml`` with its card abstraction (docs/RESULTS.md)."""
DEFAULT_BOT = f"search:{DEFAULT_BLUEPRINT.as_posix()}"
"""The default bot, as it is named: real-time search at every postflop street
(``configs/search_default.yaml``) over the shipped blueprint, which plays the preflop with the
``blueprint:`` spec's defaults (its probabilities as they are, all-ins off its menu answered by a
solved call-or-fold game)."""


def is_bet(position: HUNLState | Observation) -> bool:
    """Whether a raise at ``position`` would be the street's first bet (after the flop, nobody has bet)."""
    return position.street > 0 and max(position.bets) == 0


def default_blueprint_candidates() -> list[Path]:
    """Where the shipped blueprint may be: under the working directory, then in the installed package."""
    return [Path.cwd() / DEFAULT_BLUEPRINT, package_checkpoints().joinpath(*DEFAULT_BLUEPRINT.parts[1:])]


def default_opponent_spec(candidates: list[Path] | None = None) -> str:
    """The default bot's spec, ``search:PATH``, for the first candidate folder holding a blueprint: a
    tabular ``strategy.npz``, or a Deep CFR ``policy.npz`` or ``policy.pt``.

    Raises ``ValueError`` with one sentence (naming the places looked at and
    suggesting ``--opponent heuristic``) when none does.
    """
    places = candidates if candidates is not None else default_blueprint_candidates()
    for place in places:
        if any((place / name).is_file() for name in ("strategy.npz", "policy.npz", "policy.pt")):
            return f"search:{place}"
    looked = ", ".join(str(place) for place in dict.fromkeys(places))
    raise ValueError(
        f"the shipped blueprint {DEFAULT_BLUEPRINT} was not found (looked in {looked}); "
        "name another opponent, e.g. --opponent heuristic"
    )


def load_agent(spec: str | None, option: str) -> tuple[Agent, str]:
    """The agent for ``spec`` (None: the shipped blueprint) and its display name.

    Raises ``ValueError`` with one sentence that starts with ``option``.
    """
    if spec is None:
        try:
            spec = default_opponent_spec()
        except ValueError as error:
            raise ValueError(f"{option}: {error}") from None
        name = DEFAULT_BOT
    else:
        name = spec.strip()
    try:
        return make_agent(spec), name
    except ValueError as error:
        raise ValueError(f"{option}: {error}") from None
    except OSError as error:  # a checkpoint that cannot be read
        raise ValueError(f"{option} {spec}: {error.strerror or error}") from None


__all__ = [
    "BIG_BLIND",
    "DEFAULT_BLUEPRINT",
    "DEFAULT_BOT",
    "SMALL_BLIND",
    "TABLE_BUDGET_S",
    "default_blueprint_candidates",
    "default_opponent_spec",
    "is_bet",
    "load_agent",
]
