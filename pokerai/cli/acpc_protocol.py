"""The ACPC protocol 2.0.0 without a socket: the client of ``pokerai acpc`` (:mod:`pokerai.cli.acpc`).

The Annual Computer Poker Competition dealer speaks protocol 2.0.0: the
client connects, sends ``VERSION:2.0.0``, and the dealer sends a line
``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` after every action of
every hand (the last one of a hand shows the opponent's cards after a
showdown). On its turn the client answers with the same line plus
``:<action>`` (``f``, ``c`` or ``r<N>``). Lines that start with ``#`` or
``;`` are comments. The match ends when the dealer closes the connection.

The game is ``holdem.nolimit.2p.reverse_blinds``: stacks of 20,000 chips,
position 0 posts the big blind of 100 and acts first after the flop,
position 1 posts the small blind of 50 (it is the button), and ``r<N>``
raises **to** N chips counted over the whole hand. The client's player index
is its position (:func:`pokerai.engine.history.parse_acpc` with ``button=1``).

:class:`ACPCClient`: ``receive(line)`` returns the reply to send (or None). It rebuilds the
engine state from every line (every action replayed through the rules), checks that the line
agrees with what came before in the hand and with the action it sent, never sends an action the
engine does not accept, and counts the chips won per hand from each hand's last line. A
malformed or inconsistent line is a :class:`ProtocolError` that quotes it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pokerai.agents.base import Agent, HandSummary, Observation
from pokerai.engine.history import ACPCLine, acpc_betting, parse_acpc
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState

PROTOCOL_VERSION = "VERSION:2.0.0"
ACPC_CONFIG = HUNLConfig(small_blind=50, big_blind=100, stacks=(20_000, 20_000))
"""``holdem.nolimit.2p.reverse_blinds``; players are indexed by position (position 1 has the button)."""
ACPC_BUTTON = 1
"""The position (= player index) on the button: it posts the small blind and acts first preflop."""


class ProtocolError(ValueError):
    """A line from the dealer that is malformed or disagrees with the hand so far; the message quotes it."""


class AgentError(RuntimeError):
    """The agent chose an action that is not legal; nothing was sent."""


def is_comment(line: str) -> bool:
    """Whether ``line`` is a protocol comment (``#`` or ``;`` first)."""
    return line.startswith(("#", ";"))


def parse_matchstate(line: str) -> ACPCLine:
    """The state a ``MATCHSTATE`` line describes, its viewer being the player at its position.

    Raises :class:`ProtocolError` quoting ``line`` if it is not a ``MATCHSTATE``
    line of this game, if any action in it is illegal, or if the engine's
    betting string of the rebuilt state differs from the line's (the two
    views of the hand must agree exactly).
    """
    if not line.startswith("MATCHSTATE:"):
        raise ProtocolError(f"malformed line from the dealer {line!r}: it is not a MATCHSTATE line")
    try:
        parsed = parse_acpc(line, ACPC_CONFIG, button=ACPC_BUTTON)
    except ValueError as error:
        # parse_acpc's sentence starts "bad ACPC line '...'"; say where the line came from instead.
        message = str(error).replace("bad ACPC line", "malformed line from the dealer", 1)
        raise ProtocolError(message) from None
    betting = line.split(":")[3]
    rebuilt = acpc_betting(parsed.state)
    if rebuilt != betting:
        raise ProtocolError(
            f"malformed line from the dealer {line!r}: its betting {betting!r} replays to {rebuilt!r}"
        )
    return parsed


def action_token(state: HUNLState, action: Action) -> str:
    """The ACPC action (``f``, ``c`` or ``r<N>``, N the whole-hand total) of ``action`` at ``state``.

    Raises ``ValueError`` (the engine's sentence) when ``action`` is not legal
    at ``state``; so a size the dealer would have to clamp is never produced.
    """
    state.verify(action)
    if action.kind is ActionKind.FOLD:
        return "f"
    if action.kind is not ActionKind.RAISE:
        return "c"
    street_start = state.committed[action.player] - state.bets[action.player]
    return f"r{street_start + action.amount}"


@dataclass
class MatchTally:
    """Finished hands and the chips the client won in them."""

    hands: int = 0
    chips: int = 0

    @property
    def mbb_per_hand(self) -> float:
        """Milli-big-blinds won per hand (big blind 100 chips)."""
        if self.hands == 0:
            return 0.0
        return 1000.0 * self.chips / ACPC_CONFIG.big_blind / self.hands

    def summary(self) -> str:
        return f"hands {self.hands}, chips won {self.chips:+d}, {self.mbb_per_hand:+.1f} mbb/hand"


class ACPCClient:
    """The protocol of one match, without the socket: lines in, replies out (module docstring).

    ``agent`` acts with ``rng``. ``tally`` holds the finished hands and chips won.
    """

    def __init__(self, agent: Agent, rng: np.random.Generator) -> None:
        self.agent = agent
        self.rng = rng
        self.tally = MatchTally()
        self.hand: int | None = None
        """The hand number of the last line, None before the first."""
        self.hand_over = True
        """Whether the last hand seen has ended (True before the first line)."""
        self._position = 0
        self._previous: ACPCLine | None = None
        self._previous_betting = ""
        self._expected_betting: str | None = None
        """The betting our last reply leads to; the next line of the hand must start with it."""

    @property
    def in_hand(self) -> bool:
        """Whether a hand has started and not ended."""
        return not self.hand_over

    def receive(self, line: str) -> str | None:
        """The reply to one dealer line (without its line ending), or None when there is nothing to send.

        Raises :class:`ProtocolError` for a malformed or inconsistent line and
        :class:`AgentError` if the agent picks an illegal action.
        """
        text = line.rstrip("\r\n")
        if not text.strip() or is_comment(text):
            return None
        parsed = parse_matchstate(text)
        betting = text.split(":")[3]
        assert parsed.viewer is not None
        if parsed.hand_number != self.hand:
            self._start_hand(text, parsed)
        else:
            self._check_continues(text, parsed, betting)
        self._previous, self._previous_betting = parsed, betting
        self._expected_betting = None
        state = parsed.state
        if state.is_over:
            if state.folded is None and not all(state.hole_cards_known):
                raise ProtocolError(
                    f"malformed line from the dealer {text!r}: hand {parsed.hand_number} ended at a showdown "
                    "but the line does not show the opponent's cards"
                )
            self.hand_over = True
            self.tally.hands += 1
            self.tally.chips += state.returns()[parsed.viewer]
            self.agent.end_hand(HandSummary.from_state(state, parsed.viewer))
            return None
        if state.to_act != parsed.viewer:
            return None
        action = self.agent.act(Observation.from_state(state), self.rng)
        try:
            token = action_token(state, action)
        except ValueError as error:
            raise AgentError(
                f"agent {self.agent.name!r} chose an illegal action ({action}) at {text!r}: {error}"
            ) from None
        self._expected_betting = betting + token
        return f"{text}:{token}"

    def _start_hand(self, text: str, parsed: ACPCLine) -> None:
        if self.hand is not None:
            if not self.hand_over:
                raise ProtocolError(
                    f"malformed line from the dealer {text!r}: it starts hand {parsed.hand_number} "
                    f"before hand {self.hand} ended"
                )
            if parsed.hand_number < self.hand:
                raise ProtocolError(
                    f"malformed line from the dealer {text!r}: hand {parsed.hand_number} comes after "
                    f"hand {self.hand}"
                )
        if len(parsed.state.history) > 1:
            raise ProtocolError(
                f"malformed line from the dealer {text!r}: the first line of hand {parsed.hand_number} "
                "already holds more than one action"
            )
        assert parsed.viewer is not None
        self.hand = parsed.hand_number
        self.hand_over = False
        self._position = parsed.viewer
        self.agent.begin_hand(parsed.viewer, ACPC_BUTTON)

    def _check_continues(self, text: str, parsed: ACPCLine, betting: str) -> None:
        previous = self._previous
        assert previous is not None
        where = f"malformed line from the dealer {text!r}"
        if self.hand_over:
            raise ProtocolError(f"{where}: hand {self.hand} has already ended")
        if parsed.viewer != self._position:
            raise ProtocolError(f"{where}: our position changed in the middle of hand {self.hand}")
        if not betting.startswith(self._previous_betting) or betting == self._previous_betting:
            raise ProtocolError(
                f"{where}: its betting does not continue the previous line's {self._previous_betting!r}"
            )
        if self._expected_betting is not None and not betting.startswith(self._expected_betting):
            raise ProtocolError(
                f"{where}: its betting does not record our action (expected it to start with "
                f"{self._expected_betting!r})"
            )
        viewer = self._position
        old, new = previous.state, parsed.state
        if new.hole_cards(viewer) != old.hole_cards(viewer):
            raise ProtocolError(f"{where}: our hole cards changed in the middle of hand {self.hand}")
        if new.board[: len(old.board)] != old.board:
            raise ProtocolError(f"{where}: the board changed in the middle of hand {self.hand}")


__all__ = [
    "ACPC_BUTTON",
    "ACPC_CONFIG",
    "PROTOCOL_VERSION",
    "ACPCClient",
    "AgentError",
    "MatchTally",
    "ProtocolError",
    "action_token",
    "is_comment",
    "parse_matchstate",
]
