"""Evaluation chunks outside the calling process: one thread per worker, and Ray tasks (layer 7).

:func:`~pokerai.eval.duplicate.run_chunks` splits a match's pairs (or an LBR run's hands) into
chunks. With ``workers`` > 1 it plays them in a local process pool; with an ``address`` it sends
them here, to run as tasks on a Ray cluster (``pokerai eval`` and ``pokerai report`` with
``--ray-address``):

* the shared objects (the agents) go to the object store once, and each worker process
  unpickles them at its first chunk and keeps them for the rest of the run, as a pool's worker
  does, so an agent's caches stay warm from chunk to chunk;
* at most ``workers`` chunks are in flight at a time, and the results come back in chunk order;
* a chunk's randomness depends only on the seed and the indices of its pairs or hands, so the
  figures are those of one local process, on any cluster.

Every node needs pokerai (the same version) and its numeric extras installed. Ray is imported only
when a run asks for it (:mod:`pokerai.cluster`). A run that starts Ray (address ``local``, or a
cluster's address in a process without Ray yet) leaves it connected for the next run in the same
process; ``ray.shutdown()`` ends it.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from pokerai.cluster import DistributedError, connect, import_ray


def limit_threads() -> None:
    """Run torch, numba and the BLAS of this process on one thread (a worker of a match).

    The workers already use every core between them; a network agent's torch would add its own
    thread pool per worker, and oversubscribed cores slow a batched blueprint call many times over.
    (The agents are unpickled before this runs, so torch is loaded here exactly when some agent
    needs it.) The same holds for numpy's BLAS (the search's matrix products) and numba's parallel
    kernels. Numba first: starting its OpenMP threads sets the OpenMP thread count that torch shares
    (to every core), so torch's comes after. The environment says one thread too, for the libraries
    that a chunk imports later.
    """
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    if "numba" not in sys.modules:  # once numba has read it, a changed value fails its next compile
        os.environ["NUMBA_NUM_THREADS"] = "1"
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.set_num_threads(1)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    try:  # optional (imported by name: no stubs needed); without it, OMP_NUM_THREADS=1 in the environment
        threadpoolctl = importlib.import_module("threadpoolctl")
    except ImportError:
        return
    threadpoolctl.threadpool_limits(limits=1)


_TASK_OBJECTS: dict[str, tuple[Any, ...]] = {}
"""In a Ray worker process: the shared objects of the run in progress, by their object id."""


def _run_task(boxed: list[Any], function: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """One chunk in a Ray worker: ``function(*shared, *args)``, the shared objects fetched once.

    ``boxed`` holds the shared objects' reference in a list so that Ray passes the reference
    instead of a copy per task; a new run's objects replace the last run's.
    """
    key = boxed[0].hex()
    if key not in _TASK_OBJECTS:
        _TASK_OBJECTS.clear()
        _TASK_OBJECTS[key] = tuple(import_ray().get(boxed[0]))
        limit_threads()
    return function(*_TASK_OBJECTS[key], *args)


def run_on_ray(
    function: Callable[..., Any],
    shared: tuple[Any, ...],
    calls: Sequence[tuple[Any, ...]],
    *,
    address: str,
    workers: int,
    on_done: Callable[[int], None] | None = None,
) -> list[Any]:
    """``[function(*shared, *args) for args in calls]``, each call a Ray task on the cluster at ``address``.

    ``address`` is a running cluster (``host:port``, ``auto``, ``ray://host:port``) or ``local``,
    which starts a Ray here with ``workers`` CPUs; a process with Ray already initialised uses its
    own. At most ``workers`` tasks run at a time, each on one CPU with one thread. ``on_done``
    gets each call's index as its result arrives. A missing or unreachable Ray, or a worker lost
    on every retry, is a :class:`~pokerai.cluster.DistributedError`; an error raised by
    ``function`` comes back as itself.
    """
    if workers < 1:
        raise ValueError(f"the number of Ray tasks at a time must be at least 1, got {workers}")
    ray = import_ray()
    connect(address, workers)
    task = ray.remote(num_cpus=1)(_run_task)
    boxed = [ray.put(shared)]
    results: list[Any] = [None] * len(calls)
    pending: dict[Any, int] = {}
    order = iter(range(len(calls)))

    def submit_next() -> None:
        index = next(order, None)
        if index is not None:
            pending[task.remote(boxed, function, calls[index])] = index

    for _ in range(min(workers, len(calls))):
        submit_next()
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            index = pending.pop(ready[0])
            try:
                results[index] = ray.get(ready[0])
            except ray.exceptions.RayTaskError as error:
                cause = getattr(error, "cause", None)
                raise (cause if isinstance(cause, Exception) else error) from None
            except ray.exceptions.RayError as error:  # a worker or node lost on every retry
                raise DistributedError(f"chunk {index} failed on the Ray workers: {error}") from None
            if on_done is not None:
                on_done(index)
            submit_next()
    finally:  # an error or Ctrl-C: the cluster stops the chunks nobody will read
        for reference in pending:
            ray.cancel(reference)
    return results


__all__ = ["limit_threads", "run_on_ray"]
