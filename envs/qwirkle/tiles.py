"""Qwirkle's material: colours, shapes, tiles and their two-character notation.

A tile is stored as a small int, its *tile id* ``6 * colour + shape`` (0 to 35), so that sets
of tiles are 36-bit integer masks and lookups are list indexing. :class:`Colour` and
:class:`Shape` name the parts; :func:`parse_tile` and :func:`tile_name` convert to and from
the rules reference's notation (colour letter ``R O Y G B P``, shape letter ``o x d s t c``).

>>> t = parse_tile("rs")
>>> tile_name(t), colour_of(t).name, shape_of(t).name
('Rs', 'RED', 'SQUARE')
>>> tile_of(Colour.ORANGE, Shape.CIRCLE) == parse_tile("Oo")
True
>>> len(full_set())
108
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

import numpy as np

from ..core.checks import brief_repr
from ..errors import NotationError

Tile = int
"""A tile id: ``6 * colour + shape``, 0 to 35."""

NUM_COLOURS = 6
NUM_SHAPES = 6
NUM_KINDS = NUM_COLOURS * NUM_SHAPES
COPIES = 3
NUM_TILES = NUM_KINDS * COPIES
HAND_SIZE = 6


class Colour(IntEnum):
    """The six colours, in the rules reference's order."""

    RED = 0
    ORANGE = 1
    YELLOW = 2
    GREEN = 3
    BLUE = 4
    PURPLE = 5

    @property
    def letter(self) -> str:
        return COLOUR_LETTERS[self]


class Shape(IntEnum):
    """The six shapes, in the rules reference's order."""

    CIRCLE = 0
    CROSS = 1
    DIAMOND = 2
    SQUARE = 3
    STAR = 4
    CLOVER = 5

    @property
    def letter(self) -> str:
        return SHAPE_LETTERS[self]


COLOUR_LETTERS = "ROYGBP"
SHAPE_LETTERS = "oxdstc"

ALL_TILES_MASK = (1 << NUM_KINDS) - 1
"""The 36-bit mask holding every tile kind."""
COLOUR_MASKS = tuple(sum(1 << (6 * c + s) for s in range(6)) for c in range(6))
"""``COLOUR_MASKS[c]``: the mask of the six tiles of colour ``c``."""
SHAPE_MASKS = tuple(sum(1 << (6 * c + s) for c in range(6)) for s in range(6))
"""``SHAPE_MASKS[s]``: the mask of the six tiles of shape ``s``."""


def tile_of(colour: Colour | int, shape: Shape | int) -> Tile:
    """The id of the tile with ``colour`` and ``shape``."""
    return 6 * int(colour) + int(shape)


def colour_of(tile: Tile) -> Colour:
    return Colour(tile // 6)


def shape_of(tile: Tile) -> Shape:
    return Shape(tile % 6)


def tile_name(tile: Tile) -> str:
    """Two-character notation: upper-case colour, lower-case shape (``"Rs"``)."""
    return COLOUR_LETTERS[tile // 6] + SHAPE_LETTERS[tile % 6]


def parse_tile(code: str | int) -> Tile:
    """A tile id from its notation (case-insensitive), or an id passed through.

    >>> parse_tile("PC"), parse_tile(7)
    (35, 7)
    >>> parse_tile("Rz")
    Traceback (most recent call last):
    ...
    tabletop_rl.envs.errors.NotationError: 'Rz' is not a tile: expected a colour letter ...
    """
    if isinstance(code, int | np.integer) and not isinstance(code, bool | np.bool_):
        if 0 <= code < NUM_KINDS:
            return int(code)
        raise NotationError(
            f"tile id {brief_repr(code)} is out of range; allowed: 0 to {NUM_KINDS - 1}"
        )
    if isinstance(code, str) and len(code) == 2:
        c = COLOUR_LETTERS.find(code[0].upper())
        s = SHAPE_LETTERS.find(code[1].lower())
        if c >= 0 and s >= 0:
            return 6 * c + s
    raise NotationError(
        f"{brief_repr(code)} is not a tile: expected a colour letter R O Y G B P and a shape "
        "letter o x d s t c, e.g. 'Rs', or a tile id from 0 to 35"
    )


def tiles_mask(tiles: Iterable[Tile]) -> int:
    """The 36-bit mask of the kinds in ``tiles``."""
    m = 0
    for t in tiles:
        m |= 1 << t
    return m


def full_set() -> list[Tile]:
    """All 108 tiles: three copies of each of the 36 kinds, in id order."""
    return [k for k in range(NUM_KINDS) for _ in range(COPIES)]


def format_tiles(tiles: Iterable[Tile]) -> str:
    """Tiles in notation, separated by spaces.

    >>> format_tiles([0, 35])
    'Ro Pc'
    """
    return " ".join(tile_name(t) for t in tiles)
