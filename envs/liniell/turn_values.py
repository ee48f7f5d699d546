"""What a position is worth after a turn, as the scripted ``heuristic`` agent values it.

The greedy agent values a turn by the provisional score margin it leaves. The ``heuristic``
agent values the *position* the turn leaves with strategy knowledge (its module docstring
has the reasoning); :func:`position_value` is that value, and the observation features'
``*_turn_value`` fields are, for each legal action, the best of it over the turns that start
(or, after the lay, continue) with the action. With the default weights
(:data:`TURN_VALUE_WEIGHTS`, the heuristic's defaults) the value of ``player``'s position,
``tiles_left`` tiles still to lay, is

- each of ``player``'s occupied lines: its provisional route points plus ``open_end`` for
  each *open end* (a port of the line facing an empty cell that can still receive a tile,
  by the 4 x 4 rule), at most ``max_open_ends`` of them counted;
- plus ``reserve`` x ``tiles_left / NUM_TILES`` for each pawn in supply;
- less ``risk`` x the most valuable of ``player``'s lines at a *merge point* (an empty
  fillable cell that lines of two different players face: the next player may join them
  there and take the line),

less the same total of the best opponent, whose most valuable line at a merge point costs it
``chance`` x its value instead (the opponents move after ``player``). Once no tile is left
the value is the final score margin.

:func:`position_value` is the readable reference (on the rules engine's board);
:func:`compiled_position_value` computes the same number on the compiled engine's state
vector, in the same order of operations, so both give the same float (the tests compare the
observation fields with the heuristic agent's own values of every legal action).

Player 0's line scores 4 and has 4 open ends (3 count), player 1's scores 1 with 1 open end;
each has one pawn in supply, worth 2 x 8/16 with 8 tiles left:

>>> from .notation import from_text
>>> board = from_text("cross:0 tee:1\\n. star\\npawns: 0@0,0:N 1@1,1:E")
>>> board.points()
[4, 1]
>>> round(position_value(board, 0, tiles_left=8), 2)  # (4 + 2.4 + 1) - (1 + 0.8 + 1)
4.6
>>> position_value(board, 0, tiles_left=0)  # the game is over: the final margin
3.0
"""

from __future__ import annotations

from dataclasses import astuple, dataclass

import numpy as np
from numba import njit

from . import compiled as core
from .board import NEIGHBOUR, WINDOW, Board
from .compiled_layout import (
    CMAX,
    CMIN,
    KIND,
    MAX_PLAYERS,
    NUM_PLAYERS,
    PAWNS,
    PIECE_STRIDE,
    RMAX,
    RMIN,
    ROUTE_POINTS,
)
from .compiled_lines import across, find, points_margin
from .tileset import NUM_TILES


@dataclass(frozen=True)
class TurnValueWeights:
    """The weights of a position's value (see the module docstring)."""

    open_end: float = 0.8
    """Value of each open end of an occupied line (at most ``max_open_ends`` count)."""
    max_open_ends: int = 3
    risk: float = 0.6
    """Share of a line's value lost when it faces a merge point the opponent can use."""
    chance: float = 0.25
    """Share of an opponent line's value gained at a merge point we may use later."""
    reserve: float = 2.0
    """Value of a pawn in supply at the start of the game (scaled by the tiles left)."""


TURN_VALUE_WEIGHTS = TurnValueWeights()
"""The weights of the ``*_turn_value`` feature fields (the ``heuristic`` agent's defaults)."""

_WEIGHTS = np.array(astuple(TURN_VALUE_WEIGHTS), dtype=np.float64)
"""The weights as the compiled code reads them (a constant array)."""

SCRATCH_SIZE = 4 * MAX_PLAYERS
"""Entries of each of :func:`compiled_position_value`'s two scratch arrays."""


# ------------------------------------------------------------ the reference
def fillable_cells(board: Board) -> set[int]:
    """Empty window cells that can still receive a tile (contact aside): the 4 x 4 rule.

    >>> from .notation import from_text
    >>> len(fillable_cells(from_text("cross:0 tee:0 cross:0 bridge:0")))
    24
    """
    if board.num_laid == 0:
        return {(WINDOW // 2) * WINDOW + WINDOW // 2}
    rows, cols = board.fillable_span()
    return {r * WINDOW + c for r in rows for c in cols if board.cell_kind[r * WINDOW + c] < 0}


def open_cells(board: Board, root: int, fillable: set[int]) -> tuple[int, set[int]]:
    """Open ends of line ``root`` that face fillable cells: their number and their cells."""
    kinds, orients = board.cell_kind, board.cell_orient
    count = 0
    cells: set[int] = set()
    for piece in board.lines.members(root):
        cell = piece >> 2
        for port in orients[cell].groups[piece & 3].ports:  # type: ignore[union-attr]
            nc = NEIGHBOUR[cell][port]
            if nc >= 0 and kinds[nc] < 0 and nc in fillable:
                count += 1
                cells.add(nc)
    return count, cells


def position_value(
    board: Board, player: int, tiles_left: int, weights: TurnValueWeights = TURN_VALUE_WEIGHTS
) -> float:
    """Value of ``board`` for ``player`` after its turn, ``tiles_left`` tiles still to lay
    (module docstring); the opponents move next."""
    w = weights
    n = board.num_players
    find = board.lines.find
    totals = [0.0] * n
    if tiles_left <= 0:
        points = board.points()
        best_other = max(points[p] for p in range(n) if p != player)
        return float(points[player] - best_other)
    fillable = fillable_cells(board)
    line_value: dict[int, float] = {}
    owner: dict[int, int] = {}
    touching: dict[int, list[int]] = {}  # fillable cell -> occupied lines touching it
    for p, slots in enumerate(board.pawns):
        for piece in slots:
            if piece < 0:
                continue
            root = find(piece)
            count, cells = open_cells(board, root, fillable)
            value = board.line_score(root).points + w.open_end * min(count, w.max_open_ends)
            line_value[root] = value
            owner[root] = p
            totals[p] += value
            for c in cells:
                touching.setdefault(c, []).append(root)
    share = tiles_left / NUM_TILES
    for p in range(n):
        totals[p] += w.reserve * share * board.supply(p)
    risk = [0.0] * n  # merge points: a cell touching occupied lines of two different players
    for roots in touching.values():
        if len({owner[r] for r in roots}) < 2:
            continue
        for r in roots:
            risk[owner[r]] = max(risk[owner[r]], line_value[r])
    totals[player] -= w.risk * risk[player]
    for p in range(n):
        if p != player:
            totals[p] -= w.chance * risk[p]
    best_other = max(totals[p] for p in range(n) if p != player)
    return totals[player] - best_other


# ---------------------------------------------------------- the compiled core
@njit(cache=True, nogil=True)
def _slots_facing(
    s: np.ndarray, geom: np.ndarray, cell: int, tally: np.ndarray, slots: int, count: bool
) -> int:
    """The pawn slots (bit ``k``: slot ``k``) whose lines (roots in ``tally[k]``) face the
    empty ``cell`` across one of its sides; with ``count``, each such side also adds one
    open end to ``tally[8 + k]``."""
    facing = 0
    for port in range(4):
        piece = across(s, geom, cell, port)
        if piece < 0:
            continue
        root = find(s, piece)
        for k in range(slots):
            if tally[k] == root:
                facing |= 1 << k
                if count:
                    tally[8 + k] += 1
    return facing


@njit(cache=True, nogil=True)
def compiled_position_value(
    s: np.ndarray,
    geom: np.ndarray,
    player: int,
    tiles_left: int,
    tally: np.ndarray,
    sums: np.ndarray,
) -> float:
    """:func:`position_value` of the compiled state ``s`` with the default weights
    (``s`` is only read; ``tally``, int64, and ``sums``, float64, are scratch of
    :data:`SCRATCH_SIZE` entries).

    Pawn slot ``k = 2 * p + slot`` has its line's root in ``tally[k]`` and open ends in
    ``tally[8 + k]``, its line's value in ``sums[k]``; ``sums[8 + p]`` and ``sums[12 + p]``
    are player ``p``'s total and risk."""
    n = s[NUM_PLAYERS]
    if tiles_left <= 0:
        return float(points_margin(s, player))
    slots = 2 * n
    for k in range(slots):
        piece = s[PAWNS + k]
        tally[k] = find(s, piece) if piece >= 0 else -1
        tally[8 + k] = 0
    r0, r1, c0, c1 = core.fillable_span(s[RMIN], s[RMAX], s[CMIN], s[CMAX])
    for r in range(r0, r1):  # the open ends: a port facing an empty fillable cell
        for c in range(c0, c1):
            if s[KIND + r * WINDOW + c] < 0:
                _slots_facing(s, geom, r * WINDOW + c, tally, slots, True)
    open_end, max_open_ends = _WEIGHTS[0], _WEIGHTS[1]
    risk_w, chance, reserve = _WEIGHTS[2], _WEIGHTS[3], _WEIGHTS[4]
    share = tiles_left / NUM_TILES
    for p in range(n):
        total = 0.0
        supply = 0
        for slot in range(2):
            k = 2 * p + slot
            if tally[k] < 0:
                supply += 1
                continue
            points = s[ROUTE_POINTS + PIECE_STRIDE * tally[k]]
            sums[k] = points + open_end * min(tally[8 + k], max_open_ends)
            total += sums[k]
        sums[8 + p] = total + reserve * share * supply
        sums[12 + p] = 0.0
    for r in range(r0, r1):  # merge points: lines of two players face one fillable cell
        for c in range(c0, c1):
            if s[KIND + r * WINDOW + c] >= 0:
                continue
            facing = _slots_facing(s, geom, r * WINDOW + c, tally, slots, False)
            owners = 0
            for k in range(slots):
                if facing >> k & 1:
                    owners |= 1 << (k >> 1)
            if owners & (owners - 1) == 0:
                continue
            for k in range(slots):
                if facing >> k & 1:
                    p = k >> 1
                    sums[12 + p] = max(sums[12 + p], sums[k])
    best_other = -np.inf
    for p in range(n):
        if p == player:
            continue
        best_other = max(best_other, sums[8 + p] - chance * sums[12 + p])
    return (sums[8 + player] - risk_w * sums[12 + player]) - best_other


__all__ = [
    "SCRATCH_SIZE",
    "TURN_VALUE_WEIGHTS",
    "TurnValueWeights",
    "compiled_position_value",
    "fillable_cells",
    "open_cells",
    "position_value",
]
