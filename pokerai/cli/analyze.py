"""``pokerai analyze``: the hand analyzer, a local web app that shows what the bot would do, and why.

    pokerai analyze [--bot SPEC] [--host 127.0.0.1] [--port 8765] [--search-ms MS]

It loads the bot (by default ``pokerai play``'s: search over the shipped blueprint), prints the page's URL
and serves until Ctrl-C. The page and its JSON endpoints are :mod:`pokerai.web.app`. FastAPI and
uvicorn are imported only when the command runs.
"""

from __future__ import annotations

import argparse
import socket

from pokerai.agents.table import TABLE_BUDGET_S
from pokerai.cli.arguments import add_agent, checked, port, usage_error

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
_milliseconds = checked(
    "search-ms", float, "a number", (lambda value: 0 < value < float("inf"), "a positive number")
)


DESCRIPTION = (
    "Start a local web app: build a spot on a card grid (or paste an ACPC line), see "
    "the bot's action frequencies from the blueprint and after search, its range, the opponent's "
    "range, equity and pot odds; replay hand logs decision by decision. JSON endpoints under /api."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``analyze`` options and handler, on ``parser``."""
    add_agent(
        parser,
        "--bot",
        "the bot (default: pokerai play's, search over the shipped blueprint; see pokerai agents)",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=port(0, "from 0 to 65535"), default=DEFAULT_PORT,
                        help=f"port to listen on (default {DEFAULT_PORT}; 0 picks a free one)")  # fmt: skip
    parser.add_argument("--search-ms", type=_milliseconds, default=None, metavar="MS",
                        help="time budget in milliseconds of each search the analyzer runs for a "
                        f"blueprint: bot (default {TABLE_BUDGET_S * 1000:g}); a search: bot, the default "
                        "one included, searches as it plays")  # fmt: skip
    parser.set_defaults(handler=run_analyze)


def run_analyze(args: argparse.Namespace) -> int:
    from pokerai.agents.table import DEFAULT_BOT, default_opponent_spec
    from pokerai.web.analysis import Analyzer

    try:
        if args.bot is None:  # found at an absolute path; named as the user would write it
            spec, name = default_opponent_spec(), DEFAULT_BOT
        else:
            spec = name = args.bot.strip()
        budget = args.search_ms if args.search_ms is not None else TABLE_BUDGET_S * 1000
        analyzer = Analyzer(spec, search_budget_ms=budget, name=name)
    except ValueError as error:
        return usage_error("analyze", f"--bot: {error}")
    try:
        listener = socket.create_server((args.host, args.port))
    except OSError as error:
        return usage_error("analyze", f"cannot listen on {args.host}:{args.port}: {error.strerror or error}")

    import uvicorn

    from pokerai.web.app import create_app

    host, port = listener.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"pokerai analyze: bot {name}", flush=True)
    print(f"open http://{shown}:{port}/ (Ctrl-C stops)", flush=True)
    server = uvicorn.Server(uvicorn.Config(create_app(analyzer, warm_up=True), log_level="warning"))
    try:
        server.run(sockets=[listener])
    finally:
        listener.close()
    return 0
