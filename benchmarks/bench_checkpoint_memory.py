"""Memory and time of saving and resuming a Deep CFR checkpoint with full reservoirs (Linux only).

    python benchmarks/bench_checkpoint_memory.py                                   # hunl_tiny, ~1 minute
    python benchmarks/bench_checkpoint_memory.py --config configs/hunl_default.yaml  # 2.5 GB of reservoirs

Builds a trainer from ``--config``, fills all four reservoirs to capacity with synthetic rows
(random record bytes, all slots legal, normal targets: the contents do not matter to a
checkpoint), then measures:

* **save**: the peak resident memory above what the process held before ``trainer.save()``
  (the kernel's high-water mark, reset first through ``/proc/self/clear_refs``), its time and
  the file's size;
* **resume**: the same for ``DeepCFRTrainer.resume`` of that file, which builds a second
  trainer with its own reservoirs (so the figure includes their size).

A training run's peak is what it holds plus the save's peak, every ``checkpoint_every``
iterations. Numbers are in ``docs/BENCHMARKS.md``.
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import time
from pathlib import Path

import numpy as np

from pokerai.deepcfr.trainer import CHECKPOINT_NAME, DeepCFRTrainer, load_deepcfr_config

ROOT = Path(__file__).resolve().parents[1]
GIB = 1024**3


def _status_gib(field: str) -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1]) * 1024 / GIB
    raise RuntimeError(f"/proc/self/status has no {field}")


def _reset_peak() -> float:
    """Resets the high-water mark to the current resident size and returns that size (GiB)."""
    gc.collect()
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    return _status_gib("VmRSS:")


def fill(trainer: DeepCFRTrainer, seed: int = 0, chunk: int = 200_000) -> None:
    rng = np.random.default_rng(seed)
    for buffer in trainer.advantage_buffers + trainer.strategy_buffers:
        while len(buffer) < buffer.capacity:
            count = min(chunk, buffer.capacity - len(buffer))
            infos = np.zeros(count, dtype=buffer.row_dtype["info"])
            raw = infos.view(np.uint8).reshape(count, -1)
            raw[:] = rng.integers(0, 50, size=raw.shape, dtype=np.uint8)
            masks = np.ones((count, buffer.num_slots), dtype=np.bool_)
            targets = rng.normal(size=(count, buffer.num_slots)).astype(np.float32)
            buffer.add(infos, masks, targets, 1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "hunl_tiny_v1.yaml")
    parser.add_argument("--run-dir", type=Path, default=Path("/tmp/pokerai_bench_checkpoint"))
    args = parser.parse_args()

    shutil.rmtree(args.run_dir, ignore_errors=True)
    trainer = DeepCFRTrainer(load_deepcfr_config(args.config), args.run_dir)
    fill(trainer)
    buffers = trainer.advantage_buffers + trainer.strategy_buffers
    rows = sum(buffer.bytes_per_sample * len(buffer) for buffer in buffers) / GIB

    before = _reset_peak()
    start = time.perf_counter()
    trainer.save()
    save_seconds = time.perf_counter() - start
    save_peak = _status_gib("VmHWM:") - before
    size = (args.run_dir / CHECKPOINT_NAME).stat().st_size / GIB

    before_resume = _reset_peak()
    start = time.perf_counter()
    resumed = DeepCFRTrainer.resume(args.run_dir)
    resume_seconds = time.perf_counter() - start
    resume_peak = _status_gib("VmHWM:") - before_resume
    assert all(
        np.array_equal(a.contents(), b.contents())
        for a, b in zip(buffers, resumed.advantage_buffers + resumed.strategy_buffers, strict=True)
    ), "the resumed reservoirs differ"
    print(
        json.dumps(
            {
                "config": str(args.config),
                "reservoir_rows_gib": round(rows, 3),
                "resident_before_save_gib": round(before, 3),
                "save_peak_above_gib": round(save_peak, 3),
                "save_seconds": round(save_seconds, 2),
                "file_gib": round(size, 3),
                "resume_peak_above_gib": round(resume_peak, 3),
                "resume_seconds": round(resume_seconds, 2),
            }
        )
    )
    shutil.rmtree(args.run_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
