"""A tabular MCCFR run on bucketed hold'em: deals, the training loop, checkpoints and resume.

Each batch of ``config.batch`` deals is dealt from ``numpy.random.default_rng([seed,
first iteration of the batch])``: nine cards, every player's bucket on every street
from the card abstraction, and the showdown result; then
:class:`~pokerai.tabular.mccfr.TabularMCCFR` traverses them. Checkpoints fall between
batches, so a resumed run deals and samples exactly what the uninterrupted run would
have (with ``threads: 1``; more threads race on the tables).

The run folder holds ``config.yaml``, TensorBoard events, ``checkpoint.npz`` (written
atomically: the tables, the iteration and a JSON record with the format, version and
config), ``snapshots/<deals>/`` every ``snapshot_every`` deals (quantised blueprint folders that
play as they are and that a training curve evaluates) and, at the end, ``blueprint/``
(:mod:`pokerai.tabular.blueprint`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.buckets import CardAbstraction, Progress
from pokerai.abstraction.cache import cached_abstraction
from pokerai.abstraction.isomorphism import street_indexer
from pokerai.config import ConfigError, config_to_dict
from pokerai.engine.cards import BOARD_SIZES
from pokerai.engine.evaluator import rank_hands
from pokerai.interrupts import TrainingInterrupted, finish_iteration_on_interrupt
from pokerai.tabular.blueprint import (
    TabularBlueprint,
    infoset_rows,
    normalised_strategy,
    read_arrays,
    save_arrays,
)
from pokerai.tabular.config import TabularConfig, load_tabular_config
from pokerai.tabular.mccfr import TabularMCCFR
from pokerai.tabular.tree import hunl_betting_tree

CHECKPOINT_NAME = "checkpoint.npz"
SNAPSHOTS = "snapshots"
"""The folder of a run's training snapshots."""
CHECKPOINT_FORMAT = "pokerai-tabular-checkpoint"
CHECKPOINT_VERSION = 1

TabularEvaluator = Callable[["TabularTrainer"], dict[str, float]]
"""Called at evaluation points with the trainer; returns named scalars."""

_clock = time.monotonic


class TabularCheckpointError(ValueError):
    """A checkpoint that cannot be resumed; the message names the file and why."""


def deal_buckets(
    abstraction: CardAbstraction, rng: np.random.Generator, count: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """``count`` uniform hold'em deals: each player's bucket on each street, int64 ``[count, 2, 4]``,
    and player 0's showdown result (+1 win, 0 tie, -1 loss) float64 ``[count]``.

    A deal is nine cards: player 0's two (the button), player 1's two, the five of the board.
    """
    cards = np.argsort(rng.random((count, 52)), axis=1)[:, :9].astype(np.int64)
    buckets = np.zeros((count, 2, 4), dtype=np.int64)
    ranks = []
    for player in (0, 1):
        hole = cards[:, 2 * player : 2 * player + 2]
        for street in range(4):
            board = cards[:, 4 : 4 + BOARD_SIZES[street]]
            buckets[:, player, street] = abstraction.bucket(street, hole, board)
        ranks.append(
            rank_hands(np.concatenate([hole, cards[:, 4:9]], axis=1), validate=False).astype(np.int64)
        )
    return buckets, np.sign(ranks[0] - ranks[1]).astype(np.float64)


def run_size(config: TabularConfig) -> dict[str, int]:
    """What a run of ``config`` allocates, from its config alone (before any abstraction is built):
    the betting tree's nodes and decisions per street, the information sets and table entries, and
    the bytes of the two training tables and of the card abstraction's bucket tables."""
    game = config.hunl.game()
    tree = hunl_betting_tree(game.config, game.bets)
    abstraction = config.abstraction_config
    counts = tuple(abstraction.street(street).buckets for street in range(4))
    _, entries = tree.offsets(counts)
    decisions = tree.decisions
    size = {
        "nodes": tree.num_nodes,
        **{
            f"decisions_{name}": int(np.count_nonzero(tree.street[decisions] == street))
            for street, name in enumerate(("preflop", "flop", "turn", "river"))
        },
        "infosets": int(np.asarray(counts, dtype=np.int64)[tree.street[decisions]].sum()),
        "table_entries": int(entries),
        "table_bytes": 2 * 4 * int(entries),  # regrets and strategy sums, float32
        "abstraction_bytes": int(sum(street_indexer(street).size for street in range(4))),  # uint8 tables
    }
    return size


class TabularTrainer:
    """One run of ``config`` writing to ``run_dir`` (module docstring).

    ``abstraction``: the card abstraction, else found in or built into the cache, with
    ``progress`` following a build (:attr:`abstraction_built` says which happened).
    """

    def __init__(
        self,
        config: TabularConfig,
        run_dir: str | Path,
        *,
        abstraction: CardAbstraction | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.config = config
        self.run_dir = Path(run_dir)
        self.abstraction_built = False
        self.abstraction_file: Path | None = None
        if abstraction is None:
            abstraction, self.abstraction_file, self.abstraction_built = cached_abstraction(
                config.abstraction_config, progress=progress
            )
        self.abstraction = abstraction
        self.game = config.hunl.game()
        self.tree = hunl_betting_tree(self.game.config, self.game.bets)
        self.buckets = tuple(abstraction.num_buckets(street) for street in range(4))
        self.solver = TabularMCCFR(self.tree, self.buckets, seed=config.seed, settings=config.settings())
        self.seconds = 0.0

    @property
    def iteration(self) -> int:
        return self.solver.iteration

    # ------------------------------------------------------------------ training

    def run_batch(self) -> dict[str, float]:
        """Deal and traverse the next batch; returns its scalars (speed and table fill)."""
        config = self.config
        count = min(config.batch, config.iterations - self.iteration)
        rng = np.random.default_rng([config.seed, self.iteration])
        started = time.perf_counter()
        buckets, results = deal_buckets(self.abstraction, rng, count)
        dealt = time.perf_counter()
        touched = self.solver.run(buckets, results, threads=config.threads)
        finished = time.perf_counter()
        self.seconds += finished - started
        return {
            "perf/iterations_per_s": count / max(finished - started, 1e-9),
            "perf/nodes_per_s": touched / max(finished - dealt, 1e-9),
            "perf/deal_share": (dealt - started) / max(finished - started, 1e-9),
            "table/fill": self.table_fill(),
        }

    def table_fill(self) -> float:
        """The share of the strategy table's entries that training has reached."""
        return float(np.count_nonzero(self.solver.strategy_sum)) / max(self.solver.table_size, 1)

    def train(
        self,
        *,
        evaluator: TabularEvaluator | None = None,
        log: Callable[[int, dict[str, float]], None] | None = None,
        on_interrupt: Callable[[], None] | None = None,
    ) -> dict[str, float]:
        """Run the remaining iterations in batches; evaluate, log and checkpoint on schedule.

        Returns the last batch's scalars. Ctrl-C (SIGINT) in the main thread finishes the batch,
        writes the checkpoint and raises :class:`~pokerai.interrupts.TrainingInterrupted`; a second
        Ctrl-C raises ``KeyboardInterrupt`` at once, leaving the last checkpoint whole.
        """
        config = self.config
        scalars: dict[str, float] = {}
        saved_iteration, saved_at = -1, _clock()
        with finish_iteration_on_interrupt(on_interrupt) as interrupt:
            while self.iteration < config.iterations:
                if interrupt.requested:
                    path = self.run_dir / CHECKPOINT_NAME
                    if saved_iteration != self.iteration:
                        path = self.save()
                    raise TrainingInterrupted(self.iteration, path)
                before = self.iteration
                scalars = self.run_batch()
                now = self.iteration
                last = now >= config.iterations
                if evaluator is not None and (_crossed(before, now, config.evaluation.every) or last):
                    scalars.update(evaluator(self))
                if log is not None:
                    log(now, scalars)
                minutes = config.checkpoint_minutes
                overdue = minutes > 0 and _clock() - saved_at >= 60 * minutes
                if config.snapshot_every and _crossed(before, now, config.snapshot_every):
                    self.snapshot()
                if _crossed(before, now, config.checkpoint_every) or last or overdue or interrupt.requested:
                    self.save()
                    saved_iteration, saved_at = now, _clock()
        return scalars

    # ------------------------------------------------------------------ blueprint

    def blueprint(self) -> TabularBlueprint:
        """The average strategy so far, playable (a copy: training on leaves it as it is)."""
        sums = self.solver.strategy_sum
        strategy = normalised_strategy(self.tree, self.buckets, self.solver.offsets, sums)
        starts, _ = infoset_rows(self.tree, self.buckets, self.solver.offsets)
        reached = np.add.reduceat(sums, starts) > 0 if starts.size else np.zeros(0, dtype=np.bool_)
        return TabularBlueprint(
            self.config, strategy, self.abstraction, iteration=self.iteration, reached=reached
        )

    def snapshot(self) -> Path:
        """Write the average strategy so far, quantised, to ``snapshots/<deals>/``; returns the folder."""
        return self.blueprint().save(self.run_dir / SNAPSHOTS / f"{self.iteration:012d}", quantised=True)

    def export(self, folder: str | Path | None = None) -> Path:
        """Write the blueprint folder (default ``run_dir/blueprint``); returns it."""
        return self.blueprint().save(folder if folder is not None else self.run_dir / "blueprint")

    # ------------------------------------------------------------------ checkpoints

    def save(self) -> Path:
        """Write ``checkpoint.npz`` atomically; returns its path."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": CHECKPOINT_FORMAT,
            "format_version": CHECKPOINT_VERSION,
            "iteration": self.iteration,
            "nodes_touched": self.solver.nodes_touched,
            "seconds": self.seconds,
            "config": config_to_dict(self.config),
        }
        path = self.run_dir / CHECKPOINT_NAME
        save_arrays(
            path,
            regrets=self.solver.regrets,
            strategy_sum=self.solver.strategy_sum,
            meta=np.array(json.dumps(meta)),
        )
        return path

    @classmethod
    def resume(cls, run_dir: str | Path, *, progress: Progress | None = None) -> TabularTrainer:
        """The run in ``run_dir`` as its last checkpoint left it."""
        folder = Path(run_dir)
        path = folder / CHECKPOINT_NAME
        if not path.is_file():
            raise TabularCheckpointError(f"{folder} holds no {CHECKPOINT_NAME} to resume")
        meta, arrays = read_arrays(
            path, CHECKPOINT_FORMAT, (CHECKPOINT_VERSION,), TabularCheckpointError, "tabular checkpoint"
        )
        regrets, strategy_sum = arrays.get("regrets"), arrays.get("strategy_sum")
        if regrets is None or strategy_sum is None:
            raise TabularCheckpointError(f"{path}: the file is corrupt or truncated (it lacks its tables)")
        try:
            config = load_tabular_config(meta["config"])
        except (ConfigError, KeyError) as error:
            raise TabularCheckpointError(f"{path} holds a bad config: {error}") from None
        trainer = cls(config, folder, progress=progress)
        solver = trainer.solver
        if regrets.shape != solver.regrets.shape or strategy_sum.shape != solver.strategy_sum.shape:
            raise TabularCheckpointError(f"{path}: its tables do not fit its config's game and abstraction")
        solver.regrets[:] = regrets
        solver.strategy_sum[:] = strategy_sum
        solver.iteration = int(meta["iteration"])
        solver.nodes_touched = int(meta.get("nodes_touched", 0))
        trainer.seconds = float(meta.get("seconds", 0.0))
        return trainer

    def with_iterations(self, iterations: int) -> None:
        """Train to ``iterations`` in all (e.g. to continue a finished run further)."""
        self.config = load_tabular_config({**config_to_dict(self.config), "iterations": iterations})

    def __repr__(self) -> str:
        return f"TabularTrainer({self.config.name!r}, iteration={self.iteration})"


def _crossed(before: int, now: int, every: int) -> bool:
    """Whether a multiple of ``every`` lies in ``(before, now]``."""
    return now // every > before // every


__all__ = [
    "CHECKPOINT_NAME",
    "SNAPSHOTS",
    "TabularCheckpointError",
    "TabularEvaluator",
    "TabularTrainer",
    "deal_buckets",
    "run_size",
]
