"""The Deep CFR training loop (Brown, Lerer, Gross & Sandholm 2019), top to bottom.

Per iteration t = 1 .. T, for each player p:

1. run ``traversals_per_iteration`` external-sampling traversals for p
   (:mod:`pokerai.deepcfr.traversal`), batching the networks' queries across traversals;
   with ``chance: enumerate`` (small games) each traversal explores every chance outcome;
2. add the advantage samples to p's advantage reservoir and the strategy samples to the
   acting player's strategy reservoir, each tagged with t;
3. retrain p's advantage network on its reservoir with the t-weighted MSE (from a fresh
   initialisation as in the paper, or warm-started by ``advantage.warm_start``); with
   ``grouped: true`` on the reservoir's rows grouped by information state, which is the same
   loss up to a constant without the sampling noise (:mod:`pokerai.deepcfr.reservoir`).

The policy networks (one per seat) are trained on the strategy reservoirs at evaluation
points and at the end; they are what the blueprint plays. Iteration 1 plays uniformly at
every decision (no advantage network has been trained yet).

Everything random is seeded from ``config.seed``; a checkpoint holds networks, optimiser
states, reservoirs, the iteration and every generator's state, so ``resume`` continues
exactly where a run stopped. Checkpoints are written every ``checkpoint_every`` iterations,
after an iteration that ends ``checkpoint_minutes`` after the last one, at the end, and when
Ctrl-C stops a run: the iteration in progress finishes first (:class:`TrainingInterrupted`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt
import torch

from pokerai.config import config_to_dict
from pokerai.deepcfr.checkpoint import load_checkpoint, restore_rng_states, rng_states, save_checkpoint
from pokerai.deepcfr.config import (
    DeepCFRConfig,
    Evaluation,
    NetworkTraining,
    config_to_dict_changes,
    load_deepcfr_config,
    make_game,
    make_run_encoder,
    replace,
    traversal_options,
)
from pokerai.deepcfr.encoding import Encoder
from pokerai.deepcfr.networks import (
    build_networks,
    regret_matching,
    resolve_device,
    weighted_mse,
)
from pokerai.deepcfr.reservoir import ReservoirBuffer
from pokerai.deepcfr.traversal import TraversalSamples, legal_mask, run_traversals
from pokerai.interrupts import TrainingInterrupted, finish_iteration_on_interrupt

if TYPE_CHECKING:
    from pokerai.solvers.policy import TabularPolicy

CHECKPOINT_NAME = "checkpoint.pt"


Evaluator = Callable[["DeepCFRTrainer"], dict[str, float]]
"""Called at evaluation points with the trainer (policy networks fresh); returns named scalars."""

DEFAULT_THREADS = 1
"""torch CPU threads when the config says 0: one per core (torch's default) oversubscribes a machine
that runs anything else, which slows small networks' iterations many times over, and on an idle
2-core machine two threads are no faster than one."""

_clock = time.monotonic
"""When the last checkpoint was written (a module name, so that tests can move the clock)."""


def set_torch_threads(threads: int) -> int:
    """Use ``threads`` torch CPU threads in this process (0: :data:`DEFAULT_THREADS`); returns the number.

    The inter-op pool (used by few operations here) gets as many, where torch still allows it: it can be
    sized once per process, before any parallel work.
    """
    count = threads or DEFAULT_THREADS
    torch.set_num_threads(count)
    if torch.get_num_interop_threads() != count:
        # Already sized, or parallel work has started: torch refuses, and the pool stays as it is.
        with suppress(RuntimeError):
            torch.set_num_interop_threads(count)
    return count


class TraversalPool(Protocol):
    """Runs an iteration's traversals somewhere else (:mod:`pokerai.deepcfr.distributed`).

    ``run`` must return the samples of ``run_traversals`` for traversals ``0 ..
    traversals_per_iteration - 1`` of ``traverser`` at ``iteration``, played with the
    trainer's current advantage networks, in index order.
    """

    def run(self, trainer: DeepCFRTrainer, traverser: int, iteration: int) -> TraversalSamples: ...


def advantage_strategy(
    network: torch.nn.Module, features: torch.Tensor, masks: npt.NDArray[np.bool_]
) -> npt.NDArray[np.float64]:
    """Regret matching on an advantage network's outputs for ``features``: probabilities [N, S]."""
    with torch.inference_mode():
        advantages = network(features)
        mask = torch.from_numpy(np.array(masks, dtype=bool)).to(features.device)
        return regret_matching(advantages.double(), mask).cpu().numpy()


class DeepCFRTrainer:
    """Holds a run's state: networks, optimisers, reservoirs, generators and counters."""

    def __init__(
        self,
        config: DeepCFRConfig,
        run_dir: str | Path,
        *,
        device: str | None = None,
        pool: TraversalPool | None = None,
    ) -> None:
        self.config = config
        self.pool = pool
        """Where traversals run: ``None`` in this process, else e.g. Ray workers."""
        self.run_dir = Path(run_dir)
        self.device = resolve_device(device or config.device)  # type: ignore[arg-type]
        self.game = make_game(config)
        # Before torch's threads are set: building a card abstraction runs numba's parallel kernels,
        # whose OpenMP pool, started after torch's, would raise the thread count the two share.
        self.encoder: Encoder = make_run_encoder(config, self.game)
        set_torch_threads(config.threads)
        self.num_slots = int(self.game.num_distinct_actions)
        self.networks = build_networks(
            self.encoder.feature_size, self.num_slots, config.network, config.seed, self.device
        )
        seeds = np.random.SeedSequence(config.seed).spawn(8)
        self.advantage_buffers = [
            ReservoirBuffer(
                config.advantage.buffer_capacity,
                self.encoder.record_dtype,
                self.num_slots,
                int(seeds[p].generate_state(1)[0]),
                group_weight_exponent=config.advantage.weight_exponent if config.advantage.grouped else None,
            )
            for p in (0, 1)
        ]
        self.strategy_buffers = [
            ReservoirBuffer(
                config.policy.buffer_capacity,
                self.encoder.record_dtype,
                self.num_slots,
                int(seeds[2 + p].generate_state(1)[0]),
                group_weight_exponent=config.policy.weight_exponent if config.policy.grouped else None,
            )
            for p in (0, 1)
        ]
        self.sample_rng = np.random.default_rng(seeds[4])
        self.init_rng = torch.Generator().manual_seed(int(seeds[5].generate_state(1)[0]))
        self.iteration = 0
        self.trained = [False, False]
        self.advantage_versions = [0, 0]
        """How many times each advantage network has been trained (pools send weights on change)."""
        self.policy_trained = False
        self.history: list[dict[str, float]] = []
        self.traversal_seconds = 0.0
        self.total_traversals = 0

    # ------------------------------------------------------------------ strategies

    def features(self, records: npt.NDArray[Any]) -> torch.Tensor:
        return torch.from_numpy(self.encoder.encode(records)).to(self.device)

    def current_strategy(
        self, player: int, records: npt.NDArray[Any], masks: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.float64]:
        """Regret matching on ``player``'s advantage network (uniform before it is trained)."""
        if not self.trained[player]:
            return masks / masks.sum(axis=1, keepdims=True)
        return advantage_strategy(self.networks[f"advantage_p{player}"], self.features(records), masks)

    def average_strategy(
        self, player: int, records: npt.NDArray[Any], masks: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.float64]:
        """The policy network of seat ``player``: masked softmax probabilities [N, S] (float64)."""
        network = self.networks[f"policy_p{player}"]
        with torch.inference_mode():
            logits = network(self.features(records)).double()
            logits = logits.masked_fill(torch.from_numpy(~masks).to(self.device), -math.inf)
            return torch.softmax(logits, dim=1).cpu().numpy()

    # ------------------------------------------------------------------ training

    def _fit(self, name: str, buffer: ReservoirBuffer, settings: NetworkTraining, policy: bool) -> float:
        """Train network ``name`` on ``buffer``; returns the mean loss of the last 10% of steps."""
        network = self.networks[name]
        if not settings.warm_start:
            network.reset_parameters(self.init_rng)  # type: ignore[operator]
        network.train()
        optimiser = torch.optim.Adam(network.parameters(), lr=settings.learning_rate)
        steps = settings.steps
        schedule = (
            torch.optim.lr_scheduler.LambdaLR(optimiser, lambda step: 1.0 - step / steps)
            if settings.learning_rate_decay
            else None
        )
        losses = []
        autocast = torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.config.mixed_precision)
        grouped = _GroupedBatches(self, buffer, settings.batch_size) if settings.grouped else None
        for _ in range(settings.steps):
            if grouped is not None:
                features, mask, target, weights = grouped.batch()
            else:
                records, masks, targets, iterations = buffer.sample(settings.batch_size, self.sample_rng)
                features = self.features(records)
                mask = torch.from_numpy(masks).to(self.device)
                target = torch.from_numpy(targets).to(self.device)
                weights = torch.from_numpy(_iteration_weights(iterations, settings.weight_exponent))
                weights = weights.to(self.device)
            with autocast:
                output = network(features)
            loss = training_loss(output.float(), target, mask, weights, policy)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            if schedule is not None:
                schedule.step()
            losses.append(float(loss.detach()))
        network.eval()
        tail = losses[-max(1, len(losses) // 10) :]
        return float(np.mean(tail))

    def train_policies(self) -> dict[str, float]:
        losses = {}
        for player in (0, 1):
            if len(self.strategy_buffers[player]) == 0:
                continue
            losses[f"loss/policy_p{player}"] = self._fit(
                f"policy_p{player}", self.strategy_buffers[player], self.config.policy, policy=True
            )
        self.policy_trained = True
        return losses

    def traverse(self, traverser: int, iteration: int) -> TraversalSamples:
        """This iteration's traversals for ``traverser``: in this process, or on the pool."""
        if self.pool is not None:
            return self.pool.run(self, traverser, iteration)
        return run_traversals(
            self.game,
            self.encoder,
            self.current_strategy,
            traverser=traverser,
            count=self.config.traversals_per_iteration,
            iteration=iteration,
            **traversal_options(self.config),
        )

    def run_iteration(self) -> dict[str, float]:
        """One Deep CFR iteration (both players); returns the scalars to log."""
        self.iteration += 1
        t = self.iteration
        scalars: dict[str, float] = {}
        for player in (0, 1):
            start = time.perf_counter()
            samples = self.traverse(player, t)
            elapsed = time.perf_counter() - start
            self.traversal_seconds += elapsed
            self.total_traversals += self.config.traversals_per_iteration
            if len(samples.advantage_records):
                targets = pot_normalised_targets(
                    samples.advantage_records,
                    samples.advantage_targets,
                    self.config.value_scale,
                    self.config.advantage_pot_power,
                )
                self.advantage_buffers[player].add(
                    samples.advantage_records, samples.advantage_masks, targets, t
                )
            for seat in (0, 1):
                rows = samples.strategy_players == seat
                if rows.any():
                    self.strategy_buffers[seat].add(
                        samples.strategy_records[rows],
                        samples.strategy_masks[rows],
                        samples.strategy_targets[rows],
                        t,
                    )
            scalars[f"loss/advantage_p{player}"] = self._fit(
                f"advantage_p{player}", self.advantage_buffers[player], self.config.advantage, policy=False
            )
            self.trained[player] = True
            self.advantage_versions[player] += 1
            scalars[f"buffer/size_p{player}"] = len(self.advantage_buffers[player])
            scalars[f"buffer/strategy_size_p{player}"] = len(self.strategy_buffers[player])
            scalars[f"perf/traversals_per_s_p{player}"] = self.config.traversals_per_iteration / elapsed
            scalars[f"perf/nodes_per_s_p{player}"] = samples.nodes / elapsed
        scalars["perf/traversals_per_s"] = self.total_traversals / max(self.traversal_seconds, 1e-9)
        return scalars

    # ------------------------------------------------------------------ checkpoints

    def state_dict(self) -> dict[str, Any]:
        """The checkpoint payload. Its reservoir rows are tensors over the live buffers (no copy), valid
        until the next iteration adds samples: save it at once, as :meth:`save` does."""
        return {
            "config": config_to_dict(self.config),
            "iteration": self.iteration,
            "trained": list(self.trained),
            "policy_trained": self.policy_trained,
            "networks": {name: network.state_dict() for name, network in self.networks.items()},
            "advantage_buffers": [_buffer_payload(buffer) for buffer in self.advantage_buffers],
            "strategy_buffers": [_buffer_payload(buffer) for buffer in self.strategy_buffers],
            "rng": rng_states({"sample": self.sample_rng}, {"init": self.init_rng}),
            "history": self.history,
            "traversal_seconds": self.traversal_seconds,
            "total_traversals": self.total_traversals,
            "feature_size": self.encoder.feature_size,
            "num_slots": self.num_slots,
        }

    def save(self, path: Path | None = None) -> Path:
        return save_checkpoint(path or self.run_dir / CHECKPOINT_NAME, self.state_dict())

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.iteration = int(state["iteration"])
        self.trained = [bool(value) for value in state["trained"]]
        self.policy_trained = bool(state["policy_trained"])
        for name, network in self.networks.items():
            network.load_state_dict(state["networks"][name])
            network.eval()
        for buffer, saved in zip(self.advantage_buffers, state["advantage_buffers"], strict=True):
            _load_buffer_payload(buffer, saved)
        for buffer, saved in zip(self.strategy_buffers, state["strategy_buffers"], strict=True):
            _load_buffer_payload(buffer, saved)
        restore_rng_states(state["rng"], {"sample": self.sample_rng}, {"init": self.init_rng})
        self.history = list(state["history"])
        self.traversal_seconds = float(state["traversal_seconds"])
        self.total_traversals = int(state["total_traversals"])

    @classmethod
    def resume(
        cls, run_dir: str | Path, *, device: str | None = None, pool: TraversalPool | None = None
    ) -> DeepCFRTrainer:
        """Rebuild a trainer from ``run_dir/checkpoint.pt`` exactly as it was saved."""
        state = load_checkpoint(Path(run_dir) / CHECKPOINT_NAME)
        config = load_deepcfr_config(state["config"])
        trainer = cls(config, run_dir, device=device, pool=pool)
        trainer.load_state_dict(state)
        return trainer

    # ------------------------------------------------------------------ the loop

    def train(
        self,
        *,
        evaluator: Evaluator | None = None,
        log: Callable[[int, dict[str, float]], None] | None = None,
        on_iteration: Callable[[int, dict[str, float]], None] | None = None,
        on_interrupt: Callable[[], None] | None = None,
    ) -> dict[str, float]:
        """Run the remaining iterations; evaluate, log and checkpoint on schedule.

        Returns the last iteration's scalars. Called from the main thread, Ctrl-C (SIGINT) does not
        stop an iteration halfway: ``on_interrupt`` is called from the signal handler (keep it short),
        the iteration in progress finishes, its checkpoint is written and :class:`TrainingInterrupted`
        is raised; ``resume`` then continues exactly as if nothing had happened. A second Ctrl-C raises
        ``KeyboardInterrupt`` at once, leaving the last checkpoint whole (checkpoints are written
        atomically). The previous SIGINT handler is back when this returns.
        """
        scalars: dict[str, float] = {}
        saved_iteration = -1
        saved_at = _clock()
        with finish_iteration_on_interrupt(on_interrupt) as interrupt:
            while self.iteration < self.config.iterations:
                if interrupt.requested:
                    path = self.run_dir / CHECKPOINT_NAME
                    if saved_iteration != self.iteration:
                        path = self.save()
                    raise TrainingInterrupted(self.iteration, path)
                scalars = self.run_iteration()
                t = self.iteration
                last = t == self.config.iterations
                if t % self.config.evaluation.every == 0 or last:
                    scalars.update(self.train_policies())
                    if evaluator is not None:
                        scalars.update(evaluator(self))
                self.history.append({"iteration": float(t), **scalars})
                if log is not None:
                    log(t, scalars)
                minutes = self.config.checkpoint_minutes
                overdue = minutes > 0 and _clock() - saved_at >= 60 * minutes
                if t % self.config.checkpoint_every == 0 or last or overdue or interrupt.requested:
                    self.save()
                    saved_iteration, saved_at = t, _clock()
                if on_iteration is not None:
                    on_iteration(t, scalars)
        return scalars


def decision_pots(records: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    """The chips in the pot at each record's decision (hold'em: ``pot``; Leduc: both players' chips)."""
    names = records.dtype.names or ()
    if "pot" in names:
        return records["pot"].astype(np.float64)
    if "own_chips" in names and "opponent_chips" in names:
        return records["own_chips"].astype(np.float64) + records["opponent_chips"].astype(np.float64)
    raise ValueError(f"records with fields {names} carry no pot")


def pot_normalised_targets(
    records: npt.NDArray[Any], targets: npt.NDArray[np.float32], value_scale: float, power: float
) -> npt.NDArray[np.float32]:
    """``targets`` (regrets / ``value_scale``) divided by ``(pot / value_scale) ** power`` row by row.

    With ``power`` 1 a target is the regret in pots: ``regret / pot``. Every row of one information
    state has the same pot, so its regrets change by one positive factor and regret matching, the
    strategy, does not change; only how much each decision weighs in the network's squared error.
    """
    if power == 0:
        return targets
    pots = decision_pots(records)
    if np.any(pots <= 0):
        raise ValueError("a decision with an empty pot cannot normalise its advantage targets")
    factors = (pots / value_scale) ** power
    return (targets / factors[:, np.newaxis]).astype(np.float32)


def training_loss(
    output: torch.Tensor, target: torch.Tensor, mask: torch.Tensor, weights: torch.Tensor, policy: bool
) -> torch.Tensor:
    """The loss of one batch: the advantage networks' :func:`weighted_mse`, or for a policy network the
    iteration-weighted cross-entropy to the stored strategies (linear averaging)."""
    if not policy:
        return weighted_mse(output, target, mask, weights)
    log_probabilities = torch.log_softmax(output.masked_fill(~mask, -1e9), dim=1)
    per_sample = -(target * log_probabilities.masked_fill(~mask, 0.0)).sum(dim=1)
    return (weights * per_sample).sum() / weights.sum()


class _GroupedBatches:
    """Training batches from a reservoir's groups (``grouped: true``): the whole table when it fits in a batch
    (its features encoded once), else ``batch_size`` groups drawn uniformly without replacement at each step,
    each with its weight (features encoded per batch, so a large table costs no feature memory)."""

    def __init__(self, trainer: DeepCFRTrainer, buffer: ReservoirBuffer, batch_size: int) -> None:
        records, masks, weights, targets = buffer.groups()
        if len(records) == 0:
            raise ValueError("cannot train on an empty reservoir buffer")
        device = trainer.device
        self.trainer = trainer
        self.records = records
        self.mask = torch.from_numpy(masks).to(device)
        self.target = torch.from_numpy(targets.astype(np.float32)).to(device)
        self.weights = torch.from_numpy((weights / max(float(weights.max()), 1e-300)).astype(np.float32))
        self.weights = self.weights.to(device)
        self.batch_size = batch_size
        self.rng = trainer.sample_rng
        self.features = trainer.features(records) if len(records) <= batch_size else None

    def batch(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        if self.features is not None:
            return self.features, self.mask, self.target, self.weights
        rows = self.rng.choice(len(self.records), size=self.batch_size, replace=False)
        index = torch.from_numpy(rows).to(self.mask.device)
        features = self.trainer.features(self.records[rows])
        return features, self.mask[index], self.target[index], self.weights[index]


def _iteration_weights(iterations: npt.NDArray[Any], exponent: float) -> npt.NDArray[np.float32]:
    """``t**exponent`` per sample, divided by the largest so high powers of late iterations stay finite."""
    base = iterations.astype(np.float64)
    weights = (base / max(float(base.max(initial=1.0)), 1.0)) ** exponent
    return weights.astype(np.float32)


def _raw_tensor(array: npt.NDArray[Any]) -> torch.Tensor:
    """A uint8 tensor over ``array``'s memory (no copy): checkpoints hold no numpy arrays, and a tensor is
    written straight from its storage where ``bytes`` would be copied by the pickler."""
    return torch.from_numpy(np.ascontiguousarray(array).reshape(-1).view(np.uint8))


def _raw_array(saved: Any, dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    """The inverse of :func:`_raw_tensor` (also reads the ``bytes`` that earlier checkpoints hold)."""
    data = saved.numpy() if isinstance(saved, torch.Tensor) else saved
    return np.frombuffer(data, dtype=dtype)


def _buffer_payload(buffer: ReservoirBuffer) -> dict[str, Any]:
    """A reservoir's state with its arrays as uint8 tensors over the buffer's own memory."""
    state = buffer.state_dict(copy=False)
    payload = {**state, "rows": _raw_tensor(state["rows"])}
    if "groups" in state:
        groups = state["groups"]
        payload["groups"] = {
            "exponent": groups["exponent"],
            **{name: _raw_tensor(groups[name]) for name in ("keys", "count", "weight", "target")},
        }
    return payload


def _load_buffer_payload(buffer: ReservoirBuffer, saved: dict[str, Any]) -> None:
    # No copies: load_state_dict copies the rows and the group table into the buffer's own storage.
    state = {**saved, "rows": _raw_array(saved["rows"], buffer.row_dtype)}
    groups = saved.get("groups")
    if isinstance(groups, dict):
        try:
            state["groups"] = {
                "exponent": groups.get("exponent"),
                "keys": _raw_array(groups["keys"], buffer.group_key_dtype),
                "count": _raw_array(groups["count"], np.int64),
                "weight": _raw_array(groups["weight"], np.float64),
                "target": _raw_array(groups["target"], np.float64).reshape(-1, buffer.num_slots),
            }
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"the saved reservoir groups are damaged: {error}") from None
    buffer.load_state_dict(state)


# ---------------------------------------------------------------------- exact evaluation on small games


def _information_states(game: Any) -> dict[str, Any]:
    """One state per information-state key of a small game (depth-first walk)."""
    found: dict[str, Any] = {}
    stack = [game.initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance():
            stack.extend(state.child(outcome) for outcome, _ in state.chance_outcomes())
            continue
        key = state.information_state_key(state.current_player())
        found.setdefault(key, state)
        stack.extend(state.child(action) for action in state.legal_actions())
    return found


def policy_exploitability(trainer: DeepCFRTrainer) -> float:
    """Exact exploitability of the policy networks on a small game (Leduc): NashConv / 2."""
    from pokerai.solvers.best_response import exploitability

    return float(exploitability(policy_table(trainer)))


def policy_table(trainer: DeepCFRTrainer) -> TabularPolicy:
    """The policy networks of a small game (Leduc) as a tabular policy over every information set."""
    from pokerai.solvers.best_response import tree_of
    from pokerai.solvers.policy import TabularPolicy

    tree = tree_of(trainer.game)
    states = _information_states(trainer.game)
    probabilities = np.zeros((tree.num_infosets, tree.num_actions))
    for player in (0, 1):
        rows = [i for i in range(tree.num_infosets) if tree.infoset_player[i] == player]
        chosen = [states[tree.infoset_keys[i]] for i in rows]
        records = np.array(
            [trainer.encoder.record(state, player) for state in chosen], dtype=trainer.encoder.record_dtype
        )
        masks = np.stack([legal_mask(state, trainer.num_slots) for state in chosen])
        probabilities[rows] = trainer.average_strategy(player, records, masks)[:, : tree.num_actions]
    probabilities = np.where(tree.legal_mask, probabilities, 0.0)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    return TabularPolicy(tree, probabilities)


__all__ = [
    "CHECKPOINT_NAME",
    "DEFAULT_THREADS",
    "DeepCFRConfig",
    "DeepCFRTrainer",
    "Evaluation",
    "Evaluator",
    "NetworkTraining",
    "TrainingInterrupted",
    "TraversalPool",
    "advantage_strategy",
    "config_to_dict_changes",
    "decision_pots",
    "load_deepcfr_config",
    "make_game",
    "policy_exploitability",
    "policy_table",
    "pot_normalised_targets",
    "replace",
    "set_torch_threads",
    "training_loss",
]
