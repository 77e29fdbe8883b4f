"""``pokerai play``: a heads-up no-limit session against the bot in a terminal.

    pokerai play [--opponent SPEC] [--hands N] [--stack BB] [--seed S] [--log PATH]

The human is player 0 and the bot player 1 of every hand; the button
alternates (the human has it in hand 1), blinds are 50/100 chips and both
stacks are reset to ``--stack`` big blinds before each hand. The default bot
(:data:`DEFAULT_BOT`) searches every postflop street over the tabular MCCFR blueprint
shipped in ``checkpoints/hunl_blueprint``.

The pieces, each testable on its own:

* :func:`parse_user_action` turns one line the user typed into an engine
  :class:`~pokerai.engine.state.Action` (or a :class:`Command`), or raises
  ``ValueError`` with one sentence saying why it is not a legal move here.
* :func:`describe_decision` is the text shown at each decision.
* :class:`PlaySession` plays the hands, reading lines from a ``read_line``
  callable (``input`` on a terminal) and writing text through ``write``; it
  returns a :class:`SessionResult`. End of input (Ctrl-D), an interrupt
  (Ctrl-C) and ``q`` all end the session with the summary; a hand left
  unfinished counts as a fold (the user loses what it had put in the pot).

* :class:`ThinkingNotice` shows "bot is thinking… N.N s" while a bot decision
  takes longer than half a second.

At the table every solve the bot runs has a time budget (:data:`TABLE_BUDGET_S`
where the agent has none; ``budget_solves``), and the bot's per-process
first-time work (numba kernels, equity tables; ``warm_up``) runs in a background
thread while the first hand is dealt. A kernel that has to compile says so on
stderr (:func:`pokerai.jit.compile_notice`), never over the open prompt.

``register(commands)`` adds the subcommand to the ``pokerai`` argparse
subparsers; the handler reports its own errors (one line, exit status 2).
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import math
import re
import secrets
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import numpy as np

from pokerai.agents.base import Agent, HandSummary, Observation
from pokerai.agents.spec import make_agent
from pokerai.cli.arguments import count, seed
from pokerai.engine.cards import format_cards
from pokerai.engine.evaluator import hand_category, rank_hand
from pokerai.engine.history import STREET_NAMES, format_history, to_acpc
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState
from pokerai.jit import compile_notice
from pokerai.shipped import package_checkpoints

USAGE_ERROR = 2
SMALL_BLIND, BIG_BLIND = 50, 100
DEFAULT_STACK_BB = 200.0
DEFAULT_BLUEPRINT = Path("checkpoints") / "hunl_blueprint"
"""The shipped blueprint, relative to the repository root (or the working directory): the tabular
MCCFR strategy of ``configs/hunl_blueprint.yaml`` with its card abstraction (docs/RESULTS.md)."""
DEFAULT_BOT = f"search:{DEFAULT_BLUEPRINT.as_posix()}"
"""The default bot, as it is named: real-time search at every postflop street
(``configs/search_default.yaml``) over the shipped blueprint, which plays the preflop with the
``blueprint:`` spec's defaults (its probabilities as they are, all-ins off its menu answered by a
solved call-or-fold game)."""
TABLE_BUDGET_S = 2.0
"""Seconds of CFR+ iterations each solve of the bot may take at the table, where its spec sets no budget
(the default bot's all-in answers; docs/BENCHMARKS.md has their times)."""
THINKING = "bot is thinking…"
THINKING_AFTER_S = 0.5
"""A bot decision that takes longer than this shows :data:`THINKING` and the seconds so far."""
THINKING_TICK_S = 0.1
"""How often the thinking line's elapsed time is rewritten on a terminal."""
HUMAN, BOT = 0, 1
"""Player indices of the user and the bot in every hand."""
LOG_NAMES = ("you", "bot")
"""Names of the players in the log's ACPC ``STATE`` lines, by player index."""
PROMPT = "your action> "
NEXT_HAND_PROMPT = "[Enter] next hand, q quit> "

HELP_TEXT = """\
commands (amounts are chips; a raise is to a total for this street):
  f            fold
  k            check
  c            call (or check when there is nothing to call)
  r AMOUNT     raise to AMOUNT (b AMOUNT is the same: a bet when nobody has bet)
               AMOUNT: chips (600), big blinds (3bb) or a fraction of the pot (2/3p, 0.5p, p)
  a            all-in
  h            this help
  q            quit (Ctrl-D and Ctrl-C too); an unfinished hand counts as a fold"""


class Command(enum.Enum):
    """A line of input that is not a poker action."""

    QUIT = "quit"
    HELP = "help"


_WORDS: dict[str, str] = {
    "f": "fold", "fold": "fold",
    "k": "check", "x": "check", "check": "check",
    "c": "call", "call": "call",
    "r": "raise", "raise": "raise", "b": "raise", "bet": "raise",
    "a": "allin", "allin": "allin", "all-in": "allin", "shove": "allin",
    "q": "quit", "quit": "quit", "exit": "quit",
    "h": "help", "help": "help", "?": "help",
}  # fmt: skip
_SPLIT = re.compile(r"([a-z?-]+)\s*(.*)")
_FRACTION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(?:/(\d+(?:\.\d*)?))?")
AMOUNT_FORMS = "chips (600), big blinds (3bb) or a fraction of the pot (2/3p)"


def pot_fraction_raise_to(observation: Observation, fraction: float) -> int:
    """The raise-to (street total) of a bet or raise of ``fraction`` of the pot, rounded to whole chips.

    A pot-size raise first calls, then raises by the pot after the call: the
    street total is the opponent's bet plus ``fraction`` times (pot + amount to call).
    """
    facing = observation.bets[1 - observation.player] - observation.bets[observation.player]
    return observation.bets[1 - observation.player] + round(fraction * (observation.pot + facing))


def parse_amount(text: str, observation: Observation) -> int:
    """The raise-to in chips that ``text`` names: ``600``, ``3bb``, ``2/3p``, ``0.5pot``, ``p``.

    Raises ``ValueError`` with one sentence if ``text`` is none of these forms;
    the amount is not checked against the legal range here.
    """
    cleaned = text.strip().lower().replace(",", "").replace("_", "").replace(" ", "")
    unit = ""
    for suffix in ("pot", "bb", "p"):
        if cleaned.endswith(suffix):
            unit, cleaned = suffix, cleaned[: -len(suffix)]
            break
    if unit in ("p", "pot") and cleaned == "":
        cleaned = "1"
    match = _FRACTION.fullmatch(cleaned)
    if match is None:
        raise ValueError(f"cannot read the amount {text.strip()!r}: write {AMOUNT_FORMS}")
    value = float(match.group(1))
    if match.group(2) is not None:
        denominator = float(match.group(2))
        if denominator == 0:
            raise ValueError(f"cannot read the amount {text.strip()!r}: it divides by zero")
        value /= denominator
    if not math.isfinite(value):
        raise ValueError(f"cannot read the amount {text.strip()!r}: write {AMOUNT_FORMS}")
    if unit in ("p", "pot"):
        return pot_fraction_raise_to(observation, value)
    if unit == "bb":
        return round(value * observation.config.big_blind)
    if match.group(2) is not None or value != int(value):
        raise ValueError(f"an amount in chips must be a whole number, not {text.strip()!r}")
    return int(value)


def _cannot_raise(observation: Observation) -> str:
    """Why raising is not legal at ``observation`` (it must not be), and what is."""
    opponent = 1 - observation.player
    if observation.stacks[opponent] == 0:
        reason = "the bot is all-in"
    else:
        reason = f"calling {observation.call_amount} already puts you all-in"
    if ActionKind.CALL in observation.legal_actions:
        return f"you cannot raise: {reason}; call with c ({observation.call_amount}) or fold with f"
    return f"you cannot raise: {reason}; check with k"


def parse_user_action(text: str, observation: Observation) -> Action | Command:
    """The action (or command) the user typed at ``observation``, the user's decision.

    Accepts the keys of :data:`HELP_TEXT`, in any case. Raises ``ValueError``
    with one sentence for anything that is not a legal move here: an unknown
    command, a fold or check that the rules do not allow, a raise when only
    calling is possible, a missing, unreadable or out-of-range amount.
    The returned action is always legal at ``observation``.
    """
    cleaned = text.strip().lower()
    if not cleaned:
        raise ValueError("type an action (f, k, c, r AMOUNT, a), h for help or q to quit")
    match = _SPLIT.fullmatch(cleaned)
    word = _WORDS.get(match.group(1)) if match is not None else None
    if match is None or word is None:
        raise ValueError(f"unknown command {text.strip()!r}; type h for help")
    argument = match.group(2).strip()
    if word in ("quit", "help", "fold", "check", "call", "allin") and argument:
        raise ValueError(f"{match.group(1)!r} takes no amount, but {argument!r} follows it; type h for help")
    if word == "quit":
        return Command.QUIT
    if word == "help":
        return Command.HELP
    player, legal = observation.player, observation.legal_actions
    if word == "fold":
        if ActionKind.FOLD not in legal:
            raise ValueError(
                "there is no bet to fold to: check with k (folding here would throw away nothing)"
            )
        return Action(player, ActionKind.FOLD)
    if word == "check":
        if ActionKind.CHECK not in legal:
            raise ValueError(
                f"you cannot check: you face a bet; call with c ({observation.call_amount}) or fold with f"
            )
        return Action(player, ActionKind.CHECK)
    if word == "call":
        return observation.check_or_call()
    if ActionKind.RAISE not in legal:
        raise ValueError(_cannot_raise(observation))
    minimum, maximum = observation.min_raise_to, observation.max_raise_to
    assert minimum is not None and maximum is not None
    if word == "allin":
        return Action(player, ActionKind.RAISE, maximum)
    if not argument:
        raise ValueError(f"say how much: r AMOUNT with AMOUNT in {minimum}..{maximum}, or a for all-in")
    amount = parse_amount(argument, observation)
    if amount < minimum:
        only = " (the only raise left is all-in: a)" if minimum == maximum else ""
        raise ValueError(f"raise to {amount} is below the minimum raise to {minimum}{only}")
    if amount > maximum:
        raise ValueError(f"raise to {amount} is more than you have: all-in is a raise to {maximum} (a)")
    return Action(player, ActionKind.RAISE, amount)


# ---------------------------------------------------------------------- what the screen shows


def _is_bet(state: HUNLState) -> bool:
    """Whether a raise at ``state`` would be the street's first bet (after the flop, nobody has bet)."""
    return state.street > 0 and max(state.bets) == 0


def describe_action(action: Action, before: HUNLState, after: HUNLState, who: str) -> str:
    """``"bot raises to 300"``: ``action`` taken at ``before`` (leading to ``after``), said of ``who``.

    ``who`` is ``"you"`` (verbs in the second person) or a name (third person).
    """
    third = who != "you"

    def verb(base: str) -> str:
        return f"{base}s" if third else base

    if action.kind is ActionKind.FOLD:
        return f"{who} {verb('fold')}"
    if action.kind is ActionKind.CHECK:
        return f"{who} {verb('check')}"
    all_in = " (all-in)" if after.stacks[action.player] == 0 else ""
    if action.kind is ActionKind.CALL:
        return f"{who} {verb('call')} {action.amount}{all_in}"
    if _is_bet(before):
        return f"{who} {verb('bet')} {action.amount}{all_in}"
    return f"{who} {verb('raise')} to {action.amount}{all_in}"


def legal_summary(observation: Observation) -> str:
    """The legal moves with their amounts, e.g. ``f fold | c call 50 | r AMOUNT raise to 200..20000``."""
    parts = []
    legal = observation.legal_actions
    if ActionKind.FOLD in legal:
        parts.append("f fold")
    if ActionKind.CHECK in legal:
        parts.append("k check")
    if ActionKind.CALL in legal:
        all_in = " (all-in)" if observation.call_amount == observation.stacks[observation.player] else ""
        parts.append(f"c call {observation.call_amount}{all_in}")
    if ActionKind.RAISE in legal:
        minimum, maximum = observation.min_raise_to, observation.max_raise_to
        if minimum != maximum:
            bet = observation.street > 0 and max(observation.bets) == 0
            key, verb = ("b", "bet") if bet else ("r", "raise to")
            parts.append(f"{key} AMOUNT {verb} {minimum}..{maximum}")
        parts.append(f"a all-in {maximum}")
    parts.append("q quit")
    return " | ".join(parts)


def describe_decision(observation: Observation, last_bot_action: str) -> str:
    """The block shown before each of the user's decisions: cards, board, pot, stacks, bets, legal moves.

    ``last_bot_action`` says what the bot did since the user's previous action.
    """
    me, bot = observation.player, 1 - observation.player
    board = format_cards(observation.board, " ") or "-"
    street = STREET_NAMES[observation.street]

    def seat(player: int) -> str:
        return " (button)" if player == observation.button else " (big blind)"

    lines = [
        f"  board  {board}   ({street})",
        f"  pot    {observation.pot}",
        f"  you    {format_cards(observation.hole_cards, ' ')}   stack {observation.stacks[me]:>6}"
        f"   bet {observation.bets[me]:>5}{seat(me)}",
        f"  bot    ?? ??   stack {observation.stacks[bot]:>6}   bet {observation.bets[bot]:>5}{seat(bot)}",
        f"  last   {last_bot_action}",
        f"  legal  {legal_summary(observation)}",
    ]
    return "\n".join(lines)


def _signed_bb(chips: int) -> str:
    return f"{chips / BIG_BLIND:+g} bb"


@dataclass(frozen=True)
class SessionResult:
    """What a session ends with: hands played (an abandoned one included) and the user's net chips."""

    hands: int
    chips: int
    abandoned_hand: bool = False
    """Whether the session ended in the middle of a hand (counted as the user's fold)."""

    @property
    def big_blinds(self) -> float:
        return self.chips / BIG_BLIND

    @property
    def bb_per_100(self) -> float:
        return 100.0 * self.big_blinds / self.hands if self.hands else 0.0

    def summary(self) -> str:
        """One line: hands, result in bb (and chips) and bb/100."""
        if self.hands == 0:
            return "session over: no hands played"
        plural = "" if self.hands == 1 else "s"
        return (
            f"session over: {self.hands} hand{plural}, your result {self.big_blinds:+.2f} bb "
            f"({self.chips:+d} chips), {self.bb_per_100:+.1f} bb/100"
        )


class _Quit(Exception):
    """The user ended the session (q, Ctrl-D or Ctrl-C)."""


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


class PlaySession:
    """A session of hands between the user (player 0) and ``opponent`` (player 1). See the module docstring.

    ``read_line(prompt)`` returns one line the user typed (``input``); it may
    raise ``EOFError`` or ``KeyboardInterrupt`` to end the session. ``write``
    prints text (a newline is added). ``log`` receives each hand's readable
    history and ACPC ``STATE`` line as soon as the hand ends. With a ``screen``
    the user's prompt is kept free of other threads' notices and a bot decision
    longer than half a second shows :class:`ThinkingNotice`.
    """

    def __init__(
        self,
        opponent: Agent,
        *,
        opponent_name: str,
        stack: int,
        seed: int,
        hands: int | None,
        read_line: Callable[[str], str],
        write: Callable[[str], None],
        log: TextIO | None = None,
        screen: Screen | None = None,
    ) -> None:
        self.opponent = opponent
        self.opponent_name = opponent_name
        self.config = HUNLConfig(SMALL_BLIND, BIG_BLIND, (stack, stack))
        self.seed = seed
        self.hands = hands
        self.read_line = read_line
        self.write = write
        self.log = log
        self.screen = screen
        self._deal_rng = np.random.default_rng([seed, 0])
        self._bot_rng = np.random.default_rng([seed, 1])
        self._played = 0
        self._chips = 0
        self._state: HUNLState | None = None

    def run(self) -> SessionResult:
        """Play until ``hands`` are done or the user quits; write the summary and return the result."""
        self._log_line(
            f"# pokerai play: you are player {HUMAN}, the bot ({self.opponent_name}) is player {BOT}; "
            f"blinds {SMALL_BLIND}/{BIG_BLIND}, stacks {self.config.stacks[0]}, seed {self.seed}"
        )
        self.write(
            f"pokerai play: you against {self.opponent_name}, blinds {SMALL_BLIND}/{BIG_BLIND}, "
            f"stacks {self.config.stacks[0]} ({self.config.stacks[0] / BIG_BLIND:g} bb), seed {self.seed}\n"
            "type h for help, q to quit"
        )
        abandoned = False
        try:
            while self.hands is None or self._played < self.hands:
                if self._played > 0:
                    self._between_hands()
                self._play_hand()
        except (_Quit, KeyboardInterrupt):  # Ctrl-C while the bot thinks ends the session too
            abandoned = self._abandon()
        result = SessionResult(self._played, self._chips, abandoned)
        self.write(result.summary())
        self._log_line(f"# {result.summary()}")
        return result

    # ------------------------------------------------------------------ one hand

    def _play_hand(self) -> None:
        number = self._played + 1
        button = HUMAN if self._played % 2 == 0 else BOT
        deck = self._deal_rng.permutation(52)[:9].tolist()
        state = HUNLState.new(self.config, button, deck=deck)
        self._state = state
        self.opponent.begin_hand(BOT, button)
        blinds = (
            f"you post the small blind {state.bets[HUMAN]}, the bot the big blind {state.bets[BOT]}"
            if button == HUMAN
            else f"the bot posts the small blind {state.bets[BOT]}, you the big blind {state.bets[HUMAN]}"
        )
        seat = "on the button" if button == HUMAN else "in the big blind"
        self.write(f"\n=== hand {number}: you are {seat} ===\n{blinds}")
        self.write(f"your cards: {format_cards(state.hole_cards(HUMAN), ' ')}")
        last_bot_action = "(none yet: only the blinds)"
        while state.to_act is not None:
            before = state.clone()
            if state.to_act == BOT:
                action = self._bot_action(state)
                try:
                    state.apply(action)
                except ValueError as error:
                    raise RuntimeError(
                        f"the bot ({self.opponent_name}) chose an illegal action ({action}): {error}"
                    ) from None
                last_bot_action = describe_action(action, before, state, "bot")
                self.write(last_bot_action)
            else:
                action = self._ask(Observation.from_state(state), last_bot_action)
                state.apply(action)
                self.write(describe_action(action, before, state, "you"))
                last_bot_action = "(none since your last action)"  # "what the bot just did" starts over
            for street in range(before.street + 1, state.street + 1):
                board = format_cards(state.deal[4 : 4 + (0, 3, 4, 5)[street]], " ")
                self.write(f"--- {STREET_NAMES[street]}: {board} ---")
        self._finish_hand(state)

    def _bot_action(self, state: HUNLState) -> Action:
        observation = Observation.from_state(state)
        if self.screen is None:
            return self.opponent.act(observation, self._bot_rng)
        with ThinkingNotice(self.screen):
            return self.opponent.act(observation, self._bot_rng)

    def _ask(self, observation: Observation, last_bot_action: str) -> Action:
        self.write(describe_decision(observation, last_bot_action))
        while True:
            text = self._read(PROMPT)
            try:
                choice = parse_user_action(text, observation)
            except ValueError as error:
                self.write(f"  ! {error}")
                continue
            if choice is Command.QUIT:
                raise _Quit
            if choice is Command.HELP:
                self.write(HELP_TEXT)
                self.write(f"  legal  {legal_summary(observation)}")
                continue
            assert isinstance(choice, Action)
            return choice

    def _read(self, prompt: str) -> str:
        try:
            if self.screen is None:
                return self.read_line(prompt)
            with self.screen.prompt():
                return self.read_line(prompt)
        except (EOFError, KeyboardInterrupt):
            self.write("")  # the prompt line is still open
            raise _Quit from None

    def _finish_hand(self, state: HUNLState) -> None:
        self.opponent.end_hand(HandSummary.from_state(state, BOT))
        returns = state.returns()
        mine = returns[HUMAN]
        if state.folded is None:
            board = state.deal[4:9]
            shown = []
            for who, player in (("bot", BOT), ("you", HUMAN)):
                cards = state.hole_cards(player)
                category = hand_category(rank_hand([*cards, *board]))
                verb = "shows" if who == "bot" else "show"
                shown.append(f"{who} {verb} {format_cards(cards, ' ')} ({category})")
            self.write(f"showdown on {format_cards(board, ' ')}: {', '.join(shown)}")
        if mine == 0:
            self.write(f"split pot of {state.final_pot}: {mine:+d} chips for you")
        else:
            winner = "you win" if mine > 0 else "the bot wins"
            self.write(f"{winner} the pot of {state.final_pot}: {mine:+d} chips for you ({_signed_bb(mine)})")
        self._played += 1
        self._chips += mine
        self._state = None
        self._log_hand(state, f"# hand {self._played}")
        score = SessionResult(self._played, self._chips)
        self.write(
            f"score after {self._played} hand{'s' if self._played != 1 else ''}: you "
            f"{score.big_blinds:+.2f} bb ({score.chips:+d} chips), {score.bb_per_100:+.1f} bb/100"
        )

    def _between_hands(self) -> None:
        while True:
            text = self._read(NEXT_HAND_PROMPT).strip().lower()
            if text in ("q", "quit", "exit"):
                raise _Quit
            if text == "":
                return
            self.write("  ! press Enter for the next hand, or q to quit")

    def _abandon(self) -> bool:
        """Count an unfinished hand as the user's fold; whether there was one."""
        state = self._state
        self._state = None
        if state is None or state.is_over:
            return False
        lost = state.committed[HUMAN]
        self._played += 1
        self._chips -= lost
        note = f"hand {self._played} abandoned: it counts as a fold, {-lost:+d} chips for you"
        self.write(note)
        self._log_hand(state, f"# hand {self._played} (abandoned: you quit; it counts as a fold, {-lost:+d})")
        return True

    # ------------------------------------------------------------------ log

    def _log_line(self, text: str) -> None:
        if self.log is not None:
            self.log.write(text + "\n")
            self.log.flush()

    def _log_hand(self, state: HUNLState, header: str) -> None:
        if self.log is None:
            return
        state_line = to_acpc(state, hand_number=self._played - 1, names=LOG_NAMES)
        self._log_line(f"{header}\n{format_history(state)}\n{state_line}\n")


# ---------------------------------------------------------------------- the opponent


def default_blueprint_candidates() -> list[Path]:
    """Where the shipped blueprint may be: under the working directory, then in the installed package."""
    return [Path.cwd() / DEFAULT_BLUEPRINT, package_checkpoints().joinpath(*DEFAULT_BLUEPRINT.parts[1:])]


def default_opponent_spec(candidates: list[Path] | None = None) -> str:
    """The default bot's spec, ``search:PATH``, for the first candidate folder holding a blueprint: a
    tabular ``strategy.npz``, or a Deep CFR ``policy.npz`` or ``policy.pt``.

    Raises ``ValueError`` with one sentence (naming the places looked at and
    suggesting ``--opponent heuristic``) when none does.
    """
    places = candidates if candidates is not None else default_blueprint_candidates()
    for place in places:
        if any((place / name).is_file() for name in ("strategy.npz", "policy.npz", "policy.pt")):
            return f"search:{place}"
    looked = ", ".join(str(place) for place in dict.fromkeys(places))
    raise ValueError(
        f"the shipped blueprint {DEFAULT_BLUEPRINT} was not found (looked in {looked}); "
        "name another opponent, e.g. --opponent heuristic"
    )


def load_agent(spec: str | None, option: str) -> tuple[Agent, str]:
    """The agent for ``spec`` (None: the shipped blueprint) and its display name.

    Raises ``ValueError`` with one sentence that starts with ``option``.
    """
    if spec is None:
        try:
            spec = default_opponent_spec()
        except ValueError as error:
            raise ValueError(f"{option}: {error}") from None
        name = DEFAULT_BOT
    else:
        name = spec.strip()
    try:
        return make_agent(spec), name
    except ValueError as error:
        raise ValueError(f"{option}: {error}") from None
    except OSError as error:  # a checkpoint that cannot be read
        raise ValueError(f"{option} {spec}: {error.strerror or error}") from None


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


def _stack(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"stack must be a number of big blinds, got {text!r}") from None
    if not math.isfinite(value) or round(value * BIG_BLIND) < 1:
        raise argparse.ArgumentTypeError(f"stack must be a positive number of big blinds, got {text}")
    return value


def register(commands: Any) -> argparse.ArgumentParser:
    """Add ``play`` to ``commands`` (the ``pokerai`` argparse subparsers) and set its handler."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "play",
        help="play heads-up no-limit hold'em against the bot in the terminal",
        description="Play hands against the bot: blinds 50/100, stacks reset every hand, the button "
        "alternates. Type h at the prompt for the commands. q, Ctrl-D or Ctrl-C end the session "
        "with a summary (an unfinished hand counts as your fold).",
        epilog="exit status: 0 when the session ends (hands done, q, Ctrl-D, Ctrl-C); "
        "2 for a bad argument or an opponent that cannot be loaded.",
    )
    parser.add_argument(
        "--opponent",
        metavar="SPEC",
        default=None,
        help=f"the bot, any agent spec (default: search over the shipped blueprint, "
        f"{DEFAULT_BOT}; e.g. blueprint:{DEFAULT_BLUEPRINT}, heuristic, call). At the table "
        f"every solve the bot runs (the default's answers to all-ins off its menu, any search) stops "
        f"its CFR+ iterations after {TABLE_BUDGET_S:g} s unless the spec sets a budget",
    )
    parser.add_argument(
        "--hands",
        type=count("hands"),
        default=None,
        metavar="N",
        help="stop after N hands (default: play until you quit)",
    )
    parser.add_argument(
        "--stack",
        type=_stack,
        default=DEFAULT_STACK_BB,
        metavar="BB",
        help=f"both stacks in big blinds, reset each hand (default {DEFAULT_STACK_BB:g}; "
        "the blueprint was trained at 200)",
    )
    parser.add_argument(
        "--seed",
        type=seed,
        default=None,
        metavar="S",
        help="seed of the cards and the bot (default: a fresh one, shown at the start)",
    )
    parser.add_argument(
        "--log",
        metavar="PATH",
        default=None,
        help="write each hand to PATH: a readable history and an ACPC STATE line",
    )
    parser.set_defaults(handler=run_play)
    return parser


def _open_log(path: str) -> TextIO:
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"cannot write the log {path!r}: it is a folder")
    if not target.parent.is_dir():
        raise ValueError(f"cannot write the log {path!r}: folder {str(target.parent)!r} does not exist")
    try:
        return target.open("w", encoding="utf-8")
    except OSError as error:
        raise ValueError(f"cannot write the log {path!r}: {error.strerror or error}") from None


def run_play(args: argparse.Namespace) -> int:
    """The ``play`` handler: runs the session; a bad argument prints one line and returns 2."""
    try:
        opponent, name = load_agent(args.opponent, "--opponent")
        log = _open_log(args.log) if args.log is not None else None
    except ValueError as error:
        print(f"pokerai play: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    budget_solves = getattr(opponent, "budget_solves", None)
    if callable(budget_solves):
        budget_solves(TABLE_BUDGET_S)
    screen = Screen(sys.stdout, sys.stderr)
    try:
        session = PlaySession(
            opponent,
            opponent_name=name,
            stack=round(args.stack * BIG_BLIND),
            seed=seed,
            hands=args.hands,
            read_line=input,
            write=screen.line,
            log=log,
            screen=screen,
        )
        with compile_notice(write=screen.notice):
            start_warm_up(opponent)
            session.run()
    finally:
        if log is not None:
            log.close()
    if args.log is not None:
        print(f"hand histories: {args.log}")
    return 0


__all__ = [
    "Command",
    "PlaySession",
    "Screen",
    "SessionResult",
    "ThinkingNotice",
    "default_opponent_spec",
    "describe_decision",
    "legal_summary",
    "load_agent",
    "parse_amount",
    "parse_user_action",
    "pot_fraction_raise_to",
    "register",
    "run_play",
    "start_warm_up",
]
