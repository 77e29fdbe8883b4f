"""Information states as compact records, and records as network features, in batches.

Deep CFR (Brown, Lerer, Gross & Sandholm, "Deep Counterfactual Regret
Minimization", ICML 2019) keeps millions of sampled information states in
reservoir buffers. Storing a feature vector per sample would cost
``4 × feature_size`` bytes, so a sample stores a *record* instead: one row of
a small numpy structured array (card ids, street, a few chip counts). Records
become float32 features only on their way into a network, a whole batch at
a time, with vectorised numpy (no Python loop over rows).

An :class:`Encoder` knows one game. ``record(state, player)`` makes the
record of what ``player`` knows at ``state``; ``encode(records)`` turns
``[N]`` records into ``float32 [N, feature_size]`` features.

Hold'em features (:class:`HUNLEncoder`, 373 of them)
----------------------------------------------------
====================  ======  ====  =========================================================
segment               offset  size  content
====================  ======  ====  =========================================================
hole                  0       104   2 × 52 one-hot: lower card id, then higher card id
board                 104     260   5 × 52 one-hot: flop (ascending id), turn, river; zero
                                    for cards not dealt yet
street                364     4     one-hot: preflop, flop, turn, river
scalars               368     5     see below, each in [0, 1]
====================  ======  ====  =========================================================

The scalars, in order:

0. pot / (sum of the starting stacks): the share of all chips in the middle;
1. own stack behind / own starting stack;
2. opponent stack behind / opponent starting stack;
3. amount to call / (pot + amount to call): the pot odds the player is offered,
   which do not shrink with deep stacks (at most 1/2 in heads-up);
4. bets and raises on this street / 4, clipped to 1.

The flop's three cards are sorted because a player cannot tell the order in
which they were dealt: states that share an information-state key share their
features.

Optional strength features (``encoding: cards+strength``, 11 more, 384 in all)
------------------------------------------------------------------------------
From one-hot cards alone a small network must learn what a hand is worth,
which takes far more samples than a short run has. With ``strength=True``
the encoder appends, computed from the same records (so reservoir samples do
not grow):

====================  ======  ====  =========================================================
segment               offset  size  content
====================  ======  ====  =========================================================
preflop equity        373     1     the hole cards' equity against a random hand (169-class
                                    table, :func:`pokerai.engine.equity.preflop_equity_table`)
made hand             374     1     evaluator rank of the best hand of hole cards and board /
                                    7,462 (0 preflop)
category              375     9     one-hot of that hand's category, high card .. straight
                                    flush (zeros preflop)
====================  ======  ====  =========================================================

Optional bucket features (``encoding: cards+buckets``)
------------------------------------------------------
With a :class:`~pokerai.abstraction.buckets.CardAbstraction` the encoder appends, after
the 373 card and betting features, the one-hot of the player's bucket on every street
dealt so far: one segment per street, preflop, flop, turn, river, each as long as that
street's bucket count (8 + 12 + 12 + 8 = 40 with ``configs/abstraction_tiny.yaml``, 413
features in all). A street not reached yet has an all-zero segment. The buckets are
looked up from the record's hole cards and board, a whole batch per street, so reservoir
samples do not grow.

Leduc features (:class:`LeducEncoder`, 30 of them)
--------------------------------------------------
private card rank (3) and suit (2) one-hot, board rank (3) and suit (2)
one-hot (zeros before the board), round one-hot (2), the betting of both
rounds as ``2 rounds × 4 positions × {check/call, bet/raise}`` one-hot (16;
a fold ends the game, so it never appears at a decision), and two scalars:
own and opponent chips in the pot / 13 (the most one player can put in). The
suit bits are there so that every one of Leduc's 936 information states has
its own features, as its keys do; they carry no strategic information.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.buckets import AbstractionConfig, CardAbstraction
from pokerai.abstraction.cache import cache_folder, cached_abstraction
from pokerai.abstraction.isomorphism import STREETS, index_hands_serial, street_indexer
from pokerai.engine.cards import BOARD_SIZES, NUM_CARDS
from pokerai.engine.equity import preflop_equity_table
from pokerai.engine.evaluator import CATEGORIES, hand_categories, rank_hands
from pokerai.engine.state import Street
from pokerai.games.holdem import HUNL_RECORD_DTYPE, NOT_DEALT, DecisionRecords
from pokerai.games.hunl import HUNLGame
from pokerai.games.leduc import ANTE, MAX_RAISES_PER_ROUND, RAISE_SIZES, LeducPoker, LeducState
from pokerai.games.protocol import Game

STRENGTH_SIZE = 11
"""Optional strength features: preflop equity, made-hand rank, 9 hand categories."""
MAX_HAND_RANK = 7462
"""The evaluator's best rank (a royal flush)."""

HOLE_OFFSET = 0
"""First hold'em feature of the hole cards (2 × 52 one-hot)."""
BOARD_OFFSET = 104
"""First hold'em feature of the board (5 × 52 one-hot)."""
STREET_OFFSET = 364
"""First hold'em feature of the street one-hot (4)."""
SCALARS_OFFSET = 368
"""First of the five hold'em scalars (module docstring)."""
FEATURE_SIZE = 373
"""Hold'em features per information state."""
NUM_SCALARS = 5
RAISES_SCALE = 4
"""Bets and raises on one street that saturate the raises scalar."""

LEDUC_ROUNDS = 2
LEDUC_ACTION_POSITIONS = 4
"""Action slots per Leduc round: the longest betting at a decision is 3 letters (check, raise, raise)."""
LEDUC_MAX_CHIPS = ANTE + MAX_RAISES_PER_ROUND * sum(RAISE_SIZES)
"""The most chips one Leduc player can put in: the ante and two raises in each round (13)."""
LEDUC_NO_ACTION, LEDUC_CHECK_CALL, LEDUC_BET_RAISE = 0, 1, 2
"""Codes of the Leduc record's action slots."""
LEDUC_FEATURE_SIZE = 3 + 2 + 3 + 2 + LEDUC_ROUNDS + LEDUC_ROUNDS * LEDUC_ACTION_POSITIONS * 2 + 2

LEDUC_RECORD_DTYPE = np.dtype(
    [
        ("card", np.uint8),
        ("board", np.uint8),
        ("actions", np.uint8, (LEDUC_ROUNDS, LEDUC_ACTION_POSITIONS)),
        ("own_chips", np.uint8),
        ("opponent_chips", np.uint8),
    ]
)
"""One Leduc information state (12 bytes): private card 0..5, board card or ``NOT_DEALT``, each round's
actions (``LEDUC_CHECK_CALL``, ``LEDUC_BET_RAISE``, ``LEDUC_NO_ACTION`` past the end), and each player's
chips in the pot, antes included. The round is 1 exactly when the board is dealt."""


@runtime_checkable
class Encoder(Protocol):
    """Turns a game's information states into compact records, and batches of records into features."""

    @property
    def record_dtype(self) -> np.dtype[Any]:
        """The numpy structured dtype of one record."""
        ...

    @property
    def feature_size(self) -> int:
        """Features per record."""
        ...

    @property
    def num_slots(self) -> int:
        """Action slots of the game (the width of a policy or advantage vector)."""
        ...

    def record(self, state: Any, player: int) -> tuple[Any, ...]:
        """What ``player`` knows at ``state``, as a tuple that fills one row of a ``record_dtype`` array."""
        ...

    def encode(self, records: np.ndarray) -> npt.NDArray[np.float32]:
        """Features of ``[N]`` records (``record_dtype``): float32 ``[N, feature_size]``."""
        ...

    def describe(self) -> dict[str, Any]:
        """Segment name -> ``{"offset": int, "size": int}``, plus ``feature_size`` and ``record_bytes``."""
        ...


def record_array(encoder: Encoder, states: Sequence[Any], players: Sequence[int]) -> np.ndarray:
    """The records of ``players[i]`` at ``states[i]``: ``[len(states)]`` of ``encoder.record_dtype``."""
    if len(states) != len(players):
        raise ValueError(f"got {len(states)} states but {len(players)} players; give one player per state")
    records = np.empty(len(states), dtype=encoder.record_dtype)
    for index, (state, player) in enumerate(zip(states, players, strict=True)):
        records[index] = encoder.record(state, player)
    return records


def _check_records(records: np.ndarray, dtype: np.dtype[Any], encoder_name: str) -> None:
    if not isinstance(records, np.ndarray) or records.dtype != dtype or records.ndim != 1:
        shape = getattr(records, "shape", None)
        found = getattr(records, "dtype", type(records).__name__)
        raise ValueError(
            f"{encoder_name} encodes a one-dimensional array of its record dtype, "
            f"not {found} with shape {shape}"
        )


def _check_player(player: object) -> int:
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player <= 1:
        raise ValueError(f"player {player!r} is not 0 or 1")
    return int(player)


def _leduc_chips(rounds: Sequence[str]) -> list[int]:
    """Each Leduc player's chips in the pot after the betting ``rounds``, antes included."""
    return LeducState((), tuple(rounds)).contributions()


def _segments(*sizes: tuple[str, int]) -> dict[str, dict[str, int]]:
    segments: dict[str, dict[str, int]] = {}
    offset = 0
    for name, size in sizes:
        segments[name] = {"offset": offset, "size": size}
        offset += size
    return segments


class HUNLEncoder(DecisionRecords):
    """Hold'em records (:data:`~pokerai.games.holdem.HUNL_RECORD_DTYPE`, made by
    :class:`~pokerai.games.holdem.DecisionRecords`) and their features (module docstring).

    373 features, then 11 of hand strength with ``strength``, then one bucket one-hot per
    street with an ``abstraction``.
    """

    def __init__(
        self, game: HUNLGame, *, strength: bool = False, abstraction: CardAbstraction | None = None
    ) -> None:
        if not isinstance(game, HUNLGame):
            raise ValueError(f"HUNLEncoder needs a HUNLGame, not {game!r}")
        if abstraction is not None and not isinstance(abstraction, CardAbstraction):
            raise ValueError(f"HUNLEncoder's abstraction must be a CardAbstraction, not {abstraction!r}")
        self._game = game
        self._strength = bool(strength)
        self._abstraction = abstraction
        self._bucket_counts: tuple[int, ...] = ()
        if abstraction is not None:
            self._bucket_counts = tuple(abstraction.num_buckets(street) for street in range(len(Street)))
            # Preflop buckets by (card, card), either order: a gather instead of an index computation.
            low, high = np.triu_indices(NUM_CARDS, k=1)
            pairs = np.stack([low, high], axis=1).astype(np.uint8)
            preflop = abstraction.tables[0][index_hands_serial(pairs, street_indexer(0).index_tables)]
            self._preflop_buckets = np.zeros((NUM_CARDS, NUM_CARDS), dtype=np.intp)
            self._preflop_buckets[low, high] = preflop
            self._preflop_buckets[high, low] = preflop
        stacks = game.config.stacks
        self._starting_stacks = np.asarray(stacks, dtype=np.float32)
        self._total_chips = float(sum(stacks))

    @property
    def abstraction(self) -> CardAbstraction | None:
        """The card abstraction of the bucket features, or None without them."""
        return self._abstraction

    @property
    def feature_size(self) -> int:
        return FEATURE_SIZE + (STRENGTH_SIZE if self._strength else 0) + sum(self._bucket_counts)

    @property
    def num_slots(self) -> int:
        return self._game.num_distinct_actions

    def encode(self, records: np.ndarray) -> npt.NDArray[np.float32]:
        """Features of ``[N]`` :data:`HUNL_RECORD_DTYPE` records: float32 ``[N, feature_size]``."""
        _check_records(records, HUNL_RECORD_DTYPE, "HUNLEncoder")
        count = records.shape[0]
        features = np.zeros((count, self.feature_size), dtype=np.float32)
        rows = np.arange(count)
        hole = records["hole"].astype(np.intp)
        features[rows, HOLE_OFFSET + hole[:, 0]] = 1.0
        features[rows, HOLE_OFFSET + NUM_CARDS + hole[:, 1]] = 1.0
        board = records["board"].astype(np.intp)
        dealt_rows, dealt_slots = np.nonzero(board != NOT_DEALT)
        features[dealt_rows, BOARD_OFFSET + NUM_CARDS * dealt_slots + board[dealt_rows, dealt_slots]] = 1.0
        features[rows, STREET_OFFSET + records["street"].astype(np.intp)] = 1.0
        pot = records["pot"].astype(np.float32)
        to_call = records["to_call"].astype(np.float32)
        seat = records["player"].astype(np.intp)
        scalars = features[:, SCALARS_OFFSET : SCALARS_OFFSET + NUM_SCALARS]
        scalars[:, 0] = pot / self._total_chips
        scalars[:, 1] = records["own_stack"] / self._starting_stacks[seat]
        scalars[:, 2] = records["opponent_stack"] / self._starting_stacks[1 - seat]
        # Guarded division: a pot of 0 with nothing to call only happens at the end of a hand.
        pot_after_call = pot + to_call
        scalars[:, 3] = np.divide(
            to_call, pot_after_call, out=np.zeros_like(to_call), where=pot_after_call > 0
        )
        scalars[:, 4] = records["raises"] / RAISES_SCALE
        np.clip(scalars, 0.0, 1.0, out=scalars)
        offset = FEATURE_SIZE
        if self._strength:
            _strength_features(records, features[:, offset : offset + STRENGTH_SIZE])
            offset += STRENGTH_SIZE
        if self._abstraction is not None:
            self._bucket_features(records, features[:, offset:])
        return features

    def _bucket_features(self, records: np.ndarray, out: npt.NDArray[np.float32]) -> None:
        """Write the bucket one-hot of each street of ``records`` into ``out`` [N, sum of bucket counts]
        (zeros on entry)."""
        assert self._abstraction is not None
        hole = records["hole"]
        out[np.arange(len(records)), self._preflop_buckets[hole[:, 0], hole[:, 1]]] = 1.0
        streets = records["street"]
        offset = self._bucket_counts[0]
        for street in range(1, len(Street)):
            rows = np.flatnonzero(streets >= street)
            if rows.size == 0:
                break
            cards = np.concatenate([hole[rows], records["board"][rows, : BOARD_SIZES[street]]], axis=1)
            # One thread: numba's parallel pool would raise the OpenMP thread count torch shares.
            buckets = self._abstraction.tables[street][
                index_hands_serial(cards, street_indexer(street).index_tables)
            ]
            out[rows, offset + buckets.astype(np.intp)] = 1.0
            offset += self._bucket_counts[street]

    def describe(self) -> dict[str, Any]:
        strength = (("preflop equity", 1), ("made hand", 1), ("category", len(CATEGORIES)))
        buckets = tuple(
            (f"{STREETS[street]} bucket", count) for street, count in enumerate(self._bucket_counts)
        )
        return {
            "segments": _segments(
                ("hole", 2 * NUM_CARDS),
                ("board", 5 * NUM_CARDS),
                ("street", len(Street)),
                ("scalars", NUM_SCALARS),
                *(strength if self._strength else ()),
                *buckets,
            ),
            "scalars": [
                "pot / sum of starting stacks",
                "own stack / own starting stack",
                "opponent stack / opponent starting stack",
                "to call / (pot + to call)",
                f"raises this street / {RAISES_SCALE}, clipped to 1",
            ],
            "feature_size": self.feature_size,
            "record_bytes": HUNL_RECORD_DTYPE.itemsize,
        }


class LeducEncoder:
    """Leduc records (:data:`LEDUC_RECORD_DTYPE`) and their 30 features (module docstring)."""

    record_dtype: np.dtype[Any] = LEDUC_RECORD_DTYPE
    feature_size = LEDUC_FEATURE_SIZE

    def __init__(self, game: LeducPoker) -> None:
        if not isinstance(game, LeducPoker):
            raise ValueError(f"LeducEncoder needs a LeducPoker game, not {game!r}")
        self.num_slots = game.num_distinct_actions

    def record(self, state: LeducState, player: int) -> tuple[Any, ...]:
        """What ``player`` knows at ``state`` (after the private cards are dealt), as a record tuple."""
        if not isinstance(state, LeducState) or len(state.cards) < 2:
            raise ValueError(f"LeducEncoder records Leduc states after the private deal, not {state!r}")
        seat = _check_player(player)
        actions = np.full((LEDUC_ROUNDS, LEDUC_ACTION_POSITIONS), LEDUC_NO_ACTION, dtype=np.uint8)
        for round_index, letters in enumerate(state.rounds):
            if len(letters) > LEDUC_ACTION_POSITIONS or "f" in letters:
                raise ValueError(f"Leduc betting {letters!r} is not a decision's history")
            for position, letter in enumerate(letters):
                actions[round_index, position] = LEDUC_BET_RAISE if letter == "r" else LEDUC_CHECK_CALL
        chips = _leduc_chips(state.rounds)
        board = NOT_DEALT if state.board is None else state.board
        return (state.cards[seat], board, actions, chips[seat], chips[1 - seat])

    def encode(self, records: np.ndarray) -> npt.NDArray[np.float32]:
        """Features of ``[N]`` :data:`LEDUC_RECORD_DTYPE` records: float32 ``[N, 30]``."""
        _check_records(records, LEDUC_RECORD_DTYPE, "LeducEncoder")
        count = records.shape[0]
        features = np.zeros((count, LEDUC_FEATURE_SIZE), dtype=np.float32)
        rows = np.arange(count)
        card = records["card"].astype(np.intp)
        features[rows, card // 2] = 1.0
        features[rows, 3 + card % 2] = 1.0
        board = records["board"].astype(np.intp)
        has_board = board != NOT_DEALT
        board_rows = rows[has_board]
        features[board_rows, 5 + board[has_board] // 2] = 1.0
        features[board_rows, 8 + board[has_board] % 2] = 1.0
        features[rows, 10 + has_board.astype(np.intp)] = 1.0
        # Codes 1 and 2 land on the two one-hot columns of their position; code 0 (no action) on none.
        codes = records["actions"].reshape(count, -1).astype(np.intp)
        action_rows, positions = np.nonzero(codes != LEDUC_NO_ACTION)
        features[action_rows, 12 + 2 * positions + codes[action_rows, positions] - 1] = 1.0
        scalars_offset = 12 + 2 * LEDUC_ROUNDS * LEDUC_ACTION_POSITIONS
        features[:, scalars_offset] = records["own_chips"] / LEDUC_MAX_CHIPS
        features[:, scalars_offset + 1] = records["opponent_chips"] / LEDUC_MAX_CHIPS
        return features

    def describe(self) -> dict[str, Any]:
        return {
            "segments": _segments(
                ("card_rank", 3),
                ("card_suit", 2),
                ("board_rank", 3),
                ("board_suit", 2),
                ("round", LEDUC_ROUNDS),
                ("history", LEDUC_ROUNDS * LEDUC_ACTION_POSITIONS * 2),
                ("chips", 2),
            ),
            "feature_size": LEDUC_FEATURE_SIZE,
            "record_bytes": LEDUC_RECORD_DTYPE.itemsize,
        }


ENCODINGS = ("cards", "cards+strength", "cards+buckets")
"""Feature sets: the 373 card and betting features, those plus 11 hand-strength features, or those plus
the one-hot of the player's bucket on each street so far (needs a card abstraction)."""


def _strength_features(records: np.ndarray, out: npt.NDArray[np.float32]) -> None:
    """Write the 11 strength features of hold'em ``records`` into ``out`` [N, 11] (zeros on entry)."""
    hole = records["hole"].astype(np.intp)
    high_rank = np.maximum(hole[:, 0], hole[:, 1]) >> 2
    low_rank = np.minimum(hole[:, 0], hole[:, 1]) >> 2
    suited = (hole[:, 0] & 3) == (hole[:, 1] & 3)
    # Cells as in pokerai.engine.equity.hand_class: suited (high, low), offsuit (low, high).
    row = np.where(suited, high_rank, low_rank)
    column = np.where(suited, low_rank, high_rank)
    out[:, 0] = preflop_equity_table()[row, column]
    streets = records["street"].astype(np.intp)
    for street, board_cards in ((1, 3), (2, 4), (3, 5)):
        rows = np.flatnonzero(streets == street)
        if rows.size == 0:
            continue
        cards = np.concatenate([records["hole"][rows], records["board"][rows, :board_cards]], axis=1)
        ranks = rank_hands(cards, validate=False)
        out[rows, 1] = ranks / MAX_HAND_RANK
        out[rows, 2 + hand_categories(ranks).astype(np.intp)] = 1.0


def shared_abstraction(config: AbstractionConfig) -> CardAbstraction:
    """The card abstraction of ``config``, read once per process and then shared by every encoder.

    The first call finds it in the abstraction cache (:func:`pokerai.abstraction.cache.cached_abstraction`)
    or builds it there, which takes minutes for a large config.
    """
    return _abstraction_in(config, cache_folder())


@functools.cache
def _abstraction_in(config: AbstractionConfig, folder: Path) -> CardAbstraction:
    abstraction, _, _ = cached_abstraction(config, folder=folder)
    return abstraction


def make_encoder(
    game: Game, encoding: str = "cards", abstraction: CardAbstraction | None = None
) -> HUNLEncoder | LeducEncoder:
    """The encoder of ``game`` (hold'em or Leduc) with feature set ``encoding`` (:data:`ENCODINGS`).

    ``abstraction`` is the card abstraction of ``cards+buckets``, which needs one; the other
    encodings take none.
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding {encoding!r} is not one of {', '.join(ENCODINGS)}")
    if encoding == "cards+buckets" and abstraction is None:
        raise ValueError("encoding 'cards+buckets' needs a card abstraction")
    if encoding != "cards+buckets" and abstraction is not None:
        raise ValueError(f"encoding {encoding!r} uses no card abstraction; only 'cards+buckets' does")
    if isinstance(game, HUNLGame):
        return HUNLEncoder(game, strength=encoding == "cards+strength", abstraction=abstraction)
    if isinstance(game, LeducPoker):
        if encoding != "cards":
            raise ValueError(f"encoding {encoding!r} is for hold'em; Leduc has only 'cards'")
        return LeducEncoder(game)
    raise ValueError(f"no Deep CFR encoder for game {getattr(game, 'name', game)!r}; use hunl or leduc")


__all__ = [
    "BOARD_OFFSET",
    "ENCODINGS",
    "FEATURE_SIZE",
    "HOLE_OFFSET",
    "LEDUC_FEATURE_SIZE",
    "LEDUC_RECORD_DTYPE",
    "SCALARS_OFFSET",
    "STREET_OFFSET",
    "STRENGTH_SIZE",
    "Encoder",
    "HUNLEncoder",
    "LeducEncoder",
    "make_encoder",
    "record_array",
    "shared_abstraction",
]
