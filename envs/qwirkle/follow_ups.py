"""What the tiles a turn keeps in hand can score next: the follow-up of a turn.

A turn that scores well now may keep tiles that fit nowhere, or tiles that the board it
leaves lets score a lot next turn. The *follow-up* of a complete turn is the most points
that one legal move of the tiles it keeps (the hand less the turn's tiles, before any draw)
scores on the board the turn leaves (the start row's board too), on the board window's
cells, the end bonus included when the move empties the hand with the bag empty; 0 when no
kept tile fits or the turn lays the whole hand. It ignores what the next player lays in
between and the tiles drawn after the turn: a plan, not a forecast.

The features add it to a placement's net value (:mod:`.best_turns`): ``place_plan`` is the
most, over the complete turns that make the placement next, of the turn's points less what
it hands the next player, plus :data:`FOLLOW_UP_WEIGHT` times its follow-up.
**[measured]** The weight 0.4 is the one of a screen against the heuristic (a weight of 1
was weaker than none): a small preference, among turns of near-equal value, for the one
whose kept tiles score next, not a reason to give up points now.

Two implementations give the same numbers:

- :func:`follow_up_points` searches the compiled engine's arrays: it commits the turn's tiles
  on a copy of the game's fit masks and numbers, hands the kept tiles to the same player,
  and searches the new turn depth first, as :func:`~.best_turns.best_turn_points` does.
- :func:`view_follow_up_points` asks the reference engine's move generator for every legal
  move of the kept tiles on the board after the move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compiled_kernels as K
from .board import Move
from .game import END_BONUS
from .model import QwirkleView
from .moves import legal_moves
from .turn_search import commit_turn, memo_slot, most_points, search_space, turn_key

MEMO_SIZE = 1 << 12
"""Turns whose follow-up one search remembers: a move is reached once per order of laying
its tiles (and from each of its tiles first), and is searched once."""
FOLLOW_UP_WEIGHT = 0.4
"""How much a point of the kept tiles' best next move counts in ``place_plan`` and
``turn_plan`` against a point scored now (module docstring; **[measured]**)."""


@njit(cache=True)
def follow_up_workspace(fit: np.ndarray, meta: np.ndarray, placements: int) -> tuple:
    """The working space of :func:`follow_up_points` for a game shaped like ``fit`` and
    ``meta`` whose placement actions number ``placements`` (0: none, for a caller that skips
    the follow-ups)."""
    return (
        np.zeros(fit.shape if placements else (0, 0), dtype=np.int64),
        np.zeros(meta.shape[0] if placements else 0, dtype=np.int64),
        search_space(placements),
        np.zeros((MEMO_SIZE if placements else 0, 2), dtype=np.int64),
    )


@njit(cache=True)
def follow_up_points(
    grid: np.ndarray, fit: np.ndarray, meta: np.ndarray, scratch: np.ndarray, work: tuple
) -> int:
    """The follow-up (module docstring) of ending the turn in progress in ``meta`` now: the
    most points of a move of the hand's tiles not laid this turn, on ``grid`` with the turn's
    tiles. ``scratch`` is a zeroed mask (zeroed again on return), ``work`` from
    :func:`follow_up_workspace`; ``grid``, ``fit`` and ``meta`` are unchanged."""
    work_fit, work_meta, (starts, options, count, done), memo = work
    cur = meta[K.CUR]
    n = meta[K.PN]
    size = meta[K.HLEN + cur]
    if n == size:
        return 0
    key = turn_key(grid, meta)
    at = memo_slot(memo, key)
    if at >= 0 and memo[at, 0] == key:
        return memo[at, 1]
    commit_turn(grid, fit, meta, work_fit, work_meta, cur)
    best = max(most_points(grid, work_fit, work_meta, scratch, starts, options, count, done), 0)
    if at >= 0:
        memo[at, 0] = key
        memo[at, 1] = best
    return best


def view_follow_up_points(view: QwirkleView, move: Move) -> int:
    """:func:`follow_up_points` from the reference engine: the most points of a legal move
    of the viewer's hand less ``move``'s tiles on ``view.board`` with ``move`` laid, among
    the moves whose cells lie in the view's window (the end bonus when it empties the hand
    with the bag empty)."""
    kept = list(view.hand)
    for _, _, tile in move:
        kept.remove(tile)
    if not kept:
        return 0
    board = view.board.copy()
    board.place(move)
    best = 0
    for m in legal_moves(board, kept):
        if any(view.window_cell(r, c) is None for r, c, _ in m):
            continue
        points = board.points(m)
        if view.bag_size == 0 and len(m) == len(kept):
            points += END_BONUS
        best = max(best, points)
    return best


__all__ = [
    "FOLLOW_UP_WEIGHT",
    "follow_up_points",
    "follow_up_workspace",
    "view_follow_up_points",
]
