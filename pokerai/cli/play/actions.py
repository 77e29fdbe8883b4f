"""The moves a user types at ``pokerai play``: :func:`parse_user_action` turns one line into an engine
:class:`~pokerai.engine.state.Action` (or a :class:`Command`), or raises ``ValueError`` with one
sentence saying why it is not a legal move here."""

from __future__ import annotations

import enum
import math
import re

from pokerai.agents.base import Observation
from pokerai.engine.state import Action, ActionKind

HELP_TEXT = """\
commands (amounts are chips; a raise is to a total for this street):
  f            fold
  k            check
  c            call (or check when there is nothing to call)
  r AMOUNT     raise to AMOUNT (b AMOUNT is the same: a bet when nobody has bet)
               AMOUNT: chips (600), big blinds (3bb) or a fraction of the pot (2/3p, 0.5p, p)
  a            all-in
  h            this help
  q            quit (Ctrl-D and Ctrl-C too); an unfinished hand counts as a fold"""


class Command(enum.Enum):
    """A line of input that is not a poker action."""

    QUIT = "quit"
    HELP = "help"


_WORDS: dict[str, str] = {
    "f": "fold", "fold": "fold",
    "k": "check", "x": "check", "check": "check",
    "c": "call", "call": "call",
    "r": "raise", "raise": "raise", "b": "raise", "bet": "raise",
    "a": "allin", "allin": "allin", "all-in": "allin", "shove": "allin",
    "q": "quit", "quit": "quit", "exit": "quit",
    "h": "help", "help": "help", "?": "help",
}  # fmt: skip
_SPLIT = re.compile(r"([a-z?-]+)\s*(.*)")
_FRACTION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(?:/(\d+(?:\.\d*)?))?")
AMOUNT_FORMS = "chips (600), big blinds (3bb) or a fraction of the pot (2/3p)"


def pot_fraction_raise_to(observation: Observation, fraction: float) -> int:
    """The raise-to (street total) of a bet or raise of ``fraction`` of the pot, rounded to whole chips.

    A pot-size raise first calls, then raises by the pot after the call: the
    street total is the opponent's bet plus ``fraction`` times (pot + amount to call).
    """
    facing = observation.bets[1 - observation.player] - observation.bets[observation.player]
    return observation.bets[1 - observation.player] + round(fraction * (observation.pot + facing))


def parse_amount(text: str, observation: Observation) -> int:
    """The raise-to in chips that ``text`` names: ``600``, ``3bb``, ``2/3p``, ``0.5pot``, ``p``.

    Raises ``ValueError`` with one sentence if ``text`` is none of these forms;
    the amount is not checked against the legal range here.
    """
    cleaned = text.strip().lower().replace(",", "").replace("_", "").replace(" ", "")
    unit = ""
    for suffix in ("pot", "bb", "p"):
        if cleaned.endswith(suffix):
            unit, cleaned = suffix, cleaned[: -len(suffix)]
            break
    if unit in ("p", "pot") and cleaned == "":
        cleaned = "1"
    match = _FRACTION.fullmatch(cleaned)
    if match is None:
        raise ValueError(f"cannot read the amount {text.strip()!r}: write {AMOUNT_FORMS}")
    value = float(match.group(1))
    if match.group(2) is not None:
        denominator = float(match.group(2))
        if denominator == 0:
            raise ValueError(f"cannot read the amount {text.strip()!r}: it divides by zero")
        value /= denominator
    if not math.isfinite(value):
        raise ValueError(f"cannot read the amount {text.strip()!r}: write {AMOUNT_FORMS}")
    if unit in ("p", "pot"):
        return pot_fraction_raise_to(observation, value)
    if unit == "bb":
        return round(value * observation.config.big_blind)
    if match.group(2) is not None or value != int(value):
        raise ValueError(f"an amount in chips must be a whole number, not {text.strip()!r}")
    return int(value)


def _cannot_raise(observation: Observation) -> str:
    """Why raising is not legal at ``observation`` (it must not be), and what is."""
    opponent = 1 - observation.player
    if observation.stacks[opponent] == 0:
        reason = "the bot is all-in"
    else:
        reason = f"calling {observation.call_amount} already puts you all-in"
    if ActionKind.CALL in observation.legal_actions:
        return f"you cannot raise: {reason}; call with c ({observation.call_amount}) or fold with f"
    return f"you cannot raise: {reason}; check with k"


def parse_user_action(text: str, observation: Observation) -> Action | Command:
    """The action (or command) the user typed at ``observation``, the user's decision.

    Accepts the keys of :data:`HELP_TEXT`, in any case. Raises ``ValueError``
    with one sentence for anything that is not a legal move here: an unknown
    command, a fold or check that the rules do not allow, a raise when only
    calling is possible, a missing, unreadable or out-of-range amount.
    The returned action is always legal at ``observation``.
    """
    cleaned = text.strip().lower()
    if not cleaned:
        raise ValueError("type an action (f, k, c, r AMOUNT, a), h for help or q to quit")
    match = _SPLIT.fullmatch(cleaned)
    word = _WORDS.get(match.group(1)) if match is not None else None
    if match is None or word is None:
        raise ValueError(f"unknown command {text.strip()!r}; type h for help")
    argument = match.group(2).strip()
    if word in ("quit", "help", "fold", "check", "call", "allin") and argument:
        raise ValueError(f"{match.group(1)!r} takes no amount, but {argument!r} follows it; type h for help")
    if word == "quit":
        return Command.QUIT
    if word == "help":
        return Command.HELP
    player, legal = observation.player, observation.legal_actions
    if word == "fold":
        if ActionKind.FOLD not in legal:
            raise ValueError(
                "there is no bet to fold to: check with k (folding here would throw away nothing)"
            )
        return Action(player, ActionKind.FOLD)
    if word == "check":
        if ActionKind.CHECK not in legal:
            raise ValueError(
                f"you cannot check: you face a bet; call with c ({observation.call_amount}) or fold with f"
            )
        return Action(player, ActionKind.CHECK)
    if word == "call":
        return observation.check_or_call()
    if ActionKind.RAISE not in legal:
        raise ValueError(_cannot_raise(observation))
    minimum, maximum = observation.min_raise_to, observation.max_raise_to
    assert minimum is not None and maximum is not None
    if word == "allin":
        return Action(player, ActionKind.RAISE, maximum)
    if not argument:
        raise ValueError(f"say how much: r AMOUNT with AMOUNT in {minimum}..{maximum}, or a for all-in")
    amount = parse_amount(argument, observation)
    if amount < minimum:
        only = " (the only raise left is all-in: a)" if minimum == maximum else ""
        raise ValueError(f"raise to {amount} is below the minimum raise to {minimum}{only}")
    if amount > maximum:
        raise ValueError(f"raise to {amount} is more than you have: all-in is a raise to {maximum} (a)")
    return Action(player, ActionKind.RAISE, amount)


__all__ = ["HELP_TEXT", "Command", "parse_amount", "parse_user_action", "pot_fraction_raise_to"]
