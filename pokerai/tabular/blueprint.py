"""A tabular MCCFR blueprint: the average strategy per (betting node, bucket).

:class:`TabularBlueprint` is a hold'em :class:`~pokerai.games.holdem.Blueprint` (``game``,
``num_slots``, :meth:`~TabularBlueprint.hand_probabilities` at an engine state), so the blueprint
agent, search, local best response and the analyzer play it as they play a Deep CFR one.

A decision becomes an information set in two lookups:

* **node**: the decision of the player's seat on its street whose chips in (both
  players') and raise count are the decision's, or the nearest one
  (:meth:`~pokerai.tabular.tree.BettingTree.lookup`): after an opponent's bet off the
  menu the blueprint plays the nearest state on it. The chips in are read from the
  engine state's :class:`~pokerai.games.holdem.DecisionView`: the blueprint's starting
  stack less each stack behind, in the blueprint's chips.
* **bucket**: the card abstraction's bucket of the hole cards with the board so far.

The node's actions may differ from the legal slots of the decision's real state (off the
tree); the strategy is restricted to the legal slots and renormalised, and a state where
none of the node's actions is legal checks or calls.

The folder. ``pokerai train`` writes ``blueprint/`` with ``config.yaml`` (the run's
config, the card abstraction's inline) and ``strategy.npz`` (the normalised average
strategy, float32, and a JSON record with the format, version, iteration and the table's
SHA-256). A shipped blueprint or a training snapshot stores it quantised instead
(``quantised=True``): a bit per information set saying whether training reached it, and
for the reached ones each probability in 8 bits, the row's 255ths summing to exactly 255
(largest remainders), so an entry is within 1/255 of the full table; an unreached row
plays uniformly, as in the full table. The card abstraction is found in or built into the cache
(:func:`~pokerai.abstraction.cache.cached_abstraction`), unless the folder carries it as
``abstraction.npz`` (compressed; :meth:`TabularBlueprint.save` with ``abstraction=True``), as
the shipped ``checkpoints/hunl_blueprint`` does, so that it plays at once on a fresh install.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import CHECK_CALL_SLOT
from pokerai.abstraction.buckets import AbstractionError, CardAbstraction
from pokerai.abstraction.cache import cached_abstraction
from pokerai.atomic import write_atomically
from pokerai.config import ConfigError, dump_config
from pokerai.engine.cards import BOARD_SIZES
from pokerai.engine.state import HUNLState
from pokerai.games.holdem import chip_scale, decision_view, record_boards
from pokerai.solvers.policy import normalize_rows_or
from pokerai.tabular.config import TabularConfig, load_tabular_config
from pokerai.tabular.tree import BettingTree, hunl_betting_tree

STRATEGY_FILE = "strategy.npz"
"""The average strategy in a tabular blueprint folder."""
ABSTRACTION_FILE = "abstraction.npz"
"""The card abstraction a tabular blueprint folder may carry."""
CONFIG_FILE = "config.yaml"
FORMAT_NAME = "pokerai-tabular-blueprint"
FORMAT_VERSION = 1
QUANTISED_VERSION = 2
"""The format version of a quantised strategy file (module docstring)."""
QUANTISATION_STEPS = 255
BOARD_TABLES_KEPT = 256
"""Boards whose buckets for every hole-card pair a blueprint keeps (oldest dropped first)."""
TABLE_FROM_HANDS = 64
"""Hands asked on one board from which the blueprint builds and keeps that board's table."""
_PAIRS = np.array([(first, second) for second in range(52) for first in range(second)], dtype=np.int64)
_PAIR_INDEX = np.zeros((52, 52), dtype=np.int64)
_PAIR_INDEX[_PAIRS[:, 0], _PAIRS[:, 1]] = np.arange(len(_PAIRS))


class TabularBlueprintError(ValueError):
    """A tabular blueprint folder that cannot be played; the message names the file and why."""


def is_tabular_blueprint(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a tabular blueprint folder (it holds :data:`STRATEGY_FILE`)."""
    return (Path(path) / STRATEGY_FILE).is_file()


def normalised_strategy(
    tree: BettingTree, buckets: tuple[int, ...], offsets: npt.NDArray[np.int64], sums: npt.NDArray[Any]
) -> npt.NDArray[np.float32]:
    """The strategy sums ``sums`` normalised per information set (uniform where never updated): float32."""
    out = np.asarray(sums, dtype=np.float64).copy()
    for node in tree.decisions.tolist():
        count = int(tree.num_actions[node])
        start = int(offsets[node])
        rows = out[start : start + buckets[int(tree.street[node])] * count].reshape(-1, count)
        rows[:] = normalize_rows_or(rows, 1.0 / count)
    return out.astype(np.float32)


def infoset_rows(
    tree: BettingTree, buckets: tuple[int, ...], offsets: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each information set's first entry in a flat table and its number of actions: int64
    ``[num_infosets]`` each, in table order (node by node, bucket by bucket)."""
    decisions = tree.decisions
    counts = np.asarray(buckets, dtype=np.int64)[tree.street[decisions]]
    actions = tree.num_actions[decisions].astype(np.int64)
    per_node = np.repeat(np.arange(decisions.size), counts)
    within = np.arange(per_node.size) - np.repeat(np.cumsum(counts) - counts, counts)
    # Decisions are ascending and their offsets follow that order, so the rows come out sorted.
    return offsets[decisions][per_node] + within * actions[per_node], actions[per_node]


def quantise(strategy: npt.NDArray[np.float32], widths: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """Rows of ``strategy`` (consecutive, ``widths`` entries each) as 255ths summing to exactly 255 per
    row (largest remainders): uint8 of the same length, each within 1/255 of the probability."""
    scaled = np.asarray(strategy, dtype=np.float64) * QUANTISATION_STEPS
    rows = np.repeat(np.arange(widths.size), widths)
    ends = np.cumsum(widths)
    row_sums = np.add.reduceat(scaled, ends - widths) if widths.size else np.zeros(0)
    scaled *= np.repeat(QUANTISATION_STEPS / np.where(row_sums > 0, row_sums, 1.0), widths)
    floors = np.floor(scaled)
    remainders = scaled - floors
    short = (
        QUANTISATION_STEPS - np.add.reduceat(floors, ends - widths).astype(np.int64) if widths.size else ()
    )
    # Within each row, rank the entries by remainder (largest first) and round up the first ``short``.
    order = np.lexsort((-remainders, rows))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size) - np.repeat(ends - widths, widths)
    floors += rank < np.repeat(np.asarray(short, dtype=np.int64), widths)
    return floors.astype(np.uint8)


class TabularBlueprint:
    """A playable tabular average strategy (module docstring).

    ``reached``: bool ``[num_infosets]`` (table order, :func:`infoset_rows`), the information sets
    training reached; None: all of them. A quantised file stores only the reached ones. ``tree``:
    the config's betting tree when the caller has built it already.
    """

    kind = "mccfr"

    def __init__(
        self,
        config: TabularConfig,
        strategy: npt.NDArray[np.float32],
        abstraction: CardAbstraction,
        *,
        iteration: int = 0,
        reached: npt.NDArray[np.bool_] | None = None,
        tree: BettingTree | None = None,
    ) -> None:
        self.config = config
        self.game = config.hunl.game()
        self.tree = tree if tree is not None else hunl_betting_tree(self.game.config, self.game.bets)
        counts = tuple(abstraction.num_buckets(street) for street in range(4))
        self.offsets, size = self.tree.offsets(counts)
        if strategy.shape != (size,):
            raise ValueError(
                f"the strategy table has {strategy.size} entries; this game and abstraction need {size}"
            )
        self.strategy = np.asarray(strategy, dtype=np.float32)
        self.abstraction = abstraction
        self.num_slots = int(self.game.num_distinct_actions)
        self.iteration = iteration
        self.counts = counts
        self.reached = reached

    # ------------------------------------------------------------------ queries

    def hand_probabilities(
        self,
        state: HUNLState,
        hands: npt.NDArray[np.int64],
        mask: npt.NDArray[np.bool_],
        boards: npt.NDArray[np.int64] | None = None,
    ) -> npt.NDArray[np.float64]:
        """The average strategy of the player to act at the engine ``state`` holding each of ``hands``
        (int64 ``[H, 2]``), with legal slots ``mask`` (bool ``[num_slots]``): float64 ``[H, num_slots]``,
        0 on illegal slots (module docstring). ``boards`` (int64 ``[H, len(state.board)]``, as dealt;
        None: the state's) buckets each hand with a board of its own."""
        view = decision_view(state, chip_scale(self.game, state.config))
        hole = np.sort(np.asarray(hands, dtype=np.int64).reshape(-1, 2), axis=1)
        count = len(hole)
        masks = np.broadcast_to(np.asarray(mask, dtype=np.bool_), (count, self.num_slots))
        out = np.zeros((count, self.num_slots))
        if count == 0:
            return out
        node = self.tree.lookup(view.street, view.seat, view.committed(self.config.hunl.stack), view.raises)
        size = BOARD_SIZES[view.street]
        if boards is None:
            board = np.tile(np.asarray(view.board[:size], dtype=np.int64), (count, 1))
        else:
            board = record_boards(boards)[:, :size]
        actions = int(self.tree.num_actions[node])
        buckets = self._buckets(view.street, hole, board)
        rows = self.offsets[node] + buckets[:, None] * actions + np.arange(actions)
        out[:, self.tree.slots[node, :actions].astype(np.intp)] = self.strategy[rows]
        return self._restricted(out, masks)

    def _buckets(
        self, street: int, hole: npt.NDArray[np.int64], board: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64]:
        """The bucket of each sorted ``hole`` pair with its row of ``board``: int64 ``[N]``. Postflop, the
        buckets of every pair on a board asked for :data:`TABLE_FROM_HANDS` hands or more are computed
        once and kept (:data:`BOARD_TABLES_KEPT` boards): a search's rollouts ask the same few boards
        thousands of times."""
        if street == 0:
            return np.asarray(self.abstraction.bucket(0, hole, board), dtype=np.int64).reshape(-1)
        codes = board @ (52 ** np.arange(board.shape[1], dtype=np.int64))  # one number a board: a 1-D unique
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        boards = board[first]
        pairs = _PAIR_INDEX[hole[:, 0], hole[:, 1]]
        out = np.empty(len(hole), dtype=np.int64)
        tables = self.__dict__.setdefault("_board_tables", {})
        for row, cards in enumerate(boards):
            key = (street, cards.tobytes())
            chosen = inverse.reshape(-1) == row
            table = tables.get(key)
            if table is None and chosen.sum() < TABLE_FROM_HANDS:  # a few hands: no table for them
                out[chosen] = self.abstraction.bucket(street, hole[chosen], board[chosen])
                continue
            if table is None:
                live = ~np.isin(_PAIRS, cards).any(axis=1)
                table = np.zeros(len(_PAIRS), dtype=np.int64)
                table[live] = self.abstraction.bucket(
                    street, _PAIRS[live], np.tile(cards, (int(live.sum()), 1))
                )
                tables[key] = table
                for stale in list(tables)[:-BOARD_TABLES_KEPT]:  # oldest first; another thread may evict too
                    tables.pop(stale, None)
            out[chosen] = table[pairs[chosen]]
        return out

    @staticmethod
    def _restricted(out: npt.NDArray[np.float64], masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        """``out`` [N, num_slots] restricted to ``masks`` and renormalised; a row left empty checks or
        calls (or takes its first legal slot)."""
        out *= masks
        totals = out.sum(axis=1, keepdims=True)
        empty = totals[:, 0] <= 0
        if np.any(empty):
            fallback = np.where(
                masks[empty, CHECK_CALL_SLOT], CHECK_CALL_SLOT, np.argmax(masks[empty], axis=1)
            )
            out[np.flatnonzero(empty), fallback] = 1.0
            totals = out.sum(axis=1, keepdims=True)
        result: npt.NDArray[np.float64] = out / totals
        return result

    def probabilities(self, state: Any) -> npt.NDArray[np.float64]:
        """The average strategy of the player to act at a learning-game ``state``: float64 ``[num_slots]``."""
        engine = state.engine
        hole = np.array([engine.hole_cards(state.current_player())], dtype=np.int64)
        return self.hand_probabilities(engine, hole, state.legal_mask())[0]

    # ------------------------------------------------------------------ files

    def save(
        self, folder: str | os.PathLike[str], *, abstraction: bool = False, quantised: bool = False
    ) -> Path:
        """Write ``config.yaml`` and ``strategy.npz`` into ``folder``, each atomically; returns ``folder``.

        ``abstraction`` also writes the card abstraction, compressed, as ``abstraction.npz``;
        ``quantised`` stores the reached information sets in 8 bits, deflated (module docstring).
        """
        target = Path(folder)
        target.mkdir(parents=True, exist_ok=True)
        meta: dict[str, Any] = {"format": FORMAT_NAME, "kind": self.kind, "iteration": self.iteration}
        text = dump_config(self.config).encode()
        write_atomically(target / CONFIG_FILE, lambda stream: stream.write(text))
        if quantised:
            starts, widths = infoset_rows(self.tree, self.counts, self.offsets)
            reached = self.reached if self.reached is not None else np.ones(starts.size, dtype=np.bool_)
            entries = np.repeat(reached, widths)
            values = quantise(self.strategy[entries], widths[reached])
            bits = np.packbits(reached)
            meta.update(
                format_version=QUANTISED_VERSION, infosets=int(starts.size), sha256=_sha256(values),
                reached_sha256=_sha256(bits),
            )  # fmt: skip
            save_arrays(
                target / STRATEGY_FILE,
                compressed=True,
                quantised=values,
                reached=bits,
                meta=np.array(json.dumps(meta)),
            )
        else:
            meta.update(format_version=FORMAT_VERSION, sha256=_sha256(self.strategy))
            save_arrays(target / STRATEGY_FILE, strategy=self.strategy, meta=np.array(json.dumps(meta)))
        if abstraction:
            self.abstraction.save(target / ABSTRACTION_FILE, compressed=True)
        return target

    @classmethod
    def load(cls, folder: str | os.PathLike[str]) -> TabularBlueprint:
        """Load a tabular blueprint folder (its card abstraction from the cache, built if missing).

        Raises :class:`TabularBlueprintError` naming the file when it is missing, corrupt or not one.
        """
        source = Path(folder)
        strategy_file, config_file = source / STRATEGY_FILE, source / CONFIG_FILE
        for file in (strategy_file, config_file):
            if not file.is_file():
                raise TabularBlueprintError(f"tabular blueprint {source} has no {file.name}")
        try:
            config = load_tabular_config(config_file)
        except ConfigError as error:
            raise TabularBlueprintError(f"tabular blueprint {config_file}: {error}") from None
        meta, arrays = read_arrays(
            strategy_file,
            FORMAT_NAME,
            (FORMAT_VERSION, QUANTISED_VERSION),
            TabularBlueprintError,
            "tabular blueprint",
        )
        version = meta["format_version"]
        table = arrays.get("strategy" if version == FORMAT_VERSION else "quantised")
        expected = np.float32 if version == FORMAT_VERSION else np.uint8
        if (
            table is None
            or table.dtype != expected
            or table.ndim != 1
            or meta.get("sha256") != _sha256(table)
        ):
            raise TabularBlueprintError(
                f"{strategy_file}: the strategy does not match its checksum (corrupt file)"
            )
        abstraction = _carried_abstraction(source / ABSTRACTION_FILE, config)
        if abstraction is None:
            abstraction, _, _ = cached_abstraction(config.abstraction_config)
        iteration = int(meta.get("iteration", 0))
        try:
            if version == FORMAT_VERSION:
                return cls(config, table, abstraction, iteration=iteration)
            return _dequantised(config, table, arrays.get("reached"), meta, abstraction, iteration)
        except ValueError as error:
            raise TabularBlueprintError(f"tabular blueprint {source}: {error}") from None

    def __repr__(self) -> str:
        return f"TabularBlueprint({self.config.name!r}, iteration={self.iteration})"


def _dequantised(
    config: TabularConfig,
    values: npt.NDArray[np.uint8],
    bits: npt.NDArray[np.uint8] | None,
    meta: dict[str, Any],
    abstraction: CardAbstraction,
    iteration: int,
) -> TabularBlueprint:
    """The blueprint of a quantised strategy file's arrays (``ValueError`` when they do not fit)."""
    game = config.hunl.game()
    tree = hunl_betting_tree(game.config, game.bets)
    counts = tuple(abstraction.num_buckets(street) for street in range(4))
    offsets, size = tree.offsets(counts)
    starts, widths = infoset_rows(tree, counts, offsets)
    if bits is None or bits.dtype != np.uint8 or meta.get("reached_sha256") != _sha256(bits):
        raise ValueError("the reached information sets do not match their checksum (corrupt file)")
    if meta.get("infosets") != starts.size or bits.size != (starts.size + 7) // 8:
        raise ValueError(
            f"the strategy holds {meta.get('infosets')} information sets; this game needs {starts.size}"
        )
    reached = np.unpackbits(bits, count=starts.size).astype(np.bool_)
    entries = np.repeat(reached, widths)
    if int(entries.sum()) != values.size:
        raise ValueError(
            f"the strategy holds {values.size} probabilities; its reached rows need {int(entries.sum())}"
        )
    strategy = np.repeat((1.0 / widths).astype(np.float32), widths)
    strategy[entries] = values.astype(np.float32) / QUANTISATION_STEPS
    assert strategy.size == size
    return TabularBlueprint(config, strategy, abstraction, iteration=iteration, reached=reached, tree=tree)


def _carried_abstraction(file: Path, config: TabularConfig) -> CardAbstraction | None:
    """The abstraction a blueprint folder carries in ``file``, or None when it carries none."""
    if not file.is_file():
        return None
    try:
        abstraction = CardAbstraction.load(file)
    except AbstractionError as error:
        raise TabularBlueprintError(f"tabular blueprint {file.parent}: {error}") from None
    if abstraction.config != config.abstraction_config:
        raise TabularBlueprintError(
            f"{file} is not the card abstraction that {file.parent / CONFIG_FILE} names"
        )
    return abstraction


def _sha256(array: npt.NDArray[Any]) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def save_arrays(path: Path, *, compressed: bool = False, **arrays: Any) -> None:
    """``numpy.savez`` (``compressed``: ``savez_compressed``) of ``arrays`` to ``path``, atomically
    (:func:`~pokerai.atomic.write_atomically`)."""
    save = np.savez_compressed if compressed else np.savez
    write_atomically(path, lambda stream: save(stream, **arrays))


def read_arrays(
    path: Path, format_name: str, versions: tuple[int, ...], error: type[ValueError], what: str
) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
    """The JSON record ``meta`` and the other arrays of an ``.npz`` file of this package (a blueprint's
    strategy or a checkpoint, ``what``), checked to be of ``format_name`` at one of ``versions``.

    Raises ``error`` naming ``path`` when the file is corrupt, truncated, of another format or version.
    """
    try:
        with np.load(path, allow_pickle=False) as archive:
            meta = json.loads(str(archive["meta"]))
            arrays = {name: np.asarray(archive[name]) for name in archive.files if name != "meta"}
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError, json.JSONDecodeError) as failure:
        raise error(
            f"{path}: the file is corrupt or truncated ({type(failure).__name__}: {failure})"
        ) from None
    if not isinstance(meta, dict) or meta.get("format") != format_name:
        raise error(f"{path} is not a pokerai {what}")
    if meta.get("format_version") not in versions:
        raise error(
            f"{path} has format version {meta.get('format_version')!r}; "
            f"this pokerai reads {' and '.join(str(version) for version in versions)}"
        )
    return meta, arrays


__all__ = [
    "ABSTRACTION_FILE",
    "STRATEGY_FILE",
    "TabularBlueprint",
    "TabularBlueprintError",
    "infoset_rows",
    "is_tabular_blueprint",
    "normalised_strategy",
    "quantise",
    "read_arrays",
    "save_arrays",
]
