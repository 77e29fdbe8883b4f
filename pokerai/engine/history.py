"""Hand histories: a readable text history, and ACPC ``MATCHSTATE`` / ``STATE`` lines with a parser.

ACPC conventions (protocol 2.0.0, game ``holdem.nolimit.2p.reverse_blinds``,
whose game definition has ``blind = 100 50`` and ``firstPlayer = 2 1 1 1``):

* Seat 0 is the big blind and acts first after the flop; seat 1 is the small
  blind (the button) and acts first preflop. Our player ``p`` sits in seat 1
  when ``p == state.button`` and in seat 0 otherwise. (pokerkit's heads-up
  player indices follow the same numbering.)
* Betting: ``f`` fold, ``c`` check or call, ``r<N>`` bet or raise where ``N``
  is the player's total in the pot for the whole hand after the raise
  (blinds and earlier streets included). Rounds are split by ``/``; as in the
  ACPC dealer, once nobody can act any more the betting string runs on to
  the river with empty rounds (``r20000c///``).
* Cards: ``<seat 0 hole>|<seat 1 hole>/<flop>/<turn>/<river>`` up to the
  current round. A ``MATCHSTATE`` line shows only the viewer's hole cards,
  and the opponent's too after a showdown (not after a fold).
* A ``STATE`` line of a finished hand ends with ``:<results>:<names>``, each
  ``|``-separated in seat order; results are the chips each seat won.

Cards a line does not show (the opponent's hole cards in a ``MATCHSTATE``
line, the board not dealt yet) are still needed by the state machine; the
parser fills them with placeholders: the lowest unused card ids, or draws from
``rng`` if one is given. ``state.hole_cards_known`` marks placeholder hole cards.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from pokerai.engine.cards import BOARD_SIZES, NUM_CARDS, check_distinct, format_cards, parse_cards
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState

STREET_NAMES = ("preflop", "flop", "turn", "river")
_BOARD_ROUND_SIZES = (0, *(later - earlier for earlier, later in itertools.pairwise(BOARD_SIZES)))
"""Board cards dealt at the start of each street."""


def seat_of(state: HUNLState, player: int) -> int:
    """The ACPC seat of ``player``: 1 for the button (small blind), 0 for the big blind."""
    return _seat(player, state.button)


def _seat(player: int, button: int) -> int:
    return 1 if player == button else 0


def replay(state: HUNLState) -> Iterator[tuple[int, Action, HUNLState]]:
    """Replay ``state``'s hand from the blinds: ``(street, action, state after the action)`` per action."""
    current = HUNLState.new(state.config, state.button, deck=state.deal)
    for action in state.history:
        street = current.street
        current.apply(action)
        yield street, action, current


# ---------------------------------------------------------------------- readable history


def format_history(state: HUNLState, viewer: int | None = None) -> str:
    """A readable history of the hand so far, one line per action, with street headers and a summary.

    ``viewer`` hides the other player's hole cards (unless the hand went to showdown).
    """
    config = state.config
    button, big = state.button, 1 - state.button
    showdown = state.is_over and state.folded is None

    def cards_of(player: int) -> str:
        if viewer is not None and player != viewer and not showdown:
            return "?? ??"
        if not state.hole_cards_known[player]:
            return "?? ??"
        return format_cards(state.hole_cards(player), " ")

    lines = [
        f"Heads-up no-limit hold'em, blinds {config.small_blind}/{config.big_blind}",
        f"player {button} (button, small blind): stack {config.stacks[button]}, cards {cards_of(button)}",
        f"player {big} (big blind): stack {config.stacks[big]}, cards {cards_of(big)}",
        f"player {button} posts the small blind {min(config.small_blind, config.stacks[button])}",
        f"player {big} posts the big blind {min(config.big_blind, config.stacks[big])}",
        "*** PREFLOP ***",
    ]
    street_shown = 0
    bet_this_street = True  # the blinds are the preflop bets

    def reach(street: int) -> None:
        nonlocal street_shown, bet_this_street
        while street_shown < street:
            street_shown += 1
            bet_this_street = False
            board = format_cards(state.deal[4 : 4 + BOARD_SIZES[street_shown]], " ")
            lines.append(f"*** {STREET_NAMES[street_shown].upper()} *** [{board}]")

    for street, action, after in replay(state):
        reach(street)
        player = action.player
        all_in = " (all-in)" if after.stacks[player] == 0 and action.kind is not ActionKind.FOLD else ""
        if action.kind is ActionKind.FOLD:
            text = "folds"
        elif action.kind is ActionKind.CHECK:
            text = "checks"
        elif action.kind is ActionKind.CALL:
            text = f"calls {action.amount}"
        elif bet_this_street:
            text = f"raises to {action.amount}"
        else:
            text = f"bets {action.amount}"
            bet_this_street = True
        lines.append(f"player {player} {text}{all_in}")
    reach(state.street)
    if state.is_over:
        lines.append("*** SUMMARY ***")
        returns = state.returns()
        if state.folded is not None:
            lines.append(f"player {1 - state.folded} wins the pot of {state.final_pot} uncontested")
        elif returns[0] == returns[1] == 0:
            lines.append(f"split pot of {state.final_pot}: each player gets {state.final_pot // 2}")
        else:
            winner = 0 if returns[0] > 0 else 1
            lines.append(f"player {winner} wins the pot of {state.final_pot} at showdown")
        lines.append(f"returns: player 0 {returns[0]:+d}, player 1 {returns[1]:+d}")
        lines.append(f"final stacks: player 0 {state.stacks[0]}, player 1 {state.stacks[1]}")
    else:
        lines.append(f"pot {state.pot}; player {state.to_act} to act")
    return "\n".join(lines)


# ---------------------------------------------------------------------- ACPC out


def acpc_betting(state: HUNLState) -> str:
    """The ACPC betting string of ``state`` (``r<N>`` with N the whole-hand total after the raise)."""
    rounds: list[list[str]] = [[] for _ in range(state.street + 1)]
    base = 0  # each player's chips in the pot when the street began (equal for both)
    street_of_base = 0
    for street, action, after in replay(state):
        if street != street_of_base:
            street_of_base = street
            base = after.committed[action.player] - after.bets[action.player]
        if action.kind is ActionKind.FOLD:
            rounds[street].append("f")
        elif action.kind is ActionKind.RAISE:
            rounds[street].append(f"r{base + action.amount}")
        else:
            rounds[street].append("c")
    return "/".join("".join(actions) for actions in rounds)


def acpc_cards(state: HUNLState, viewer: int | None = None) -> str:
    """``<seat 0 hole>|<seat 1 hole>/<flop>/<turn>/<river>`` up to the current street.

    With a ``viewer``, the other player's hole cards appear only after a showdown.
    """
    showdown = state.is_over and state.folded is None
    holes = []
    for seat in (0, 1):
        player = state.button if seat == 1 else 1 - state.button
        hidden = viewer is not None and player != viewer and not showdown
        holes.append(
            "" if hidden or not state.hole_cards_known[player] else format_cards(state.hole_cards(player))
        )
    parts = ["|".join(holes)]
    start = 4
    for street in range(1, state.street + 1):
        size = _BOARD_ROUND_SIZES[street]
        parts.append(format_cards(state.deal[start : start + size]))
        start += size
    return "/".join(parts)


def to_acpc(
    state: HUNLState,
    viewer: int | None = None,
    *,
    hand_number: int = 0,
    names: tuple[str, str] = ("p0", "p1"),
) -> str:
    """``MATCHSTATE:<seat>:<hand>:<betting>:<cards>`` for ``viewer``, or a ``STATE`` line when it is None.

    A ``STATE`` line of a finished hand also carries ``:<results>:<names>`` in seat
    order; ``names`` are given by player index.
    """
    betting = acpc_betting(state)
    cards = acpc_cards(state, viewer)
    if viewer is not None:
        if viewer not in (0, 1):
            raise ValueError(f"viewer {viewer!r} is not 0 or 1")
        return f"MATCHSTATE:{seat_of(state, viewer)}:{hand_number}:{betting}:{cards}"
    line = f"STATE:{hand_number}:{betting}:{cards}"
    if state.is_over:
        for name in names:
            if not name or any(char in name for char in ":|\n"):
                raise ValueError(f"player name {name!r} is empty or holds ':', '|' or a newline")
        returns = state.returns()
        by_seat = (1 - state.button, state.button)
        results = "|".join(str(returns[player]) for player in by_seat)
        line += f":{results}:{'|'.join(names[player] for player in by_seat)}"
    return line


# ---------------------------------------------------------------------- ACPC in


@dataclass(frozen=True)
class ACPCLine:
    """A parsed ``MATCHSTATE`` or ``STATE`` line.

    ``viewer`` is the player index the ``MATCHSTATE`` line was sent to (None for
    ``STATE``); ``results`` and ``names`` are by player index, present only on a
    ``STATE`` line of a finished hand.
    """

    state: HUNLState
    hand_number: int
    viewer: int | None
    results: tuple[int, int] | None = None
    names: tuple[str, str] | None = None


_MATCHSTATE = re.compile(r"MATCHSTATE:(\d+):(\d+):([^:]*):([^:]*)")
_STATE = re.compile(r"STATE:(\d+):([^:]*):([^:]*)(?::([^:]*):([^:]*))?")
_ACTION = re.compile(r"[fc]|r\d+")


def _parse_hole(text: str, what: str) -> list[int] | None:
    if text == "":
        return None
    cards = parse_cards(text)
    if len(cards) != 2:
        raise ValueError(f"{what} {text!r} should be two cards")
    return cards


def parse_acpc(
    line: str,
    config: HUNLConfig | None = None,
    *,
    button: int = 1,
    rng: np.random.Generator | None = None,
) -> ACPCLine:
    """Rebuild the state a ``MATCHSTATE`` or ``STATE`` line describes.

    ``config`` gives blinds and starting stacks (by player index); ``button`` is
    the player index given to seat 1 (the default 1 makes player index and seat
    agree). Every action is replayed through the state machine, so an illegal
    one is an error. Any malformed or inconsistent line is a ``ValueError``
    naming the problem.
    """
    config = config if config is not None else HUNLConfig()
    if button not in (0, 1):
        raise ValueError(f"button {button!r} is not 0 or 1")
    text = line.strip()
    try:
        return _parse(text, config, button, rng)
    except ValueError as error:
        raise ValueError(f"bad ACPC line {text!r}: {error}") from None


def _parse(text: str, config: HUNLConfig, button: int, rng: np.random.Generator | None) -> ACPCLine:
    viewer: int | None = None
    result_text = names_text = None
    match = _MATCHSTATE.fullmatch(text)
    if match is not None:
        seat = int(match.group(1))
        if seat > 1:
            raise ValueError(f"position {seat} is not a seat of a heads-up game (0 or 1)")
        viewer = button if seat == 1 else 1 - button
        hand_text, betting, cards_text = match.group(2), match.group(3), match.group(4)
    else:
        match = _STATE.fullmatch(text)
        if match is None:
            raise ValueError(
                "expected MATCHSTATE:<position>:<hand>:<betting>:<cards> or STATE:<hand>:<betting>:<cards>"
            )
        hand_text, betting, cards_text, result_text, names_text = match.groups()
    holes, board_rounds, board = _parse_cards_field(cards_text, viewer, button)
    state = HUNLState.new(config, button, deck=_deal(holes, board, button, rng))
    state.hole_cards_known = (
        holes[_seat(0, button)] is not None,
        holes[_seat(1, button)] is not None,
    )
    _replay_betting(state, betting)
    if len(board_rounds) != state.street:
        raise ValueError(
            f"cards {cards_text!r} show {len(board_rounds)} board round(s) but the betting reaches "
            f"the {STREET_NAMES[state.street]}"
        )
    hand_number = int(hand_text)
    results: tuple[int, int] | None = None
    names: tuple[str, str] | None = None
    if result_text is not None and names_text is not None:
        results, names = _parse_outcome(state, result_text, names_text, button)
    return ACPCLine(state=state, hand_number=hand_number, viewer=viewer, results=results, names=names)


def _parse_cards_field(
    cards_text: str, viewer: int | None, button: int
) -> tuple[list[list[int] | None], list[str], list[int]]:
    """The cards field: hole cards by seat (None where hidden), the board rounds' text, the board."""
    hole_text, *board_rounds = cards_text.split("/")
    if hole_text.count("|") != 1:
        raise ValueError(f"hole cards {hole_text!r} should be two seats split by '|'")
    holes = [_parse_hole(part, f"seat {seat}'s hole cards") for seat, part in enumerate(hole_text.split("|"))]
    if len(board_rounds) > 3:
        raise ValueError(f"cards {cards_text!r} have more than three board rounds")
    board: list[int] = []
    for street, part in enumerate(board_rounds, start=1):
        cards = parse_cards(part)
        if len(cards) != _BOARD_ROUND_SIZES[street]:
            raise ValueError(
                f"the {STREET_NAMES[street]} {part!r} should be {_BOARD_ROUND_SIZES[street]} card(s), "
                f"not {len(cards)}"
            )
        board += cards
    if viewer is not None and holes[_seat(viewer, button)] is None:
        raise ValueError(f"the viewer's (seat {_seat(viewer, button)}) hole cards are missing")
    if viewer is None and (holes[0] is None or holes[1] is None):
        raise ValueError("a STATE line must show both seats' hole cards")
    return holes, board_rounds, board


def _deal(
    holes: list[list[int] | None], board: list[int], button: int, rng: np.random.Generator | None
) -> tuple[int, ...]:
    """The 9-card deal (players' holes, then the board): hidden cards filled from the unused ones,
    in card order or shuffled by ``rng``."""
    known = [card for hole in holes if hole is not None for card in hole] + board
    check_distinct(known)
    seen = set(known)
    unused = [card for card in range(NUM_CARDS) if card not in seen]
    if rng is not None:
        unused = [unused[i] for i in rng.permutation(len(unused))]
    fill = iter(unused)
    player_of_seat = (1 - button, button)
    by_player: list[list[int]] = [[], []]
    for seat in (0, 1):
        hole = holes[seat]
        by_player[player_of_seat[seat]] = hole if hole is not None else [next(fill), next(fill)]
    return (*by_player[0], *by_player[1], *board, *[next(fill) for _ in range(5 - len(board))])


def _replay_betting(state: HUNLState, betting: str) -> None:
    """Replay every action of the betting field; '/' must fall exactly where a round ends."""
    rounds = betting.split("/")
    for street, round_text in enumerate(rounds):
        if street > state.street:
            raise ValueError(
                f"betting {betting!r} starts round {street + 1} while round {state.street + 1} is still open"
            )
        position = 0
        for token in _ACTION.finditer(round_text):
            if token.start() != position:
                break
            position = token.end()
            if state.street != street:
                raise ValueError(f"betting round {street + 1} ({round_text!r}) goes on after the round ended")
            _apply_acpc(state, token.group(), street)
        if position != len(round_text):
            raise ValueError(f"betting {round_text!r} has an unreadable action at {round_text[position:]!r}")
    if state.street != len(rounds) - 1:
        raise ValueError(
            f"betting {betting!r} stops in round {len(rounds)} but the state is in round {state.street + 1}"
        )


def _parse_outcome(
    state: HUNLState, result_text: str, names_text: str, button: int
) -> tuple[tuple[int, int], tuple[str, str]]:
    """A STATE line's results and names, by seat in the text, as (player 0's, player 1's)."""
    if not state.is_over:
        raise ValueError("the line has results but the hand is not over")
    player_of_seat = (1 - button, button)
    seat_results = _parse_results(result_text)
    results_by_player = [0, 0]
    for seat in (0, 1):
        results_by_player[player_of_seat[seat]] = seat_results[seat]
    results = (results_by_player[0], results_by_player[1])
    if results != state.returns():
        expected = "|".join(str(state.returns()[player]) for player in player_of_seat)
        raise ValueError(f"results {result_text!r} do not match the hand, which gives {expected!r}")
    seat_names = names_text.split("|")
    if len(seat_names) != 2 or not all(seat_names):
        raise ValueError(f"names {names_text!r} should be two non-empty names split by '|'")
    names_by_player = ["", ""]
    for seat in (0, 1):
        names_by_player[player_of_seat[seat]] = seat_names[seat]
    return results, (names_by_player[0], names_by_player[1])


def _parse_results(text: str) -> tuple[int, int]:
    parts = text.split("|")
    if len(parts) != 2:
        raise ValueError(f"results {text!r} should be two numbers split by '|'")
    values = []
    for part in parts:
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"result {part!r} is not a number") from None
        if value != int(value):
            raise ValueError(f"result {part!r} is not a whole number of chips")
        values.append(int(value))
    return values[0], values[1]


def _apply_acpc(state: HUNLState, token: str, street: int) -> None:
    where = f"action {token!r} in round {street + 1}"
    player = state.to_act
    if player is None:
        raise ValueError(f"{where}: the hand is already over")
    try:
        if token == "f":
            state.fold()
        elif token == "c":
            state.check_or_call()
        else:
            base = state.committed[player] - state.bets[player]
            total = int(token[1:])
            if total <= state.committed[player]:
                raise ValueError(f"player {player} already has {state.committed[player]} in the pot")
            amount = total - base
            where += f" (a raise to {amount} on this street)" if base else ""
            state.raise_to(amount)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


__all__ = [
    "ACPCLine",
    "acpc_betting",
    "acpc_cards",
    "format_history",
    "parse_acpc",
    "replay",
    "seat_of",
    "to_acpc",
]
