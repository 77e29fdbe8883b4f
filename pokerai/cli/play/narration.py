"""What ``pokerai play`` says: each action as a sentence, the legal moves, and the block shown before
each of the user's decisions."""

from __future__ import annotations

from pokerai.agents.base import Observation
from pokerai.agents.table import BIG_BLIND, is_bet
from pokerai.engine.cards import format_cards
from pokerai.engine.history import STREET_NAMES
from pokerai.engine.state import Action, ActionKind, HUNLState


def describe_action(action: Action, before: HUNLState, after: HUNLState, who: str) -> str:
    """``"bot raises to 300"``: ``action`` taken at ``before`` (leading to ``after``), said of ``who``.

    ``who`` is ``"you"`` (verbs in the second person) or a name (third person).
    """
    third = who != "you"

    def verb(base: str) -> str:
        return f"{base}s" if third else base

    if action.kind is ActionKind.FOLD:
        return f"{who} {verb('fold')}"
    if action.kind is ActionKind.CHECK:
        return f"{who} {verb('check')}"
    all_in = " (all-in)" if after.stacks[action.player] == 0 else ""
    if action.kind is ActionKind.CALL:
        return f"{who} {verb('call')} {action.amount}{all_in}"
    if is_bet(before):
        return f"{who} {verb('bet')} {action.amount}{all_in}"
    return f"{who} {verb('raise')} to {action.amount}{all_in}"


def legal_summary(observation: Observation) -> str:
    """The legal moves with their amounts, e.g. ``f fold | c call 50 | r AMOUNT raise to 200..20000``."""
    parts = []
    legal = observation.legal_actions
    if ActionKind.FOLD in legal:
        parts.append("f fold")
    if ActionKind.CHECK in legal:
        parts.append("k check")
    if ActionKind.CALL in legal:
        all_in = " (all-in)" if observation.call_amount == observation.stacks[observation.player] else ""
        parts.append(f"c call {observation.call_amount}{all_in}")
    if ActionKind.RAISE in legal:
        minimum, maximum = observation.min_raise_to, observation.max_raise_to
        if minimum != maximum:
            key, verb = ("b", "bet") if is_bet(observation) else ("r", "raise to")
            parts.append(f"{key} AMOUNT {verb} {minimum}..{maximum}")
        parts.append(f"a all-in {maximum}")
    parts.append("q quit")
    return " | ".join(parts)


def describe_decision(observation: Observation, last_bot_action: str) -> str:
    """The block shown before each of the user's decisions: cards, board, pot, stacks, bets, legal moves.

    ``last_bot_action`` says what the bot did since the user's previous action.
    """
    me, bot = observation.player, 1 - observation.player
    board = format_cards(observation.board, " ") or "-"
    street = STREET_NAMES[observation.street]

    def seat(player: int) -> str:
        return " (button)" if player == observation.button else " (big blind)"

    lines = [
        f"  board  {board}   ({street})",
        f"  pot    {observation.pot}",
        f"  you    {format_cards(observation.hole_cards, ' ')}   stack {observation.stacks[me]:>6}"
        f"   bet {observation.bets[me]:>5}{seat(me)}",
        f"  bot    ?? ??   stack {observation.stacks[bot]:>6}   bet {observation.bets[bot]:>5}{seat(bot)}",
        f"  last   {last_bot_action}",
        f"  legal  {legal_summary(observation)}",
    ]
    return "\n".join(lines)


def signed_bb(chips: int) -> str:
    """``chips`` in big blinds with a sign, e.g. ``+2.5 bb``."""
    return f"{chips / BIG_BLIND:+g} bb"


__all__ = ["describe_action", "describe_decision", "legal_summary", "signed_bb"]
