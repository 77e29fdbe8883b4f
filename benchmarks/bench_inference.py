"""Policy-network inference: the numpy forward pass that play uses, against torch on the same weights.

The Deep CFR blueprint's seat-0 network (``--blueprint``, ``checkpoints/hunl_tiny``) answers random feature
batches of the sizes play and evaluation ask for: 1 (one decision), 64, and 1,326 (every
hole-card pair, as a range query from LBR or AIVAT does). Both sides run on one thread
(``OMP_NUM_THREADS=1``, ``torch.set_num_threads(1)``); each figure is the best of
``--repeats`` timed loops, and the largest absolute difference of the logits is printed too.

    OMP_NUM_THREADS=1 python benchmarks/bench_inference.py

Prints a Markdown table: microseconds per batch for numpy and torch, and torch's time over numpy's.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable

import numpy as np
import torch
from common import deep_cfr_blueprint_arguments

from pokerai.deepcfr.networks import PolicyNetwork

BATCHES = (1, 64, 1326)


def best_seconds(run: Callable[[], object], loops: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(loops):
            run()
        best = min(best, (time.perf_counter() - start) / loops)
    return best


def main() -> None:
    args, blueprint = deep_cfr_blueprint_arguments(__doc__, repeats=5)
    twin = blueprint.networks["policy_p0"]
    network = PolicyNetwork(
        twin.feature_size,
        twin.num_slots,
        blueprint.config.network,
        generator=torch.Generator().manual_seed(0),
    )
    network.load_state_dict({name: torch.from_numpy(array) for name, array in twin.parameters.items()})
    network.eval()
    rng = np.random.default_rng(0)
    print(
        f"{platform.python_implementation()} {platform.python_version()}, numpy {np.__version__}, "
        f"torch {torch.__version__}, one thread each, best of {args.repeats}"
    )
    print()
    print("| batch | numpy µs | torch µs | torch / numpy | max abs logit difference |")
    print("|---:|---:|---:|---:|---:|")
    for batch in BATCHES:
        features = (rng.random((batch, twin.feature_size)) < 0.1).astype(np.float32)
        tensor = torch.from_numpy(features)
        loops = max(20, 20_000 // batch)

        def run_torch(tensor: torch.Tensor = tensor) -> object:
            with torch.inference_mode():
                return network(tensor)

        def run_numpy(features: np.ndarray = features) -> object:
            return twin(features)

        numpy_seconds = best_seconds(run_numpy, loops, args.repeats)
        torch_seconds = best_seconds(run_torch, loops, args.repeats)
        difference = float(np.abs(twin(features) - run_torch().numpy()).max())  # type: ignore[attr-defined]
        print(
            f"| {batch:,} | {numpy_seconds * 1e6:,.1f} | {torch_seconds * 1e6:,.1f} | "
            f"{torch_seconds / numpy_seconds:.2f} | {difference:.1e} |"
        )


if __name__ == "__main__":
    main()
