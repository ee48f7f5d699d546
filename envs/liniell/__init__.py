"""The Liniell rules engine (pure; no rendering, no PettingZoo).

Implements ``docs/rules/liniell.md`` with every **[decision]**: the tile model and the
default tile set (data, ``tilesets/default.json``), rotation, the 4 x 4 rule, the same-colour
merge ban, compulsory pawn moves after joining occupied lines, and route scoring.

>>> from tabletop_rl.envs.liniell import score_position
>>> [s.points for s in score_position('''
... curve_bb:0 star:0
... pawns: 0@0,0:S 1@0,1:N
... ''')]
[2, 2]
"""

from .board import CENTRE_CELL, IN_SUPPLY, NUM_CELLS, WINDOW, Board, Join
from .game import Game, Occupation, PawnSource, Phase
from .notation import from_text, to_text
from .scoring import PlayerScore, RouteKind, RouteScore, score_line, score_position, winners
from .tiles import Diamond, Group, Orientation, Port, TileKind
from .tileset import TileSet, TileSetError, load_tile_set, parse_tile_set, shipped_tile_sets

__all__ = [
    "CENTRE_CELL",
    "IN_SUPPLY",
    "NUM_CELLS",
    "WINDOW",
    "Board",
    "Diamond",
    "Game",
    "Group",
    "Join",
    "Occupation",
    "Orientation",
    "PawnSource",
    "Phase",
    "PlayerScore",
    "Port",
    "RouteKind",
    "RouteScore",
    "TileKind",
    "TileSet",
    "TileSetError",
    "from_text",
    "load_tile_set",
    "parse_tile_set",
    "score_line",
    "score_position",
    "shipped_tile_sets",
    "to_text",
    "winners",
]
