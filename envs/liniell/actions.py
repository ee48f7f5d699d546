"""Liniell's action space: indices, typed actions and the play notation.

``4 * cell + rotation`` lays the drawn tile on window cell ``cell = 7 * row + col`` turned
``rotation`` quarter-turns clockwise (0 to 195); ``OCCUPY + 3 * port + source`` occupies the
laid tile's line through ``port`` with a pawn from ``source`` (196 to 207); ``SKIP`` (208)
occupies nothing.

>>> codec = LiniellCodec()
>>> codec.decode(4 * (7 * 2 + 3) + 1)
Lay(row=2, col=3, rotation=1)
>>> codec.encode(Occupy(Port.N, PawnSource.PLACED_1)) == OCCUPY + 1
True
>>> codec.to_text(None, OCCUPY + 3 * 2)
'occupy S'
>>> codec.parse(None, "2,3 r1") == 4 * (7 * 2 + 3) + 1
True
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from ..core.checks import bounded_int, brief_number
from ..core.model import ActionCodec
from ..errors import NotationError
from .board import NUM_CELLS, WINDOW
from .game import PawnSource
from .tiles import Port

NUM_LAY = NUM_CELLS * 4
"""Lay actions: window cell x rotation."""
OCCUPY = NUM_LAY
"""First occupy action: ``OCCUPY + 3 * port + source``."""
NUM_SOURCES = len(PawnSource)
SKIP = OCCUPY + 4 * NUM_SOURCES
"""Occupy nothing."""
NUM_ACTIONS = SKIP + 1


class Lay(NamedTuple):
    """Lay the drawn tile on window cell (row, col), turned ``rotation`` quarter-turns."""

    row: int
    col: int
    rotation: int

    @classmethod
    def at_cell(cls, cell: int, rotation: int) -> Lay:
        """The lay on flat window cell ``cell = 7 * row + col`` (the engine's numbering).

        >>> Lay.at_cell(17, 2)
        Lay(row=2, col=3, rotation=2)
        """
        return cls(*divmod(cell, WINDOW), rotation)


class Occupy(NamedTuple):
    """Put a pawn from ``source`` on the laid tile's line through ``port``."""

    port: Port
    source: PawnSource


class Skip(NamedTuple):
    """Occupy nothing (only in the optional occupy step)."""


LiniellAction = Lay | Occupy | Skip

_LAY = re.compile(r"^(?:lay\s+)?(\d+)\s*,\s*(\d+)(?:\s*(?:r|rot|rotation)?\s*(\d+))?$")
_OCCUPY = re.compile(r"^(?:occupy|move)\s+([nesw])(?:\s+(?:from|with|pawn)\s*(\d))?$")
PORTS = "NESW"


class LiniellCodec(ActionCodec[Any, LiniellAction]):
    """Liniell's action codec; the notation is ``ROW,COL rK``, ``occupy N [from 1]``,
    ``skip`` at the window coordinates the board shows (no state needed)."""

    num_actions = NUM_ACTIONS

    def decode(self, action: int) -> LiniellAction:
        action = self.check_index(action)
        if action < NUM_LAY:
            return Lay.at_cell(*divmod(action, 4))
        if action < SKIP:
            port, source = divmod(action - OCCUPY, NUM_SOURCES)
            return Occupy(Port(port), PawnSource(source))
        return Skip()

    def encode(self, action: LiniellAction) -> int:
        if isinstance(action, Lay):
            row, col, rotation = action
            if not (0 <= row < WINDOW and 0 <= col < WINDOW and 0 <= rotation < 4):
                raise NotationError(
                    f"{action} is outside the window (rows and columns 0 to {WINDOW - 1}, "
                    "rotations 0 to 3)"
                )
            return 4 * (row * WINDOW + col) + rotation
        if isinstance(action, Occupy):
            return OCCUPY + NUM_SOURCES * int(action.port) + int(action.source)
        if isinstance(action, Skip):
            return SKIP
        raise NotationError(f"{action!r} is not a Liniell action (Lay, Occupy or Skip)")

    def to_text(self, state: Any, action: int) -> str:
        move = self.decode(action)
        if isinstance(move, Lay):
            return f"{move.row},{move.col} r{move.rotation}"
        if isinstance(move, Occupy):
            source = int(move.source)
            return f"occupy {move.port.name}" + (f" from {source}" if source else "")
        return "skip"

    def parse(self, state: Any, text: str) -> int:
        if not isinstance(text, str):
            raise NotationError(f"a Liniell move is text, got {type(text).__name__}")
        text = " ".join(text.strip().lower().split())
        if text in ("skip", "none", "nothing"):
            return SKIP
        m = _LAY.match(text)
        if m:
            row, col = bounded_int(m[1], WINDOW), bounded_int(m[2], WINDOW)
            if row is None or col is None:
                raise NotationError(
                    f"cell {brief_number(m[1])},{brief_number(m[2])} is outside the window "
                    f"(0 to {WINDOW - 1})"
                )
            rot = bounded_int(m[3] or "0", 4)
            if rot is None:
                raise NotationError(f"rotation r{brief_number(m[3])} does not exist; use r0 to r3")
            return self.encode(Lay(row, col, rot))
        m = _OCCUPY.match(text)
        if m:
            source = int(m[2] or 0)
            if source >= NUM_SOURCES:
                raise NotationError(f"you have placed pawns 1 to {NUM_SOURCES - 1}, not {source}")
            return self.encode(Occupy(Port(PORTS.index(m[1].upper())), PawnSource(source)))
        raise NotationError(
            f"{text!r} is not a Liniell move; write ROW,COL rK to lay, 'occupy N' "
            "(or 'occupy N from 1'), or 'skip'"
        )


__all__ = [
    "NUM_ACTIONS",
    "NUM_LAY",
    "NUM_SOURCES",
    "OCCUPY",
    "SKIP",
    "Lay",
    "LiniellAction",
    "LiniellCodec",
    "Occupy",
    "Skip",
]
