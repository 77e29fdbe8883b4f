"""Deep CFR traversals on Ray workers: the same run on one laptop or a cluster (layer 4).

With ``pokerai train --workers N`` (N >= 2) the learner process keeps the reservoirs and
trains the networks, and N Ray actors run the traversals:

* each iteration's traversals ``0 .. n - 1`` of a player are split into N contiguous
  ranges, one per worker; a traversal's randomness is keyed by its index
  (:func:`pokerai.deepcfr.traversal.run_traversals`), so every worker has its own seed
  stream and the concatenated samples are those of one process running all n;
* an advantage network's weights go to the object store once each time it is retrained
  (twice per iteration, one per player), and every worker fetches that one copy with its
  next range, never per traversal;
* the workers return compact samples (records, masks, float32 targets), which the learner
  adds to its reservoirs in range order;
* a worker that dies mid-range (killed, out of memory, a lost node) is replaced by a fresh
  actor that receives all current weights and re-runs that range. A range counts only when
  its result arrives, so no traversal is lost or counted twice.

Ray is an optional extra (``pip install -e ".[distributed]"``); this module imports it only
when a pool is created. Workers always traverse on the CPU with one torch thread each; the
learner trains on ``--device``.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from pokerai.cluster import DistributedError, connect, import_ray
from pokerai.config import config_to_dict
from pokerai.deepcfr.config import make_run_encoder, traversal_options
from pokerai.deepcfr.networks import build_networks
from pokerai.deepcfr.trainer import DeepCFRTrainer, advantage_strategy, load_deepcfr_config, make_game
from pokerai.deepcfr.traversal import TraversalSamples, run_traversals


def split_range(count: int, parts: int) -> list[tuple[int, int]]:
    """``(first, size)`` of ``parts`` contiguous ranges covering ``0 .. count - 1``, sizes within one."""
    base, extra = divmod(count, parts)
    ranges = []
    first = 0
    for part in range(parts):
        size = base + (1 if part < extra else 0)
        ranges.append((first, size))
        first += size
    return ranges


def concatenate(parts: list[TraversalSamples]) -> TraversalSamples:
    """The samples of consecutive ranges as one batch, in the given order."""
    return TraversalSamples(
        advantage_records=np.concatenate([p.advantage_records for p in parts]),
        advantage_masks=np.concatenate([p.advantage_masks for p in parts]),
        advantage_targets=np.concatenate([p.advantage_targets for p in parts]),
        strategy_records=np.concatenate([p.strategy_records for p in parts]),
        strategy_masks=np.concatenate([p.strategy_masks for p in parts]),
        strategy_targets=np.concatenate([p.strategy_targets for p in parts]),
        strategy_players=np.concatenate([p.strategy_players for p in parts]),
        root_values=np.concatenate([p.root_values for p in parts]),
        nodes=sum(p.nodes for p in parts),
        queries=sum(p.queries for p in parts),
        calls=sum(p.calls for p in parts),
    )


class TraversalWorker:
    """What runs inside one Ray actor: the game, the encoder and CPU copies of the advantage networks.

    Plain Python so that tests can also drive it in-process; :class:`RayTraversalPool`
    wraps it with ``ray.remote``.
    """

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = load_deepcfr_config(config)
        self.game = make_game(self.config)
        self.encoder = make_run_encoder(self.config, self.game)
        torch.set_num_threads(1)  # after the encoder, as in DeepCFRTrainer
        num_slots = int(self.game.num_distinct_actions)
        networks = build_networks(
            self.encoder.feature_size, num_slots, self.config.network, 0, torch.device("cpu")
        )
        self.advantage = [networks["advantage_p0"], networks["advantage_p1"]]
        self.trained = [False, False]
        self.versions = [0, 0]
        self.loads = 0
        """How many network payloads this worker has received (each is one fetch from the object store)."""
        self.ranges = 0

    def pid(self) -> int:
        return os.getpid()

    def stats(self) -> dict[str, Any]:
        return {
            "loads": self.loads,
            "ranges": self.ranges,
            "versions": list(self.versions),
            "pid": os.getpid(),
            "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }

    def load(self, payloads: dict[int, tuple[int, dict[str, torch.Tensor]]]) -> None:
        """Install ``{player: (version, state_dict)}``."""
        for player, (version, state) in payloads.items():
            self.advantage[player].load_state_dict(state)
            self.advantage[player].eval()
            self.trained[player] = True
            self.versions[player] = version
            self.loads += 1

    def strategy(self, player: int, records: Any, masks: Any) -> Any:
        if not self.trained[player]:
            return masks / masks.sum(axis=1, keepdims=True)
        features = torch.from_numpy(self.encoder.encode(records))
        return advantage_strategy(self.advantage[player], features, masks)

    def run(
        self,
        traverser: int,
        iteration: int,
        first: int,
        count: int,
        payloads: dict[int, Any],
        crash: bool = False,
    ) -> TraversalSamples:
        """Traversals ``first .. first + count - 1`` with the weights after ``payloads``.

        ``payloads`` maps a player to an object-store reference of ``(version, state_dict)``
        (Ray resolves it here) or to the pair itself. ``crash`` is fault injection for
        tests: the worker runs half its range and then kills its own process.
        """
        remote = [player for player, payload in payloads.items() if not isinstance(payload, tuple)]
        if remote:
            fetched = import_ray().get([payloads[player] for player in remote])
            payloads = {**payloads, **dict(zip(remote, fetched, strict=True))}
        self.load(payloads)
        if crash:
            self._run(traverser, iteration, first, count // 2)
            os.kill(os.getpid(), signal.SIGKILL)
        samples = self._run(traverser, iteration, first, count)
        self.ranges += 1
        return samples

    def _run(self, traverser: int, iteration: int, first: int, count: int) -> TraversalSamples:
        return run_traversals(
            self.game,
            self.encoder,
            self.strategy,
            traverser=traverser,
            count=count,
            iteration=iteration,
            first=first,
            **traversal_options(self.config),
        )


@dataclass
class PoolStats:
    """What a pool did, for logs and tests."""

    broadcasts: list[tuple[int, int, int]] = field(default_factory=list)
    """``(iteration, player, version)`` for each network put into the object store."""
    ranges: int = 0
    restarts: int = 0


class RayTraversalPool:
    """N Ray actors that run a trainer's traversals (``DeepCFRTrainer(..., pool=...)``).

    ``address`` connects to a running Ray cluster (``ray start --head`` on its head node);
    without it a local Ray is started with one CPU per worker, unless this process has
    already initialised Ray (tests do). ``max_retries`` is how many fresh actors a range
    may use before the run stops with :class:`DistributedError`; ``start_timeout`` is how
    long the actors may take to start (a cluster without free CPUs never starts them).
    """

    def __init__(
        self,
        config: Any,
        workers: int,
        *,
        address: str | None = None,
        max_retries: int = 3,
        start_timeout: float = 300.0,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.ray = import_ray()
        self.workers = workers
        self.max_retries = max_retries
        self._config = config_to_dict(config)
        self._owns_ray = connect(address or None, workers)
        self._remote = self.ray.remote(num_cpus=1, max_restarts=0)(TraversalWorker)
        self.actors = [self._spawn() for _ in range(workers)]
        self._wait_ready(start_timeout, address)
        self._refs: dict[int, Any] = {}
        """The latest object-store reference of each trained advantage network."""
        self._versions: dict[int, int] = {}
        self._actor_versions: list[dict[int, int]] = [{} for _ in range(workers)]
        self._crash_plan: set[tuple[int, int, int]] = set()
        self._trainer: DeepCFRTrainer | None = None
        self.stats = PoolStats()

    def _wait_ready(self, timeout: float, address: str | None) -> None:
        """Wait until every actor has started (a busy cluster may never give them a CPU)."""
        probes = [actor.pid.remote() for actor in self.actors]
        ready, _ = self.ray.wait(probes, num_returns=len(probes), timeout=timeout)
        if len(ready) == len(probes):
            try:
                self.ray.get(ready)
            except Exception as error:  # an actor failed while starting (e.g. pokerai not installed there)
                self.close()
                raise DistributedError(f"a traversal worker failed to start: {error}") from None
            return
        free = self.ray.available_resources().get("CPU", 0)
        self.close()
        where = f"the Ray cluster at {address!r}" if address else "the local Ray"
        raise DistributedError(
            f"{where} started {len(ready)} of {len(probes)} traversal workers in {timeout:.0f} s "
            f"(each needs 1 CPU; {free:g} CPUs free)"
        )

    def _spawn(self) -> Any:
        return self._remote.remote(self._config)

    def inject_crash(self, iteration: int, traverser: int, worker: int) -> None:
        """Tests: worker ``worker`` kills itself half-way through that range (once)."""
        self._crash_plan.add((iteration, traverser, worker))

    def _publish(self, trainer: DeepCFRTrainer, iteration: int) -> None:
        """Put each advantage network retrained since the last range into the object store, once."""
        if self._trainer is not trainer:
            if self._trainer is not None:  # the workers hold another trainer's weights: fresh ones
                for worker in range(self.workers):
                    self._replace(worker)
                self.stats.restarts -= self.workers  # not failures
            self._trainer = trainer
            self._refs.clear()
            self._versions.clear()
        for player in (0, 1):
            version = trainer.advantage_versions[player]
            if not trainer.trained[player] or self._versions.get(player) == version:
                continue
            network = trainer.networks[f"advantage_p{player}"]
            state = {name: tensor.detach().cpu().clone() for name, tensor in network.state_dict().items()}
            self._refs[player] = self.ray.put((version, state))
            self._versions[player] = version
            self.stats.broadcasts.append((iteration, player, version))

    def _payloads_for(self, worker: int) -> dict[int, Any]:
        """The references worker ``worker`` lacks (all of them for a fresh actor)."""
        held = self._actor_versions[worker]
        return {p: ref for p, ref in self._refs.items() if held.get(p) != self._versions[p]}

    def run(self, trainer: DeepCFRTrainer, traverser: int, iteration: int) -> TraversalSamples:
        self._publish(trainer, iteration)
        ranges = split_range(trainer.config.traversals_per_iteration, self.workers)
        pending = {}
        for worker, (first, count) in enumerate(ranges):
            pending[worker] = self._submit(worker, traverser, iteration, first, count)
        results: dict[int, TraversalSamples] = {}
        attempts = dict.fromkeys(pending, 0)
        while pending:
            ready, _ = self.ray.wait(list(pending.values()), num_returns=1)
            worker = next(w for w, ref in pending.items() if ref == ready[0])
            del pending[worker]
            try:
                results[worker] = self.ray.get(ready[0])
                self.stats.ranges += 1
            except (self.ray.exceptions.RayActorError, self.ray.exceptions.WorkerCrashedError) as error:
                attempts[worker] += 1
                if attempts[worker] > self.max_retries:
                    raise DistributedError(
                        f"traversal worker {worker} died {attempts[worker]} times on iteration "
                        f"{iteration} (player {traverser}); last error: {type(error).__name__}"
                    ) from None
                self._replace(worker)
                first, count = ranges[worker]
                pending[worker] = self._submit(worker, traverser, iteration, first, count)
        return concatenate([results[worker] for worker in range(self.workers)])

    def _submit(self, worker: int, traverser: int, iteration: int, first: int, count: int) -> Any:
        payloads = self._payloads_for(worker)
        crash = (iteration, traverser, worker) in self._crash_plan
        self._crash_plan.discard((iteration, traverser, worker))
        ref = self.actors[worker].run.remote(traverser, iteration, first, count, payloads, crash)
        # The actor has these once the call starts; if it dies first, _replace forgets them.
        self._actor_versions[worker].update({p: self._versions[p] for p in payloads})
        return ref

    def _replace(self, worker: int) -> None:
        with contextlib.suppress(Exception):  # already gone
            self.ray.kill(self.actors[worker])
        self.actors[worker] = self._spawn()
        self._actor_versions[worker] = {}
        self.stats.restarts += 1

    def worker_stats(self) -> list[dict[str, Any]]:
        return list(self.ray.get([actor.stats.remote() for actor in self.actors]))

    def close(self) -> None:
        for actor in self.actors:
            with contextlib.suppress(Exception):
                self.ray.kill(actor)
        self.actors = []
        if self._owns_ray:
            self.ray.shutdown()
            self._owns_ray = False

    def __enter__(self) -> RayTraversalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
