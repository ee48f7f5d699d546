"""A scripted tic-tac-toe player for the trainer's test game (:mod:`..ppo.toy`).

Deterministic, so a student can copy it exactly: the behaviour-cloning and kickstarting tests
use it as their teacher.

>>> import numpy as np
>>> agent = TicTacToeTacticsAgent(np.random.default_rng(0))
>>> cells = np.array([0, 0, -1, 1, 1, -1, -1, -1, -1])  # seat 0 to move: 0 and 1 are its
>>> mask = (cells < 0).astype(np.int8)
>>> agent.act({"action_mask": mask}, cells)  # completes its top row
2
>>> cells = np.array([0, -1, -1, 1, 1, -1, 0, -1, -1])  # seat 1 to move (4 marks down)
>>> agent.act({"action_mask": (cells < 0).astype(np.int8)}, cells)  # completes its middle row
5
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .base import SeededAgent

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
PREFERENCE = (4, 0, 2, 6, 8, 1, 3, 5, 7)
"""Cells in the order taken when nothing is won or blocked: centre, corners, edges."""


class TicTacToeTacticsAgent(SeededAgent):
    """Wins if it can, else blocks the opponent's win, else takes the first free cell of
    :data:`PREFERENCE`. ``view`` is the board (-1 empty, else the seat that marked it)."""

    name = "tactics"

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        cells = np.asarray(view)
        me = int((cells >= 0).sum() % 2)
        for who in (me, 1 - me):
            for line in LINES:
                marks = cells[list(line)]
                if (marks == who).sum() == 2 and (marks < 0).sum() == 1:
                    return int(line[int(np.flatnonzero(marks < 0)[0])])
        mask = observation["action_mask"]
        return next(cell for cell in PREFERENCE if mask[cell])
