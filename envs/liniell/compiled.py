"""Liniell's compiled core: the rules, route scoring and observation as numba kernels.

A game is one ``int16`` vector (:data:`STATE_SIZE` entries, offsets named below): laid tiles,
a union-find over line pieces, open ports, every line's route score, pawns, the stack, the
phase and a few counters, plus scratch space for the route search (so no kernel allocates).
The tile set is data: :func:`geometry` turns a :class:`~.tileset.TileSet` into two arrays
that every kernel takes. The kernels follow the reference engine (``board.py``,
``game.py``, ``scoring.py``) rule for rule, **[decision]** s included; the differential test
``tests/test_liniell_compiled.py`` checks masks, observations, points and outcomes against
it.

All kernels live in this one module on purpose: numba's on-disk cache (``cache=True``) keys a
compiled function on the file that defines it, not on the files of the functions it calls,
so kernels split over several files could run stale code after an edit.

>>> from tabletop_rl.envs.liniell.tileset import load_tile_set
>>> geom, feats = geometry(load_tile_set("default"))
>>> s = new_state(np.arange(16, dtype=np.int16) % 11, 0, 2, geom)
>>> int(s[PHASE]), int(s[DRAWN]), int(s[STACK_SIZE]), int(s[NUM_LEGAL_LAYS])
(0, 4, 15, 4)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .grid import CENTRE_CELL, NEIGHBOUR, NUM_CELLS, WINDOW
from .tiles import PORT_DELTA
from .tileset import NUM_TILES, SQUARE, TileSet

# ------------------------------------------------------------------ constants
LAY, OCCUPY, MOVE, OVER = 0, 1, 2, 3
"""Phases (as the reference's ``Phase``: lay, optional occupy, compulsory move, over)."""
NUM_PIECES = NUM_CELLS * 4
NUM_LAY = NUM_PIECES
"""Lay actions ``4 * cell + rotation``; then ``OCCUPY_ACTION + 3 * port + source``; skip."""
OCCUPY_ACTION = NUM_LAY
SKIP_ACTION = OCCUPY_ACTION + 12
NUM_ACTIONS = SKIP_ACTION + 1
MAX_PLAYERS = 4
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


# ---------------------------------------------------------------- lines
@njit(f"int64({STATE}, int64)", cache=True)
def find(s: np.ndarray, piece: int) -> int:
    """The root piece of ``piece``'s line."""
    return s[ROOT + PIECE_STRIDE * piece]


@njit(cache=True)
def _join(s: np.ndarray, a: int, b: int) -> None:
    """Join the lines of pieces ``a`` and ``b``: the smaller one takes the larger's root."""
    ra = s[ROOT + PIECE_STRIDE * a]
    rb = s[ROOT + PIECE_STRIDE * b]
    if ra == rb:
        return
    if s[SIZE + PIECE_STRIDE * ra] < s[SIZE + PIECE_STRIDE * rb]:
        ra, rb = rb, ra
    piece = rb
    while True:
        s[ROOT + PIECE_STRIDE * piece] = ra
        piece = s[NEXT + PIECE_STRIDE * piece]
        if piece == rb:
            break
    after = s[NEXT + PIECE_STRIDE * ra]
    s[NEXT + PIECE_STRIDE * ra] = s[NEXT + PIECE_STRIDE * rb]
    s[NEXT + PIECE_STRIDE * rb] = after
    s[SIZE + PIECE_STRIDE * ra] += s[SIZE + PIECE_STRIDE * rb]


@njit(f"int64({STATE}, {GEOM}, int64, int64)", cache=True)
def piece_at(s: np.ndarray, geom: np.ndarray, cell: int, port: int) -> int:
    """The piece of the tile on ``cell`` that holds ``port``."""
    return cell * 4 + geom[s[KIND + cell], s[ROT + cell], G_PG + port]


@njit(f"int64({STATE}, {GEOM}, int64, int64)", cache=True)
def across(s: np.ndarray, geom: np.ndarray, cell: int, port: int) -> int:
    """The piece of the neighbouring tile touching ``port`` of ``cell``, or -1 if none."""
    other = NB[cell, port]
    if other < 0 or s[KIND + other] < 0:
        return -1
    return piece_at(s, geom, other, (port + 2) & 3)


@njit(f"int64({STATE}, {GEOM}, int64)", cache=True)
def piece_code(s: np.ndarray, geom: np.ndarray, piece: int) -> int:
    cell = piece >> 2
    return geom[s[KIND + cell], s[ROT + cell], G_CODE + (piece & 3)]


@njit(cache=True)
def piece_key(s: np.ndarray, geom: np.ndarray, piece: int) -> int:
    """Sort key of a piece: its cell, then its first port (the occupy sources' numbering)."""
    cell = piece >> 2
    return cell * 4 + geom[s[KIND + cell], s[ROT + cell], G_GP + 4 * (piece & 3)]


@njit(cache=True)
def placed_slots(s: np.ndarray, geom: np.ndarray, player: int) -> tuple[int, int, int]:
    """``player``'s pawn slots on the board in :func:`piece_key` order, and their count."""
    a = s[PAWNS + 2 * player]
    b = s[PAWNS + 2 * player + 1]
    if a >= 0 and b >= 0:
        if piece_key(s, geom, b) < piece_key(s, geom, a):
            return 1, 0, 2
        return 0, 1, 2
    if a >= 0:
        return 0, -1, 1
    if b >= 0:
        return 1, -1, 1
    return -1, -1, 0


@njit(cache=True)
def occupied_roots(s: np.ndarray) -> None:
    """Fill ``OCC_ROOT``: the line root under each pawn slot (-1 for a pawn in supply)."""
    for j in range(2 * s[NUM_PLAYERS]):
        piece = s[PAWNS + j]
        s[OCC_ROOT + j] = find(s, piece) if piece >= 0 else -1


@njit(cache=True)
def owner_of(s: np.ndarray, root: int) -> int:
    """The player whose pawn stands on line ``root`` (``OCC_ROOT`` filled), or -1."""
    for j in range(2 * s[NUM_PLAYERS]):
        if s[OCC_ROOT + j] == root:
            return j >> 1
    return -1


# -------------------------------------------------------------- route scoring
@njit(f"boolean({STATE}, {GEOM}, int64, boolean, int64, int64, int64)", cache=True)
def _search(
    s: np.ndarray,
    geom: np.ndarray,
    start: int,
    two: bool,
    bonus: int,
    max_tiles: int,
    ceiling: int,
) -> bool:
    """Depth-first search of the routes from ``start`` (the reference's ``dfs2`` when
    ``two``, else ``dfs1``), keeping the longest, then the one worth most,
    as (tiles, points) at ``BEST``; True once a route reaches ``ceiling`` (none can be better)."""
    start_code = piece_code(s, geom, start)
    s[VISITED + PIECE_STRIDE * start] = 1
    s[COUNT + (start >> 2)] = 1
    depth = 0
    s[DEPTH_U] = start
    s[DEPTH_I] = 0
    s[DEPTH_T] = 1
    entered = True
    while depth >= 0:
        u = s[DEPTH_U + depth]
        if entered and not two:
            entered = False
            n_open = s[OPEN + PIECE_STRIDE * u]
            if n_open > 0 and (start_code > 0 or u > start or (u == start and n_open >= 2)):
                tiles = s[DEPTH_T + depth]
                pts = tiles + bonus
                if tiles > s[BEST] or (tiles == s[BEST] and pts > s[BEST + 1]):
                    s[BEST] = tiles
                    s[BEST + 1] = pts
                    if tiles >= max_tiles and pts >= ceiling:
                        return True
        entered = False
        cu = u >> 2
        ku = s[KIND + cu]
        ru = s[ROT + cu]
        gu = u & 3
        i = s[DEPTH_I + depth]
        if i >= geom[ku, ru, G_NP + gu]:
            s[VISITED + PIECE_STRIDE * u] = 0
            s[COUNT + cu] -= 1
            depth -= 1
            continue
        s[DEPTH_I + depth] = i + 1
        v = across(s, geom, cu, geom[ku, ru, G_GP + 4 * gu + i])
        if v < 0 or s[VISITED + PIECE_STRIDE * v]:
            continue
        cv = v >> 2
        k = s[COUNT + cv]
        t = s[DEPTH_T + depth] + (1 if k == 0 else 0)
        if two:
            code = piece_code(s, geom, v)
            if code > 0:
                if s[RANK + PIECE_STRIDE * v] > s[RANK + PIECE_STRIDE * start]:
                    pts = t + 1 + (1 if start_code == 2 else 0) + (1 if code == 2 else 0)
                    if t > s[BEST] or (t == s[BEST] and pts > s[BEST + 1]):
                        s[BEST] = t
                        s[BEST + 1] = pts
                        if t >= max_tiles and pts >= ceiling:
                            return True
                continue  # a stub is a dead end
        s[VISITED + PIECE_STRIDE * v] = 1
        s[COUNT + cv] = k + 1
        depth += 1
        s[DEPTH_U + depth] = v
        s[DEPTH_I + depth] = 0
        s[DEPTH_T + depth] = t
        entered = True
    return False


@njit(cache=True)
def score_line(s: np.ndarray, geom: np.ndarray, root: int) -> None:
    """Store the route points and blue route ends of line ``root`` at its root (rules
    reference "Scoring", as ``scoring.score_line``)."""
    n = 0
    piece = root
    while True:
        s[MEMBERS + n] = piece
        n += 1
        piece = s[NEXT + PIECE_STRIDE * piece]
        if piece == root:
            break
    if n == 1:
        piece = s[MEMBERS]
        code = piece_code(s, geom, piece)
        n_open = s[OPEN + PIECE_STRIDE * piece]
        points = blue = 0
        if code > 0:
            if n_open > 0:
                blue = 1 if code == 2 else 0
                points = 1 + blue
        elif n_open >= 2:
            points = 1
        s[ROUTE_POINTS + PIECE_STRIDE * root] = points
        s[ROUTE_BLUE + PIECE_STRIDE * root] = blue
        return
    stubs = blue_stubs = max_tiles = 0
    stub = -1
    for i in range(n):
        piece = s[MEMBERS + i]
        s[VISITED + PIECE_STRIDE * piece] = 0
        if s[COUNT + (piece >> 2)] != -1:
            s[COUNT + (piece >> 2)] = -1
            max_tiles += 1
        code = piece_code(s, geom, piece)
        if code > 0:
            s[RANK + PIECE_STRIDE * piece] = stubs
            stubs += 1
            stub = piece
            if code == 2:
                blue_stubs += 1
    for i in range(n):
        s[COUNT + (s[MEMBERS + i] >> 2)] = 0
    s[BEST] = -1
    s[BEST + 1] = -1
    bonus = 0
    if stubs >= 2:
        ceiling = max_tiles + 1 + min(2, blue_stubs)
        for i in range(n):
            piece = s[MEMBERS + i]
            if piece_code(s, geom, piece) > 0 and _search(
                s, geom, piece, True, 0, max_tiles, ceiling
            ):
                break
    elif stubs == 1:
        bonus = 1 if piece_code(s, geom, stub) == 2 else 0
        _search(s, geom, stub, False, bonus, max_tiles, max_tiles + bonus)
    else:
        for i in range(n):
            piece = s[MEMBERS + i]
            if s[OPEN + PIECE_STRIDE * piece] > 0 and _search(
                s, geom, piece, False, 0, max_tiles, max_tiles
            ):
                break
    if s[BEST] < 0:
        s[ROUTE_POINTS + PIECE_STRIDE * root] = 0
        s[ROUTE_BLUE + PIECE_STRIDE * root] = 0
    else:
        s[ROUTE_POINTS + PIECE_STRIDE * root] = s[BEST + 1]
        s[ROUTE_BLUE + PIECE_STRIDE * root] = s[BEST + 1] - s[BEST] - 1 if stubs >= 2 else bonus


@njit(cache=True)
def _routes_total(s: np.ndarray, player: int, field: int) -> int:
    """The sum of one route field (``ROUTE_POINTS`` or ``ROUTE_BLUE``) over the lines
    ``player``'s placed pawns stand on."""
    total = 0
    for slot in range(2):
        piece = s[PAWNS + 2 * player + slot]
        if piece >= 0:
            total += s[field + PIECE_STRIDE * (find(s, piece))]
    return total


@njit(cache=True)
def player_points(s: np.ndarray, player: int) -> int:
    """``player``'s score as if the game ended now."""
    return _routes_total(s, player, ROUTE_POINTS)


@njit(cache=True)
def best_opponent_points(s: np.ndarray, player: int) -> int:
    """The highest score among the seats other than ``player``'s, as if the game ended now."""
    best = -1
    for p in range(s[NUM_PLAYERS]):
        if p != player:
            best = max(best, player_points(s, p))
    return best


@njit(cache=True)
def points_margin(s: np.ndarray, player: int) -> int:
    """``player``'s score minus the best opponent's, as if the game ended now."""
    return player_points(s, player) - best_opponent_points(s, player)


@njit(cache=True)
def player_blue(s: np.ndarray, player: int) -> int:
    """Blue diamonds at the ends of ``player``'s scored routes (the tie-break)."""
    return _routes_total(s, player, ROUTE_BLUE)


@njit(cache=True)
def winners_mask(s: np.ndarray) -> int:
    """Bit set of the winners: most points, then most blue route ends, then shared."""
    best = -1
    out = 0
    for p in range(s[NUM_PLAYERS]):
        key = player_points(s, p) * 64 + player_blue(s, p)
        if key > best:
            best = key
            out = 1 << p
        elif key == best:
            out |= 1 << p
    return out


# ----------------------------------------------------------------- placement
@njit(cache=True)
def _top(s: np.ndarray, g: int) -> int:
    while s[COMP + g] != g:
        g = s[COMP + g]
    return g


@njit(cache=True)
def _first_root(s: np.ndarray, p: int) -> bool:
    """Whether ``NROOT[p]`` is a line not seen across an earlier port."""
    r = s[NROOT + p]
    for q in range(p):  # noqa: SIM110 (numba compiles no generator expression in all())
        if s[NROOT + q] == r:
            return False
    return True


@njit(f"int64({STATE}, {GEOM}, int64, int64, int64)", cache=True)
def joins(s: np.ndarray, geom: np.ndarray, cell: int, kind: int, rot: int) -> int:
    """The joins of occupied lines that laying ``kind`` turned ``rot`` on ``cell`` makes
    (their pieces into ``JOIN``, in port order), or -1 when the merge ban forbids it.

    ``NROOT`` holds the roots across the cell's ports and ``OCC_ROOT`` the occupied roots,
    both as before the lay (**[decision]**: legality is judged on the pawns as they stood)."""
    ng = geom[kind, rot, G_NG]
    for g in range(ng):
        s[COMP + g] = g
    for p in range(4):
        r = s[NROOT + p]
        if r < 0:
            continue
        for q in range(p):
            if s[NROOT + q] == r:
                a = _top(s, geom[kind, rot, G_PG + p])
                b = _top(s, geom[kind, rot, G_PG + q])
                if a != b:
                    s[COMP + max(a, b)] = min(a, b)
                break
    count = 0
    for p in range(4):
        t = _top(s, geom[kind, rot, G_PG + p])
        first = True
        for q in range(p):
            if _top(s, geom[kind, rot, G_PG + q]) == t:
                first = False
                break
        if not first:
            continue
        owners = 0
        held = 0
        for q in range(p, 4):
            r = s[NROOT + q]
            if r < 0 or _top(s, geom[kind, rot, G_PG + q]) != t or not _first_root(s, q):
                continue
            owner = owner_of(s, r)
            if owner < 0:
                continue
            if owners & (1 << owner):
                return -1
            owners |= 1 << owner
            held += 1
        if held >= 2:
            s[JOIN + count] = cell * 4 + geom[kind, rot, G_PG + p]
            count += 1
    return count


@njit(cache=True)
def _neighbour_roots(s: np.ndarray, geom: np.ndarray, cell: int) -> int:
    """Fill ``NROOT`` for ``cell``; return how many ports touch a laid tile."""
    touching = 0
    for p in range(4):
        other = across(s, geom, cell, p)
        if other >= 0:
            s[NROOT + p] = find(s, other)
            touching += 1
        else:
            s[NROOT + p] = -1
    return touching


@njit(cache=True)
def compute_lay_mask(s: np.ndarray, geom: np.ndarray) -> int:
    """Fill ``LAY_MASK`` with the legal lays of the drawn tile (contact, 4 x 4 square,
    same-colour merge ban); return their number."""
    for cell in range(NUM_CELLS):
        s[LAY_MASK + cell] = 0
    if s[NUM_LAID] == 0:
        s[LAY_MASK + CENTRE_CELL] = 15
        return 4
    kind = s[DRAWN]
    r0, r1, c0, c1 = fillable_span(s[RMIN], s[RMAX], s[CMIN], s[CMAX])
    ban = False
    for p in range(s[NUM_PLAYERS]):
        if s[PAWNS + 2 * p] >= 0 and s[PAWNS + 2 * p + 1] >= 0:
            ban = True
    if ban:
        occupied_roots(s)
    count = 0
    frontier = _frontier(s)
    for row in range(r0, r1):
        for col in range(c0, c1):
            cell = row * WINDOW + col
            if (frontier >> cell) & 1:
                count += _lay_cell(s, geom, cell, kind, ban)
    return count


@njit(cache=True)
def fillable_span(rmin: int, rmax: int, cmin: int, cmax: int) -> tuple[int, int, int, int]:
    """``(row_start, row_stop, col_start, col_stop)``: the window cells that can still
    receive a tile, given the laid area's bounds (the 4 x 4 rule: the area with the cell
    fits a ``SQUARE`` square); all of the window while nothing is laid (``rmax = -1``).
    The compiled core's one copy of the rule (the lay mask and the observation features
    read it; the reference engine's is :meth:`.board.Board.fillable_span`).

    >>> fillable_span(3, 4, 2, 2)  # rows 3-4 and column 2 laid
    (1, 7, 0, 6)
    """
    return (
        max(rmax - SQUARE + 1, 0),
        min(rmin + SQUARE, WINDOW),
        max(cmax - SQUARE + 1, 0),
        min(cmin + SQUARE, WINDOW),
    )


@njit(cache=True)
def _frontier(s: np.ndarray) -> int:
    """The ``FRONTIER`` cells as one int64 bit set."""
    bits = np.int64(0)
    for k in range(4):
        bits |= (np.int64(s[FRONTIER + k]) & 0xFFFF) << (16 * k)
    return bits


@njit(cache=True)
def _store_frontier(s: np.ndarray, bits: int) -> None:
    for k in range(4):
        word = (bits >> (16 * k)) & 0xFFFF
        s[FRONTIER + k] = word - 65536 if word >= 32768 else word


@njit(f"int64({STATE}, {GEOM}, int64, int64, boolean)", cache=True)
def _lay_cell(s: np.ndarray, geom: np.ndarray, cell: int, kind: int, ban: bool) -> int:
    """Mark the legal rotations of ``kind`` on the candidate ``cell`` in ``LAY_MASK``."""
    if not ban:
        s[LAY_MASK + cell] = 15
        return 4
    count = 0
    clash = False
    if ban:
        _neighbour_roots(s, geom, cell)
        seen = 0
        for p in range(4):
            r = s[NROOT + p]
            if r < 0 or not _first_root(s, p):
                continue
            owner = owner_of(s, r)
            if owner >= 0:
                if seen & (1 << owner):
                    clash = True
                seen |= 1 << owner
    for rot in range(4):
        if not clash or joins(s, geom, cell, kind, rot) >= 0:
            s[LAY_MASK + cell] |= 1 << rot
            count += 1
    return count


# ---------------------------------------------------------------- game flow
@njit(cache=True)
def _start_turn(s: np.ndarray, geom: np.ndarray) -> None:
    size = s[STACK_SIZE]
    if size == 0:
        s[PHASE] = OVER
        return
    s[DRAWN] = s[STACK + size - 1]
    s[STACK_SIZE] = size - 1
    s[PHASE] = LAY
    s[NUM_LEGAL_LAYS] = compute_lay_mask(s, geom)
    if s[NUM_LEGAL_LAYS] == 0:
        s[PHASE] = OVER
        s[EARLY] = 1


@njit(cache=True)
def _end_turn(s: np.ndarray, geom: np.ndarray) -> None:
    s[TURN] += 1
    s[NUM_PENDING] = 0
    s[CURRENT] = (s[CURRENT] + 1) % s[NUM_PLAYERS]
    _start_turn(s, geom)


@njit(cache=True)
def _pop_pending(s: np.ndarray) -> None:
    for i in range(s[NUM_PENDING] - 1):
        s[PENDING + i] = s[PENDING + i + 1]
    s[NUM_PENDING] -= 1


@njit(cache=True)
def _next_move(s: np.ndarray, geom: np.ndarray) -> None:
    """Run the pending joins: a compulsory move where the joined line holds two pawns."""
    while s[NUM_PENDING] > 0:
        root = find(s, s[PENDING])
        held = 0
        for j in range(2 * s[NUM_PLAYERS]):
            piece = s[PAWNS + j]
            if piece >= 0 and find(s, piece) == root:
                held += 1
        if held >= 2:
            s[PHASE] = MOVE
            return
        _pop_pending(s)
    _end_turn(s, geom)


@njit(cache=True)
def init_state(
    s: np.ndarray, stack: np.ndarray, start_player: int, num_players: int, geom: np.ndarray
) -> None:
    """Make ``s`` a new game: ``stack`` (kinds, drawn from the end) and the first player.

    The piece records are left as they are: a piece's fields are set when its tile is laid,
    and nothing reads those of a cell without a tile."""
    s[:PIECES] = 0
    s[PAWNS:] = 0
    for c in range(NUM_CELLS):
        s[KIND + c] = -1
        s[ROT + c] = -1
    for j in range(2 * MAX_PLAYERS):
        s[PAWNS + j] = -1
    for i in range(NUM_TILES):
        s[STACK + i] = stack[i]
    s[NUM_PLAYERS] = num_players
    s[STACK_SIZE] = NUM_TILES
    s[RMIN] = WINDOW
    s[CMIN] = WINDOW
    s[RMAX] = -1
    s[CMAX] = -1
    s[CURRENT] = start_player
    s[START] = start_player
    s[DRAWN] = -1
    s[LAST] = -1
    _start_turn(s, geom)


@njit(cache=True)
def new_state(stack: np.ndarray, start_player: int, num_players: int, geom: np.ndarray):
    """A new game's state vector (see :func:`init_state`)."""
    s = np.zeros(STATE_SIZE, dtype=np.int16)
    init_state(s, stack, start_player, num_players, geom)
    return s


@njit(cache=True)
def _put(s: np.ndarray, geom: np.ndarray, cell: int, kind: int, rot: int) -> None:
    """Put a tile on ``cell`` and join its lines (no rule checked), as ``Board.put``."""
    s[KIND + cell] = kind
    s[ROT + cell] = rot
    for g in range(geom[kind, rot, G_NG]):
        piece = cell * 4 + g
        s[ROOT + PIECE_STRIDE * piece] = piece
        s[NEXT + PIECE_STRIDE * piece] = piece
        s[SIZE + PIECE_STRIDE * piece] = 1
        s[OPEN + PIECE_STRIDE * piece] = geom[kind, rot, G_NP + g]
    for p in range(4):
        other = across(s, geom, cell, p)
        if other < 0:
            continue
        mine = cell * 4 + geom[kind, rot, G_PG + p]
        s[OPEN + PIECE_STRIDE * mine] -= 1
        s[OPEN + PIECE_STRIDE * other] -= 1
        _join(s, mine, other)
    s[LAID + s[NUM_LAID]] = cell
    s[NUM_LAID] += 1
    frontier = _frontier(s) & ~(np.int64(1) << cell)
    for p in range(4):
        other = NB[cell, p]
        if other >= 0 and s[KIND + other] < 0:
            frontier |= np.int64(1) << other
    _store_frontier(s, frontier)
    row = cell // WINDOW
    col = cell % WINDOW
    s[RMIN] = min(s[RMIN], row)
    s[RMAX] = max(s[RMAX], row)
    s[CMIN] = min(s[CMIN], col)
    s[CMAX] = max(s[CMAX], col)


@njit(cache=True)
def _lay(s: np.ndarray, geom: np.ndarray, cell: int, rot: int) -> None:
    kind = s[DRAWN]
    count = 0
    if s[NUM_LAID] > 0:
        occupied_roots(s)
        _neighbour_roots(s, geom, cell)
        count = joins(s, geom, cell, kind, rot)
    _put(s, geom, cell, kind, rot)
    s[DRAWN] = -1
    s[LAST] = cell
    # only the lines through the new tile changed (pieces and open ends): rescore them
    ng = geom[kind, rot, G_NG]
    for g in range(ng):
        root = find(s, cell * 4 + g)
        fresh = True
        for h in range(g):
            if find(s, cell * 4 + h) == root:
                fresh = False
        if fresh:
            score_line(s, geom, root)
    if count > 0:
        for i in range(count):
            s[PENDING + i] = s[JOIN + i]
        s[NUM_PENDING] = count
        _next_move(s, geom)
    else:
        s[PHASE] = OCCUPY


@njit(cache=True)
def _occupy(s: np.ndarray, geom: np.ndarray, port: int, source: int) -> None:
    player = s[CURRENT]
    piece = piece_at(s, geom, s[LAST], port)
    if source == 0:
        slot = 0 if s[PAWNS + 2 * player] < 0 else 1
    else:
        first, second, _ = placed_slots(s, geom, player)
        slot = first if source == 1 else second
    if s[PHASE] == OCCUPY:
        s[PAWNS + 2 * player + slot] = piece
        _end_turn(s, geom)
        return
    root = find(s, piece)
    old = 0
    for j in range(2 * s[NUM_PLAYERS]):
        other = s[PAWNS + j]
        if other >= 0 and find(s, other) == root:
            old |= 1 << j
    s[PAWNS + 2 * player + slot] = piece
    for j in range(2 * s[NUM_PLAYERS]):
        if old & (1 << j):
            s[PAWNS + j] = -1
    _pop_pending(s)
    _next_move(s, geom)


@njit(cache=True)
def apply(s: np.ndarray, geom: np.ndarray, action: int) -> None:
    """Apply the legal ``action`` (lay, occupy or skip) to ``s``."""
    if s[NUM_HIST] < HISTORY:
        s[HIST + s[NUM_HIST]] = action
        s[NUM_HIST] += 1
    if action < NUM_LAY:
        _lay(s, geom, action >> 2, action & 3)
    elif action == SKIP_ACTION:
        _end_turn(s, geom)
    else:
        port = (action - OCCUPY_ACTION) // 3
        _occupy(s, geom, port, (action - OCCUPY_ACTION) % 3)


@njit(cache=True)
def step(s: np.ndarray, geom: np.ndarray, action: int, points: np.ndarray) -> bool:
    """Apply ``action``; write each player's change of provisional score into ``points``
    and return whether the game is over."""
    n = s[NUM_PLAYERS]
    for p in range(n):
        s[TMP + p] = player_points(s, p)
    apply(s, geom, action)
    for p in range(n):
        points[p] = player_points(s, p) - s[TMP + p]
    return s[PHASE] == OVER


# ------------------------------------------------------------------- masks
@njit(cache=True)
def _occupy_mask(s: np.ndarray, geom: np.ndarray, mask: np.ndarray) -> None:
    cell = s[LAST]
    for p in range(4):
        s[NROOT + p] = find(s, piece_at(s, geom, cell, p))
    player = s[CURRENT]
    first, second, placed = placed_slots(s, geom, player)
    if s[PHASE] == OCCUPY:
        occupied_roots(s)
        for port in range(4):
            r = s[NROOT + port]
            if owner_of(s, r) >= 0 or not _first_root(s, port):
                continue
            base = OCCUPY_ACTION + 3 * port
            if placed < 2:
                mask[base] = 1
            for i in range(placed):
                mask[base + 1 + i] = 1
        mask[SKIP_ACTION] = 1
        return
    target = find(s, s[PENDING])
    port = 0
    while s[NROOT + port] != target:
        port += 1
    base = OCCUPY_ACTION + 3 * port
    if placed < 2:
        mask[base] = 1
    if placed >= 1 and find(s, s[PAWNS + 2 * player + first]) != target:
        mask[base + 1] = 1
    if placed == 2 and find(s, s[PAWNS + 2 * player + second]) != target:
        mask[base + 2] = 1


@njit(cache=True)
def legal_mask(s: np.ndarray, geom: np.ndarray, mask: np.ndarray) -> None:
    """Write the legal actions of the player to act into ``mask`` (all 0 once over)."""
    mask[:] = 0
    phase = s[PHASE]
    if phase == LAY:
        for cell in range(NUM_CELLS):
            bits = s[LAY_MASK + cell]
            if bits:
                for rot in range(4):
                    mask[4 * cell + rot] = (bits >> rot) & 1
    elif phase != OVER:
        _occupy_mask(s, geom, mask)


# ------------------------------------------------------------- observation
@njit(cache=True)
def observe_update(
    s: np.ndarray,
    geom: np.ndarray,
    feats: np.ndarray,
    off: np.ndarray,
    player: int,
    out: np.ndarray,
    written: np.ndarray,
    fresh: bool,
) -> None:
    """Make ``out`` ``player``'s observation (the documented layout, field starts in ``off``
    in :data:`OBS_FIELDS` order), touching as little of it as possible.

    ``out`` holds this game's previous observation as this function wrote it, and
    ``written`` (:data:`WRITTEN_SIZE` entries) what it wrote: the tiles already shown, the
    ``last_laid`` cell shown and the nonzero entries of the player-relative planes. Only the
    new tiles, the routes after a lay, those planes' old and new entries and the short tail
    of numbers (``drawn`` to ``phase``) are written. ``fresh`` starts from a zeroed ``out``
    (a new game, or a buffer this function did not write)."""
    if fresh:
        out[:] = 0
        written[W_TILES] = 0
        written[W_LAST] = -1
        written[W_COUNT] = 0
    n = s[NUM_PLAYERS]
    phase = s[PHASE]
    laid = s[NUM_LAID]
    # observer-independent planes: a lay adds a tile and changes the routes through it
    if laid > written[W_TILES]:
        for i in range(written[W_TILES], laid):
            cell = s[LAID + i]
            kind = s[KIND + cell]
            rot = s[ROT + cell]
            for f in range(TILE_FEATURES):
                if feats[kind, rot, f] != 0:
                    out[off[F_TILES] + f * NUM_CELLS + cell] = feats[kind, rot, f]
        for i in range(laid):
            cell = s[LAID + i]
            kind = s[KIND + cell]
            rot = s[ROT + cell]
            for g in range(geom[kind, rot, G_NG]):
                points = s[ROUTE_POINTS + PIECE_STRIDE * (find(s, cell * 4 + g))]
                for j in range(geom[kind, rot, G_NP + g]):
                    port = geom[kind, rot, G_GP + 4 * g + j]
                    out[off[F_ROUTES] + port * NUM_CELLS + cell] = points
        written[W_TILES] = laid
    shown = s[LAST] if OCCUPY <= phase <= MOVE else -1
    if shown != written[W_LAST]:
        if written[W_LAST] >= 0:
            out[off[F_LAST] + written[W_LAST]] = 0
        if shown >= 0:
            out[off[F_LAST] + shown] = 1
        written[W_LAST] = shown
    # player-relative planes: clear what was written, write the entries now
    for k in range(written[W_COUNT]):
        out[written[W_ENTRIES + k]] = 0
    k = W_ENTRIES
    for p in range(n):
        q = (p - player) % n
        for slot in range(2):
            piece = s[PAWNS + 2 * p + slot]
            if piece < 0:
                continue
            cell = piece >> 2
            g = piece & 3
            kind = s[KIND + cell]
            rot = s[ROT + cell]
            for j in range(geom[kind, rot, G_NP + g]):
                port = geom[kind, rot, G_GP + 4 * g + j]
                written[k] = off[F_PAWNS] + (4 * q + port) * NUM_CELLS + cell
                k += 1
    # every piece of each occupied line, once per pawn on it (a joined line holds several
    # pawns until the compulsory move)
    for slot in range(2 * n):
        pawn = s[PAWNS + slot]
        if pawn < 0:
            continue
        q = ((slot >> 1) - player) % n
        root = find(s, pawn)
        piece = root
        while True:
            cell = piece >> 2
            g = piece & 3
            kind = s[KIND + cell]
            rot = s[ROT + cell]
            for j in range(geom[kind, rot, G_NP + g]):
                port = geom[kind, rot, G_GP + 4 * g + j]
                written[k] = off[F_LINES] + (4 * q + port) * NUM_CELLS + cell
                k += 1
            piece = s[NEXT + PIECE_STRIDE * piece]
            if piece == root:
                break
    first, second, placed = placed_slots(s, geom, player)
    if placed >= 1:
        written[k] = off[F_OWN] + (s[PAWNS + 2 * player + first] >> 2)
        k += 1
    if placed == 2:
        written[k] = off[F_OWN] + NUM_CELLS + (s[PAWNS + 2 * player + second] >> 2)
        k += 1
    for e in range(W_ENTRIES, k):
        out[written[e]] = 1
    written[W_COUNT] = k - W_ENTRIES
    # the tail of small fields, rewritten whole
    out[off[F_DRAWN] :] = 0
    drawn = s[DRAWN]
    if phase == LAY and drawn >= 0:
        for f in range(TILE_FEATURES):
            out[off[F_DRAWN] + f] = feats[drawn, 0, f]
        out[off[F_KIND] + drawn] = 1
    size = s[STACK_SIZE]
    for i in range(size):
        out[off[F_STACK] + s[STACK + i]] += 1
    out[off[F_STACK_SIZE]] = size
    for p in range(n):
        q = (p - player) % n
        supply = 0
        for slot in range(2):
            if s[PAWNS + 2 * p + slot] < 0:
                supply += 1
        out[off[F_SUPPLY] + q] = supply
        out[off[F_SCORES] + q] = player_points(s, p)
        out[off[F_BLUE] + q] = player_blue(s, p)
        out[off[F_SEATED] + q] = 1
    out[off[F_TO_ACT] + (s[CURRENT] - player) % n] = 1
    if phase < OVER:
        out[off[F_PHASE] + phase] = 1


@njit(cache=True)
def observe(
    s: np.ndarray,
    geom: np.ndarray,
    feats: np.ndarray,
    off: np.ndarray,
    player: int,
    out: np.ndarray,
    written: np.ndarray,
) -> None:
    """Write ``player``'s whole observation into the ``float32`` vector ``out``
    (``written``: scratch of :data:`WRITTEN_SIZE` entries)."""
    observe_update(s, geom, feats, off, player, out, written, True)


# ----------------------------------------------------------------- batches
@njit(cache=True)
def first_illegal(actions: np.ndarray, mask: np.ndarray) -> int:
    """The first row whose action is out of range or has mask entry 0, or -1 if none."""
    for i in range(actions.shape[0]):
        action = actions[i]
        if action < 0 or action >= mask.shape[1] or mask[i, action] == 0:
            return i
    return -1


@njit(cache=True, nogil=True)
def batch_step(
    geom: np.ndarray,
    feats: np.ndarray,
    off: np.ndarray,
    score_rewards: bool,
    states: np.ndarray,
    actions: np.ndarray,
    next_stacks: np.ndarray,
    next_starts: np.ndarray,
    done: np.ndarray,
    observation: np.ndarray,
    written: np.ndarray,
    action_mask: np.ndarray,
    current_player: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    final_observation: np.ndarray,
    episode_scores: np.ndarray,
    final_states: np.ndarray,
) -> None:
    """Step every game of a batch (row ``i`` of each array after ``score_rewards`` is game
    ``i``): play ``actions[i]`` and write the game's results into its rows; a game with
    ``done[i]`` set starts anew from ``next_stacks[i]``/``next_starts[i]`` instead (its
    action is ignored). Observation rows are updated in place (:func:`observe_update`).
    Runs without the GIL, so threads can step separate blocks of rows at once."""
    points = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for i in range(states.shape[0]):
        s = states[i]
        n = s[NUM_PLAYERS]
        rewards[i, :] = 0
        over = False
        fresh = done[i] != 0
        if fresh:
            init_state(s, next_stacks[i], next_starts[i], n, geom)
            done[i] = 0
        else:
            over = step(s, geom, actions[i], points)
            if score_rewards:
                for p in range(n):
                    rewards[i, p] = points[p]
        terminated[i] = over
        player = s[CURRENT]
        current_player[i] = player
        observe_update(s, geom, feats, off, player, observation[i], written[i], fresh)
        if over:
            done[i] = 1
            action_mask[i, :] = 1
            final_observation[i, :] = observation[i]
            final_states[i, :] = s
            won = winners_mask(s)
            for p in range(n):
                episode_scores[i, p] = player_points(s, p)
            if not score_rewards and won != (1 << n) - 1:
                for p in range(n):
                    rewards[i, p] = 1 if won & (1 << p) else -1
        else:
            legal_mask(s, geom, action_mask[i])
