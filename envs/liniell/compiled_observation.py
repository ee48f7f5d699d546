"""Liniell's compiled core, its observation: the documented layout written from a game vector.

:func:`observe_update` writes only what changed since the last observation of the same game
(what the batch steps every game with); :func:`observe` writes one afresh. The layout is
``liniell_v0``'s (the model's ``ObservationLayout``; field starts passed in, in
:data:`~.compiled_layout.OBS_FIELDS` order); ``tests/test_liniell_compiled.py`` checks it
against the reference model's observation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .compiled_layout import (
    CURRENT,
    DRAWN,
    F_BLUE,
    F_DRAWN,
    F_KIND,
    F_LAST,
    F_LINES,
    F_OWN,
    F_PAWNS,
    F_PHASE,
    F_ROUTES,
    F_SCORES,
    F_SEATED,
    F_STACK,
    F_STACK_SIZE,
    F_SUPPLY,
    F_TILES,
    F_TO_ACT,
    G_GP,
    G_NG,
    G_NP,
    KIND,
    LAID,
    LAST,
    LAY,
    MOVE,
    NEXT,
    NUM_LAID,
    NUM_PLAYERS,
    OCCUPY,
    OVER,
    PAWNS,
    PHASE,
    PIECE_STRIDE,
    ROT,
    ROUTE_POINTS,
    STACK,
    STACK_SIZE,
    TILE_FEATURES,
    W_COUNT,
    W_ENTRIES,
    W_LAST,
    W_TILES,
)
from .compiled_lines import find, placed_slots, player_blue, player_points
from .grid import NUM_CELLS


# ------------------------------------------------------------- observation
@njit(cache=True, inline="always")
def _note_ports(
    s: np.ndarray, geom: np.ndarray, piece: int, plane: int, written: np.ndarray, k: int
) -> int:
    """Note in ``written`` from entry ``k`` on the entries of ``piece``'s ports in the
    4-port plane group starting at ``plane`` (entry ``plane + port * NUM_CELLS + cell``);
    return the next free entry."""
    cell = piece >> 2
    g = piece & 3
    kind = s[KIND + cell]
    rot = s[ROT + cell]
    for j in range(geom[kind, rot, G_NP + g]):
        port = geom[kind, rot, G_GP + 4 * g + j]
        written[k] = plane + port * NUM_CELLS + cell
        k += 1
    return k


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
            k = _note_ports(s, geom, piece, off[F_PAWNS] + 4 * q * NUM_CELLS, written, k)
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
            k = _note_ports(s, geom, piece, off[F_LINES] + 4 * q * NUM_CELLS, written, k)
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
