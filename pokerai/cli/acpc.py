"""``pokerai acpc``: play an agent in matches run by the ACPC dealer.

    pokerai acpc --host H --port P [--agent SPEC] [--seed S] [--timeout SECONDS]

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

Two parts:

* :class:`ACPCClient`, the protocol without a socket: ``receive(line)``
  returns the reply to send (or None). It rebuilds the engine state from
  every line (every action replayed through the rules), checks that the
  line agrees with what came before in the hand and with the action it sent,
  never sends an action the engine does not accept, and counts the chips
  won per hand from each hand's last line. A malformed or inconsistent line
  is a :class:`ProtocolError` that quotes it.
* :func:`run_client`, the thin socket loop around it.

Exit status: 0 when the dealer closes the connection between hands, 1 when
the connection fails (refused, reset, closed in the middle of a hand, or
silent for ``--timeout`` seconds), 2 for a bad argument or a malformed line
from the dealer, 3 when the agent picks an illegal action (a bug in it).
"""

from __future__ import annotations

import argparse
import math
import secrets
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from pokerai.agents.base import Agent, HandSummary, Observation
from pokerai.cli.arguments import seed
from pokerai.cli.play import load_agent
from pokerai.engine.history import ACPCLine, acpc_betting, parse_acpc
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState

PROTOCOL_VERSION = "VERSION:2.0.0"
ACPC_CONFIG = HUNLConfig(small_blind=50, big_blind=100, stacks=(20_000, 20_000))
"""``holdem.nolimit.2p.reverse_blinds``; players are indexed by position (position 1 has the button)."""
ACPC_BUTTON = 1
"""The position (= player index) on the button: it posts the small blind and acts first preflop."""
MAX_LINE_BYTES = 4096
DEFAULT_TIMEOUT = 600.0

EXIT_OK, EXIT_CONNECTION, EXIT_PROTOCOL, EXIT_AGENT = 0, 1, 2, 3


class ProtocolError(ValueError):
    """A line from the dealer that is malformed or disagrees with the hand so far; the message quotes it."""


class AgentError(RuntimeError):
    """The agent chose an action that is not legal; nothing was sent."""


class ConnectionLost(ConnectionError):
    """The dealer went away or fell silent; the message says how."""


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


# ---------------------------------------------------------------------- the socket


class LineReader:
    """Lines from a socket, each at most ``MAX_LINE_BYTES``; a silent socket raises ``TimeoutError``."""

    def __init__(self, connection: socket.socket) -> None:
        self._connection = connection
        self._buffer = b""

    def readline(self) -> str | None:
        """The next line without its ending; None when the dealer has closed the connection."""
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE_BYTES:
                raise ProtocolError(
                    f"malformed input from the dealer: a line longer than {MAX_LINE_BYTES} bytes "
                    f"starting {self._buffer[:60]!r}"
                )
            chunk = self._connection.recv(4096)
            if not chunk:
                if self._buffer:
                    raise ConnectionLost(
                        f"the dealer closed the connection in the middle of a line ({self._buffer[:60]!r})"
                    )
                return None
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\n", 1)
        try:
            return raw.decode("ascii").rstrip("\r")
        except UnicodeDecodeError:
            raise ProtocolError(
                f"malformed line from the dealer {raw[:80]!r}: it is not ASCII text"
            ) from None


def run_client(
    host: str,
    port: int,
    client: ACPCClient,
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    on_line: Callable[[str], None] | None = None,
) -> None:
    """Connect to the dealer at ``host``:``port`` and play until it closes the connection between hands.

    ``timeout`` (seconds, None for none) bounds the connection attempt and each
    wait for a line. Raises :class:`ConnectionLost` when the connection fails,
    :class:`ProtocolError` / :class:`AgentError` from the client; the socket is
    closed either way. ``on_line`` sees every line received (for a transcript).
    """
    try:
        connection = socket.create_connection((host, port), timeout=timeout)
    except OSError as error:
        raise ConnectionLost(
            f"cannot connect to the dealer at {host}:{port}: {error.strerror or error}"
        ) from None
    with connection:
        try:
            # One short line each way per action: without this, Nagle's algorithm and delayed
            # acknowledgements stall every exchange for tens of milliseconds.
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            connection.sendall(f"{PROTOCOL_VERSION}\r\n".encode("ascii"))
            reader = LineReader(connection)
            while True:
                line = reader.readline()
                if line is None:
                    break
                if on_line is not None:
                    on_line(line)
                reply = client.receive(line)
                if reply is not None:
                    connection.sendall(f"{reply}\r\n".encode("ascii"))
        except TimeoutError:
            raise ConnectionLost(f"the dealer sent nothing for {timeout:g} seconds; giving up") from None
        except ConnectionLost:
            raise
        except OSError as error:
            raise ConnectionLost(f"lost the connection to the dealer: {error.strerror or error}") from None
    if client.in_hand:
        raise ConnectionLost(f"the dealer closed the connection in the middle of hand {client.hand}")


# ---------------------------------------------------------------------- the subcommand


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"port must be a whole number, got {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be in 1..65535, got {text}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"timeout must be a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"timeout must be a non-negative number of seconds, got {text}")
    return value


def register(commands: Any) -> argparse.ArgumentParser:
    """Add ``acpc`` to ``commands`` (the ``pokerai`` argparse subparsers) and set its handler."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "acpc",
        help="play an agent against an ACPC dealer (protocol 2.0.0, no-limit reverse blinds)",
        description="Connect to an ACPC dealer at --host:--port and play every hand of "
        "holdem.nolimit.2p.reverse_blinds (stacks 20000, blinds 100/50) until the dealer closes "
        "the connection, then print the hands played, chips won and mbb/hand.",
        epilog="exit status: 0 match over; 1 connection failed, lost or silent for --timeout "
        "seconds; 2 bad argument or a malformed line from the dealer; 3 the agent chose an "
        "illegal action (nothing illegal is ever sent).",
    )
    parser.add_argument("--host", required=True, help="the dealer's host name or address")
    parser.add_argument("--port", required=True, type=_port, help="the port the dealer gave this seat")
    parser.add_argument(
        "--agent",
        metavar="SPEC",
        default=None,
        help="the agent, any spec that `pokerai agents` lists "
        "(default: pokerai play's, search over the shipped blueprint)",
    )
    parser.add_argument(
        "--seed",
        type=seed,
        default=None,
        metavar="S",
        help="seed of the agent's randomness (default: a fresh one, shown at the end)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"give up when the dealer sends nothing for this long (default "
        f"{DEFAULT_TIMEOUT:g}; 0 waits for ever)",
    )
    parser.set_defaults(handler=run_acpc)
    return parser


def run_acpc(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """The ``acpc`` handler: plays the match and prints its summary; returns the exit status."""
    err = sys.stderr
    out = out if out is not None else sys.stdout
    try:
        agent, name = load_agent(args.agent, "--agent")
    except ValueError as error:
        print(f"pokerai acpc: error: {error}", file=err)
        return EXIT_PROTOCOL
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    client = ACPCClient(agent, np.random.default_rng(seed))
    status = EXIT_OK
    try:
        run_client(args.host, args.port, client, timeout=args.timeout or None)
    except ProtocolError as error:
        print(f"pokerai acpc: error: {error}", file=err)
        status = EXIT_PROTOCOL
    except ConnectionLost as error:
        print(f"pokerai acpc: error: {error}", file=err)
        status = EXIT_CONNECTION
    except AgentError as error:
        print(f"pokerai acpc: error: {error}", file=err)
        status = EXIT_AGENT
    print(f"{name} (seed {seed}): {client.tally.summary()}", file=out, flush=True)
    return status


__all__ = [
    "ACPC_CONFIG",
    "PROTOCOL_VERSION",
    "ACPCClient",
    "AgentError",
    "ConnectionLost",
    "LineReader",
    "MatchTally",
    "ProtocolError",
    "action_token",
    "is_comment",
    "parse_matchstate",
    "register",
    "run_acpc",
    "run_client",
]
