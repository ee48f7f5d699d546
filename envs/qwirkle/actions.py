"""Qwirkle's action space: indices, typed actions and the play notation.

With a ``W x W`` board window (39 by default): ``slot * W * W + row * W + col`` lays hand slot
``slot`` on window cell (row, col); ``END = 6 * W * W`` ends the turn after laying tiles;
``END + m`` (``m`` 1 to 63) exchanges the hand slots of bitmask ``m``; ``END + 64`` passes.

The notation names tiles by colour and shape (``Rs`` is a red square) and cells by window
row and column, as the board is shown: ``Rs@3,4`` lays a red square from the hand,
``end`` ends the turn, ``swap Rs Bo`` exchanges, ``pass`` passes.

>>> codec = QwirkleCodec(window=15)
>>> codec.decode(2 * 15 * 15 + 3 * 15 + 4)
Place(slot=2, row=3, col=4)
>>> codec.decode(codec.end + 0b101)
Exchange(slots=(0, 2))
>>> codec.encode(Pass()) == codec.end + 64
True
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from ..core.checks import bounded_int, brief_number
from ..core.model import ActionCodec
from ..errors import NotationError
from .tiles import HAND_SIZE, parse_tile, tile_name

if TYPE_CHECKING:
    from .model import QwirkleState

NUM_EXCHANGES = (1 << HAND_SIZE) - 1


class Place(NamedTuple):
    """Lay the tile in hand ``slot`` on window cell (row, col)."""

    slot: int
    row: int
    col: int


class EndTurn(NamedTuple):
    """End the turn after laying tiles (the rules judge the whole move now)."""


class Exchange(NamedTuple):
    """Exchange the tiles in these hand slots with the bag (start of a turn only)."""

    slots: tuple[int, ...]

    @classmethod
    def from_bits(cls, bits: int) -> Exchange:
        """The exchange of the slots whose bits are set in ``bits``.

        >>> Exchange.from_bits(0b101)
        Exchange(slots=(0, 2))
        """
        return cls(tuple(s for s in range(HAND_SIZE) if bits >> s & 1))


class Pass(NamedTuple):
    """Pass (only when no tile can be laid and none exchanged)."""


QwirkleAction = Place | EndTurn | Exchange | Pass

_PLACE = re.compile(r"^([a-z]{2})@(-?\d+),(-?\d+)$")


class QwirkleCodec(ActionCodec["QwirkleState", QwirkleAction]):
    """Qwirkle's action codec for a ``window x window`` board window."""

    def __init__(self, window: int) -> None:
        self.window = window
        self.cells = window * window
        self.end = HAND_SIZE * self.cells
        """The end-turn action; ``end + m`` exchanges bitmask ``m``; ``end + 64`` passes."""
        self.pass_action = self.end + NUM_EXCHANGES + 1
        self.num_actions = self.pass_action + 1

    def decode(self, action: int) -> QwirkleAction:
        action = self.check_index(action)
        if action < self.end:
            slot, cell = divmod(action, self.cells)
            return Place(slot, *divmod(cell, self.window))
        if action == self.end:
            return EndTurn()
        if action <= self.end + NUM_EXCHANGES:
            return Exchange.from_bits(action - self.end)
        return Pass()

    def encode(self, action: QwirkleAction) -> int:
        w = self.window
        if isinstance(action, Place):
            slot, row, col = action
            if not (0 <= slot < HAND_SIZE and 0 <= row < w and 0 <= col < w):
                raise NotationError(
                    f"{action} is out of range: slots 0 to {HAND_SIZE - 1}, window rows and "
                    f"columns 0 to {w - 1}"
                )
            return slot * self.cells + row * w + col
        if isinstance(action, EndTurn):
            return self.end
        if isinstance(action, Exchange):
            if not action.slots or any(not 0 <= s < HAND_SIZE for s in action.slots):
                raise NotationError(
                    f"{action} must name 1 to 6 distinct slots from 0 to {HAND_SIZE - 1}"
                )
            return self.end + sum(1 << s for s in set(action.slots))
        if isinstance(action, Pass):
            return self.pass_action
        raise NotationError(f"{action!r} is not a Qwirkle action (Place, EndTurn, Exchange, Pass)")

    def to_text(self, state: QwirkleState, action: int) -> str:
        move = self.decode(action)
        hand = state.game.hand
        if isinstance(move, Place):
            tile = tile_name(hand[move.slot]) if move.slot < len(hand) else f"slot{move.slot}"
            return f"{tile}@{move.row},{move.col}"
        if isinstance(move, Exchange):
            return "swap " + " ".join(
                tile_name(hand[s]) if s < len(hand) else f"slot{s}" for s in move.slots
            )
        return "end" if isinstance(move, EndTurn) else "pass"

    def parse(self, state: QwirkleState, text: str) -> int:
        """One sub-action: a placement ``Rs@3,4`` (the first hand slot holding that tile not
        yet laid this turn), ``end``, ``swap Rs Bo`` or ``pass``."""
        if not isinstance(text, str):
            raise NotationError(f"a Qwirkle move is text, got {type(text).__name__}")
        words = re.sub(r"\s*([@,])\s*", r"\1", text.strip().lower()).split()
        if not words:
            raise NotationError("empty move")
        if words == ["pass"]:
            return self.encode(Pass())
        if words in (["end"], ["done"]):
            return self.end
        hand = state.game.hand
        free = [s for s in range(len(hand)) if not state.turn.slot_used(s)]

        def take(code: str) -> int:
            tile = parse_tile(code)
            for s in free:
                if hand[s] == tile:
                    free.remove(s)
                    return s
            held = " ".join(tile_name(hand[s]) for s in free) or "none"
            raise NotationError(f"you hold no (more) {tile_name(tile)}; your tiles: {held}")

        if words[0] in ("swap", "exchange"):
            if len(words) == 1:
                raise NotationError("name the tiles to swap, e.g. 'swap Rs Bo'")
            return self.encode(Exchange(tuple(take(code) for code in words[1:])))
        if len(words) != 1:
            raise NotationError(f"{text!r} is more than one move; give one placement, e.g. Rs@3,4")
        m = _PLACE.match(words[0])
        if m is None:
            raise NotationError(
                f"{words[0]!r} is not a placement; write tile@row,col such as Rs@3,4"
            )
        row, col = (
            None if digits.startswith("-") else bounded_int(digits, self.window)
            for digits in (m[2], m[3])
        )
        if row is None or col is None:
            raise NotationError(
                f"cell {brief_number(m[2])},{brief_number(m[3])} is outside the board window "
                f"(0 to {self.window - 1})"
            )
        return self.encode(Place(take(m[1]), row, col))


__all__ = ["NUM_EXCHANGES", "EndTurn", "Exchange", "Pass", "Place", "QwirkleAction", "QwirkleCodec"]
