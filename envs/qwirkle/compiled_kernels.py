"""Qwirkle's rules as numba-compiled functions over a few numpy arrays.

The compiled engine keeps one game in three arrays:

- ``grid``: ``(GRID, GRID)`` ``int8``, the board centred on the start cell: ``tile id + 1`` on
  an occupied cell, 0 on an empty one. The tiles laid in the turn in progress are on it too
  (the pending list says which). Every tile lies within 107 steps of the centre (108 tiles,
  each touching an earlier one), so a grid of radius :data:`RADIUS` holds any game with room
  for the empty cells around it, and no scan ever leaves it.
- ``fit``: ``(W, W)`` ``int64`` over the board window, per open cell next to a tile the
  36-bit mask of the tile kinds that may be laid there alone (0 elsewhere), as the reference
  board's ``anchors``; updated only on the cells a placement changes (the ends of the lines
  through the placed tiles), and rebuilt when the window moves. Only the start-of-turn mask
  reads it, and only inside the window.
- ``meta``: ``int64``, every other number of the game at the offsets named below (hands, bag,
  scores, turn in progress, window origin, ...).

The functions mirror the reference engine (:mod:`.board`, :mod:`.moves`, :mod:`.game` and
:class:`~.model.QwirkleModel`) rule for rule; ``tests/test_qwirkle_compiled.py`` checks that
both give the same masks, observations, points and outcomes. Nothing here allocates in a
loop; every function is compiled once per process and cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

RADIUS = 110
"""Cells from the centre to the grid's edge (tiles reach at most 107)."""
GRID = 2 * RADIUS + 1
ALL_KINDS = (1 << 36) - 1
SHAPE_BITS = 0x41041041
"""Bits of shape 0 in every colour (shift left by the shape for the others)."""
MARGIN = 5
HAND = 6
END_BONUS = 6
QWIRKLE = 6
NUM_EXCHANGES = 63

# ----------------------------------------------------------------- meta offsets
NP = 0  # number of players
CUR = 1  # seat to act
TURNS = 2  # turns played
PASSES = 3  # consecutive passes
FIRST = 4  # 1 while the start row is to be laid
OVER = 5  # game over by the rules
TRUNC = 6  # truncated by the turn limit
MAXT = 7  # turn limit
BAGN = 8  # tiles in the bag
ORR = 9  # window origin, grid row
ORC = 10  # window origin, grid column
B0R = 11  # bounding box of the board's tiles (grid coordinates, valid when NTILES > 0)
B0C = 12
B1R = 13
B1C = 14
NTILES = 15  # tiles on the board before this turn
PN = 16  # tiles laid this turn
USED = 17  # hand slots laid this turn (bitmask)
NSETS = 18  # largest sets of the start hand
WIN = 19  # window side
UPOS = 20  # next unused entry of the uniform buffer (batched games)
START = 21  # start player
BONUSP = 22  # player who earned the end bonus (-1: none)
REPAINT = 23  # 1 when the window moved since the board planes were last written
HANDS = 24  # 4 x 6 tile ids by slot (-1 empty)
HLEN = 48  # 4 hand sizes
SCORES = 52  # 4 scores
BAG = 56  # 108 tile ids; the next draw is the last
PEND = 164  # 6 x (grid row, grid col, slot) of the tiles laid this turn, in order
SETS = 182  # 12 masks: the largest sets of the start hand (the start row's choices)
UNSEEN = 194  # 36: per kind, copies not on the board before this turn
LOST = 230  # 4: per player, legal moves the window could not show
SCRATCH = 234  # 6 entries of working space (the tiles of an exchange)
MASKED = 240  # 4: window rows and columns (first, last) holding the mask's placements
META_SIZE = 244

NUM_PLANES = 14
OCC_PLANE = 12
LAID_PLANE = 13
TAIL = 130
"""Observation entries after the board planes."""
# offsets inside the tail (see QwirkleModel's layout)
T_COLOUR, T_SHAPE, T_UNSEEN, T_BAG = 0, 36, 72, 108
T_SCORES, T_SIZES, T_SEATED, T_TOACT, T_PHASE, T_PASSES, T_TURNS = 109, 113, 117, 121, 125, 128, 129


@njit(cache=True, inline="always")
def _bit(t: int) -> int:
    return np.int64(1) << np.int64(t)


@njit(cache=True)
def line_fit(grid: np.ndarray, r: int, c: int, dr: int, dc: int) -> int:
    """Kinds that may join the tiles on both sides of cell ``(r, c)`` along ``(dr, dc)``.

    The cell itself is not read (it is the one being filled). No tiles: every kind; an
    invalid line (a repeated tile, or mixed colours and shapes): none.
    """
    present = np.int64(0)
    first = -1
    same_colour = True
    same_shape = True
    for sign in (-1, 1):
        rr = r + sign * dr
        cc = c + sign * dc
        while True:
            v = np.int64(grid[rr, cc]) - 1
            if v < 0:
                break
            b = _bit(v)
            if present & b:
                return 0
            present |= b
            if first < 0:
                first = v
            else:
                if v // 6 != first // 6:
                    same_colour = False
                if v % 6 != first % 6:
                    same_shape = False
            rr += sign * dr
            cc += sign * dc
    if first < 0:
        return ALL_KINDS
    fits = np.int64(0)
    if same_colour:
        fits |= np.int64(63) << np.int64(6 * (first // 6))
    if same_shape:
        fits |= np.int64(SHAPE_BITS) << np.int64(first % 6)
    return fits & ~present


@njit(cache=True)
def cell_fit(grid: np.ndarray, r: int, c: int) -> int:
    """Kinds that may be laid alone on the empty cell ``(r, c)`` (both lines stay valid)."""
    f = line_fit(grid, r, c, 0, 1)
    if f:
        f &= line_fit(grid, r, c, 1, 0)
    return f


@njit(cache=True)
def run_end(grid: np.ndarray, r: int, c: int, dr: int, dc: int) -> tuple[int, int]:
    """The first empty cell from ``(r, c)`` (exclusive) stepping by ``(dr, dc)``."""
    r += dr
    c += dc
    while grid[r, c]:
        r += dr
        c += dc
    return r, c


@njit(cache=True)
def move_points(grid: np.ndarray, meta: np.ndarray) -> int:
    """Points of the tiles laid this turn (on the grid already): every line of 2 or more
    through a laid tile counts once, 6 more for a line of 6; a lone tile scores 1."""
    n = meta[PN]
    total = 0
    for d in range(2):
        dr = d
        dc = 1 - d
        for i in range(n):
            r = meta[PEND + 3 * i]
            c = meta[PEND + 3 * i + 1]
            sr, sc = run_end(grid, r, c, -dr, -dc)
            seen = False
            for j in range(i):
                qr, qc = run_end(grid, meta[PEND + 3 * j], meta[PEND + 3 * j + 1], -dr, -dc)
                if qr == sr and qc == sc:
                    seen = True
                    break
            if seen:
                continue
            er, ec = run_end(grid, r, c, dr, dc)
            length = (er - sr) + (ec - sc) - 1
            if length >= 2:
                total += length
                if length == QWIRKLE:
                    total += QWIRKLE
    return total if total else 1


@njit(cache=True)
def refresh_fits(grid: np.ndarray, fit: np.ndarray, meta: np.ndarray) -> None:
    """Update ``fit`` after the turn's tiles were laid: they are no longer open, and the
    open cells at the ends of the lines through them get their masks recomputed."""
    n = meta[PN]
    w = meta[WIN]
    for i in range(n):
        # a laid tile lies in the window (placements are window cells)
        fit[meta[PEND + 3 * i] - meta[ORR], meta[PEND + 3 * i + 1] - meta[ORC]] = 0
    for i in range(n):
        r = meta[PEND + 3 * i]
        c = meta[PEND + 3 * i + 1]
        for d in range(2):
            dr = d
            dc = 1 - d
            for sign in (-1, 1):
                er, ec = run_end(grid, r, c, sign * dr, sign * dc)
                wr = er - meta[ORR]
                wc = ec - meta[ORC]
                if 0 <= wr < w and 0 <= wc < w:
                    fit[wr, wc] = cell_fit(grid, er, ec)


@njit(cache=True)
def rebuild_fits(grid: np.ndarray, fit: np.ndarray, meta: np.ndarray) -> None:
    """Compute ``fit`` from scratch over the window (a loaded position, a moved window)."""
    fit[:, :] = 0
    if meta[NTILES] == 0:
        return
    w = meta[WIN]
    r_lo = max(meta[B0R] - 1, meta[ORR])
    r_hi = min(meta[B1R] + 1, meta[ORR] + w - 1)
    c_lo = max(meta[B0C] - 1, meta[ORC])
    c_hi = min(meta[B1C] + 1, meta[ORC] + w - 1)
    for r in range(r_lo, r_hi + 1):
        for c in range(c_lo, c_hi + 1):
            if grid[r, c] == 0 and (
                grid[r - 1, c] or grid[r + 1, c] or grid[r, c - 1] or grid[r, c + 1]
            ):
                fit[r - meta[ORR], c - meta[ORC]] = cell_fit(grid, r, c)


# ------------------------------------------------------------------ the mask
@njit(cache=True)
def _set_fits(
    mask: np.ndarray, meta: np.ndarray, r: int, c: int, fits: int, first_turn: bool
) -> bool:
    """Mark every free hand slot whose tile is in ``fits`` for grid cell ``(r, c)``."""
    w = meta[WIN]
    wr = r - meta[ORR]
    wc = c - meta[ORC]
    if not (0 <= wr < w and 0 <= wc < w):
        return False
    cells = w * w
    cur = meta[CUR]
    used = meta[USED]
    laid = np.int64(0)
    if first_turn:
        for i in range(meta[PN]):
            laid |= _bit(meta[HANDS + 6 * cur + meta[PEND + 3 * i + 2]])
    any_set = False
    for slot in range(meta[HLEN + cur]):
        if used >> slot & 1:
            continue
        t = meta[HANDS + 6 * cur + slot]
        if not fits >> t & 1:
            continue
        if first_turn:
            b = _bit(t)
            ok = False
            for s in range(meta[NSETS]):
                m = meta[SETS + s]
                if not laid & b and laid & ~m == 0 and m & b:
                    ok = True
                    break
            if not ok:
                continue
        mask[slot * cells + wr * w + wc] = 1
        any_set = True
    if any_set:
        _masked_box(meta, wr, wr, wc, wc)
    return any_set


@njit(cache=True)
def _masked_box(meta: np.ndarray, r0: int, r1: int, c0: int, c1: int) -> None:
    """Widen the recorded box of window cells where the mask may hold placements."""
    meta[MASKED] = min(meta[MASKED], r0)
    meta[MASKED + 1] = max(meta[MASKED + 1], r1)
    meta[MASKED + 2] = min(meta[MASKED + 2], c0)
    meta[MASKED + 3] = max(meta[MASKED + 3], c1)


@njit(cache=True)
def clear_mask(meta: np.ndarray, mask: np.ndarray) -> None:
    """Zero the mask ``fill_mask`` last wrote: its placements lie in the recorded box (a few
    cells around the laid area), so a step clears that box per hand slot and the other
    actions, not the whole mask."""
    w = meta[WIN]
    cells = w * w
    c0 = meta[MASKED + 2]
    c1 = meta[MASKED + 3]
    for slot in range(HAND):
        for r in range(meta[MASKED], meta[MASKED + 1] + 1):
            base = slot * cells + r * w
            mask[base + c0 : base + c1 + 1] = 0
    mask[HAND * cells :] = 0


@njit(cache=True)
def _extension_mask(grid: np.ndarray, meta: np.ndarray, mask: np.ndarray) -> None:
    """Where one more tile may extend the turn's tiles (the reference's ``extensions``)."""
    r0 = meta[PEND]
    c0 = meta[PEND + 1]
    first_turn = meta[FIRST] == 1
    for d in range(2):
        dr = d
        dc = 1 - d
        if meta[PN] > 1:
            horizontal = meta[PEND + 3] == r0
            if horizontal != (d == 0):
                continue
        for sign in (-1, 1):
            er, ec = run_end(grid, r0, c0, sign * dr, sign * dc)
            fits = line_fit(grid, er, ec, dr, dc)
            if fits:
                fits &= line_fit(grid, er, ec, dc, dr)
            if fits:
                _set_fits(mask, meta, er, ec, fits, first_turn)


@njit(cache=True)
def fill_mask(grid: np.ndarray, fit: np.ndarray, meta: np.ndarray, mask: np.ndarray) -> None:
    """Write the legal actions of the player to act into the zeroed ``mask`` (and record
    where its placements lie, for :func:`clear_mask`)."""
    w = meta[WIN]
    meta[MASKED] = w
    meta[MASKED + 1] = -1
    meta[MASKED + 2] = w
    meta[MASKED + 3] = -1
    if meta[OVER] or meta[TRUNC]:
        return
    cells = w * w
    end = HAND * cells
    cur = meta[CUR]
    hand_len = meta[HLEN + cur]
    if meta[FIRST]:
        if meta[PN] == 0:
            union = np.int64(0)
            for s in range(meta[NSETS]):
                union |= meta[SETS + s]
            _set_fits(mask, meta, RADIUS, RADIUS, union, False)
            return
        size = 0
        m = meta[SETS]
        while m:
            m &= m - 1
            size += 1
        if meta[PN] == size:
            mask[end] = 1
            return
        _extension_mask(grid, meta, mask)
        return
    if meta[PN]:
        mask[end] = 1
        _extension_mask(grid, meta, mask)
        return
    placed_any = False
    hand_mask = np.int64(0)
    for slot in range(hand_len):
        hand_mask |= _bit(meta[HANDS + 6 * cur + slot])
    orr = meta[ORR]
    orc = meta[ORC]
    r_lo = max(meta[B0R] - 1, orr) - orr
    r_hi = min(meta[B1R] + 1, orr + w - 1) - orr
    c_lo = max(meta[B0C] - 1, orc) - orc
    c_hi = min(meta[B1C] + 1, orc + w - 1) - orc
    _masked_box(meta, r_lo, r_hi, c_lo, c_hi)
    for wr in range(r_lo, r_hi + 1):
        for wc in range(c_lo, c_hi + 1):
            f = fit[wr, wc] & hand_mask
            if f:
                base = wr * w + wc
                for slot in range(hand_len):
                    if f >> meta[HANDS + 6 * cur + slot] & 1:
                        mask[slot * cells + base] = 1
                placed_any = True
    n = min(hand_len, meta[BAGN])
    if n:
        for m in range(1, NUM_EXCHANGES + 1):
            size = 0
            x = m
            top = 0
            while x:
                size += x & 1
                x >>= 1
                top += 1
            if size <= n and top <= hand_len:
                mask[end + m] = 1
    elif not placed_any:
        mask[end + NUM_EXCHANGES + 1] = 1


# ------------------------------------------------------------------ the steps
@njit(cache=True)
def lay(grid: np.ndarray, meta: np.ndarray, action: int) -> tuple[int, int, int]:
    """Lay hand slot ``action // W²`` on its window cell; returns (window row, col, tile)."""
    w = meta[WIN]
    slot = action // (w * w)
    cell = action % (w * w)
    wr = cell // w
    wc = cell % w
    r = meta[ORR] + wr
    c = meta[ORC] + wc
    t = meta[HANDS + 6 * meta[CUR] + slot]
    grid[r, c] = t + 1
    i = meta[PN]
    meta[PEND + 3 * i] = r
    meta[PEND + 3 * i + 1] = c
    meta[PEND + 3 * i + 2] = slot
    meta[PN] = i + 1
    meta[USED] |= np.int64(1) << np.int64(slot)
    return wr, wc, t


@njit(cache=True)
def _remove_first(meta: np.ndarray, p: int, t: int) -> None:
    """Remove the first copy of tile ``t`` from player ``p``'s hand (``list.remove``)."""
    base = HANDS + 6 * p
    n = meta[HLEN + p]
    k = 0
    while meta[base + k] != t:
        k += 1
    for j in range(k, n - 1):
        meta[base + j] = meta[base + j + 1]
    meta[base + n - 1] = -1
    meta[HLEN + p] = n - 1


@njit(cache=True)
def _draw(meta: np.ndarray, p: int) -> None:
    """Move the bag's last tile to the end of player ``p``'s hand."""
    n = meta[BAGN] - 1
    meta[HANDS + 6 * p + meta[HLEN + p]] = meta[BAG + n]
    meta[BAG + n] = -1
    meta[BAGN] = n
    meta[HLEN + p] += 1


@njit(cache=True)
def _next_turn(meta: np.ndarray) -> None:
    meta[TURNS] += 1
    if not meta[OVER]:
        meta[CUR] = (meta[CUR] + 1) % meta[NP]
        if meta[TURNS] >= meta[MAXT]:
            meta[TRUNC] = 1


@njit(cache=True)
def end_turn(grid: np.ndarray, fit: np.ndarray, meta: np.ndarray) -> tuple[int, int]:
    """Score the turn's tiles, refill, pass the turn on; returns (player, points)."""
    player = meta[CUR]
    points = move_points(grid, meta)
    n = meta[PN]
    for i in range(n):
        r = meta[PEND + 3 * i]
        c = meta[PEND + 3 * i + 1]
        t = np.int64(grid[r, c]) - 1
        _remove_first(meta, player, t)
        meta[UNSEEN + t] -= 1
        if meta[NTILES] == 0 and i == 0:
            meta[B0R] = r
            meta[B1R] = r
            meta[B0C] = c
            meta[B1C] = c
        meta[B0R] = min(meta[B0R], r)
        meta[B0C] = min(meta[B0C], c)
        meta[B1R] = max(meta[B1R], r)
        meta[B1C] = max(meta[B1C], c)
    meta[NTILES] += n
    refresh_fits(grid, fit, meta)
    meta[FIRST] = 0
    while meta[HLEN + player] < HAND and meta[BAGN] > 0:
        _draw(meta, player)
    if meta[HLEN + player] == 0:
        points += END_BONUS
        meta[OVER] = 1
        meta[BONUSP] = player
    meta[SCORES + player] += points
    meta[PASSES] = 0
    meta[PN] = 0
    meta[USED] = 0
    _next_turn(meta)
    return player, points


@njit(cache=True)
def exchange(meta: np.ndarray, slots: int, uniforms: np.ndarray) -> None:
    """Exchange the tiles in the hand slots of bitmask ``slots``: draw first, then put each
    back at ``int(u * (bag size + 1))`` for the next uniform ``u`` (the reference's order)."""
    p = meta[CUR]
    k = 0
    for s in range(HAND):
        if slots >> s & 1:
            meta[SCRATCH + k] = meta[HANDS + 6 * p + s]
            k += 1
    for i in range(k):
        _remove_first(meta, p, meta[SCRATCH + i])
    for _ in range(k):
        _draw(meta, p)
    for i in range(k):
        n = meta[BAGN]
        at = np.int64(uniforms[i] * (n + 1))
        for j in range(n, at, -1):
            meta[BAG + j] = meta[BAG + j - 1]
        meta[BAG + at] = meta[SCRATCH + i]
        meta[BAGN] = n + 1
    meta[PASSES] = 0
    _next_turn(meta)


@njit(cache=True)
def pass_turn(meta: np.ndarray) -> None:
    meta[PASSES] += 1
    if meta[PASSES] >= meta[NP]:
        meta[OVER] = 1
    _next_turn(meta)


@njit(cache=True)
def box_has_margin(meta: np.ndarray) -> bool:
    """The window holds the board's bounding box with ``MARGIN`` free cells on every side."""
    w = meta[WIN]
    return (
        meta[B0R] - MARGIN >= meta[ORR]
        and meta[B0C] - MARGIN >= meta[ORC]
        and meta[B1R] + MARGIN < meta[ORR] + w
        and meta[B1C] + MARGIN < meta[ORC] + w
    )


@njit(cache=True)
def new_turn(grid: np.ndarray, fit: np.ndarray, meta: np.ndarray, moved: bool) -> bool:
    """Recentre the window after a placement that brought the board near its edge (the fit
    masks rebuilt, ``REPAINT`` set, when it moved); returns whether the player to act may have
    legal moves the window cannot show (the caller counts them)."""
    if moved and meta[NTILES] > 0 and not box_has_margin(meta):
        half = meta[WIN] // 2
        orr = (meta[B0R] + meta[B1R]) // 2 - half
        orc = (meta[B0C] + meta[B1C]) // 2 - half
        if orr != meta[ORR] or orc != meta[ORC]:
            meta[ORR] = orr
            meta[ORC] = orc
            meta[REPAINT] = 1
            rebuild_fits(grid, fit, meta)
    if meta[OVER] or meta[TRUNC] or meta[FIRST] or meta[PN]:
        return False
    return not box_has_margin(meta)


# ----------------------------------------------------------- the observation
@njit(cache=True)
def _paint(out: np.ndarray, cells: int, base: int, t: int) -> None:
    out[(t // 6) * cells + base] = 1.0
    out[(6 + t % 6) * cells + base] = 1.0
    out[OCC_PLANE * cells + base] = 1.0


@njit(cache=True)
def write_planes(grid: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    """Write the ``board`` planes over the window (colour, shape, occupied, laid now)."""
    w = meta[WIN]
    cells = w * w
    out[: NUM_PLANES * cells] = 0.0
    if meta[NTILES] > 0:
        r_lo = max(meta[B0R], meta[ORR])
        r_hi = min(meta[B1R], meta[ORR] + w - 1)
        c_lo = max(meta[B0C], meta[ORC])
        c_hi = min(meta[B1C], meta[ORC] + w - 1)
        for r in range(r_lo, r_hi + 1):
            for c in range(c_lo, c_hi + 1):
                v = grid[r, c]
                if v:
                    _paint(out, cells, (r - meta[ORR]) * w + (c - meta[ORC]), v - 1)
    for i in range(meta[PN]):
        r = meta[PEND + 3 * i]
        c = meta[PEND + 3 * i + 1]
        base = (r - meta[ORR]) * w + (c - meta[ORC])
        _paint(out, cells, base, grid[r, c] - 1)
        out[LAID_PLANE * cells + base] = 1.0


@njit(cache=True)
def write_tail(meta: np.ndarray, player: int, out: np.ndarray, base: int) -> None:
    """Write everything after the board planes, as ``player`` sees it."""
    tail = out[base : base + TAIL]
    tail[:] = 0.0
    n = meta[NP]
    cur = meta[CUR]
    used = meta[USED] if player == cur else 0
    for k in range(36):
        tail[T_UNSEEN + k] = meta[UNSEEN + k]
    for slot in range(meta[HLEN + player]):
        t = meta[HANDS + 6 * player + slot]
        tail[T_UNSEEN + t] -= 1.0
        if not used >> slot & 1:
            tail[6 * slot + t // 6] = 1.0
            tail[T_SHAPE + 6 * slot + t % 6] = 1.0
    tail[T_BAG] = meta[BAGN]
    for i in range(n):
        seat = (player + i) % n
        tail[T_SCORES + i] = meta[SCORES + seat]
        tail[T_SIZES + i] = meta[HLEN + seat]
        tail[T_SEATED + i] = 1.0
    tail[T_TOACT + (cur - player) % n] = 1.0
    phase = 0 if meta[FIRST] else 2 if meta[PN] else 1
    tail[T_PHASE + phase] = 1.0
    tail[T_PASSES] = meta[PASSES]
    tail[T_TURNS] = meta[TURNS] / meta[MAXT]


@njit(cache=True)
def observe(grid: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray) -> None:
    """``player``'s whole observation into ``out``."""
    write_planes(grid, meta, out)
    w = meta[WIN]
    write_tail(meta, player, out, NUM_PLANES * w * w)


@njit(cache=True)
def apply(
    grid: np.ndarray, fit: np.ndarray, meta: np.ndarray, action: int, uniforms: np.ndarray
) -> tuple[int, int, bool]:
    """Apply a legal ``action`` (a placement, the end of the turn, an exchange drawing on
    ``uniforms`` or a pass) and start the next turn where one ends.

    Returns ``(player, points, count_lost)``: who acted, what the turn scored (end bonus
    included; 0 but for an ended turn) and whether the player now to act may have legal
    moves the window cannot show (the caller counts them).
    """
    w = meta[WIN]
    end = HAND * w * w
    player = meta[CUR]
    if action < end:
        lay(grid, meta, action)
        return player, 0, False
    points = 0
    if action == end:
        _, points = end_turn(grid, fit, meta)
    elif action <= end + NUM_EXCHANGES:
        exchange(meta, action - end, uniforms)
    else:
        pass_turn(meta)
    return player, points, new_turn(grid, fit, meta, action == end)
