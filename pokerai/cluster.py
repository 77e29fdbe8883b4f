"""Reaching Ray, an optional extra, for the work that runs on Ray workers (layer 0).

Deep CFR traversals (``pokerai train --workers N``) and evaluation chunks
(``pokerai eval`` and ``pokerai report`` with ``--ray-address``) both connect here: Ray is
imported only when one of them asks for it, a missing Ray or an address nobody answers at is a
:class:`DistributedError` with one sentence for the user, and an address of ``local`` (or none)
starts a Ray on this machine.
"""

from __future__ import annotations

import socket
from typing import Any

RAY_MISSING = 'running on Ray workers needs Ray, an optional extra: pip install -e ".[distributed]"'

LOCAL = "local"
"""The address that starts a Ray on this machine rather than joining a running cluster."""


class DistributedError(RuntimeError):
    """Ray is missing or unreachable, or work failed on its workers; one sentence for the user."""


def import_ray() -> Any:
    """The ``ray`` module, or :class:`DistributedError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise DistributedError(RAY_MISSING) from None
    return ray


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast on a ``host:port`` nobody listens on (``ray.init`` would wait minutes for it).

    ``auto`` and other forms without a port are left to Ray.
    """
    target = address.split("://", 1)[-1]
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as error:
        raise DistributedError(f"no Ray cluster answers at {address!r} ({error})") from None


def connect(address: str | None, local_cpus: int) -> bool:
    """Initialise Ray in this process unless it already is; True when this call started it.

    ``address`` joins a running cluster (``ray start --head`` on its head node; ``host:port``,
    ``auto`` or ``ray://host:port``); None or :data:`LOCAL` starts a Ray here with ``local_cpus``
    CPUs. A process that has already initialised Ray (tests do) keeps its own, whatever the address.
    """
    ray = import_ray()
    if ray.is_initialized():
        return False
    remote = None if address in (None, LOCAL) else address
    if remote is not None:
        check_reachable(remote)
    try:
        if remote is not None:
            ray.init(address=remote, log_to_driver=False)
        else:
            ray.init(num_cpus=local_cpus, include_dashboard=False, log_to_driver=False)
    except Exception as error:  # ConnectionError, RuntimeError, ... from Ray
        where = f"at {remote!r}" if remote is not None else "locally"
        raise DistributedError(f"could not start or reach Ray {where}: {error}") from None
    return True


__all__ = ["LOCAL", "RAY_MISSING", "DistributedError", "check_reachable", "connect", "import_ray"]
