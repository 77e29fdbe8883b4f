"""The terminal of ``pokerai play`` and the threads that write on it beside the session.

:class:`Screen` keeps the user's open prompt free of other threads' notices;
:class:`ThinkingNotice` shows "bot is thinking… N.N s" while a bot decision takes longer than
half a second; :func:`start_warm_up` runs the bot's per-process first-time work in a background
thread while the first hand is dealt.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from types import TracebackType
from typing import TextIO

from pokerai.agents.base import Agent

THINKING = "bot is thinking…"
THINKING_AFTER_S = 0.5
"""A bot decision that takes longer than this shows :data:`THINKING` and the seconds so far."""
THINKING_TICK_S = 0.1
"""How often the thinking line's elapsed time is rewritten on a terminal."""


class Screen:
    """The terminal that the session (main thread) shares with other threads' output.

    ``line`` writes the session's lines on ``out``. ``notice`` writes a line on
    ``errors`` (stderr) from any thread: at once, or, while the user's prompt is open
    (:meth:`prompt`), as soon as it closes, so a notice never lands on the line being
    typed. On a terminal the thinking line (:meth:`show_status`) is rewritten in place;
    a notice wipes it and draws it again below.
    """

    def __init__(self, out: TextIO, errors: TextIO) -> None:
        self.out = out
        self.errors = errors
        self.is_terminal = out.isatty()
        self._lock = threading.RLock()
        self._prompt_open = False
        self._pending: list[str] = []
        self._status = ""
        """The thinking line drawn now (on a terminal), or ``""``."""

    def line(self, text: str) -> None:
        with self._lock:
            self.out.write(text + "\n")
            self.out.flush()

    def notice(self, text: str) -> None:
        """Show ``text`` as a line on ``errors``, now or when the open prompt closes; from any thread."""
        with self._lock:
            if self._prompt_open:
                self._pending.append(text)
                return
            status = self._status
            if status:
                self.clear_status()
            self.errors.write(text + "\n")
            self.errors.flush()
            if status:
                self.show_status(status)

    @contextlib.contextmanager
    def prompt(self) -> Iterator[None]:
        """The block in which the user's prompt is open (notices wait for it to close)."""
        with self._lock:
            self._flush_pending()
            self._prompt_open = True
        try:
            yield
        finally:
            with self._lock:
                self._prompt_open = False
                self._flush_pending()

    def _flush_pending(self) -> None:
        pending, self._pending = self._pending, []
        for text in pending:
            self.notice(text)

    def show_status(self, text: str) -> None:
        """Draw ``text`` over the current thinking line (a terminal's carriage return)."""
        with self._lock:
            self.out.write("\r" + text.ljust(len(self._status)))
            self.out.flush()
            self._status = text

    def clear_status(self) -> None:
        """Wipe the thinking line and put the cursor back at its start."""
        with self._lock:
            if self._status:
                self.out.write("\r" + " " * len(self._status) + "\r")
                self.out.flush()
                self._status = ""


class ThinkingNotice:
    """``with ThinkingNotice(screen):`` around a bot decision: if it has not ended after ``after_s``
    seconds, "bot is thinking… N.N s".

    On a terminal the elapsed time is rewritten every ``tick_s`` seconds and the line is
    wiped when the decision ends; on anything else (a pipe, a file) "bot is thinking…"
    is written once, as a line. ``shown`` says whether it appeared.
    """

    def __init__(
        self, screen: Screen, *, after_s: float = THINKING_AFTER_S, tick_s: float = THINKING_TICK_S
    ) -> None:
        self.screen = screen
        self.after_s = after_s
        self.tick_s = tick_s
        self.shown = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._show, name="pokerai-thinking", daemon=True)
        self._started = 0.0

    def __enter__(self) -> ThinkingNotice:
        self._started = time.monotonic()
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._done.set()
        self._thread.join()

    def _show(self) -> None:
        if self._done.wait(self.after_s):
            return
        self.shown = True
        if not self.screen.is_terminal:
            self.screen.line(THINKING)
            return
        while True:
            self.screen.show_status(f"{THINKING} {time.monotonic() - self._started:.1f} s")
            if self._done.wait(self.tick_s):
                break
        self.screen.clear_status()


def start_warm_up(agent: Agent) -> threading.Thread | None:
    """Run ``agent.warm_up()`` (its per-process first-time work), if it has one, in a background thread.

    The thread is a daemon: quitting does not wait for it. Returns it, or None.
    """
    warm_up = getattr(agent, "warm_up", None)
    if not callable(warm_up):
        return None

    def run() -> None:
        # It only saves time: a decision that needs the same work does it (and reports any
        # error) itself, so a failure here must not put a traceback on the table.
        with contextlib.suppress(Exception):
            warm_up()

    thread = threading.Thread(target=run, name="pokerai-warm-up", daemon=True)
    thread.start()
    return thread


# ---------------------------------------------------------------------- the subcommand


__all__ = ["THINKING", "Screen", "ThinkingNotice", "start_warm_up"]
