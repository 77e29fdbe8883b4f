"""``pokerai play``: the input parser, and real sessions driven through a pseudo-terminal.

The session tests spawn the real command under ``pexpect`` and type as a user
would: bad inputs mixed with good ones, q, Ctrl-D and Ctrl-C. They check what
the screen shows, the summary, and the log (readable history and ACPC
``STATE`` lines, whose results must add up to the summary).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from pokerai.agents.base import Observation
from pokerai.agents.table import default_opponent_spec
from pokerai.cli.play.actions import Command, parse_user_action
from pokerai.cli.play.narration import legal_summary
from pokerai.cli.play.session import NEXT_HAND_PROMPT, PROMPT
from pokerai.engine.cards import parse_cards
from pokerai.engine.history import parse_acpc
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState
from tests.cli.helpers import scripted_session, usage_error
from tests.eval.toy_agents import RecordingCaller
from tests.processes import default_sigint

pexpect = pytest.importorskip("pexpect")
Child = Any
"""A ``pexpect.spawn`` (pexpect ships no type hints)."""

ENTRY = "import sys; from pokerai.cli.main import main; sys.exit(main(sys.argv[1:]))"
DECK = parse_cards("AhKh QsQd 2c7d9h Tc 3s")
"""Player 0 holds AhKh, player 1 QsQd."""


def observation(*actions: Action, button: int = 0, stack: int = 20_000) -> Observation:
    state = HUNLState.new(HUNLConfig(50, 100, (stack, stack)), button, deck=DECK)
    for action in actions:
        state.apply(action)
    return Observation.from_state(state)


# ---------------------------------------------------------------------- the input parser

PREFLOP = observation()  # player 0 on the button faces the big blind: call 50, raise to 200..20000
FLOP = observation(Action(0, ActionKind.RAISE, 300), Action(1, ActionKind.CALL))  # pot 600, player 1 first


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("f", Action(0, ActionKind.FOLD)),
        ("  FOLD ", Action(0, ActionKind.FOLD)),
        ("c", Action(0, ActionKind.CALL, 50)),
        ("r 300", Action(0, ActionKind.RAISE, 300)),
        ("r300", Action(0, ActionKind.RAISE, 300)),
        ("b 3bb", Action(0, ActionKind.RAISE, 300)),
        ("r 2.5bb", Action(0, ActionKind.RAISE, 250)),
        ("r p", Action(0, ActionKind.RAISE, 300)),  # pot-size raise: call 50, then raise the pot of 200
        ("r 1/2p", Action(0, ActionKind.RAISE, 200)),
        ("r 1,000", Action(0, ActionKind.RAISE, 1000)),
        ("a", Action(0, ActionKind.RAISE, 20_000)),
        ("q", Command.QUIT),
        ("h", Command.HELP),
    ],
)
def test_parse_preflop_inputs(text: str, expected: Action | Command) -> None:
    assert parse_user_action(text, PREFLOP) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("k", Action(1, ActionKind.CHECK)),
        ("c", Action(1, ActionKind.CHECK)),  # nothing to call: c checks
        ("b 2/3p", Action(1, ActionKind.RAISE, 400)),
        ("b 0.75pot", Action(1, ActionKind.RAISE, 450)),
        ("b 100", Action(1, ActionKind.RAISE, 100)),
    ],
)
def test_parse_flop_inputs(text: str, expected: Action) -> None:
    assert parse_user_action(text, FLOP) == expected


@pytest.mark.parametrize(
    ("text", "observed", "message"),
    [
        ("", PREFLOP, "type an action"),
        ("xyz", PREFLOP, "unknown command 'xyz'"),
        ("k", PREFLOP, "you cannot check: you face a bet; call with c (50)"),
        ("r", PREFLOP, "say how much: r AMOUNT with AMOUNT in 200..20000"),
        ("r 150", PREFLOP, "raise to 150 is below the minimum raise to 200"),
        ("r 20001", PREFLOP, "more than you have: all-in is a raise to 20000"),
        ("r 2.5", PREFLOP, "whole number"),
        ("r lots", PREFLOP, "cannot read the amount 'lots'"),
        ("r 1/0p", PREFLOP, "divides by zero"),
        ("f 10", PREFLOP, "takes no amount"),
        ("f", FLOP, "there is no bet to fold to"),
        ("b 0.1p", FLOP, "raise to 60 is below the minimum raise to 100"),
    ],
)
def test_bad_inputs_are_one_sentence(text: str, observed: Observation, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_user_action(text, observed)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_raise_when_only_calling_is_possible() -> None:
    short = observation(Action(0, ActionKind.RAISE, 20_000))  # player 1 may only call all-in or fold
    assert legal_summary(short) == "f fold | c call 19900 (all-in) | q quit"
    for text in ("r 500", "a"):
        with pytest.raises(ValueError, match="you cannot raise: the bot is all-in; call with c"):
            parse_user_action(text, short)
    assert parse_user_action("c", short) == Action(1, ActionKind.CALL, 19_900)
    small = observation(stack=150)  # the button holds 100 behind: any raise is all-in
    assert "r AMOUNT" not in legal_summary(small) and "a all-in 150" in legal_summary(small)
    assert parse_user_action("r 150", small) == Action(0, ActionKind.RAISE, 150)


def test_missing_blueprint_suggests_another_opponent(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"was not found .*--opponent heuristic"):
        default_opponent_spec([tmp_path / "nowhere"])
    (tmp_path / "bp").mkdir()
    (tmp_path / "bp" / "policy.pt").write_bytes(b"")
    assert default_opponent_spec([tmp_path / "nowhere", tmp_path / "bp"]) == f"search:{tmp_path / 'bp'}"
    (tmp_path / "light").mkdir()  # a light install's blueprint: numpy arrays only
    (tmp_path / "light" / "policy.npz").write_bytes(b"")
    assert default_opponent_spec([tmp_path / "light"]) == f"search:{tmp_path / 'light'}"
    (tmp_path / "tabular").mkdir()  # a tabular blueprint
    (tmp_path / "tabular" / "strategy.npz").write_bytes(b"")
    assert default_opponent_spec([tmp_path / "tabular"]) == f"search:{tmp_path / 'tabular'}"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--opponent", "nope"], "unknown agent spec 'nope'"),
        (["--opponent", "blueprint:/no/such/folder"], "/no/such/folder"),
        (["--stack", "0"], "stack must be a positive number of big blinds"),
        (["--hands", "-1"], "hands must be a positive whole number"),
        (["--opponent", "call", "--log", "/no/such/folder/x.log"], "does not exist"),
    ],
)
def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert message in usage_error(capsys, "play", *argv)


# ---------------------------------------------------------------------- sessions in a pseudo-terminal


def spawn(*argv: str, cwd: Path | None = None) -> Child:
    return pexpect.spawn(
        sys.executable,
        ["-c", ENTRY, "play", *argv],
        cwd=str(cwd) if cwd else None,
        encoding="utf-8",
        timeout=600,  # a busy machine may take minutes to import torch and compile the kernels
        dimensions=(60, 200),
        env={**os.environ, "NO_COLOR": "1", "TERM": "dumb"},
        preexec_fn=default_sigint,  # the Ctrl-C tests interrupt it, wherever pytest runs
    )


def prompt(child: Child) -> str:
    """Wait for the action prompt; the screen text since the last expect."""
    child.expect_exact(PROMPT)
    return str(child.before)


def answer(child: Child, text: str) -> str:
    """Type ``text`` at the action prompt and return what the screen shows before the next prompt."""
    child.sendline(text)
    return prompt(child)


def score_chips(screen: str) -> int:
    return int(re.findall(r"score after \d+ hands?: you [+-][\d.]+ bb \(([+-]\d+) chips\)", screen)[-1])


def test_scripted_session_with_bad_inputs(tmp_path: Path) -> None:
    log = tmp_path / "session.log"
    child = spawn("--opponent", "call", "--seed", "3", "--log", str(log))
    # Hand 1: we are on the button and face the big blind.
    screen = prompt(child)
    assert "you against call" in screen and "=== hand 1: you are on the button ===" in screen
    assert "board  -   (preflop)" in screen and "pot    150" in screen
    assert "legal  f fold | c call 50 | r AMOUNT raise to 200..20000 | a all-in 20000 | q quit" in screen
    assert re.search(r"you    \S\S \S\S   stack  19950   bet    50 \(button\)", screen)
    assert "bot    ?? ??   stack  19900   bet   100 (big blind)" in screen
    assert "last   (none yet: only the blinds)" in screen
    assert "unknown command 'xyz'" in answer(child, "xyz")
    assert "raise to 150 is below the minimum raise to 200" in answer(child, "r 150")
    assert "more than you have: all-in is a raise to 20000" in answer(child, "r 99999")
    assert "you cannot check: you face a bet" in answer(child, "k")
    assert "say how much" in answer(child, "r")
    screen = answer(child, "r 3bb")  # nothing changed above: the raise is still to 300 and the call 200
    assert "you raise to 300" in screen and "bot calls 200" in screen and "--- flop: " in screen
    assert "pot    600" in screen and "last   bot checks" in screen
    assert "there is no bet to fold to" in answer(child, "f")
    screen = answer(child, "b 2/3p")
    assert "you bet 400" in screen and "bot calls 400" in screen and "pot    1400" in screen
    screen = answer(child, "k")
    assert "you check" in screen and "--- river: " in screen
    child.sendline("k")
    child.expect_exact(NEXT_HAND_PROMPT)
    screen = str(child.before)
    shown = re.search(r"showdown on (.{14}): bot shows (\S\S \S\S) \(", screen)
    assert shown is not None and "for you" in screen
    first = score_chips(screen)
    assert abs(first) == 700 or first == 0  # the pot of 1400 was won, lost or split
    child.sendline("zzz")
    child.expect_exact("press Enter for the next hand, or q to quit")
    child.sendline("")
    # Hand 2: we are in the big blind; the calling bot completes the small blind.
    screen = prompt(child)
    assert "=== hand 2: you are in the big blind ===" in screen and "last   bot calls 50" in screen
    assert "legal  k check | r AMOUNT raise to 200..20000" in screen
    screen = answer(child, "c")  # nothing to call: c checks
    assert "you check" in screen and "--- flop: " in screen
    assert "last   (none since your last action)" in screen
    child.sendline("a")
    child.expect_exact(NEXT_HAND_PROMPT)
    screen = str(child.before)
    assert "you bet 19900 (all-in)" in screen and "bot calls 19900 (all-in)" in screen
    assert "showdown on" in screen
    second = score_chips(screen) - first
    assert abs(second) in (0, 20_000)
    child.sendline("")
    # Hand 3: quit in the middle; the small blind we posted is lost.
    prompt(child)
    child.sendline("q")
    child.expect(pexpect.EOF)
    screen = str(child.before)
    child.close()
    assert child.exitstatus == 0
    assert "hand 3 abandoned: it counts as a fold, -50 chips for you" in screen
    total = first + second - 50
    assert f"session over: 3 hands, your result {total / 100:+.2f} bb ({total:+d} chips)" in screen
    assert f"{total / 3:+.1f} bb/100" in screen

    text = log.read_text()
    states = [line for line in text.splitlines() if line.startswith("STATE:")]
    assert len(states) == 3
    finished = [parse_acpc(line) for line in states[:2]]
    you = [line.names.index("you") for line in finished if line.names is not None]
    results = [line.results[player] for line, player in zip(finished, you, strict=True) if line.results]
    assert results == [first, second]
    assert states[0].startswith("STATE:0:r300c/cr700c/cc/cc:")
    assert states[1].startswith("STATE:1:cc/r20000c//")
    bot_cards = shown.group(2).replace(" ", "")
    assert bot_cards in states[0].split(":")[3]
    assert "player 0 raises to 300" in text and "player 0 bets 400" in text and "player 0 bets 19900" in text
    assert "# hand 3 (abandoned: you quit; it counts as a fold, -50)" in text
    assert f"# session over: 3 hands, your result {total / 100:+.2f} bb" in text


@pytest.mark.parametrize("how", ["ctrl-d", "ctrl-c"])
def test_ctrl_d_and_ctrl_c_end_with_a_summary(how: str) -> None:
    child = spawn("--opponent", "call", "--seed", "8")
    prompt(child)
    child.sendline("c")  # hand 1, on the button: complete the small blind; the bot checks
    prompt(child)
    if how == "ctrl-d":
        child.sendeof()
    else:
        child.sendintr()
    child.expect(pexpect.EOF)
    screen = str(child.before)
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in screen
    assert "hand 1 abandoned: it counts as a fold, -100 chips for you" in screen
    assert "session over: 1 hand, your result -1.00 bb (-100 chips), -100.0 bb/100" in screen


@pytest.mark.slow  # about 10 s: a terminal session against the default bot in a subprocess
def test_session_against_the_default_bot_from_another_folder(tmp_path: Path) -> None:
    child = spawn("--hands", "3", "--seed", "5", "--stack", "100", cwd=tmp_path)
    child.expect_exact(PROMPT)
    header = str(child.before)
    assert "you against search:checkpoints/hunl_blueprint" in header and "stacks 10000 (100 bb)" in header
    child.sendline("c")
    hands_seen = 0
    while True:
        index = child.expect_exact([PROMPT, NEXT_HAND_PROMPT, pexpect.EOF])
        if index == 0:
            assert "stack" in str(child.before)
            child.sendline("c")
        elif index == 1:
            hands_seen += 1
            child.sendline("")
        else:
            break
    screen = str(child.before)
    child.close()
    assert child.exitstatus == 0 and hands_seen == 2  # no pause after the last hand
    assert "Traceback" not in screen
    assert re.search(r"session over: 3 hands, your result [+-]\d+\.\d\d bb", screen)


def test_the_bot_is_told_how_each_hand_ended() -> None:
    bot = RecordingCaller()
    typed = ["f", "", "k", "k", "k", "k"]  # fold hand 1; [Enter]; check hand 2 down
    scripted_session(bot, typed, hands=2).run()
    folded, shown = bot.summaries
    assert folded.player == shown.player == 1, "the bot is player 1"
    assert folded.opponent_cards is None, "the user folded: nothing was shown"
    assert shown.opponent_cards is not None and len(shown.board) == 5, "checked down: the user's cards shown"
