"""What the bot would do at a hold'em spot, and why: the computations behind the hand analyzer.

A *spot* is a hand in progress seen by the player to act, who is the bot: its two hole cards,
the board so far and the betting in ACPC form (``r300c/``: ``r<N>`` raises to a whole-hand total
of N chips, ``c`` checks or calls, ``f`` folds, ``/`` ends a betting round). :func:`parse_spot`
rebuilds it through the engine's own ACPC parser
(:func:`~pokerai.engine.history.parse_acpc`), so every bad card, amount or betting string is the
engine's ``ValueError`` sentence. :func:`spot_from_line` does the same for a pasted ACPC
``STATE`` / ``MATCHSTATE`` line (``pokerai play --log`` and ``pokerai eval --log`` write
``STATE`` lines).

An :class:`Analyzer` holds the bot and answers each view of a spot as a JSON-ready dict:

* :meth:`Analyzer.spot`: the pot, stacks, amount to call and pot odds, the bot's action
  frequencies for its hand (the blueprint's network, or the bot's own where it has no
  blueprint), and its equity against the opponent's range;
* :meth:`Analyzer.search`: the frequencies after real-time search at every postflop street,
  with the solver's iterations and seconds;
* :meth:`Analyzer.range`: the 13×13 grid of the bot's range (public beliefs by Bayes' rule
  from the blueprint, :func:`~pokerai.search.beliefs.public_beliefs`), each cell with its weight
  and its range-weighted action mix, and the opponent's range as a 13×13 heat map;
* :meth:`Analyzer.hand`: every decision of a logged hand, what was played there and what the
  bot would have played.

The agents keep caches that are not safe to share between threads, so every call that touches
them holds one lock.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.agents.base import Agent, Observation
from pokerai.agents.baselines import is_same_action
from pokerai.agents.blueprint import BlueprintAgent, public_key, replay_observation, slot_range_policy
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.agents.table import BIG_BLIND, SMALL_BLIND, TABLE_BUDGET_S, is_bet
from pokerai.engine.cards import RANKS, check_distinct, format_cards, parse_cards
from pokerai.engine.equity import hand_class, hand_vs_range
from pokerai.engine.history import STREET_NAMES, acpc_betting, parse_acpc, seat_of
from pokerai.engine.state import BOARD_SIZES, Action, ActionKind, HUNLConfig, HUNLState, Street
from pokerai.search.allin import warm_up_allin
from pokerai.search.beliefs import public_beliefs
from pokerai.search.combos import ALL_COMBOS, COMBO_INDEX, combos_holding
from pokerai.search.config import STREETS, SearchConfig

DEFAULT_STACK = 20_000
"""Starting stack of both players in chips (200 big blinds at 50/100, as ``pokerai play``)."""
DEFAULT_SEARCH_BUDGET_MS = TABLE_BUDGET_S * 1000
"""Milliseconds each search may take: the table's budget, which ``pokerai play`` gives every solve."""
EQUITY_SAMPLES = 20_000
"""Boards sampled for equity before the turn (exact enumeration from the turn on)."""
FREQUENCY_SAMPLES = 200
"""Decisions sampled to estimate the frequencies of a bot that cannot state its probabilities."""
MAX_LINE_CHARS = 4_000
"""The longest betting string or ACPC line accepted."""
MAX_LOG_CHARS = 5_000_000
"""The longest hand log accepted."""
EXAMPLE_SPOT = {"hole": "AhKh", "board": "Ks7d2c", "history": "r300c/"}
"""The spot the page opens on: the big blind has called a raise to 300 with ace-king and flopped top pair."""
ACTION_NAMES = ("fold", "check", "call", "bet", "raise", "allin")
"""How the analyzer names actions: a raise when nobody has bet on the street is a bet, and one
that puts the whole stack in is an all-in."""

GRID_RANKS = RANKS[::-1]
"""Ranks of the 13×13 grid's rows and columns, ace first."""
GRID_SIZE = len(GRID_RANKS)
_COMBO_CELL = np.array(
    [
        (GRID_SIZE - 1 - high) * GRID_SIZE + (GRID_SIZE - 1 - low)
        for high, low in (hand_class((int(first), int(second))) for first, second in ALL_COMBOS)
    ],
    dtype=np.int64,
)
"""int64 ``[1326]``: the grid cell ``row * 13 + column`` of each combination. Pairs are on the
diagonal, suited hands above it (row of the higher rank), offsuit hands below it."""
_BETTING = re.compile(r"[fcr0-9/]*")


def cell_name(row: int, column: int) -> str:
    """``"AA"``, ``"AKs"`` (above the diagonal) or ``"AKo"`` (below it) for a grid cell."""
    if row == column:
        return GRID_RANKS[row] * 2
    if row < column:
        return f"{GRID_RANKS[row]}{GRID_RANKS[column]}s"
    return f"{GRID_RANKS[column]}{GRID_RANKS[row]}o"


# ---------------------------------------------------------------------------- spots


@dataclass(frozen=True)
class Spot:
    """A hand in progress, seen by the player to act (the bot)."""

    state: HUNLState
    """The engine state; the opponent's hole cards are placeholders that nothing reads."""
    player: int
    """The player to act (with ``button`` 1, player index and ACPC seat agree)."""
    hole_cards: tuple[int, int]

    @property
    def observation(self) -> Observation:
        return Observation.from_state(self.state)

    @property
    def betting(self) -> str:
        """The betting in ACPC form, as the engine writes it."""
        return acpc_betting(self.state)


def _config(stack: int) -> HUNLConfig:
    if isinstance(stack, bool) or not isinstance(stack, int):
        raise ValueError(f"stack {stack!r} is not a whole number of chips")
    return HUNLConfig(small_blind=SMALL_BLIND, big_blind=BIG_BLIND, stacks=(stack, stack))


def parse_stack(text: str | None) -> int:
    """The starting stack in chips from a query value (None or empty: :data:`DEFAULT_STACK`)."""
    if text is None or text.strip() == "":
        return DEFAULT_STACK
    try:
        stack = int(text.strip())
    except ValueError:
        raise ValueError(f"stack {text!r} is not a whole number of chips") from None
    if stack < BIG_BLIND:
        raise ValueError(f"stack {stack} is less than the big blind of {BIG_BLIND} chips")
    if stack > 100_000_000:
        raise ValueError(f"stack {stack} is more than 100,000,000 chips")
    return stack


def board_rounds(board: Sequence[int]) -> list[str]:
    """The board as ACPC card rounds: flop, turn, river (as many as there are cards for)."""
    if len(board) not in BOARD_SIZES:
        raise ValueError(
            f"a board of {len(board)} card{'s' if len(board) != 1 else ''} ({format_cards(board)}) is "
            "not a preflop, flop, turn or river board: give 0, 3, 4 or 5 cards"
        )
    rounds = [format_cards(board[:3]), format_cards(board[3:4]), format_cards(board[4:5])]
    return rounds[: BOARD_SIZES.index(len(board))]


def parse_spot(hole: str, board: str = "", history: str = "", *, stack: int = DEFAULT_STACK) -> Spot:
    """The spot where the player to act holds ``hole`` (``"AhKh"``) on ``board`` (``"Ks7d2c"``)
    after ``history`` (ACPC betting, ``"r300c/"``), both players starting with ``stack`` chips.

    The betting is replayed by the engine's ACPC parser, so a bad card, an illegal amount or a
    betting string that does not fit the board is its ``ValueError`` sentence; a hand that is
    over (nobody to act) is one too.
    """
    hole_cards = parse_cards(hole)
    if len(hole_cards) != 2:
        raise ValueError(f"hole cards {hole!r} should be two cards, like 'AhKh'")
    board_cards = parse_cards(board)
    rounds = board_rounds(board_cards)
    check_distinct([*hole_cards, *board_cards])
    history = history.strip()
    if len(history) > MAX_LINE_CHARS:
        raise ValueError(f"history of {len(history)} characters is longer than {MAX_LINE_CHARS}")
    if _BETTING.fullmatch(history) is None:
        raise ValueError(
            f"history {history!r} is not ACPC betting: use f, c, r<chips> and / between rounds, like 'r300c/'"
        )
    config = _config(stack)
    cards = "/".join(rounds)
    cards = f"/{cards}" if cards else ""
    for seat in (0, 1):
        holes = [format_cards(hole_cards) if index == seat else "" for index in (0, 1)]
        text = f"MATCHSTATE:{seat}:0:{history}:{'|'.join(holes)}{cards}"
        try:
            line = parse_acpc(text, config)
        except ValueError as error:
            # The engine names the whole line it parsed; this one is built here, so name the parts.
            message = str(error).removeprefix(f"bad ACPC line {text!r}: ")
            raise ValueError(
                f"history {history!r} on board {format_cards(board_cards)!r}: {message}"
            ) from None
        state = line.state
        if state.to_act is None:
            raise ValueError(f"the hand is over after the betting {history!r}: nobody is to act")
        if state.to_act == line.viewer:
            return Spot(state=state, player=state.to_act, hole_cards=(hole_cards[0], hole_cards[1]))
    raise AssertionError("one of the two seats is to act")  # pragma: no cover


def spot_from_line(line: str, *, stack: int = DEFAULT_STACK) -> Spot:
    """The spot of an ACPC ``STATE`` or ``MATCHSTATE`` line (e.g. from ``pokerai play --log``),
    seen by the player to act there. Its hole cards must be in the line."""
    text = line.strip()
    if len(text) > MAX_LINE_CHARS:
        raise ValueError(f"a line of {len(text)} characters is longer than {MAX_LINE_CHARS}")
    state = parse_acpc(text, _config(stack)).state
    player = state.to_act
    if player is None:
        raise ValueError("the hand in this line is over: nobody is to act (load it in the hand replayer)")
    if not state.hole_cards_known[player]:
        raise ValueError(
            f"the line does not show the hole cards of the player to act (seat {seat_of(state, player)})"
        )
    return Spot(state=state, player=player, hole_cards=state.hole_cards(player))


def action_name(state: HUNLState, action: Action) -> str:
    """The analyzer's name of ``action`` at ``state`` (one of :data:`ACTION_NAMES`)."""
    if action.kind is ActionKind.FOLD:
        return "fold"
    if action.kind is ActionKind.CHECK:
        return "check"
    if action.kind is ActionKind.CALL:
        return "call"
    if action.amount == state.max_raise_to:
        return "allin"
    return "bet" if is_bet(state) else "raise"


def acpc_token(state: HUNLState, action: Action) -> str:
    """``action`` in ACPC betting form: ``f``, ``c`` or ``r<whole-hand total>``."""
    if action.kind is ActionKind.FOLD:
        return "f"
    if action.kind is ActionKind.RAISE:
        player = action.player
        return f"r{state.committed[player] - state.bets[player] + action.amount}"
    return "c"


def apply_action(spot: Spot, kind: str, amount: int = 0) -> HUNLState:
    """The state after the player to act plays ``kind`` (one of :data:`ACTION_NAMES`; ``amount`` is
    the raise-to on this street of a bet or raise, ignored otherwise). An illegal action is the
    engine's ``ValueError`` sentence; ``spot`` is left as it was."""
    state = spot.state.clone()
    player = spot.player
    if kind == "fold":
        action = Action(player, ActionKind.FOLD)
    elif kind == "check":
        action = Action(player, ActionKind.CHECK)
    elif kind == "call":
        action = Action(player, ActionKind.CALL)
    elif kind == "allin":
        if state.max_raise_to is None:
            state.verify_raise_to(state.bets[player] + state.stacks[player])  # says why not
        action = Action(player, ActionKind.RAISE, state.stacks[player] + state.bets[player])
    elif kind in ("bet", "raise"):
        action = Action(player, ActionKind.RAISE, amount)
    else:
        raise ValueError(f"action {kind!r} is not one of {', '.join(ACTION_NAMES)}")
    state.apply(action)
    return state


# ---------------------------------------------------------------------------- frequencies


@dataclass(frozen=True)
class Frequencies:
    """Distinct legal actions and the probability of each (summing to 1)."""

    actions: list[Action]
    probabilities: list[float]
    sampled: int = 0
    """Decisions sampled to estimate them (0: the bot's own probabilities)."""

    def to_json(self, state: HUNLState) -> list[dict[str, Any]]:
        return [
            {
                "action": action_name(state, action),
                "amount": int(action.amount),
                "probability": float(probability),
                "acpc": acpc_token(state, action),
            }
            for action, probability in zip(self.actions, self.probabilities, strict=True)
        ]

    def probability_of(self, observation: Observation, action: Action) -> float:
        """The probability of ``action`` (a call given as 0 chips or in full); 0 if it is not listed."""
        return float(
            sum(
                probability
                for known, probability in zip(self.actions, self.probabilities, strict=True)
                if is_same_action(observation, known, action)
            )
        )


def slot_frequencies(probabilities: npt.NDArray[np.float64], actions: Sequence[Action | None]) -> Frequencies:
    """One hand's slot probabilities float64 ``[num_slots]`` as :class:`Frequencies` (slots that are
    the same engine action summed)."""
    policy = slot_range_policy(probabilities[np.newaxis, :], actions)
    rows = [
        Action(actions_player(actions), ActionKind(int(kind)), int(amount))
        for kind, amount in zip(policy.kinds, policy.amounts, strict=True)
    ]
    column = policy.probabilities[:, 0]
    return Frequencies(rows, [float(p) for p in column / column.sum()])


def actions_player(actions: Sequence[Action | None]) -> int:
    """The player of the legal actions in a slot list."""
    return next(action.player for action in actions if action is not None)


def agent_frequencies(agent: Agent, observation: Observation, *, seed: int = 0) -> Frequencies:
    """The action frequencies of any agent at ``observation``: its :meth:`~Agent.range_policy` for its
    own hand where it has one, else :data:`FREQUENCY_SAMPLES` decisions sampled with
    ``np.random.default_rng([seed, i])``."""
    hands = np.array([observation.hole_cards], dtype=np.int64)
    policy = agent.range_policy(observation, hands)
    if policy is not None:
        rows = [
            Action(observation.player, ActionKind(int(kind)), int(amount))
            for kind, amount in zip(policy.kinds, policy.amounts, strict=True)
        ]
        column = policy.probabilities[:, 0]
        return Frequencies(rows, [float(p) for p in column / column.sum()])
    counts: dict[tuple[ActionKind, int], int] = {}
    for index in range(FREQUENCY_SAMPLES):
        action = agent.act(observation, np.random.default_rng([seed, index]))
        amount = observation.call_amount if action.kind is ActionKind.CALL else action.amount
        key = (action.kind, amount)
        counts[key] = counts.get(key, 0) + 1
    ordered = sorted(counts.items(), key=lambda item: (int(item[0][0]), item[0][1]))
    return Frequencies(
        [Action(observation.player, kind, amount) for (kind, amount), _ in ordered],
        [count / FREQUENCY_SAMPLES for _, count in ordered],
        sampled=FREQUENCY_SAMPLES,
    )


# ---------------------------------------------------------------------------- the analyzer


def _budgeted_search(budget_ms: float) -> SearchConfig:
    """The search config the analyzer builds: the defaults, each street searched within ``budget_ms``."""
    defaults = SearchConfig()
    streets = {name: dataclasses.replace(getattr(defaults, name), budget_ms=budget_ms) for name in STREETS}
    return dataclasses.replace(defaults, **streets)


def _network_agent(bot: BlueprintAgent) -> BlueprintAgent:
    """A :class:`BlueprintAgent` on ``bot``'s blueprint with its threshold and all-in answer."""
    return BlueprintAgent(bot.blueprint, threshold=bot.threshold, allin=bot.allin)


class Analyzer:
    """The bot of ``spec`` and the views of a spot (module docstring).

    Where the bot plays a blueprint (``blueprint:`` or ``search:`` specs) the analyzer has both a
    :class:`BlueprintAgent` (the network, unsearched) and a :class:`SearchAgent` on it with the
    bot's threshold and all-in answer: a ``search:`` bot is its own search agent, a
    ``blueprint:`` bot its own network agent. A search the analyzer builds searches every postflop
    street within ``search_budget_ms``. ``name`` is how the page names the bot (default: ``spec``):
    the spec as the user gave it, where ``spec`` may hold a path resolved from it. Raises
    ``ValueError`` for a bad spec.
    """

    def __init__(
        self, spec: str, *, search_budget_ms: float = DEFAULT_SEARCH_BUDGET_MS, name: str | None = None
    ) -> None:
        if not search_budget_ms > 0:
            raise ValueError(f"search budget {search_budget_ms!r} ms is not a positive number")
        self.spec = spec.strip() if name is None else name
        self.bot = make_agent(spec)
        self.lock = threading.Lock()
        self.blueprint_agent: BlueprintAgent | None = None
        self.search_agent: SearchAgent | None = None
        self._searched: dict[Any, tuple[int, float]] = {}
        """The iterations and seconds of each search the analyzer ran, by public state."""
        if isinstance(self.bot, SearchAgent):
            self.search_agent = self.bot
            self.blueprint_agent = _network_agent(self.bot)
        elif isinstance(self.bot, BlueprintAgent):
            self.blueprint_agent = self.bot
            self.search_agent = SearchAgent(
                self.bot.blueprint,
                _budgeted_search(search_budget_ms),
                threshold=self.bot.threshold,
                allin=self.bot.allin,
            )

    def warm_up(self) -> None:
        """Do the per-process first-time work of the answers now: one blueprint decision (the network
        input's tables), under the lock, then the solver's kernel and preflop equity matrix
        (:func:`~pokerai.search.allin.warm_up_allin`) and the search's first solves
        (:meth:`~pokerai.agents.search.SearchAgent.warm_up`), which guard themselves, without it, so
        that answers that need no solver do not wait for them; a search asked for before its warm-up
        is done gets the blueprint's answer, not kept for the spot."""
        if self.blueprint_agent is None:
            return
        state = HUNLState.new(self.blueprint_agent.blueprint.game.config, 0, deck=range(9))
        while state.street < Street.FLOP:
            state = state.after(ActionKind.CALL)  # the button completes, the big blind checks
        with self.lock:
            self.blueprint_agent.decision(Observation.from_state(state))
        warm_up_allin()
        if self.search_agent is not None:
            self.search_agent.warm_up()

    # ------------------------------------------------------------------ views

    def describe(self) -> dict[str, Any]:
        """The bot, what the analyzer can show for it, and the spot the page opens on."""
        return {
            "bot": self.spec,
            "example": EXAMPLE_SPOT,
            "blueprint": self.blueprint_agent is not None,
            "search": self.search_agent is not None,
            "search_budget_ms": (
                None if self.search_agent is None else search_budget_ms(self.search_agent, Street.RIVER)
            ),
            "stack": DEFAULT_STACK,
            "blinds": [SMALL_BLIND, BIG_BLIND],
        }

    def spot(self, spot: Spot) -> dict[str, Any]:
        """The spot's facts, the bot's action frequencies for its hand and its equity (module docstring).

        ``actions`` are the blueprint's where the bot has one (its network: the fast answer; see
        :meth:`search` for the searched one), else the bot's own.
        """
        observation = spot.observation
        with self.lock:
            if self.blueprint_agent is not None:
                probabilities, actions = self.blueprint_agent.decision(observation)
                frequencies = slot_frequencies(probabilities, actions)
                source = "blueprint"
                beliefs = self._beliefs(spot)
            else:
                frequencies = agent_frequencies(self.bot, observation)
                source = "bot"
                beliefs = None
        return {
            **spot_facts(spot),
            "source": source,
            "sampled": frequencies.sampled,
            "actions": frequencies.to_json(spot.state),
            "equity": equity_against_range(spot, None if beliefs is None else beliefs[1 - spot.player]),
        }

    def search(self, spot: Spot) -> dict[str, Any]:
        """The action frequencies after search, with the solver's iterations and seconds.

        ``available`` is false where the bot has no blueprint to search with. ``note`` says when
        the answer is not a search's: the preflop or a street the bot does not search (the
        blueprint plays it; an all-in off the menu is answered by a solved call-or-fold game).
        """
        agent = self.search_agent
        if agent is None:
            return _unavailable(f"search is unavailable: the bot {self.spec} has no blueprint to search with")
        observation = spot.observation
        street = observation.street
        key = public_key(observation)
        with self.lock:
            agent.forget_unready()  # a spot answered while the solver was loading is searched now
            searches, unready = agent.searches_run, agent.searches_unready
            started = time.perf_counter()
            probabilities, actions = agent.decision(observation)
            wall = time.perf_counter() - started
            iterations, seconds, note = 0, 0.0, ""
            solved = agent.searches_run > searches
            if agent.searches(street):
                if solved:  # the decision's own solve is the last: its earlier ones come first
                    self._searched[key] = (agent.stats[-1].iterations, agent.stats[-1].seconds)
                iterations, seconds = self._searched.get(key, (0, 0.0))
                if agent.searches_unready > unready:
                    note = "the search is still warming up: the blueprint answered; ask again"
            elif agent.answers_offtree_allin(observation):
                solution = agent.allin_solution(observation, replay_observation(observation))
                note = "an all-in off the bot's menu: a solved call-or-fold game answers it"
                if solution is not None:
                    iterations, seconds = solution.iterations, solution.seconds
            else:
                note = f"no search on the {STREET_NAMES[street]}: the bot plays the blueprint there"
        frequencies = slot_frequencies(probabilities, actions)
        return {
            "available": True,
            "actions": frequencies.to_json(spot.state),
            "iterations": int(iterations),
            "seconds": float(seconds),
            "wall_seconds": wall,
            "cached": bool(iterations) and not solved,
            "budget_ms": search_budget_ms(agent, street),
            "note": note,
        }

    def range(self, spot: Spot) -> dict[str, Any]:
        """The bot's range at the spot as a 13×13 grid with each cell's action mix, and the opponent's
        range as a 13×13 heat map (module docstring).

        Each cell's ``weight`` is the range's total over its combinations, so the cells sum to the
        range's total, 1. Its ``mix`` is the range-weighted mean over those combinations of the
        blueprint's frequencies, in the order of ``actions`` (a plain mean where the cell has no
        weight). ``available`` is false where the bot has no blueprint.
        """
        agent = self.blueprint_agent
        if agent is None:
            return _unavailable(f"the bot {self.spec} has no blueprint, so it has no range to show")
        observation = spot.observation
        live = np.flatnonzero(~combos_holding(spot.state.board))
        with self.lock:
            beliefs = self._beliefs(spot)
            probabilities, actions = agent.range_decision(observation, ALL_COMBOS[live])
        policy = slot_range_policy(probabilities, actions)
        rows = [
            Action(spot.player, ActionKind(int(kind)), int(amount))
            for kind, amount in zip(policy.kinds, policy.amounts, strict=True)
        ]
        mine = beliefs[spot.player]
        cells = _COMBO_CELL[live]
        weights = np.bincount(_COMBO_CELL, weights=mine, minlength=GRID_SIZE**2)
        counts = np.bincount(cells, minlength=GRID_SIZE**2)
        weighted = np.zeros((len(rows), GRID_SIZE**2))
        plain = np.zeros((len(rows), GRID_SIZE**2))
        for row in range(len(rows)):
            weighted[row] = np.bincount(
                cells, weights=policy.probabilities[row] * mine[live], minlength=GRID_SIZE**2
            )
            plain[row] = np.bincount(cells, weights=policy.probabilities[row], minlength=GRID_SIZE**2)
        grid = []
        for cell in range(GRID_SIZE**2):
            row_index, column = divmod(cell, GRID_SIZE)
            if weights[cell] > 0:
                mix = weighted[:, cell] / weights[cell]
            elif counts[cell] > 0:
                mix = plain[:, cell] / counts[cell]
            else:
                mix = np.zeros(len(rows))
            grid.append(
                {
                    "hand": cell_name(row_index, column),
                    "row": row_index,
                    "column": column,
                    "combos": int(counts[cell]),
                    "weight": float(weights[cell]),
                    "mix": [float(p) for p in mix],
                }
            )
        opponent = beliefs[1 - spot.player]
        heat = np.bincount(_COMBO_CELL, weights=opponent, minlength=GRID_SIZE**2)
        hero_cell = int(_COMBO_CELL[COMBO_INDEX[spot.hole_cards[0], spot.hole_cards[1]]])
        return {
            "available": True,
            "player": spot.player,
            "actions": [
                {"action": action_name(spot.state, action), "amount": int(action.amount)} for action in rows
            ],
            "hero_cell": cell_name(*divmod(hero_cell, GRID_SIZE)),
            "total_weight": float(mine.sum()),
            "cells": grid,
            "opponent": {
                "player": 1 - spot.player,
                "total_weight": float(opponent.sum()),
                "cells": [
                    {
                        "hand": cell_name(*divmod(cell, GRID_SIZE)),
                        "row": cell // GRID_SIZE,
                        "column": cell % GRID_SIZE,
                        "weight": float(heat[cell]),
                    }
                    for cell in range(GRID_SIZE**2)
                ],
            },
        }

    def hand(self, line: str, *, stack: int = DEFAULT_STACK) -> dict[str, Any]:
        """Every decision of the hand of an ACPC ``STATE`` / ``MATCHSTATE`` line: the spot before it,
        what was played, and the bot's frequencies there holding the actor's cards (blueprint's where
        the bot has one). A decision whose actor's cards the line does not show has no bot answer."""
        text = line.strip()
        if len(text) > MAX_LINE_CHARS:
            raise ValueError(f"a line of {len(text)} characters is longer than {MAX_LINE_CHARS}")
        parsed = parse_acpc(text, _config(stack))
        final = parsed.state
        names = parsed.names or ("seat 0", "seat 1")
        state = HUNLState.new(final.config, final.button, deck=final.deal)
        state.hole_cards_known = final.hole_cards_known
        decisions = []
        for index, action in enumerate(final.history):
            player = action.player
            known = state.hole_cards_known[player]
            entry: dict[str, Any] = {
                "index": index,
                "street": STREET_NAMES[state.street],
                "player": player,
                "name": names[player],
                "hole": format_cards(state.hole_cards(player)) if known else "",
                "board": format_cards(state.board),
                "history": acpc_betting(state),
                "pot": state.pot,
                "call_amount": state.call_amount,
                "played": {
                    "action": action_name(state, action),
                    "amount": int(action.amount),
                    "acpc": acpc_token(state, action),
                },
            }
            if known:
                observation = Observation.from_state(state)
                with self.lock:
                    if self.blueprint_agent is not None:
                        probabilities, actions = self.blueprint_agent.decision(observation)
                        frequencies = slot_frequencies(probabilities, actions)
                    else:
                        frequencies = agent_frequencies(self.bot, observation)
                entry["bot"] = frequencies.to_json(state)
                entry["played"]["probability"] = frequencies.probability_of(observation, action)
            else:
                entry["bot"] = None
            decisions.append(entry)
            state.apply(action)
        return {
            "hand_number": parsed.hand_number,
            "names": list(names),
            "holes": [
                format_cards(final.hole_cards(player)) if final.hole_cards_known[player] else ""
                for player in (0, 1)
            ],
            "board": format_cards(final.board),
            "betting": acpc_betting(final),
            "results": None if not final.is_over else list(final.returns()),
            "source": "blueprint" if self.blueprint_agent is not None else "bot",
            "decisions": decisions,
        }

    def _beliefs(self, spot: Spot) -> npt.NDArray[np.float64]:
        """Both players' ranges float64 ``[2, 1326]`` from the blueprint (caller holds the lock)."""
        agent = self.blueprint_agent
        assert agent is not None
        return public_beliefs(
            agent.blueprint, spot.state, threshold=agent.threshold, hole_cards=spot.hole_cards
        )


def search_budget_ms(agent: SearchAgent, street: int) -> float | None:
    """The time budget of ``agent``'s search on ``street`` (None: no budget, or no search there)."""
    search = agent.config.street(street)
    return search.budget_ms if search is not None and search.iterations > 0 else None


def _unavailable(note: str) -> dict[str, Any]:
    """The answer of a view the bot cannot give: ``available`` false and ``note`` saying why."""
    return {"available": False, "note": note}


def spot_facts(spot: Spot) -> dict[str, Any]:
    """The public facts of a spot: cards, street, pot, stacks, bets, legal bounds and pot odds."""
    state = spot.state
    player, opponent = spot.player, 1 - spot.player
    call = state.call_amount
    legal = [kind.name.lower() for kind in state.legal_actions() if kind is not ActionKind.RAISE]
    if state.min_raise_to is not None:
        legal += ["bet" if is_bet(state) else "raise", "allin"]
    return {
        "hole": format_cards(spot.hole_cards),
        "board": format_cards(state.board),
        "history": spot.betting,
        "street": STREET_NAMES[state.street],
        "player": player,
        "position": "button" if player == state.button else "big blind",
        "pot": state.pot,
        "stacks": {"bot": state.stacks[player], "opponent": state.stacks[opponent]},
        "bets": {"bot": state.bets[player], "opponent": state.bets[opponent]},
        "street_base": state.committed[player] - state.bets[player],
        "call_amount": call,
        "pot_odds": call / (state.pot + call) if call > 0 else None,
        "legal": legal,
        "min_raise_to": state.min_raise_to,
        "max_raise_to": state.max_raise_to,
    }


def equity_against_range(spot: Spot, weights: npt.NDArray[np.float64] | None) -> dict[str, Any]:
    """The bot's equity (win + tie/2) against the opponent's range float64 ``[1326]`` (None: every
    hand alike), with card removal: exact from the turn on, :data:`EQUITY_SAMPLES` seeded boards
    before."""
    blocked = combos_holding((*spot.state.board, *spot.hole_cards))
    against = "every hand" if weights is None else "the opponent's range"
    weights = np.where(blocked, 0.0, 1.0 if weights is None else weights)
    candidates = np.flatnonzero(weights > 0)
    board = spot.state.board
    samples = None if len(board) >= BOARD_SIZES[Street.TURN] else EQUITY_SAMPLES
    result = hand_vs_range(
        list(spot.hole_cards),
        ALL_COMBOS[candidates],
        list(board),
        weights=weights[candidates],
        samples=samples,
    )
    return {
        "equity": result.equity[0],
        "standard_error": result.standard_error,
        "exact": result.exact,
        "against": against,
        "combos": int(candidates.size),
    }


# ---------------------------------------------------------------------------- logs

_BLINDS = re.compile(r"Heads-up no-limit hold'em, blinds (\d+)/(\d+)")
_STACK = re.compile(r"player \d+ \((button, small blind|big blind)\): stack (\d+)")


@dataclass(frozen=True)
class LoggedHand:
    """One hand of a log: its ``STATE`` / ``MATCHSTATE`` line and the starting stack to read it with."""

    line_number: int
    line: str
    stack: int
    hand_number: int
    names: tuple[str, str] | None
    results: tuple[int, int] | None


def parse_log(text: str, *, stack: int = DEFAULT_STACK) -> list[LoggedHand]:
    """The hands of a hand log: every ACPC ``STATE`` or ``MATCHSTATE`` line (``pokerai play --log``,
    ``pokerai eval --log``, an ACPC dealer's log); other lines are skipped. The readable history
    that ``pokerai play --log`` writes before a hand's line gives its starting stack; otherwise it
    is ``stack``. A bad line is a ``ValueError`` naming its line number."""
    if len(text) > MAX_LOG_CHARS:
        raise ValueError(f"a log of {len(text)} characters is longer than {MAX_LOG_CHARS}")
    hands: list[LoggedHand] = []
    header_stack: int | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        blinds = _BLINDS.match(line)
        if blinds is not None and (int(blinds.group(1)), int(blinds.group(2))) != (SMALL_BLIND, BIG_BLIND):
            raise ValueError(
                f"line {number}: blinds {blinds.group(1)}/{blinds.group(2)} are not the analyzer's "
                f"{SMALL_BLIND}/{BIG_BLIND}"
            )
        found = _STACK.match(line)
        if found is not None:
            if header_stack is not None and header_stack != int(found.group(2)):
                raise ValueError(f"line {number}: the two players start with different stacks")
            header_stack = int(found.group(2))
            continue
        if not (line.startswith("STATE:") or line.startswith("MATCHSTATE:")):
            continue
        hand_stack = header_stack if header_stack is not None else stack
        header_stack = None
        try:
            parsed = parse_acpc(line, _config(hand_stack))
        except ValueError as error:
            raise ValueError(f"line {number}: {error}") from None
        hands.append(
            LoggedHand(
                line_number=number,
                line=line,
                stack=hand_stack,
                hand_number=parsed.hand_number,
                names=parsed.names,
                results=parsed.results,
            )
        )
    if not hands:
        raise ValueError("the log holds no ACPC STATE or MATCHSTATE line")
    return hands


__all__ = [
    "ACTION_NAMES",
    "DEFAULT_SEARCH_BUDGET_MS",
    "DEFAULT_STACK",
    "EXAMPLE_SPOT",
    "Analyzer",
    "Frequencies",
    "LoggedHand",
    "Spot",
    "acpc_token",
    "action_name",
    "agent_frequencies",
    "apply_action",
    "board_rounds",
    "cell_name",
    "equity_against_range",
    "parse_log",
    "parse_spot",
    "parse_stack",
    "search_budget_ms",
    "slot_frequencies",
    "spot_facts",
    "spot_from_line",
]
