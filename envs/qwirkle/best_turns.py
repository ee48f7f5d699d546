"""The most points a turn can score once a placement is made: greedy's value of a placement.

Qwirkle's greedy agent lays, each turn, the legal move that scores the most points. It sees
whole moves; a policy lays a move one tile at a time, and a tile's worth depends on the tiles
that may follow it along the same line. :func:`best_turn_points` gives each legal placement
of the player to act that worth: the most points of a complete turn that lays this tile on
this cell next (after the tiles already laid this turn), the end bonus included. Its maximum
over the placements at the start of a turn is the best move's score, and every placement
that reaches it is a tile of a best move (the greedy agent's choices). The start row counts
only once it is complete (the rules do not let it end earlier).

Two implementations give the same numbers:

- :func:`best_turn_points` searches the compiled engine's arrays (:mod:`.compiled_kernels`):
  depth first over the placements the engine's own mask allows after each tile, scoring
  every point where the turn may end with the engine's :func:`~.compiled_kernels.move_points`.
  It lays and lifts tiles on the game's own grid and works on a copy of the rest, so the
  game is unchanged when it returns.
- :func:`view_best_turn_points` reads the same numbers off the reference engine's move
  generator, as the greedy agent plans: the most points among the legal moves that hold the
  tiles laid so far and this placement. ``tests/test_qwirkle_features.py`` checks both
  against each other and against a search through the game-model interface (step, read the
  mask, step again, read the score).

>>> import numpy as np
>>> from tabletop_rl.envs.qwirkle.compiled import QwirkleCompiledModel
>>> model = QwirkleCompiledModel()
>>> state = model.new_state(np.random.default_rng(0))
>>> mask = model.legal_mask(state)
>>> values = np.zeros(model.codec.end, dtype=np.float32)
>>> best_turn_points(state.grid, state.fit, state.meta, mask, values)
>>> reference = np.zeros(model.codec.end, dtype=np.float32)
>>> view = model.public_view(state, model.current_player(state))
>>> view_best_turn_points(view, mask, reference)
>>> bool((values == reference).all()), int(values.max()) >= 1
(True, True)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compiled_kernels as K
from .actions import Place
from .game import END_BONUS
from .model import QwirkleView

MAX_OPTIONS = 4 * K.HAND
"""Placements that may extend a turn's tiles, at most: the two ends of the row and of the
column through a single laid tile, each for every hand slot."""


@njit(cache=True)
def _lift(grid: np.ndarray, meta: np.ndarray) -> None:
    """Take the turn's last laid tile back into the hand (undo :func:`~.K.lay`)."""
    i = meta[K.PN] - 1
    grid[meta[K.PEND + 3 * i], meta[K.PEND + 3 * i + 1]] = 0
    meta[K.USED] &= ~(np.int64(1) << np.int64(meta[K.PEND + 3 * i + 2]))
    meta[K.PN] = i


@njit(cache=True)
def _options(
    grid: np.ndarray,
    fit: np.ndarray,
    meta: np.ndarray,
    scratch: np.ndarray,
    options: np.ndarray,
) -> tuple[int, int]:
    """The placements the engine's mask allows next (into ``options``) and the points of
    ending the turn now (-1 when the turn may not end yet); ``scratch`` is a zeroed mask,
    zeroed again on return."""
    K.fill_mask(grid, fit, meta, scratch)
    w = meta[K.WIN]
    cells = w * w
    n = 0
    for slot in range(K.HAND):
        for wr in range(meta[K.MASKED], meta[K.MASKED + 1] + 1):
            for wc in range(meta[K.MASKED + 2], meta[K.MASKED + 3] + 1):
                action = slot * cells + wr * w + wc
                if scratch[action]:
                    options[n] = action
                    n += 1
    points = -1
    if scratch[K.HAND * cells]:
        points = K.move_points(grid, meta)
        if meta[K.BAGN] == 0 and meta[K.HLEN + meta[K.CUR]] == meta[K.PN]:
            points += K.END_BONUS
    K.clear_mask(meta, scratch)
    return n, points


@njit(cache=True)
def best_turn_points(
    grid: np.ndarray, fit: np.ndarray, meta: np.ndarray, mask: np.ndarray, out: np.ndarray
) -> None:
    """For every placement that ``mask`` (the legal mask of the player to act) allows, write
    into ``out[action]`` the most points of a complete turn that makes it next; other entries
    are left as they are. ``grid`` is restored and ``meta`` untouched on return."""
    w = meta[K.WIN]
    end = K.HAND * w * w
    m = meta.copy()
    scratch = np.zeros(mask.shape[0], dtype=np.int8)
    options = np.zeros((K.HAND + 1, MAX_OPTIONS), dtype=np.int64)
    count = np.zeros(K.HAND + 1, dtype=np.int64)
    done = np.zeros(K.HAND + 1, dtype=np.int64)
    for action in range(end):
        if mask[action] == 0:
            continue
        K.lay(grid, m, action)
        count[0], best = _options(grid, fit, m, scratch, options[0])
        done[0] = 0
        depth = 0
        while depth >= 0:
            if done[depth] == count[depth]:
                if depth > 0:
                    _lift(grid, m)
                depth -= 1
                continue
            K.lay(grid, m, options[depth, done[depth]])
            done[depth] += 1
            depth += 1
            count[depth], points = _options(grid, fit, m, scratch, options[depth])
            done[depth] = 0
            best = max(best, points)
        _lift(grid, m)
        out[action] = best


def view_best_turn_points(view: QwirkleView, mask: np.ndarray, out: np.ndarray) -> None:
    """:func:`best_turn_points` from the reference engine's move generator, as the greedy
    agent plans: every legal move of the player to act with its points
    (:meth:`QwirkleView.scored_moves`, plus the end bonus when it empties the hand with the
    bag empty); each move that holds the tiles laid so far
    this turn gives its points to every placement of one of its other tiles that ``mask``
    allows, and each placement keeps the most. ``view`` is the public view of the player to
    act."""
    hand = view.hand
    used = {slot for _, _, slot in view.laid_this_turn}
    laid = {(r, c, hand[slot]) for r, c, slot in view.laid_this_turn}
    for move, points in view.scored_moves():
        if not laid <= set(move):
            continue
        if view.bag_size == 0 and len(move) == len(hand):
            points += END_BONUS
        for r, c, tile in move:
            cell = view.window_cell(r, c)
            if (r, c, tile) in laid or cell is None:
                continue
            for slot, held in enumerate(hand):
                action = view.codec.encode(Place(slot, *cell))
                if held == tile and slot not in used and mask[action]:
                    out[action] = max(out[action], points)


__all__ = ["MAX_OPTIONS", "best_turn_points", "view_best_turn_points"]
