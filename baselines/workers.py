"""Worker processes that are safe to start from a process where torch has run.

A process forked after torch ran a parallel operation (loading a ``ppo:`` policy builds its
network) inherits torch's thread pool in a state where it waits forever on one of its locks.
Every pool of worker processes in the baselines (the arena's games, the games PPO trains,
clones and evaluates on) therefore gets its processes from :func:`worker_context`: a fork
server (a fresh process, started once per parent process, that never imports torch and
forks each worker with :func:`preload_modules` already imported), or ``spawn`` where the
platform has no fork server; forking the parent is not offered. A worker starts without the
parent's modules, so what it runs must be a module-level function with picklable arguments,
and the modules it imports (the main script's too) must do nothing but define things when
imported.

Workers that load torch (a ``ppo:`` agent) run it on :data:`WORKER_TORCH_THREADS` thread
each, as forked rollout workers did with the default ``torch_threads`` (the workers are the
parallelism; one thread per core each would oversubscribe the machine): each worker runs
:func:`init_worker` first, and the code that loads torch there calls
:func:`use_worker_threads`.

>>> worker_context().get_start_method() in ("forkserver", "spawn")
True
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from multiprocessing.context import BaseContext

PRELOAD = ("tabletop_rl.baselines.arena.games", "tabletop_rl.baselines.ppo.rollout")
"""The modules every worker needs (the arena's games, PPO's game slots), imported once by the
fork server; neither imports torch."""

TORCH_FREE = ("tabletop_rl.envs.", "tabletop_rl.baselines.agents.")
"""Packages whose modules never import torch (the environments run without it; the scripted
agents too): those of them this process has imported, the games' compiled kernels among
them, are imported by the fork server as well, so a worker starts with them loaded, as a
forked one did."""

WORKER_TORCH_THREADS = 1
"""Threads of torch in each worker process."""

_torch_threads: int | None = None
"""In a worker process (set by :func:`init_worker`): the threads its torch uses; None in
any other process, whose torch settings are its own."""


def start_method() -> str:
    """``forkserver`` where the platform has one (Linux, macOS), else ``spawn``."""
    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


def worker_context() -> BaseContext:
    """The multiprocessing context every worker pool of the baselines starts processes from
    (see the module docstring); pass :func:`init_worker` as each worker's first call."""
    method = start_method()
    ctx = mp.get_context(method)
    if method == "forkserver":  # a no-op once this process's fork server runs
        ctx.set_forkserver_preload(preload_modules())
    return ctx


def preload_modules() -> list[str]:
    """What the fork server imports when it starts: :data:`PRELOAD` and the modules of
    :data:`TORCH_FREE` packages that this process has imported."""
    loaded = sorted(name for name in list(sys.modules) if name.startswith(TORCH_FREE))
    return [*PRELOAD, *loaded]


def worker_lost(what: str) -> RuntimeError:
    """The error for ``what`` (a worker process) ending without an answer; the worker printed
    its own error first."""
    return RuntimeError(
        f"{what} ended unexpectedly (its error is printed above); a script that starts worker "
        'processes must run its top-level code under `if __name__ == "__main__":`'
    )


def init_worker() -> None:
    """A worker's first call: torch, if the worker loads it, runs on
    :data:`WORKER_TORCH_THREADS` threads (:func:`use_worker_threads`)."""
    global _torch_threads
    _torch_threads = WORKER_TORCH_THREADS
    use_worker_threads()


def use_worker_threads() -> None:
    """In a worker process with torch loaded: run torch on the worker's threads. Call it where
    a worker may have just imported torch; elsewhere (no torch yet, or not a worker) it does
    nothing."""
    torch = sys.modules.get("torch")
    if _torch_threads is not None and torch is not None:
        torch.set_num_threads(_torch_threads)


__all__ = [
    "PRELOAD",
    "TORCH_FREE",
    "WORKER_TORCH_THREADS",
    "init_worker",
    "preload_modules",
    "start_method",
    "use_worker_threads",
    "worker_context",
    "worker_lost",
]
