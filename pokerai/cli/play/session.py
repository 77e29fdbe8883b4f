"""A ``pokerai play`` session: :class:`PlaySession` plays hands between the user and the bot.

The human is player 0 and the bot player 1 of every hand; the button alternates (the human has
it in hand 1) and both stacks are reset before each hand. The session reads lines from a
``read_line`` callable (``input`` on a terminal) and writes text through ``write``; it returns a
:class:`SessionResult`. End of input (Ctrl-D), an interrupt (Ctrl-C) and ``q`` all end the
session with the summary; a hand left unfinished counts as a fold (the user loses what it had
put in the pot).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from pokerai.agents.base import Agent, HandSummary, Observation
from pokerai.agents.table import BIG_BLIND, SMALL_BLIND
from pokerai.cli.play.actions import HELP_TEXT, Command, parse_user_action
from pokerai.cli.play.narration import describe_action, describe_decision, legal_summary, signed_bb
from pokerai.cli.play.screen import Screen, ThinkingNotice
from pokerai.engine.cards import BOARD_SIZES, format_cards
from pokerai.engine.evaluator import hand_category, rank_hand
from pokerai.engine.history import STREET_NAMES, format_history, to_acpc
from pokerai.engine.state import Action, HUNLConfig, HUNLState

HUMAN, BOT = 0, 1
"""Player indices of the user and the bot in every hand."""
LOG_NAMES = ("you", "bot")
"""Names of the players in the log's ACPC ``STATE`` lines, by player index."""
PROMPT = "your action> "
NEXT_HAND_PROMPT = "[Enter] next hand, q quit> "


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
                board = format_cards(state.deal[4 : 4 + BOARD_SIZES[street]], " ")
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
            self.write(f"{winner} the pot of {state.final_pot}: {mine:+d} chips for you ({signed_bb(mine)})")
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


__all__ = ["BOT", "HUMAN", "PlaySession", "SessionResult"]
