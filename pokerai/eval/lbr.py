"""Local best response (LBR): a lower bound on a hold'em agent's exploitability.

After Lisý & Bowling, "Equilibrium Approximation Quality of Current No-Limit
Poker Bots" (AAAI-17 workshop on computer poker, 2017). The exploiter plays
against a target agent that can say how likely each of its actions is
(``Agent.action_probability``). On each of its own decisions it

1. keeps a range over the target's 1,326 hole-card combinations: uniform at the
   start of the hand, minus combinations that hold a card it can see (its own
   hole cards, the board), and multiplied, after every target action, by the
   probability the target gives that action holding each combination (Bayes'
   rule; the target's observation is rebuilt with each combination as its hole
   cards, so the exploiter never looks at the real ones);
2. values each action of a small menu -- fold, check/call, raises to the given
   fractions of the pot (pot-size by default) and all-in, clamped to the legal
   range and de-duplicated; raises only on the configured streets -- assuming
   that after a raise the target folds with the probability it states for each
   combination and otherwise calls, and that the hand is then checked down to a
   showdown;
3. plays the best action (ties go to the more passive one; folding when every
   other action is worth less than 0).

The value of each action is in chips relative to folding now (folding is 0).
With ``c_e``/``c_t`` the chips the exploiter/target have put in the pot this
hand, ``k`` the chips the exploiter must add to call, and ``e_j`` the
exploiter's showdown equity (win + tie/2) against combination ``j``:

* check/call: ``EV_j = e_j·W − (1 − e_j)·k`` with ``W = c_e + min(c_t, c_e + k)``
  (the target's chips that can be won, plus the exploiter's own earlier ones);
* raise, adding ``a`` chips: with ``M = min(c_e + a, c_t + target's chips behind)``
  the matched total after the target calls,
  ``EV_j = f_j·(c_e + c_t) + (1 − f_j)·[e_j·(c_e + M) − (1 − e_j)·(M − c_e)]``,
  where ``f_j`` is the target's probability of folding holding ``j``.

An action's value is the range-weighted mean of ``EV_j``. This is Lisý &
Bowling's ``fp·pot + (1 − fp)·[wp·(pot + a) − (1 − wp)·(asked + a)]`` per
combination: it equals theirs when the fold probability does not depend on the
target's cards, and otherwise uses the equity against the hands that call.

Equity against every combination at once is vectorised with
``rank_hands``: on the river against the board; on the turn over every river
card; earlier over ``runouts`` boards drawn from the exploiter's Generator
(runouts that hold a combination's card are left out for that combination).

Named menus (:data:`LBR_MENUS`): ``"default"`` is :class:`LBRConfig`'s defaults
(fold, check/call, pot and all-in on every street); ``"lisy-bowling"`` is the
headline configuration of Lisý & Bowling (2017): fold or call preflop, and
fold, call, pot and all-in on the flop, turn and river.

Speed. The target is asked once per target action and once per raise of the
menu (its fold probability after it). A target that gives its whole strategy
at a public state (``Agent.range_policy``) answers for all live combinations in
one call; otherwise it is asked once per combination (``action_probability``),
with the same results.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.agents.base import Agent, Observation
from pokerai.engine.cards import NUM_CARDS
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState
from pokerai.eval.aivat import AIVATConfig, AIVATSummary, hand_aivat, knows_policy
from pokerai.eval.duplicate import (
    AIVAT_STREAM,
    Estimate,
    ScoredMatch,
    check_conservation,
    json_number,
    mean_ci95,
    play_hand,
    run_chunks,
)
from pokerai.search.combos import ALL_COMBOS, CARD_IN_COMBO

NEEDS_PROBABILITIES = "LBR needs an agent that exposes its action probabilities"

_COMBO_TUPLES: tuple[tuple[int, int], ...] = tuple((int(a), int(b)) for a, b in ALL_COMBOS)

_OBSERVATION_FIELDS = tuple(field.name for field in dataclasses.fields(Observation))
_HOLE_FIELD = _OBSERVATION_FIELDS.index("hole_cards")
STREET_NAMES = ("preflop", "flop", "turn", "river")


@dataclass(frozen=True)
class LBRConfig:
    """The exploiter's action menu and equity sampling.

    ``bet_fractions``: raises to ``fraction × pot`` on top of a call (1.0 is the
    pot-size raise). ``all_in``: also consider going all-in. ``raise_streets``:
    streets (0 preflop .. 3 river) on which the exploiter may raise; elsewhere it
    only folds, checks or calls. ``runouts``: boards sampled for equity before
    the turn (the turn and river are exact).
    """

    bet_fractions: tuple[float, ...] = (1.0,)
    all_in: bool = True
    raise_streets: tuple[int, ...] = (0, 1, 2, 3)
    runouts: int = 100

    def __post_init__(self) -> None:
        for fraction in self.bet_fractions:
            if not math.isfinite(fraction) or fraction <= 0:
                raise ValueError(f"LBR bet fraction {fraction!r} is not a positive number")
        for street in self.raise_streets:
            if street not in (0, 1, 2, 3):
                raise ValueError(f"LBR raise street {street!r} is not 0 (preflop) .. 3 (river)")
        if isinstance(self.runouts, bool) or not isinstance(self.runouts, int) or self.runouts <= 0:
            raise ValueError(f"LBR runouts {self.runouts!r} is not a positive whole number")

    def describe(self) -> dict[str, Any]:
        return {
            "bet_fractions": list(self.bet_fractions),
            "all_in": self.all_in,
            "raise_streets": [STREET_NAMES[street] for street in sorted(set(self.raise_streets))],
            "runouts": self.runouts,
        }


LBR_MENUS: dict[str, LBRConfig] = {
    "default": LBRConfig(),
    "lisy-bowling": LBRConfig(bet_fractions=(1.0,), all_in=True, raise_streets=(1, 2, 3)),
}
"""Named LBR menus: today's default, and Lisý & Bowling's (2017) headline one (no preflop raises)."""


def exposes_probabilities(agent: Agent) -> bool:
    """Whether ``agent`` overrides ``Agent.action_probability``."""
    return type(agent).action_probability is not Agent.action_probability


def _combo_observations(state: HUNLState, combos: Sequence[int]) -> list[Observation]:
    """The observation of ``state.to_act`` holding each combination (indices into ``ALL_COMBOS``)."""
    base = Observation.from_state(state)
    values = [getattr(base, name) for name in _OBSERVATION_FIELDS]
    observations = []
    for combo in combos:
        values[_HOLE_FIELD] = _COMBO_TUPLES[combo]
        observations.append(Observation(*values))
    return observations


def _probabilities(target: Agent, state: HUNLState, combos: npt.NDArray[np.int64], action: Action) -> Any:
    """float64 [len(combos)]: the target's probability of ``action`` at ``state`` holding each combo.

    One ``target.range_policy`` call where the target gives one, else one
    ``action_probability`` call per combination.
    """
    observation = Observation.from_state(state)
    policy = target.range_policy(observation, ALL_COMBOS[combos])
    if policy is not None:
        column = policy.probability(observation, action)
        return np.array(np.broadcast_to(column, (len(combos),)), dtype=np.float64)
    result = np.empty(len(combos), dtype=np.float64)
    for index, observation in enumerate(_combo_observations(state, combos.tolist())):
        probability = target.action_probability(observation, action)
        if probability is None:
            raise ValueError(f"{NEEDS_PROBABILITIES}; {target.name!r} does not")
        result[index] = probability
    return result


def combo_equities(
    hole: Sequence[int],
    board: Sequence[int],
    combos: npt.NDArray[np.int64],
    runouts: int,
    rng: np.random.Generator,
) -> npt.NDArray[np.float64]:
    """float64 [len(combos)]: equity (win + tie/2) of ``hole`` against each combo (indices into ALL_COMBOS).

    Exact on the river and turn (every river card); earlier over ``runouts`` sampled boards.
    Combos must not share a card with ``hole`` or ``board``.
    """
    hands = ALL_COMBOS[combos]
    need = 5 - len(board)
    known = np.zeros(NUM_CARDS, dtype=bool)
    known[list(hole)] = True
    known[list(board)] = True
    remaining = np.flatnonzero(~known)
    if need == 0:
        completions = np.zeros((1, 0), dtype=np.int64)
    elif need == 1:
        completions = remaining[:, None]
    else:
        draws = rng.random((runouts, len(remaining))).argpartition(need, axis=1)[:, :need]
        completions = remaining[draws]
    known_board = np.broadcast_to(np.asarray(board, dtype=np.int64), (len(completions), len(board)))
    boards = np.concatenate([known_board, completions], axis=1)
    count = len(boards)
    mine = rank_hands(
        np.concatenate([np.broadcast_to(np.asarray(hole, dtype=np.int64), (count, 2)), boards], axis=1),
        validate=False,
    )
    seven = np.empty((len(hands), count, 7), dtype=np.uint8)
    seven[:, :, :2] = hands[:, None, :]
    seven[:, :, 2:] = boards[None, :, :]
    valid = np.ones((len(hands), count), dtype=bool)
    for column in range(completions.shape[1]):
        cards = completions[:, column]
        valid &= (hands[:, 0:1] != cards[None, :]) & (hands[:, 1:2] != cards[None, :])
    seven[~valid] = np.arange(7, dtype=np.uint8)  # any valid hand: a repeated card would break rank_hands
    theirs = rank_hands(seven.reshape(-1, 7), validate=False).reshape(len(hands), count)
    score = np.where(mine[None, :] > theirs, 1.0, np.where(mine[None, :] == theirs, 0.5, 0.0))
    totals = valid.sum(axis=1)
    equity = np.where(totals > 0, (score * valid).sum(axis=1) / np.maximum(totals, 1), 0.5)
    return np.asarray(equity, dtype=np.float64)


class LocalBestResponse(Agent):
    """The LBR exploiter against ``target`` (which must expose ``action_probability``).

    It sees only its own observations: the range is rebuilt from the public
    history by replaying it on a state whose hidden cards are placeholders.
    """

    name = "lbr"

    def __init__(self, target: Agent, config: LBRConfig | None = None) -> None:
        if not exposes_probabilities(target):
            raise ValueError(f"{NEEDS_PROBABILITIES}; {target.name!r} does not")
        self.target = target
        self.config = config if config is not None else LBRConfig()
        self._weights = np.ones(len(ALL_COMBOS))
        self._processed = 0
        self.decisions = 0

    def begin_hand(self, player: int, button: int) -> None:
        self._weights = np.ones(len(ALL_COMBOS))
        self._processed = 0

    # ------------------------------------------------------------------ range

    def _replica(self, observation: Observation) -> HUNLState:
        """A fresh hand with the real blinds, own hole cards and board; other cards are placeholders."""
        me = observation.player
        known = set(observation.hole_cards) | set(observation.board)
        spare = [card for card in range(NUM_CARDS) if card not in known]
        holes: list[int] = [0, 0, 0, 0]
        holes[2 * me : 2 * me + 2] = observation.hole_cards
        holes[2 * (1 - me) : 2 * (1 - me) + 2] = spare[:2]
        board = list(observation.board) + spare[2 : 2 + 5 - len(observation.board)]
        return HUNLState.new(observation.config, observation.button, deck=holes + board)

    def _update_range(self, observation: Observation) -> HUNLState:
        """Apply Bayes' rule for every target action not yet seen; returns the replayed current state."""
        state = self._replica(observation)
        target_player = 1 - observation.player
        # Combinations that hold a visible card are impossible; never show them to the target.
        self._weights[CARD_IN_COMBO[[*observation.hole_cards, *observation.board]].any(axis=0)] = 0.0
        for index, action in enumerate(observation.history):
            if index >= self._processed and action.player == target_player:
                live = np.flatnonzero(self._weights > 0)
                self._weights[live] *= _probabilities(self.target, state, live, action)
                largest = self._weights.max()
                if largest > 0:  # rescale so that long histories of small probabilities cannot underflow
                    self._weights /= largest
            state.apply(action)
        self._processed = len(observation.history)
        return state

    # ------------------------------------------------------------------ decision

    def candidate_actions(self, observation: Observation) -> list[Action]:
        """Fold (when facing a bet), check/call, then the raises of the menu, clamped and de-duplicated."""
        me = observation.player
        actions = []
        if ActionKind.FOLD in observation.legal_actions:
            actions.append(Action(me, ActionKind.FOLD))
        actions.append(observation.check_or_call())
        low, high = observation.min_raise_to, observation.max_raise_to
        if low is not None and high is not None and observation.street in self.config.raise_streets:
            highest = max(observation.bets)
            owed = highest - observation.bets[me]
            targets = [
                highest + round(fraction * (observation.pot + owed)) for fraction in self.config.bet_fractions
            ]
            if self.config.all_in:
                targets.append(high)
            for amount in sorted({min(max(int(amount), low), high) for amount in targets}):
                actions.append(Action(me, ActionKind.RAISE, amount))
        return actions

    def action_values(
        self, observation: Observation, rng: np.random.Generator
    ) -> tuple[list[Action], npt.NDArray[np.float64]]:
        """The candidate actions and their values in chips relative to folding now (see the module doc)."""
        state = self._update_range(observation)
        me, target = observation.player, 1 - observation.player
        weights = self._weights.copy()
        visible = list(observation.hole_cards) + list(observation.board)
        weights[CARD_IN_COMBO[visible].any(axis=0)] = 0.0
        if weights.sum() <= 0:  # the target's actions were impossible under its own probabilities
            weights = np.where(CARD_IN_COMBO[visible].any(axis=0), 0.0, 1.0)
        live = np.flatnonzero(weights > 0)
        weights = weights[live] / weights[live].sum()
        equity = combo_equities(observation.hole_cards, observation.board, live, self.config.runouts, rng)
        mine, theirs = state.committed[me], state.committed[target]
        call = state.call_amount
        actions = self.candidate_actions(observation)
        values = np.empty(len(actions))
        for index, action in enumerate(actions):
            if action.kind is ActionKind.FOLD:
                values[index] = 0.0
            elif action.kind is not ActionKind.RAISE:
                winnable = mine + min(theirs, mine + call)
                values[index] = float(weights @ (equity * winnable - (1.0 - equity) * call))
            else:
                added = action.amount - state.bets[me]
                matched = min(mine + added, theirs + state.stacks[target])
                after = state.clone()
                after.apply(action)
                if ActionKind.FOLD in after.legal_actions():
                    fold = _probabilities(self.target, after, live, Action(target, ActionKind.FOLD))
                else:
                    fold = np.zeros(len(live))
                called = equity * (mine + matched) - (1.0 - equity) * (matched - mine)
                values[index] = float(weights @ (fold * (mine + theirs) + (1.0 - fold) * called))
        return actions, values

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        actions, values = self.action_values(observation, rng)
        self.decisions += 1
        best = 0
        for index in range(1, len(actions)):
            if values[index] > values[best] + 1e-9:
                best = index
        return actions[best]


# ---------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class LBRResult(ScoredMatch):
    """LBR's winnings against ``target``: ``exploiter_results`` int64 [hands], chips per hand, and
    ``aivat_results`` LBR's AIVAT estimates, float64 [hands]."""

    target: str
    hands: int
    config: LBRConfig
    exploiter_results: npt.NDArray[np.int64] = field(repr=False)

    @property
    def estimate(self) -> Estimate:
        return mean_ci95(self.exploiter_results, 1000.0 / self.big_blind)

    @property
    def aivat(self) -> AIVATSummary | None:
        """LBR's AIVAT estimate with its 95% interval over hands, and the share of the plain
        estimate's variance it removes; None without AIVAT."""
        if self.aivat_results is None:
            return None
        return self.aivat_summary(self.exploiter_results, self.aivat_results, 1000.0 / self.big_blind)

    @property
    def hands_per_second(self) -> float:
        return self.rate(self.hands, self.seconds)

    def to_json(self) -> dict[str, Any]:
        return {
            "lbr": True,
            "a": self.target,
            "hands": self.hands,
            "mbb_per_hand": self.mbb_per_hand,
            "ci95": [json_number(bound) for bound in self.ci95],
            "seed": self.seed,
            "workers": self.workers,
            "ray": self.on_ray,
            "menu": self.config.describe(),
            "seconds": self.seconds,
            "hands_per_second": json_number(self.hands_per_second),
            "aivat": self.aivat.to_json() if self.aivat is not None else None,
            "aivat_seconds": self.aivat_seconds,
        }


def play_lbr_hand(
    target: Agent, exploiter: LocalBestResponse, config: HUNLConfig, seed: int, hand: int
) -> tuple[HUNLState, int, list[Agent]]:
    """Hand ``hand`` of an LBR match with ``seed``: the finished state, LBR's seat, and the seats' agents.

    The cards come from ``default_rng([seed, hand])``, and the hand's index sets LBR's seat (bit 0)
    and the button (bit 1), so every target meets the same cards and LBR the same run-outs.
    """
    rng = np.random.default_rng([seed, hand])
    deck = rng.permutation(52)[:9].tolist()
    me, button = hand & 1, (hand >> 1) & 1
    agents: list[Agent] = [target, target]
    agents[me] = exploiter
    rngs = [np.random.Generator(np.random.PCG64(int(value))) for value in rng.integers(2**63, size=2)]
    for player in (0, 1):
        agents[player].begin_hand(player, button)
    return play_hand(HUNLState.new(config, button, deck=deck), agents, rngs), me, agents


def _play_lbr_hands(
    target: Agent,
    lbr_config: LBRConfig,
    config: HUNLConfig,
    seed: int,
    start: int,
    stop: int,
    aivat: AIVATConfig | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64] | None, float]:
    exploiter = LocalBestResponse(target, lbr_config)
    results = np.zeros(stop - start, dtype=np.int64)
    aivat_results = np.zeros(stop - start) if aivat is not None else None
    aivat_seconds = 0.0
    for row, hand in enumerate(range(start, stop)):
        state, me, agents = play_lbr_hand(target, exploiter, config, seed, hand)
        results[row] = check_conservation(state)[me]
        if aivat_results is not None:
            started = time.perf_counter()
            aivat_rng = np.random.default_rng([seed, hand, AIVAT_STREAM])
            aivat_results[row] = hand_aivat(state, me, agents, aivat_rng, aivat)
            aivat_seconds += time.perf_counter() - started
    return results, aivat_results, aivat_seconds


def lbr_match(
    target: Agent,
    hands: int,
    *,
    seed: int = 0,
    lbr_config: LBRConfig | None = None,
    config: HUNLConfig | None = None,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
    name: str | None = None,
    aivat: AIVATConfig | bool | None = False,
    address: str | None = None,
) -> LBRResult:
    """Play ``hands`` hands of LBR against ``target`` and score LBR in mbb/hand with a 95% interval.

    Hand ``i`` is dealt from ``default_rng([seed, i])``; LBR is player ``i % 2`` and the
    button is ``(i // 2) % 2``, so it plays both positions equally often. The result
    does not depend on ``workers``, nor on the machine: the target's solves stop on their iteration
    counts (``target.drop_time_budgets()`` is called first). A target without
    ``action_probability`` is a ``ValueError``.
    ``aivat`` (an :class:`~pokerai.eval.aivat.AIVATConfig`, or True for the default one) also
    scores every hand with AIVAT, the target's seat known; None does so when the target
    implements ``range_policy``; False, the default, does not. ``address`` plays the hands as
    tasks on the Ray cluster there (``local``: a Ray started here), ``workers`` at a time, with
    the same result (:mod:`pokerai.eval.distributed`).
    """
    if isinstance(hands, bool) or not isinstance(hands, (int, np.integer)) or hands <= 0:
        raise ValueError(f"the number of hands must be a positive whole number, got {hands!r}")
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers <= 0:
        raise ValueError(f"the number of workers must be a positive whole number, got {workers!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"the seed must be a non-negative whole number, got {seed!r}")
    if not exposes_probabilities(target):
        raise ValueError(f"{NEEDS_PROBABILITIES}; {target.name!r} does not")
    lbr_config = lbr_config if lbr_config is not None else LBRConfig()
    config = config if config is not None else HUNLConfig()
    if aivat is None:
        aivat = knows_policy(target)
    aivat_config = (AIVATConfig() if aivat else None) if isinstance(aivat, bool) else aivat
    target.drop_time_budgets()
    started = time.perf_counter()
    chunks = run_chunks(
        _play_lbr_hands,
        (target, lbr_config),
        int(hands),
        (config, int(seed)),
        (aivat_config,),
        workers=int(workers),
        on_progress=on_progress,
        chunk_size=max(1, min(50, math.ceil(int(hands) / (int(workers) * 8)))),
        address=address,
    )
    seconds = time.perf_counter() - started
    return LBRResult(
        target=name if name is not None else target.name,
        hands=int(hands),
        seed=int(seed),
        workers=int(workers),
        big_blind=config.big_blind,
        config=lbr_config,
        exploiter_results=np.concatenate([chunk[0] for chunk in chunks]),
        seconds=seconds,
        aivat_results=np.concatenate([chunk[1] for chunk in chunks]) if aivat_config is not None else None,
        aivat_seconds=sum(chunk[2] for chunk in chunks),
        on_ray=address is not None,
    )


__all__ = [
    "ALL_COMBOS",
    "LBR_MENUS",
    "NEEDS_PROBABILITIES",
    "LBRConfig",
    "LBRResult",
    "LocalBestResponse",
    "combo_equities",
    "exposes_probabilities",
    "lbr_match",
    "play_lbr_hand",
]
