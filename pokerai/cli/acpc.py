"""``pokerai acpc``: play an agent in matches run by the ACPC dealer.

    pokerai acpc --host H --port P [--agent SPEC] [--seed S] [--timeout SECONDS]

The protocol and the game are :mod:`pokerai.cli.acpc_protocol`'s, whose :class:`ACPCClient` answers
the dealer's lines without a socket; :func:`run_client` is the thin socket loop around it.

Exit status: 0 when the dealer closes the connection between hands, 1 when
the connection fails (refused, reset, closed in the middle of a hand, or
silent for ``--timeout`` seconds), 2 for a bad argument or a malformed line
from the dealer, 3 when the agent picks an illegal action (a bug in it).
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Callable
from typing import TextIO

import numpy as np

from pokerai.agents.table import load_agent
from pokerai.cli.acpc_protocol import PROTOCOL_VERSION, ACPCClient, AgentError, ProtocolError
from pokerai.cli.arguments import add_agent, add_fresh_seed, checked, finite, fresh_seed, port

MAX_LINE_BYTES = 4096
DEFAULT_TIMEOUT = 600.0

EXIT_OK, EXIT_CONNECTION, EXIT_PROTOCOL, EXIT_AGENT = 0, 1, 2, 3


class ConnectionLost(ConnectionError):
    """The dealer went away or fell silent; the message says how."""


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


_seconds = checked(
    "timeout",
    float,
    "a number of seconds",
    (lambda value: finite(value) and value >= 0, "a non-negative number of seconds"),
)


DESCRIPTION = (
    "Connect to an ACPC dealer at --host:--port and play every hand of "
    "holdem.nolimit.2p.reverse_blinds (stacks 20000, blinds 100/50) until the dealer closes "
    "the connection, then print the hands played, chips won and mbb/hand."
)
EPILOG = (
    "exit status: 0 match over; 1 connection failed, lost or silent for --timeout "
    "seconds; 2 bad argument or a malformed line from the dealer; 3 the agent chose an "
    "illegal action (nothing illegal is ever sent)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``acpc`` options and handler, on ``parser``."""
    parser.add_argument("--host", required=True, help="the dealer's host name or address")
    parser.add_argument(
        "--port", required=True, type=port(1, "in 1..65535"), help="the port the dealer gave this seat"
    )
    add_agent(
        parser,
        "--agent",
        "the agent, any spec that `pokerai agents` lists (default: pokerai play's, search over the shipped "
        "blueprint)",
    )
    add_fresh_seed(parser, "the agent's randomness", "at the end")
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"give up when the dealer sends nothing for this long (default "
        f"{DEFAULT_TIMEOUT:g}; 0 waits for ever)",
    )
    parser.set_defaults(handler=run_acpc)


def run_acpc(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """The ``acpc`` handler: plays the match and prints its summary; returns the exit status."""
    err = sys.stderr
    out = out if out is not None else sys.stdout
    try:
        agent, name = load_agent(args.agent, "--agent")
    except ValueError as error:
        print(f"pokerai acpc: error: {error}", file=err)
        return EXIT_PROTOCOL
    seed = fresh_seed(args.seed)
    warm_up = getattr(agent, "warm_up", None)
    if callable(warm_up):  # first-time work (kernels, tables) before the dealer's clock starts
        warm_up()
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
    "DESCRIPTION",
    "EPILOG",
    "ConnectionLost",
    "LineReader",
    "add_arguments",
    "run_acpc",
    "run_client",
]
