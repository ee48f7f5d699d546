"""Liniell's compiled core, its lines: the union-find over line pieces and route scoring.

Every piece of a tile (one per port group) is a node of a union-find kept in the game vector
(:mod:`.compiled_layout`); a line's root holds its size, its open ports and its route score,
which :func:`score_line` searches after every lay. The kernels follow the reference engine's
``board.py`` and ``scoring.py`` (``tests/test_liniell_compiled.py`` checks them).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .compiled_layout import (
    BEST,
    COUNT,
    DEPTH_I,
    DEPTH_T,
    DEPTH_U,
    G_CODE,
    G_GP,
    G_NP,
    G_PG,
    GEOM,
    KIND,
    MEMBERS,
    NB,
    NEXT,
    NUM_PLAYERS,
    OCC_ROOT,
    OPEN,
    PAWNS,
    PIECE_STRIDE,
    RANK,
    ROOT,
    ROT,
    ROUTE_BLUE,
    ROUTE_POINTS,
    SIZE,
    STATE,
    VISITED,
)


# ---------------------------------------------------------------- lines
@njit(f"int64({STATE}, int64)", cache=True)
def find(s: np.ndarray, piece: int) -> int:
    """The root piece of ``piece``'s line."""
    return s[ROOT + PIECE_STRIDE * piece]


@njit(cache=True)
def join_lines(s: np.ndarray, a: int, b: int) -> None:
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
