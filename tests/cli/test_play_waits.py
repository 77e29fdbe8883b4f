"""``pokerai play`` never waits in silence: the thinking line, notices kept off the prompt, the bot's
warm-up and time budgets, and a ``--help`` that names the real default bot.

No test asserts a duration: each waits (up to ten minutes) for the event it checks.
"""

from __future__ import annotations

import io
import re
import threading

import numpy as np
import pytest

import pokerai.cli.play.command as play
from pokerai.agents.base import Agent, Observation
from pokerai.agents.table import DEFAULT_BLUEPRINT, DEFAULT_BOT, TABLE_BUDGET_S, default_opponent_spec
from pokerai.cli.main import main
from pokerai.cli.play.screen import THINKING, Screen, ThinkingNotice, start_warm_up
from pokerai.engine.state import Action
from tests.cli.helpers import scripted_session

PATIENCE_S = 600.0
"""The longest a test waits for something it expects (a busy machine is slow, never this slow)."""


class Stream(io.StringIO):
    """A captured output stream that says whether it is a terminal and lets a test wait for text."""

    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal
        self.writes = 0
        self._changed = threading.Condition()

    def isatty(self) -> bool:
        return self.terminal

    def write(self, text: str) -> int:
        with self._changed:
            written = super().write(text)
            self.writes += 1
            self._changed.notify_all()
        return written

    def wait_for(self, writes: int = 1, text: str = "") -> bool:
        """Wait until ``writes`` writes have been made and ``text`` appears."""

        def done() -> bool:
            return self.writes >= writes and text in self.getvalue()

        with self._changed:
            return self._changed.wait_for(done, PATIENCE_S)


# ---------------------------------------------------------------------- the thinking line


def test_off_a_terminal_a_slow_decision_writes_one_line() -> None:
    out = Stream(terminal=False)
    with ThinkingNotice(Screen(out, Stream(terminal=False)), after_s=0.01, tick_s=0.01) as notice:
        assert out.wait_for(text=THINKING)
    assert notice.shown and out.getvalue() == f"{THINKING}\n"


def test_a_quick_decision_shows_nothing() -> None:
    out = Stream(terminal=True)
    with ThinkingNotice(Screen(out, out), after_s=PATIENCE_S) as notice:
        pass
    assert not notice.shown and out.getvalue() == ""


def test_on_a_terminal_the_elapsed_time_is_rewritten_in_place_then_wiped() -> None:
    out = Stream(terminal=True)
    with ThinkingNotice(Screen(out, out), after_s=0.01, tick_s=0.01):
        assert out.wait_for(writes=4)
    text = out.getvalue()
    assert "\n" not in text  # never a new line: the bot's action is written where the line was
    frames = text.split("\r")
    assert frames[0] == "" and frames[-1] == ""  # starts at the line's start; the cursor ends there
    shown = [frame for frame in frames[1:-1] if frame.strip()]
    assert len(shown) >= 3
    seconds = []
    for frame in shown:
        match = re.fullmatch(rf"{THINKING} (\d+\.\d) s *", frame)
        assert match is not None, frame
        seconds.append(float(match.group(1)))
    assert seconds == sorted(seconds)
    assert frames[-2] == " " * max(len(frame) for frame in shown)  # wiped


def test_a_notice_waits_for_the_open_prompt_to_close() -> None:
    out, errors = Stream(terminal=True), Stream(terminal=True)
    screen = Screen(out, errors)
    with screen.prompt():
        screen.notice("compiling")
        assert errors.getvalue() == ""
    assert errors.getvalue() == "compiling\n"


def test_a_notice_during_the_thinking_line_goes_above_it() -> None:
    terminal = Stream(terminal=True)  # one terminal shows both streams, in the order written
    screen = Screen(terminal, terminal)
    line = f"{THINKING} 0.7 s"
    screen.show_status(line)
    screen.notice("compiling")
    assert terminal.getvalue() == f"\r{line}\r{' ' * len(line)}\rcompiling\n\r{line}"


class SlowFirstDecision(Agent):
    """Checks or calls; its first decision lasts until the thinking line is on ``out``."""

    name = "slow"

    def __init__(self, out: Stream) -> None:
        self.out = out
        self.decisions = 0

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        self.decisions += 1
        if self.decisions == 1:
            assert self.out.wait_for(text=THINKING), "the thinking line never came"
        return observation.check_or_call()


def test_a_session_shows_the_thinking_line_for_a_slow_bot_only() -> None:
    out, errors = Stream(terminal=False), Stream(terminal=False)
    screen = Screen(out, errors)
    bot = SlowFirstDecision(out)
    typed = ["c", "k", "k", "k"]  # on the button: limp, then check each street down
    session = scripted_session(bot, typed, hands=1, write=screen.line, screen=screen)
    assert session.run().hands == 1
    text = out.getvalue()
    assert bot.decisions == 4 and text.count(THINKING) == 1  # the three quick decisions showed none
    assert text.index("you call 50") < text.index(THINKING) < text.index("bot checks")
    assert errors.getvalue() == ""


# ---------------------------------------------------------------------- warm-up, budgets, help


class Prepared(Agent):
    """Checks or calls, and records what ``pokerai play`` asks of it before the first hand."""

    name = "prepared"

    def __init__(self) -> None:
        self.budgets: list[float] = []
        self.warmed = threading.Event()

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        return observation.check_or_call()

    def budget_solves(self, seconds: float) -> None:
        self.budgets.append(seconds)

    def warm_up(self) -> None:
        self.warmed.set()


def test_play_budgets_the_bots_solves_and_warms_it_up(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = Prepared()
    monkeypatch.setattr(play, "load_agent", lambda spec, option: (bot, "prepared"))

    def end_of_input(prompt: str) -> str:
        raise EOFError

    monkeypatch.setattr(play, "input", end_of_input, raising=False)
    assert main(["play", "--seed", "1"]) == 0
    assert bot.budgets == [TABLE_BUDGET_S]
    assert bot.warmed.wait(PATIENCE_S)
    assert "session over" in capsys.readouterr().out


def test_a_failing_warm_up_stays_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    class Failing(Prepared):
        def warm_up(self) -> None:
            raise RuntimeError("broken")

    thread = start_warm_up(Failing())
    assert thread is not None
    thread.join(PATIENCE_S)
    assert not thread.is_alive() and capsys.readouterr().err == ""
    assert start_warm_up(_Plain()) is None  # nothing to warm up


class _Plain(Agent):
    name = "plain"

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        return observation.check_or_call()


def test_help_names_the_default_bot_that_plays_and_the_budget(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"default: search over the shipped blueprint, {DEFAULT_BOT};" in text
    assert f"stops its CFR+ iterations after {TABLE_BUDGET_S:g} s" in text
    spec = default_opponent_spec()
    assert spec.startswith("search:") and spec.endswith(f"{DEFAULT_BLUEPRINT}")
