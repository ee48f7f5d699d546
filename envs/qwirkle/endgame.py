"""The end of a two-player game searched three plies deep: the endgame value of a turn.

Once the bag is empty, with two players, the opponent's rack is exactly the tiles a player
cannot see: nothing is hidden any more, and the rest of the game may be searched. The
*endgame value* of a complete turn looks three plies ahead:

1. the turn's points (the end bonus included when it lays the whole hand: the game ends, and
   the value is those points);
2. less the most points of the opponent's reply (its end bonus included when the reply lays
   its whole rack); when some reply of those most points ends the game so, the value stops
   there;
3. plus the most points of the player's next move with the tiles the turn keeps, on the board
   the reply leaves (the end bonus when it lays them all); among the opponent's replies of
   equal points the search assumes the one that leaves that move the fewest. With no legal
   reply (the opponent passes) it is the kept tiles' best move on the turn's own board.

Every move is one whose cells lie in the board window, as in the other searched features.
The features (``place_endgame``, ``turn_endgame``, :mod:`.best_turns`) carry it, and in
``research/qwirkle_teachers.py`` the plan teacher searching so from the empty bag on won
0.569 of 1,000 paired games against the heuristic, where the plan teacher won 0.548.

Two implementations give the same numbers:

- :func:`endgame_points` searches the compiled engine's arrays: it commits the turn on a copy
  of the game's fit masks and numbers, hands the next turn to the opponent with its rack,
  searches its replies depth first (:func:`~.turn_search.most_points`) and, at each reply of
  the most points, commits it on a second copy and searches the player's next move.
- :func:`view_endgame_points` asks the reference engine's move generator for every legal
  reply and next move on reference boards.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compiled_kernels as K
from .board import Board, Move
from .game import END_BONUS
from .model import QwirkleView
from .moves import legal_moves
from .tiles import Tile
from .turn_search import (
    WALK_DONE,
    commit_turn,
    lift,
    memo_slot,
    most_points,
    placements,
    search_space,
    turn_key,
    walk_on,
)

MEMO_SIZE = 1 << 12
"""Turns whose endgame value one search remembers (a turn is reached once per order of laying
its tiles)."""


@njit(cache=True)
def endgame_applies(meta: np.ndarray) -> bool:
    """Whether the player to act of the compiled game ``meta`` is in the endgame the module
    docstring searches: two players and the bag empty."""
    return meta[K.NP] == 2 and meta[K.BAGN] == 0


@njit(cache=True)
def endgame_workspace(fit: np.ndarray, meta: np.ndarray, placements_: int) -> tuple:
    """The working space of :func:`endgame_points` for a game shaped like ``fit`` and ``meta``
    whose placement actions number ``placements_`` (0: none, for a caller that skips the
    endgame values)."""
    shape = fit.shape if placements_ else (0, 0)
    size = meta.shape[0] if placements_ else 0
    return (
        np.zeros(shape, dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        np.zeros(shape, dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        search_space(placements_),
        search_space(placements_),
        np.zeros((MEMO_SIZE if placements_ else 0, 2), dtype=np.int64),
    )


@njit(cache=True)
def _least_next_move(
    grid: np.ndarray,
    reply_fit: np.ndarray,
    reply_meta: np.ndarray,
    top: int,
    scratch: np.ndarray,
    work: tuple,
) -> int:
    """Over the opponent's replies (the turn ``reply_meta`` starts) that score ``top``, the
    fewest of the most points of the player's next move after them; -1 when one of them lays
    the opponent's whole rack (the game ends). ``grid`` is unchanged on return."""
    next_fit, next_meta = work[2], work[3]
    starts, options, count, done = work[4]
    n_starts, n_options, n_count, n_done = work[5]
    mover = (reply_meta[K.CUR] + 1) % 2
    least = 1 << 30
    count[0], _ = placements(grid, reply_fit, reply_meta, scratch, starts)
    done[0] = 0
    base = reply_meta[K.PN]
    points = walk_on(grid, reply_fit, reply_meta, scratch, starts, options, count, done, base)
    while points != WALK_DONE:
        if points == top:
            if reply_meta[K.PN] == reply_meta[K.HLEN + reply_meta[K.CUR]]:
                while reply_meta[K.PN] > base:
                    lift(grid, reply_meta)
                return -1
            commit_turn(grid, reply_fit, reply_meta, next_fit, next_meta, mover)
            best = most_points(
                grid, next_fit, next_meta, scratch, n_starts, n_options, n_count, n_done
            )
            least = min(least, max(best, 0))
        points = walk_on(grid, reply_fit, reply_meta, scratch, starts, options, count, done, base)
    return least


@njit(cache=True)
def endgame_points(
    grid: np.ndarray,
    fit: np.ndarray,
    meta: np.ndarray,
    points: int,
    scratch: np.ndarray,
    work: tuple,
) -> int:
    """The endgame value (module docstring) of ending the turn in progress in ``meta`` now,
    which scores ``points`` (the end bonus included), in a game where
    :func:`endgame_applies`. ``scratch`` is a zeroed mask (zeroed again on return), ``work``
    from :func:`endgame_workspace`; ``grid``, ``fit`` and ``meta`` are unchanged on return."""
    mover = meta[K.CUR]
    if meta[K.PN] == meta[K.HLEN + mover]:
        return points  # the turn lays the whole hand: the game ends
    memo = work[6]
    key = turn_key(grid, meta)
    at = memo_slot(memo, key)
    if at >= 0 and memo[at, 0] == key:
        return memo[at, 1]
    reply_fit, reply_meta, next_fit, next_meta = work[0], work[1], work[2], work[3]
    starts, options, count, done = work[4]
    commit_turn(grid, fit, meta, reply_fit, reply_meta, (mover + 1) % 2)
    top = most_points(grid, reply_fit, reply_meta, scratch, starts, options, count, done)
    if top < 0:  # no legal reply: the kept tiles' best move on this board
        commit_turn(grid, fit, meta, next_fit, next_meta, mover)
        best = most_points(grid, next_fit, next_meta, scratch, starts, options, count, done)
        value = points + max(best, 0)
    else:
        least = _least_next_move(grid, reply_fit, reply_meta, top, scratch, work)
        value = points - top + max(least, 0)
    if at >= 0:
        memo[at, 0] = key
        memo[at, 1] = value
    return value


def _window_moves(view: QwirkleView, board: Board, hand: list[Tile]) -> list[tuple[int, Move]]:
    """Every legal move of ``hand`` on ``board`` whose cells lie in the view's window, with
    its points (the end bonus when it lays the whole hand: the bag is empty)."""
    out = []
    for move in legal_moves(board, hand):
        if any(view.window_cell(r, c) is None for r, c, _ in move):
            continue
        bonus = END_BONUS if len(move) == len(hand) else 0
        out.append((board.points(move) + bonus, move))
    return out


def view_endgame_points(view: QwirkleView, move: Move, points: int) -> int:
    """:func:`endgame_points` from the reference engine: the endgame value of the viewer
    playing ``move`` (the whole turn, scoring ``points``) on ``view.board``, the opponent
    holding the tiles the viewer cannot see (two players, the bag empty)."""
    kept = list(view.hand)
    for _, _, tile in move:
        kept.remove(tile)
    if not kept:
        return points
    rack = [tile for tile, copies in enumerate(view.unseen) for _ in range(copies)]
    after = view.board.copy()
    after.place(move)
    replies = _window_moves(view, after, rack)
    if not replies:
        return points + max((p for p, _ in _window_moves(view, after, kept)), default=0)
    top = max(p for p, _ in replies)
    least = None
    for p, reply in replies:
        if p != top:
            continue
        if len(reply) == len(rack):
            return points - top  # the reply ends the game
        board = after.copy()
        board.place(reply)
        best = max((q for q, _ in _window_moves(view, board, kept)), default=0)
        least = best if least is None else min(least, best)
    return points - top + (least or 0)


__all__ = [
    "endgame_applies",
    "endgame_points",
    "endgame_workspace",
    "view_endgame_points",
]
