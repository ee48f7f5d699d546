"""The depth-first turn search over the compiled engine's arrays that the features share.

A turn lays tiles one at a time, each where the engine's own mask allows after the tiles
before it (:func:`~.compiled_kernels.fill_mask`), and may end wherever the mask allows ending.
:func:`placements` lists the next placements and the points of ending now; :func:`lift`
takes the last tile back; :func:`walk_on` steps a depth-first walk over every way on from the
turn in progress, which :func:`most_points` and the other searches share.
The searches lay and lift tiles on the game's own grid, so a caller that searches a copy of
``meta`` finds the grid unchanged when they return.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compiled_kernels as K

MAX_OPTIONS = 4 * K.HAND
"""Placements that may extend a turn's tiles, at most: the two ends of the row and of the
column through a single laid tile, each for every hand slot."""


@njit(cache=True, inline="always")
def _mix(x: int) -> int:
    """A 64-bit mix of ``x`` (splitmix64's finaliser): one laid tile's share of a turn's key."""
    z = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.int64(z ^ (z >> np.uint64(31)))


@njit(cache=True)
def turn_key(grid: np.ndarray, meta: np.ndarray) -> int:
    """What identifies the turn's tiles whatever their order: the sum of each laid tile's
    :func:`_mix` of its cell and kind (never 0, the memo's empty mark)."""
    key = np.int64(0)
    for i in range(meta[K.PN]):
        r = meta[K.PEND + 3 * i]
        c = meta[K.PEND + 3 * i + 1]
        key += _mix((r * K.GRID + c) * 36 + grid[r, c] - 1)
    return key if key != 0 else 1


@njit(cache=True)
def search_space(placements: int) -> tuple:
    """The working arrays of one :func:`most_points` search in a game whose placement
    actions number ``placements`` (0: a search never run): ``starts``, ``options``, ``count``
    and ``done``."""
    return (
        np.zeros(placements, dtype=np.int64),
        np.zeros((K.HAND, MAX_OPTIONS), dtype=np.int64),
        np.zeros(K.HAND + 1, dtype=np.int64),
        np.zeros(K.HAND + 1, dtype=np.int64),
    )


@njit(cache=True)
def memo_slot(memo: np.ndarray, key: int) -> int:
    """The row of ``memo`` (open addressing: column 0 the key, 0 an empty row; a power of two
    rows) that holds ``key``, else the empty row it would go to; -1 when neither (full)."""
    size = memo.shape[0]
    at = key & (size - 1)
    for _ in range(size):
        if memo[at, 0] == key or memo[at, 0] == 0:
            return at
        at = (at + 1) & (size - 1)
    return -1


@njit(cache=True)
def commit_turn(
    grid: np.ndarray,
    fit: np.ndarray,
    meta: np.ndarray,
    out_fit: np.ndarray,
    out_meta: np.ndarray,
    player: int,
) -> None:
    """Copy the game ``fit`` and ``meta`` into ``out_fit`` and ``out_meta`` with the turn in
    progress committed: its tiles (on ``grid`` already) join the board, the hand of the player
    who laid them keeps its other tiles (in slot order, before any draw), and ``player`` starts
    a new turn. ``grid``, ``fit`` and ``meta`` are unchanged."""
    cur = meta[K.CUR]
    n = meta[K.PN]
    size = meta[K.HLEN + cur]
    out_meta[:] = meta
    out_fit[:, :] = fit
    K.refresh_fits(grid, out_fit, out_meta)
    for i in range(n):
        r = meta[K.PEND + 3 * i]
        c = meta[K.PEND + 3 * i + 1]
        if out_meta[K.NTILES] == 0 and i == 0:
            out_meta[K.B0R] = r
            out_meta[K.B1R] = r
            out_meta[K.B0C] = c
            out_meta[K.B1C] = c
        out_meta[K.B0R] = min(out_meta[K.B0R], r)
        out_meta[K.B0C] = min(out_meta[K.B0C], c)
        out_meta[K.B1R] = max(out_meta[K.B1R], r)
        out_meta[K.B1C] = max(out_meta[K.B1C], c)
    out_meta[K.NTILES] += n
    kept = 0
    for slot in range(size):
        if not meta[K.USED] >> slot & 1:
            out_meta[K.HANDS + 6 * cur + kept] = meta[K.HANDS + 6 * cur + slot]
            kept += 1
    for slot in range(kept, K.HAND):
        out_meta[K.HANDS + 6 * cur + slot] = -1
    out_meta[K.HLEN + cur] = kept
    out_meta[K.PN] = 0
    out_meta[K.USED] = 0
    out_meta[K.FIRST] = 0
    out_meta[K.CUR] = player


@njit(cache=True, inline="always")
def lift(grid: np.ndarray, meta: np.ndarray) -> None:
    """Take the turn's last laid tile back into the hand (undo :func:`~.K.lay`)."""
    i = meta[K.PN] - 1
    grid[meta[K.PEND + 3 * i], meta[K.PEND + 3 * i + 1]] = 0
    meta[K.USED] &= ~(np.int64(1) << np.int64(meta[K.PEND + 3 * i + 2]))
    meta[K.PN] = i


@njit(cache=True)
def end_points(grid: np.ndarray, meta: np.ndarray) -> int:
    """The points of ending the turn now, with the tiles laid so far (the end bonus included
    when they empty the hand with the bag empty); call it only where the mask allows ending."""
    points = K.move_points(grid, meta)
    if meta[K.BAGN] == 0 and meta[K.HLEN + meta[K.CUR]] == meta[K.PN]:
        points += K.END_BONUS
    return points


@njit(cache=True, inline="always")
def placements(
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
    points = end_points(grid, meta) if scratch[K.HAND * cells] else -1
    K.clear_mask(meta, scratch)
    return n, points


WALK_DONE = -(1 << 40)
"""What :func:`walk_on` returns once its walk is over."""


@njit(cache=True, inline="always")
def walk_on(
    grid: np.ndarray,
    fit: np.ndarray,
    meta: np.ndarray,
    scratch: np.ndarray,
    first: np.ndarray,
    options: np.ndarray,
    count: np.ndarray,
    done: np.ndarray,
    base: int,
) -> int:
    """One step of a depth-first walk over every way on from a turn in progress (every order
    of laying its further tiles): lay the walk's next tile, lifting first the tiles whose ways
    on are all walked, and return the points of ending the turn there (-1 when it may not end
    yet); :data:`WALK_DONE` once the walk is over, with every tile it laid lifted again.

    The one depth-first skeleton of the turn searches (:func:`most_points`, the feature
    writer's :func:`~.best_turns.best_turn_points` and the endgame's replies), each of which
    looks at the turn after every step. The walk starts from a turn of ``base`` laid tiles
    (``meta[K.PN]``) whose next placements the caller listed with :func:`placements` into
    ``first``, their number in ``count[0]`` and ``done[0] = 0``; the placements after ``d``
    tiles of the walk go into ``options[d - 1]`` (``(HAND, MAX_OPTIONS)``). Between steps the
    caller may search from the turn as it stands, with other working arrays, as long as it
    leaves ``grid`` and ``meta`` as it found them; it may stop early by lifting the walk's
    tiles (down to ``base``)."""
    depth = meta[K.PN] - base
    while depth >= 0:
        if done[depth] == count[depth]:
            if depth > 0:
                lift(grid, meta)
            depth -= 1
            continue
        action = first[done[0]] if depth == 0 else options[depth - 1, done[depth]]
        K.lay(grid, meta, action)
        done[depth] += 1
        depth += 1
        count[depth], points = placements(grid, fit, meta, scratch, options[depth - 1])
        done[depth] = 0
        return points
    return WALK_DONE


@njit(cache=True)
def most_points(
    grid: np.ndarray,
    fit: np.ndarray,
    meta: np.ndarray,
    scratch: np.ndarray,
    starts: np.ndarray,
    options: np.ndarray,
    count: np.ndarray,
    done: np.ndarray,
) -> int:
    """The most points of a complete turn that goes on from the turn in progress in ``meta``
    (-1 when no way on may end), over every order of laying its tiles; ``grid`` and ``meta``'s
    turn are as before on return. Working space: ``starts`` (``HAND * W * W``) for the first
    placements, ``options`` (``(HAND, MAX_OPTIONS)``) for the later ones, ``count`` and
    ``done`` (``HAND + 1``)."""
    count[0], best = placements(grid, fit, meta, scratch, starts)
    done[0] = 0
    base = meta[K.PN]
    points = walk_on(grid, fit, meta, scratch, starts, options, count, done, base)
    while points != WALK_DONE:
        best = max(best, points)
        points = walk_on(grid, fit, meta, scratch, starts, options, count, done, base)
    return best


__all__ = [
    "MAX_OPTIONS",
    "WALK_DONE",
    "commit_turn",
    "end_points",
    "lift",
    "memo_slot",
    "most_points",
    "placements",
    "search_space",
    "turn_key",
    "walk_on",
]
