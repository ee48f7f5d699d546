"""Liniell's compiled core, its layout: where each thing lives in a game's ``int16`` vector.

A game is one ``int16`` vector (:data:`STATE_SIZE` entries, offsets named here): laid tiles,
a union-find over line pieces, open ports, every line's route score, pawns, the stack, the
phase and a few counters, plus scratch space for the route search (so no kernel allocates).
Here also: the action ids, the observation's field order as the kernels write it, and
:func:`geometry`, which turns the tile set (data, :class:`~.tileset.TileSet`) into the two
arrays every kernel takes. The kernels: :mod:`.compiled_lines` (lines and route scores),
:mod:`.compiled` (the rules), :mod:`.compiled_observation` (the observation).
"""

from __future__ import annotations

import numpy as np

from .board import MAX_PLAYERS
from .grid import CENTRE_CELL, NEIGHBOUR, NUM_CELLS, WINDOW
from .tiles import PORT_DELTA
from .tileset import NUM_TILES, TileSet

LAY, OCCUPY, MOVE, OVER = 0, 1, 2, 3
"""Phases (as the reference's ``Phase``: lay, optional occupy, compulsory move, over)."""
NUM_PIECES = NUM_CELLS * 4
NUM_LAY = NUM_PIECES
"""Lay actions ``4 * cell + rotation``; then ``OCCUPY_ACTION + 3 * port + source``; skip."""
OCCUPY_ACTION = NUM_LAY
SKIP_ACTION = OCCUPY_ACTION + 12
NUM_ACTIONS = SKIP_ACTION + 1
HISTORY = 64
"""Actions remembered per game (at most 48 are played: 16 turns of up to 3 steps)."""

NB = np.array(NEIGHBOUR, dtype=np.int64)
"""``NB[cell, port]``: the window cell across ``port``, or -1."""
assert len(PORT_DELTA) == 4 and CENTRE_CELL == (WINDOW // 2) * (WINDOW + 1)

# geometry columns: geom[kind, rotation, column]
G_PG = 0
"""4 entries: the group holding each port."""
G_NP = 4
"""4 entries: each group's number of ports."""
G_GP = 8
"""16 entries: group g's ports at ``G_GP + 4 g`` (ascending, as the reference's groups)."""
G_CODE = 24
"""4 entries: each group's diamond (0 none, 1 empty, 2 blue)."""
G_NG = 28
"""The tile's number of groups."""
G_SIZE = 29

# state vector offsets
KIND = 0
"""49 entries: kind on each window cell, -1 when empty."""
ROT = KIND + NUM_CELLS
PIECES = ROT + NUM_CELLS
"""196 records of :data:`PIECE_STRIDE` entries, one per piece (``4 * cell + group``), the
fields below at ``field + PIECE_STRIDE * piece`` (a tile's pieces share a cache line)."""
PIECE_STRIDE = 8
ROOT = PIECES
"""The root piece of the piece's line. Lines are kept as quick-find sets: every piece knows
its root, each line's pieces form a ring through ``NEXT``, and a join relabels the smaller
line."""
NEXT = PIECES + 1
"""The next piece of the same line (a ring)."""
SIZE = PIECES + 2
"""The number of pieces of the line (valid at roots)."""
OPEN = PIECES + 3
"""Ports of the piece that face no tile (the reference's ``open_ports``)."""
ROUTE_POINTS = PIECES + 4
"""Route points of the line (valid at roots)."""
ROUTE_BLUE = PIECES + 5
"""Blue diamonds at the ends of the line's route (valid at roots)."""
VISITED = PIECES + 6
"""Scratch of the route search: the piece is on the current path."""
RANK = PIECES + 7
"""Scratch of the route search: the stub's number among the line's stubs."""
PAWNS = PIECES + PIECE_STRIDE * NUM_PIECES
"""8 entries: ``PAWNS + 2 * player + slot``: the piece under the pawn, -1 in supply."""
STACK = PAWNS + 2 * MAX_PLAYERS
"""16 entries: the shuffled stack, drawn from the end; entries past ``STACK_SIZE`` are the
tiles drawn so far (the last one first), so the whole deal stays readable."""
PENDING = STACK + NUM_TILES
"""4 entries: the pieces of the joins still to run (compulsory moves), in port order."""
LAID = PENDING + 4
"""16 entries: laid cells in the order they were laid."""
LAY_MASK = LAID + NUM_TILES
"""49 entries: the legal rotations of the drawn tile on each cell, as bits (computed once
per turn)."""
HIST = LAY_MASK + NUM_CELLS
"""64 entries: the actions played."""
NUM_PLAYERS = HIST + HISTORY
STACK_SIZE = NUM_PLAYERS + 1
NUM_LAID = NUM_PLAYERS + 2
RMIN = NUM_PLAYERS + 3
RMAX = NUM_PLAYERS + 4
CMIN = NUM_PLAYERS + 5
CMAX = NUM_PLAYERS + 6
CURRENT = NUM_PLAYERS + 7
START = NUM_PLAYERS + 8
PHASE = NUM_PLAYERS + 9
DRAWN = NUM_PLAYERS + 10
"""The drawn kind (-1 once laid)."""
LAST = NUM_PLAYERS + 11
"""The cell laid last (-1 before the first lay)."""
TURN = NUM_PLAYERS + 12
EARLY = NUM_PLAYERS + 13
"""1 when the game ended on a drawn tile that fits nowhere."""
NUM_PENDING = NUM_PLAYERS + 14
NUM_HIST = NUM_PLAYERS + 15
NUM_LEGAL_LAYS = NUM_PLAYERS + 16
FRONTIER = NUM_PLAYERS + 17
"""4 entries: the empty cells next to a laid tile, as a 49-bit set in four 16-bit words."""
# scratch space (contents meaningless between kernel calls)
SCRATCH = FRONTIER + 4
COUNT = SCRATCH
MEMBERS = COUNT + NUM_CELLS
DEPTH_U = MEMBERS + 4 * NUM_TILES
DEPTH_I = DEPTH_U + 4 * NUM_TILES + 1
DEPTH_T = DEPTH_I + 4 * NUM_TILES + 1
NROOT = DEPTH_T + 4 * NUM_TILES + 1
"""4 entries: the line roots across each port of a cell."""
OCC_ROOT = NROOT + 4
"""8 entries: the line root under each pawn slot (-1 in supply)."""
COMP = OCC_ROOT + 2 * MAX_PLAYERS
JOIN = COMP + 4
BEST = JOIN + 4
"""2 entries: the best route found so far (tiles, points)."""
TMP = BEST + 2
"""4 entries: each player's points before a step."""
STATE_SIZE = TMP + MAX_PLAYERS

# observation field order of ``off`` (start offsets, from the model's layout)
OBS_FIELDS = (
    "tiles",
    "last_laid",
    "pawns",
    "lines",
    "routes",
    "own_pawns",
    "drawn",
    "drawn_kind",
    "stack",
    "stack_size",
    "supply",
    "scores",
    "blue",
    "seated",
    "to_act",
    "phase",
)
(
    F_TILES,
    F_LAST,
    F_PAWNS,
    F_LINES,
    F_ROUTES,
    F_OWN,
    F_DRAWN,
    F_KIND,
    F_STACK,
    F_STACK_SIZE,
    F_SUPPLY,
    F_SCORES,
    F_BLUE,
    F_SEATED,
    F_TO_ACT,
    F_PHASE,
) = range(len(OBS_FIELDS))
PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
TILE_FEATURES = 1 + len(PAIRS) + 8
W_TILES, W_LAST, W_COUNT, W_ENTRIES = 0, 1, 2, 3
"""``written`` (see :func:`observe_update`): tiles shown, last laid cell shown, the number
of player-plane entries written, then those entries."""
WRITTEN_SIZE = (
    W_ENTRIES
    + 2 * MAX_PLAYERS * 4  # pawns: the ports of each pawn's piece
    + NUM_TILES * 4 * MAX_PLAYERS  # lines: each port once per pawn on its line
    + 2  # own pawns
)


# ------------------------------------------------------------------- geometry
def geometry(tile_set: TileSet) -> tuple[np.ndarray, np.ndarray]:
    """The tile set as arrays: ``geom`` (kinds, 4 rotations, :data:`G_SIZE`) ``int16`` (see
    the ``G_*`` columns) and ``feats`` (kinds, 4, 15) ``float32``, each oriented tile's
    features as the observation's ``tiles`` planes write them.

    >>> from tabletop_rl.envs.liniell.tileset import load_tile_set
    >>> geom, feats = geometry(load_tile_set("default"))
    >>> geom.shape, feats.shape
    ((11, 4, 29), (11, 4, 15))
    >>> geom[4, 1, G_PG : G_PG + 4].tolist()  # the bridge turned once: EW is group 0
    [1, 0, 1, 0]
    """
    kinds = tile_set.kinds
    geom = np.zeros((len(kinds), 4, G_SIZE), dtype=np.int16)
    feats = np.zeros((len(kinds), 4, TILE_FEATURES), dtype=np.float32)
    codes = {None: 0, "empty": 1, "blue": 2}
    for k, kind in enumerate(kinds):
        for r in range(4):
            orient = kind.orient(r)
            row = geom[k, r]
            row[G_PG : G_PG + 4] = orient.port_group
            row[G_NG] = len(orient.groups)
            feats[k, r, 0] = 1
            for g, group in enumerate(orient.groups):
                ports = [int(p) for p in group.ports]
                row[G_NP + g] = len(ports)
                row[G_GP + 4 * g : G_GP + 4 * g + len(ports)] = ports
                diamond = None if group.diamond is None else group.diamond.value
                row[G_CODE + g] = codes[diamond]
                if diamond is not None:
                    feats[k, r, 1 + len(PAIRS) + (4 if diamond == "blue" else 0) + ports[0]] = 1
                for i, (a, b) in enumerate(PAIRS):
                    if a in ports and b in ports:
                        feats[k, r, 1 + i] = 1
    return geom, feats


# Small kernels called from many places carry explicit signatures: numba then compiles each
# once, instead of once per combination of int16, int64 and literal arguments at its callers.
STATE = "int16[::1]"
GEOM = "int16[:, :, ::1]"
