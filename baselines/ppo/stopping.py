"""Stopping a training run cleanly on Ctrl-C (SIGINT) or SIGTERM.

Ctrl-C in a terminal sends SIGINT to the whole process group: the trainer and its rollout
workers. While a :class:`StopRequest` is active, the trainer notes the signal; the rollout
workers ignore SIGINT (:mod:`.rollout` starts them so), and the trainer ends them itself when
it closes its games. What happens next depends on where the trainer is:

- inside an :meth:`StopRequest.interruptible` section (collecting games, the PPO update, an
  evaluation), :class:`TrainingStopped` is raised at once: the work since the last update
  boundary is dropped, and the trainer writes the checkpoint of that boundary;
- elsewhere (logging, writing a checkpoint), the request is kept and the trainer stops at the
  end of the current update.

Either way the run stops within seconds, a checkpoint is written, and ``--resume`` continues
exactly as if the run had not been stopped (the checkpoint is an update boundary).

>>> with StopRequest() as stop:
...     stop.requested is None
True
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class TrainingStopped(Exception):
    """Raised inside an interruptible section when a stop was requested."""


class BudgetSpent(Exception):
    """Raised inside collection or the PPO update when the run's time budget is spent: the
    work since the last update boundary is dropped, and the run ends at that boundary."""


class StopRequest:
    """Catches SIGINT and SIGTERM for the duration of a ``with`` block (main thread only)."""

    def __init__(self) -> None:
        self.requested: str | None = None
        """The name of the first signal received (``"SIGINT"``, ``"SIGTERM"``), or None."""
        self._interruptible = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopRequest:
        if threading.current_thread() is threading.main_thread():
            for sig in SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested is None:
            self.requested = signal.Signals(signum).name
        if self._interruptible:
            self._interruptible = False
            raise TrainingStopped(self.requested)

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """A section that a stop request ends at once (by :class:`TrainingStopped`)."""
        if self.requested is not None:
            raise TrainingStopped(self.requested)
        self._interruptible = True
        try:
            yield
        finally:
            self._interruptible = False


__all__ = ["SIGNALS", "BudgetSpent", "StopRequest", "TrainingStopped"]
