"""The hand analyzer's web app: a JSON endpoint per view and a page that needs no build step.

``create_app(analyzer)`` gives a FastAPI app:

* ``GET /`` the page (``static/index.html``, plain HTML, CSS and JavaScript);
* ``GET /api/bot`` the bot and what the analyzer can show for it;
* ``GET /api/spot?hole=AhKh&board=Ks7d2c&history=r300c/`` the spot's facts, the bot's action
  frequencies for the hand of the player to act and its equity
  (:meth:`~pokerai.web.analysis.Analyzer.spot`);
* ``GET /api/search?...`` the frequencies after search, with its iterations and seconds;
* ``GET /api/range?...`` the 13×13 grid of the bot's range with each cell's action mix, and the
  opponent's range as a heat map;
* ``GET /api/step?...&action=raise&amount=900`` the betting after one more action (the engine
  applies it), for building a line click by click;
* ``GET /api/line?line=STATE:...`` the spot of a pasted ACPC ``STATE`` / ``MATCHSTATE`` line;
* ``POST /api/log`` (JSON ``{"text": ..., "stack": ...}``) the hands of a hand log;
* ``GET /api/hand?line=STATE:...`` every decision of one hand, played and the bot's;
* ``GET /spot`` the "solve a spot" page (``static/spot.html``) and its routes, ``POST /api/spot``
  and ``/api/spot/{id}...``: a postflop spot solved in a background thread, then browsed
  (:mod:`pokerai.web.spot`).

Every spot takes an optional ``stack`` (chips, default 20,000). Bad input -- a malformed card,
an illegal amount, betting that does not fit the board, a broken log line -- is answered with
status 400 and ``{"error": sentence}``, the sentence the engine's parser or state machine gives.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from pokerai.engine.cards import format_cards
from pokerai.engine.history import STREET_NAMES, acpc_betting
from pokerai.engine.state import BOARD_SIZES
from pokerai.web.analysis import (
    MAX_LOG_CHARS,
    Analyzer,
    Spot,
    apply_action,
    parse_log,
    parse_spot,
    parse_stack,
    spot_from_line,
)
from pokerai.web.spot import DEFAULT_MAX_MEMORY_BYTES, SpotJobs, add_spot_solver_routes

STATIC = Path(__file__).resolve().parent / "static"
"""The page's files."""


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _validation_sentence(error: RequestValidationError) -> str:
    """One sentence for a request FastAPI could not read (a missing body, a field of the wrong type)."""
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item.get("loc", ()) if part != "body") or "request"
        problems.append(f"{where}: {item.get('msg', 'invalid')}")
    return "bad request: " + "; ".join(problems)


def _spot(hole: str, board: str, history: str, stack: str | None) -> Spot:
    return parse_spot(hole, board, history, stack=parse_stack(stack))


def create_app(
    analyzer: Analyzer, *, warm_up: bool = False, spot_memory_bytes: int = DEFAULT_MAX_MEMORY_BYTES
) -> FastAPI:
    """The analyzer's app over ``analyzer``. With ``warm_up`` the agents' first-time work (network
    tables, solver kernels) starts in a background thread when the app starts, as ``pokerai play``
    does; answers meanwhile are the same, only the first ones are slower. A spot solved from the
    page may allocate at most ``spot_memory_bytes``."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if warm_up:
            threading.Thread(target=analyzer.warm_up, name="analyzer-warm-up", daemon=True).start()
        yield

    app = FastAPI(title="pokerai hand analyzer", docs_url="/api/docs", redoc_url=None, lifespan=lifespan)
    _add_error_handlers(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/spot", include_in_schema=False)
    def spot_page() -> FileResponse:
        return FileResponse(STATIC / "spot.html")

    add_spot_solver_routes(app, analyzer, SpotJobs(spot_memory_bytes))
    _add_spot_routes(app, analyzer)
    _add_line_routes(app, analyzer)
    return app


def _add_error_handlers(app: FastAPI) -> None:
    """Answer bad input with status 400 and ``{"error": sentence}``."""

    @app.exception_handler(ValueError)
    async def bad_value(request: Request, error: ValueError) -> JSONResponse:
        return _error(400, str(error))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> JSONResponse:
        return _error(400, _validation_sentence(error))


def _add_spot_routes(app: FastAPI, analyzer: Analyzer) -> None:
    """The views of a spot given by cards and betting, and the bot they ask."""

    @app.get("/api/bot")
    def bot() -> dict[str, Any]:
        return analyzer.describe()

    @app.get("/api/spot")
    def spot(hole: str = "", board: str = "", history: str = "", stack: str | None = None) -> dict[str, Any]:
        return analyzer.spot(_spot(hole, board, history, stack))

    @app.get("/api/search")
    def search(
        hole: str = "", board: str = "", history: str = "", stack: str | None = None
    ) -> dict[str, Any]:
        return analyzer.search(_spot(hole, board, history, stack))

    @app.get("/api/range")
    def range_view(
        hole: str = "", board: str = "", history: str = "", stack: str | None = None
    ) -> dict[str, Any]:
        return analyzer.range(_spot(hole, board, history, stack))

    @app.get("/api/step")
    def step(
        hole: str = "",
        board: str = "",
        history: str = "",
        stack: str | None = None,
        action: str = "",
        amount: str = "0",
    ) -> dict[str, Any]:
        current = _spot(hole, board, history, stack)
        try:
            chips = int(amount)
        except ValueError:
            raise ValueError(f"amount {amount!r} is not a whole number of chips") from None
        after = apply_action(current, action.strip().lower(), chips)
        return {
            "history": acpc_betting(after),
            "street": STREET_NAMES[after.street],
            "over": after.is_over,
            "board_cards": BOARD_SIZES[after.street],
        }


def _add_line_routes(app: FastAPI, analyzer: Analyzer) -> None:
    """The views of ACPC lines and hand logs."""

    @app.get("/api/line")
    def line(line: str = "", stack: str | None = None) -> dict[str, Any]:
        found = spot_from_line(line, stack=parse_stack(stack))
        return {
            "hole": format_cards(found.hole_cards),
            "board": format_cards(found.state.board),
            "history": found.betting,
            "stack": found.state.config.stacks[0],
        }

    @app.post("/api/log")
    def log(
        text: str = Body(..., max_length=MAX_LOG_CHARS), stack: int | str | None = Body(None)
    ) -> dict[str, Any]:
        hands = parse_log(text, stack=parse_stack(None if stack is None else str(stack)))
        return {
            "hands": [
                {
                    "line_number": hand.line_number,
                    "line": hand.line,
                    "stack": hand.stack,
                    "hand_number": hand.hand_number,
                    "names": None if hand.names is None else list(hand.names),
                    "results": None if hand.results is None else list(hand.results),
                }
                for hand in hands
            ]
        }

    @app.get("/api/hand")
    def hand(line: str = "", stack: str | None = None) -> dict[str, Any]:
        return analyzer.hand(line, stack=parse_stack(stack))


__all__ = ["STATIC", "create_app"]
