"""The analyzer's "solve a spot" page: a postflop spot solved in the background, then browsed.

:class:`SpotJobs` runs one solve (:func:`~pokerai.solvers.postflop.solve_spot`) at a time in a
background thread, so every other request is answered while it runs; the page polls the job's
progress and, once it is done, walks its tree node by node. :func:`add_spot_solver_routes` serves:

* ``POST /api/spot`` (JSON: ``board``, ``oop``, ``ip``, ``pot``, ``stack``, optional ``bets``,
  ``raises``, ``raise_cap``, ``target`` in % of the pot, ``iterations``, ``threads`` and ``locks``)
  builds the spot, which is refused with status 400 and one sentence where it is malformed or
  needs more memory than the app allows, starts the solve and answers at once with the job's id and
  the tree's size and memory; status 409 while another solve runs;
* ``GET /api/spot/{id}`` the job: ``running`` (iterations and exploitability so far), ``done`` or
  ``stopped`` (the solution's figures) or ``failed`` (the sentence);
* ``DELETE /api/spot/{id}`` stops a running solve at its next exploitability check (the solution so
  far can be browsed);
* ``GET /api/spot/{id}/node?path=Check/Bet 50/Qc`` one node of the solution: the actions, each hand
  class's strategy, EV and equity (13×13 grid order) and each hand's;
* ``GET /api/spot/ranges?hole=&board=&history=&stack=`` the bot's own ranges at an analyzer spot that
  starts a postflop street, as weighted range text for the two range boxes, with its pot and stack.

A lock (``locks``) fixes the strategy of hand classes at one node: ``{"path": ["Check"],
"strategies": {"AKs": [0.5, 0.5, 0], ...}}`` with one number per action there (normalised), which
becomes the solver's ``[hands, actions]`` array with free hands as rows of NaN.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from fastapi import Body, FastAPI, Request
from fastapi.responses import JSONResponse

from pokerai.cli.spot import MEMORY_SHARE, available_memory
from pokerai.engine.cards import format_cards
from pokerai.engine.history import STREET_NAMES
from pokerai.engine.ranges import CLASS_NAMES, hand_class_name
from pokerai.engine.state import Street
from pokerai.search.beliefs import public_beliefs
from pokerai.search.combos import ALL_COMBOS, combos_holding
from pokerai.solvers.postflop import (
    Spot,
    SpotConfig,
    SpotError,
    SpotSolution,
    build_spot,
    check_locks,
    decision_at,
    solve_spot,
)
from pokerai.web.analysis import Analyzer, parse_spot, parse_stack

DEFAULT_MAX_MEMORY_BYTES = 2 * 1024**3
"""The most memory a solve started from the page may allocate (2 GiB), and less where less than this
over ``pokerai spot``'s share of the memory available is free; larger spots are refused."""
MAX_ITERATIONS = 100_000
"""The largest iteration cap a request may ask for."""
KEPT_JOBS = 4
"""Most finished jobs kept for browsing; when a solve starts, the oldest are dropped until at most
``KEPT_JOBS - 1`` remain and, with the new one, they hold at most the app's memory cap."""
PROGRESS_POINTS = 500
"""Most (iteration, exploitability) points a job's status keeps (the first and the latest ones)."""
SPOT_FIELDS = ("board", "oop", "ip", "pot", "stack", "bets", "raises", "raise_cap")
REQUEST_FIELDS = (*SPOT_FIELDS, "target", "iterations", "threads", "locks")
PLAYERS = ("oop", "ip")


class SolveBusy(Exception):
    """A solve was asked for while another runs, or a solution before its solve ended (status 409)."""


class UnknownJob(LookupError):
    """No job has this id (status 404)."""


# ---------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class SolveRequest:
    """A validated ``POST /api/spot`` body: the spot and how to solve it."""

    config: SpotConfig
    target_pct: float = 0.5
    max_iterations: int = 1000
    threads: int = 1
    locks: tuple[tuple[tuple[str, ...], dict[str, tuple[float, ...]]], ...] = ()


def _field(payload: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any) -> Any:
    value = payload.get(key, default)
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, kind):
        names = " or ".join(t.__name__ for t in (kind if isinstance(kind, tuple) else (kind,)))
        raise SpotError(f"{key} must be {'a' if names[0] not in 'aeiou' else 'an'} {names}, got {value!r}")
    return value


def parse_request(payload: Any) -> SolveRequest:
    """The :class:`SolveRequest` of a JSON body; a :class:`SpotError` sentence where a field is bad."""
    if not isinstance(payload, dict):
        raise SpotError("the body must be a JSON object with board, oop, ip, pot and stack")
    unknown = sorted(set(payload) - set(REQUEST_FIELDS))
    if unknown:
        raise SpotError(f"unknown field {unknown[0]!r}; the fields are {', '.join(REQUEST_FIELDS)}")
    for key in ("board", "oop", "ip", "pot", "stack"):
        if key not in payload:
            raise SpotError(f"the spot needs {key}")
    config = SpotConfig(
        board=_field(payload, "board", str, ""),
        oop=_field(payload, "oop", str, ""),
        ip=_field(payload, "ip", str, ""),
        pot=_field(payload, "pot", int, 0),
        stack=_field(payload, "stack", int, 0),
        bets=_field(payload, "bets", str, SpotConfig.bets),
        raises=_field(payload, "raises", str, SpotConfig.raises),
        raise_cap=_field(payload, "raise_cap", int, None),
    )
    target = float(_field(payload, "target", (int, float), 0.5))
    if not 0 <= target < math.inf:
        raise SpotError(f"the target must be a non-negative % of the pot, got {target!r}")
    iterations = _field(payload, "iterations", int, 1000)
    if not 0 <= iterations <= MAX_ITERATIONS:
        raise SpotError(f"the iteration cap must be between 0 and {MAX_ITERATIONS}, got {iterations}")
    threads = _field(payload, "threads", int, 1)
    if threads < 1:
        raise SpotError(f"the thread count must be at least 1, got {threads}")
    return SolveRequest(config, target, iterations, threads, _parse_locks(payload.get("locks")))


def _parse_locks(value: Any) -> tuple[tuple[tuple[str, ...], dict[str, tuple[float, ...]]], ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SpotError('locks must be a list of {"path": [...], "strategies": {class: [probabilities]}}')
    locks = []
    for entry in value:
        if not isinstance(entry, dict) or set(entry) != {"path", "strategies"}:
            raise SpotError(
                f'a lock is {{"path": [...], "strategies": {{class: [probabilities]}}}}, got {entry!r}'
            )
        path = parse_path(entry["path"])
        strategies = entry["strategies"]
        if not isinstance(strategies, dict) or not strategies:
            raise SpotError(f"the lock at {_path_text(path)} names no hand class")
        rows: dict[str, tuple[float, ...]] = {}
        for name, row in strategies.items():
            if name not in CLASS_NAMES:
                raise SpotError(
                    f"the lock at {_path_text(path)} names {name!r}, which is not a hand class like AKs"
                )
            if not isinstance(row, list) or not all(
                isinstance(p, (int, float)) and not isinstance(p, bool) and 0 <= p < math.inf for p in row
            ):
                raise SpotError(
                    f"the lock of {name} at {_path_text(path)} must be a list of non-negative numbers"
                )
            total = float(sum(row))
            if total <= 0:
                raise SpotError(f"the lock of {name} at {_path_text(path)} gives no action a positive share")
            rows[name] = tuple(float(p) / total for p in row)
        locks.append((path, rows))
    if len({path for path, _ in locks}) < len(locks):
        raise SpotError("two locks name the same node")
    return tuple(locks)


def parse_path(value: Any) -> tuple[str, ...]:
    """A node's path from a list of steps or a ``/``-separated string (``""``: the root)."""
    if isinstance(value, str):
        return tuple(step.strip() for step in value.split("/") if step.strip())
    if isinstance(value, list) and all(isinstance(step, str) for step in value):
        return tuple(value)
    raise SpotError(
        f"a path is a list of actions and cards, or one string with / between them, got {value!r}"
    )


def _path_text(path: Sequence[str]) -> str:
    return "the root" if not path else "/".join(path)


def lock_arrays(
    spot: Spot, locks: Sequence[tuple[tuple[str, ...], Mapping[str, Sequence[float]]]]
) -> dict[tuple[str, ...], npt.NDArray[np.float64]]:
    """The solver's locks: per node path, the acting player's strategy float64 ``[hands, actions]``
    with the given classes' rows set and the other hands' rows NaN."""
    out = {}
    for path, rows in locks:
        player, labels = decision_at(spot, path)
        classes = np.array([hand_class_name(int(a), int(b)) for a, b in spot.hands[player]])
        strategy = np.full((len(classes), len(labels)), np.nan)
        for name, row in rows.items():
            if len(row) != len(labels):
                raise SpotError(
                    f"the lock of {name} at {_path_text(path)} has {len(row)} numbers for the "
                    f"{len(labels)} actions {', '.join(labels)}"
                )
            chosen = classes == name
            if not chosen.any():
                raise SpotError(
                    f"the {PLAYERS[player].upper()} range holds no {name} to lock at {_path_text(path)}"
                )
            strategy[chosen] = row
        out[path] = strategy
    return out


# ---------------------------------------------------------------------------- jobs


@dataclass(eq=False)
class SpotJob:
    """One solve: its spot, its progress, and its solution once it ends."""

    id: str
    request: SolveRequest
    spot: Spot
    status: str = "running"  # running, done, stopped (cancelled), failed
    iterations: int = 0
    exploitability_pct: float | None = None
    progress: list[tuple[int, float]] = field(default_factory=list)
    solution: SpotSolution | None = None
    error: str = ""
    started: float = field(default_factory=time.monotonic)
    seconds: float = 0.0
    cancel: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)

    def record(self, iteration: int, exploitability_pct: float) -> bool:
        """The solver's progress callback: keeps the point and says whether to go on."""
        self.iterations, self.exploitability_pct = iteration, float(exploitability_pct)
        self.progress.append((iteration, float(exploitability_pct)))
        if len(self.progress) > PROGRESS_POINTS:
            del self.progress[1]  # keep the first point and the latest ones
        return not self.cancel.is_set()

    def run(self, locks: Mapping[tuple[str, ...], npt.NDArray[np.float64]]) -> None:
        try:
            self.solution = solve_spot(
                self.spot,
                target_pct=self.request.target_pct,
                max_iterations=self.request.max_iterations,
                threads=self.request.threads,
                progress=self.record,
                stop=self.cancel.is_set,
                locks=locks or None,
            )
            self.iterations = self.solution.iterations
            self.exploitability_pct = self.solution.exploitability_pct
            self.status = "stopped" if self.cancel.is_set() else "done"
        except ValueError as error:
            self.error, self.status = str(error), "failed"
        except Exception as error:  # the page shows whatever ended the solve
            self.error, self.status = f"the solve failed: {type(error).__name__}: {error}", "failed"
        finally:
            self.seconds = time.monotonic() - self.started
            self.finished.set()

    def to_json(self) -> dict[str, Any]:
        config = self.request.config
        out: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "iterations": self.iterations,
            "exploitability_pct": self.exploitability_pct,
            "progress": [list(point) for point in self.progress],
            "seconds": self.seconds if self.finished.is_set() else time.monotonic() - self.started,
            "target_pct": self.request.target_pct,
            "max_iterations": self.request.max_iterations,
            "spot": {name: getattr(config, name) for name in SPOT_FIELDS},
            "locks": [{"path": list(path), "strategies": rows} for path, rows in self.request.locks],
            **tree_size(self.spot),
        }
        if self.solution is not None:
            out["summary"] = self.solution.summary()
        if self.error:
            out["error"] = self.error
        return out


def tree_size(spot: Spot) -> dict[str, Any]:
    """What the page shows before a solve: the tree's size, the hands and the memory it needs."""
    return {
        "num_nodes": spot.num_nodes,
        "action_nodes": dict(spot.action_nodes),
        "hands": [len(spot.hands[0]), len(spot.hands[1])],
        "memory_bytes": spot.memory_bytes,
    }


class SpotJobs:
    """The app's solves: one runs at a time, in a daemon thread; the latest are kept (:data:`KEPT_JOBS`),
    as many as fit ``max_memory_bytes`` together."""

    def __init__(self, max_memory_bytes: int = DEFAULT_MAX_MEMORY_BYTES) -> None:
        self.max_memory_bytes = max_memory_bytes
        self.lock = threading.Lock()
        self.jobs: dict[str, SpotJob] = {}
        self._ids = itertools.count(1)

    def start(self, payload: Any) -> SpotJob:
        """Validate ``payload`` and start solving it; :class:`SpotError` where it is bad,
        :class:`SolveBusy` while another solve runs."""
        request = parse_request(payload)
        with self.lock:
            running = self.running()
            if running is not None:
                raise SolveBusy(f"spot {running.id} is still solving: wait for it or stop it first")
        limit = self.memory_limit()
        spot = build_spot(
            request.config, max_memory_bytes=limit, threads=request.threads, locked=bool(request.locks)
        )
        locks = lock_arrays(spot, request.locks)
        check_locks(spot, locks)
        with self.lock:
            running = self.running()
            if running is not None:
                raise SolveBusy(f"spot {running.id} is still solving: wait for it or stop it first")
            job = SpotJob(f"s{next(self._ids)}", request, spot)
            kept = list(self.jobs.values())
            while kept and (
                len(kept) >= KEPT_JOBS
                or sum(old.spot.memory_bytes for old in kept) + spot.memory_bytes > limit
            ):
                del self.jobs[kept.pop(0).id]
            self.jobs[job.id] = job
            threading.Thread(target=job.run, args=(locks,), name=f"spot-solve-{job.id}", daemon=True).start()
        return job

    def memory_limit(self) -> int:
        """The most a new solve may allocate: the cap, or ``pokerai spot``'s share of the memory
        available now (the kept solutions' included, as they can be dropped) where that is less."""
        available = available_memory()
        if available is None:
            return self.max_memory_bytes
        kept = sum(job.spot.memory_bytes for job in self.jobs.values())
        return min(self.max_memory_bytes, int(MEMORY_SHARE * (available + kept)))

    def running(self) -> SpotJob | None:
        return next((job for job in self.jobs.values() if not job.finished.is_set()), None)

    def get(self, job_id: str) -> SpotJob:
        job = self.jobs.get(job_id)
        if job is None:
            raise UnknownJob(f"no solve {job_id!r}: it was dropped for newer solves or never began")
        return job

    def solution(self, job_id: str) -> SpotSolution:
        job = self.get(job_id)
        if job.solution is None:
            raise SolveBusy(
                f"spot {job_id} is still solving"
                if job.status == "running"
                else f"spot {job_id} has no solution: {job.error}"
            )
        return job.solution


# ---------------------------------------------------------------------------- views


def node_json(solution: SpotSolution, path: tuple[str, ...]) -> dict[str, Any]:
    """One node: its actions (or the cards that can come), the acting player's hand classes in 13×13
    grid order (``weight`` 0 where the range has none here) and its hands, with strategy, EV and equity."""
    view = solution.node(path)
    actions = list(view.actions)
    classes = view.by_class()
    who = view.player if view.player >= 0 else 0
    grid = []
    for index, name in enumerate(CLASS_NAMES):
        row, column = divmod(index, 13)
        found = classes.get(name)
        grid.append(
            {
                "hand": name,
                "row": row,
                "column": column,
                "weight": 0.0,
                "strategy": [],
                "ev": None,
                "equity": None,
            }
            if found is None
            else {"hand": name, "row": row, "column": column, **found}
        )
    hands = []
    if view.kind in ("player", "chance"):
        ev, equity = view.ev, view.equity
        for i, hand in enumerate(view.hands):
            if view.reach[i] > 0:
                hands.append(
                    {
                        "hand": format_cards([int(c) for c in hand[::-1]]),
                        "class": hand_class_name(int(hand[0]), int(hand[1])),
                        "weight": float(view.reach[i]),
                        "strategy": [float(p) for p in view.strategy[i]],
                        "ev": float(ev[i]),
                        "equity": float(equity[i]),
                    }
                )
    return {
        "path": list(view.path),
        "kind": view.kind,
        "player": PLAYERS[view.player] if view.player >= 0 else None,
        "range_of": PLAYERS[who],
        "street": STREET_NAMES[int(Street.FLOP) + view.street],
        "board": format_cards(view.board),
        "pot": int(view.pot),
        "committed": [int(c) for c in view.committed],
        "actions": actions if view.kind == "player" else [],
        "cards": actions if view.kind == "chance" else [],
        "classes": grid,
        "hands": hands,
    }


def range_text(weights: npt.NDArray[np.float64], board: Sequence[int], *, digits: int = 3) -> str:
    """A range float ``[1326]`` (any scale) as weighted range text by hand class, ``"AA,AKs:0.75,..."``:
    each class's mean weight over its combos that hold no board card, the largest class at 1."""
    live = ~combos_holding(tuple(board))
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for (a, b), weight, ok in zip(ALL_COMBOS, weights, live, strict=True):
        if ok:
            name = hand_class_name(int(a), int(b))
            sums[name] = sums.get(name, 0.0) + float(weight)
            counts[name] = counts.get(name, 0) + 1
    means = {name: sums[name] / counts[name] for name in sums}
    top = max(means.values(), default=0.0)
    if top <= 0:
        return ""
    items = []
    for name in CLASS_NAMES:
        share = round(means.get(name, 0.0) / top, digits)
        if share > 0:
            items.append(name if share >= 1 else f"{name}:{share:.{digits}f}".rstrip("0"))
    return ",".join(items)


def bot_ranges(analyzer: Analyzer, hole: str, board: str, history: str, stack: str | None) -> dict[str, Any]:
    """The bot's ranges (the blueprint's public beliefs) at an analyzer spot that starts a postflop
    street, as range text for OOP and IP, with the board, the pot and the effective stack there."""
    spot = parse_spot(hole, board, history, stack=parse_stack(stack))
    state = spot.state
    if state.street < Street.FLOP:
        raise ValueError(
            "the spot solver starts on the flop, turn or river: give a spot after the preflop betting"
        )
    if len(state.history) != state.street_starts[-1]:
        raise ValueError(
            "the spot solver starts at the beginning of a street: "
            f"end the betting {spot.betting!r} with a round ('/')"
        )
    agent = analyzer.blueprint_agent
    if agent is None:
        raise ValueError(f"the bot {analyzer.spec} has no blueprint, so it has no ranges to fill in")
    with analyzer.lock:
        beliefs = public_beliefs(agent.blueprint, state, threshold=agent.threshold)
    oop = 1 - state.button  # the button acts last after the preflop
    return {
        "board": format_cards(state.board),
        "pot": int(state.pot),
        "stack": int(min(state.stacks)),
        "oop": range_text(beliefs[oop], state.board),
        "ip": range_text(beliefs[1 - oop], state.board),
        "note": "each class weighted by its mean weight in the bot's range, the largest at 1",
    }


# ---------------------------------------------------------------------------- routes


def add_spot_solver_routes(app: FastAPI, analyzer: Analyzer, jobs: SpotJobs) -> None:
    """The routes of the module docstring on ``app``; ``jobs`` holds the solves."""

    @app.exception_handler(SolveBusy)
    async def busy(request: Request, error: SolveBusy) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=409)

    @app.exception_handler(UnknownJob)
    async def unknown(request: Request, error: UnknownJob) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=404)

    @app.get("/api/spot/ranges")
    def ranges(
        hole: str = "", board: str = "", history: str = "", stack: str | None = None
    ) -> dict[str, Any]:
        return bot_ranges(analyzer, hole, board, history, stack)

    @app.post("/api/spot")
    def solve(payload: Any = Body(...)) -> dict[str, Any]:  # noqa: B008 - FastAPI's way to read a body
        job = jobs.start(payload)
        return {"id": job.id, "status": job.status, **tree_size(job.spot)}

    @app.get("/api/spot/{job_id}")
    def status(job_id: str) -> dict[str, Any]:
        return jobs.get(job_id).to_json()

    @app.delete("/api/spot/{job_id}")
    def stop(job_id: str) -> dict[str, Any]:
        job = jobs.get(job_id)
        job.cancel.set()
        return {"id": job.id, "status": job.status}

    @app.get("/api/spot/{job_id}/node")
    def node(job_id: str, path: str = "") -> dict[str, Any]:
        return node_json(jobs.solution(job_id), parse_path(path))


__all__ = [
    "DEFAULT_MAX_MEMORY_BYTES", "SolveBusy", "SolveRequest", "SpotJob", "SpotJobs", "UnknownJob",
    "add_spot_solver_routes", "bot_ranges", "lock_arrays", "node_json", "parse_path", "parse_request",
    "range_text",
]  # fmt: skip
