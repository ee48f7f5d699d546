"""The turn in progress: the tiles a player has laid so far, before ending the turn.

An environment step lays one tile; the rules judge the whole move when the turn ends. The
:class:`TurnBuilder` holds what is laid so far (cells, hand slots, order) so that the game
model, the masks, the observation and the renderers read one record of it.

>>> turn = TurnBuilder()
>>> turn.lay((0, 0), slot=2, tile=5)
>>> turn.lay((0, 1), slot=0, tile=11)
>>> turn.slot_used(2), turn.slot_used(1)
(True, False)
>>> turn.move()
((0, 0, 5), (0, 1, 11))
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .board import Cell
from .tiles import Tile


@dataclass
class TurnBuilder:
    """Tiles laid so far this turn, in order."""

    pending: dict[Cell, Tile] = field(default_factory=dict)
    """Board cell -> tile laid there this turn."""
    order: list[tuple[int, int, int]] = field(default_factory=list)
    """``(row, col, slot)`` of each tile laid this turn, in order."""
    used: int = 0
    """Bitmask of the hand slots laid this turn."""

    def lay(self, cell: Cell, slot: int, tile: Tile) -> None:
        """Record ``tile`` from hand ``slot`` laid on board ``cell``."""
        self.pending[cell] = tile
        self.order.append((*cell, slot))
        self.used |= 1 << slot

    def slot_used(self, slot: int) -> bool:
        """Hand ``slot`` was laid this turn."""
        return bool(self.used >> slot & 1)

    @property
    def started(self) -> bool:
        """At least one tile is laid this turn."""
        return bool(self.order)

    def move(self) -> tuple[tuple[int, int, Tile], ...]:
        """The placements ``(row, col, tile)`` in the order they were laid."""
        return tuple((r, c, self.pending[(r, c)]) for r, c, _slot in self.order)

    def clear(self) -> None:
        """Start a new turn."""
        self.pending = {}
        self.order = []
        self.used = 0

    def copy(self) -> TurnBuilder:
        return TurnBuilder(dict(self.pending), list(self.order), self.used)
