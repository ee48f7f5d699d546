"""Qwirkle's rules engine: tiles and notation, the unbounded board, move generation, the game.

Pure and deterministic given a ``numpy.random.Generator``; no rendering and no PettingZoo
here (the environment is :mod:`tabletop_rl.envs.qwirkle_v0`, the pictures are in
:mod:`.render`, imported only when asked for).

>>> board = Board.from_text('''
... Ro Rx ..
... .. Ox ..''')
>>> board.score([(0, 2, "Rd")])
3
"""

from __future__ import annotations

from .board import Board, Cell, Move, Placement, line_fits, line_problem
from .game import CENTRE, END_BONUS, GameState, TurnKind, TurnResult
from .moves import (
    extensions,
    first_turn_moves,
    format_move,
    largest_sets,
    legal_moves,
    start_number,
)
from .tiles import (
    HAND_SIZE,
    NUM_KINDS,
    NUM_TILES,
    Colour,
    Shape,
    Tile,
    colour_of,
    format_tiles,
    parse_tile,
    shape_of,
    tile_name,
    tile_of,
)

__all__ = [
    "CENTRE",
    "END_BONUS",
    "HAND_SIZE",
    "NUM_KINDS",
    "NUM_TILES",
    "Board",
    "Cell",
    "Colour",
    "GameState",
    "Move",
    "Placement",
    "Shape",
    "Tile",
    "TurnKind",
    "TurnResult",
    "colour_of",
    "extensions",
    "first_turn_moves",
    "format_move",
    "format_tiles",
    "largest_sets",
    "legal_moves",
    "line_fits",
    "line_problem",
    "parse_tile",
    "shape_of",
    "start_number",
    "tile_name",
    "tile_of",
]
