"""Qwirkle Cards' observation written by compiled code (the layout of :mod:`.model`).

:func:`observe_into` fills one player's observation vector from the position's count arrays;
the compiled model and the batched stepper both use it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import COPIES, NUM_KINDS, NUM_LINES
from .compiled_solver import LINE_KIND

FIELDS = (
    "hand",
    "table",
    "played",
    "taken",
    "qwirkles",
    "hand_sizes",
    "pile_size",
    "unseen",
    "to_act",
    "seated",
    "starter",
    "first_turn",
    "end_triggered",
    "turns_left",
    "turn_progress",
)
"""The observation's fields in the order :func:`observe_into` takes their offsets."""


@njit(cache=True, nogil=True)
def observe_into(
    out: np.ndarray,
    offsets: np.ndarray,
    hands: np.ndarray,
    table: np.ndarray,
    played: np.ndarray,
    taken: np.ndarray,
    qwirkles: np.ndarray,
    player: int,
    mover: int,
    starter: int,
    pile_size: int,
    first_turn: bool,
    turns_left: int,
    progress: float,
) -> None:
    """Write ``player``'s observation (the reference model's layout, field offsets in
    ``FIELDS`` order) into ``out``; ``turns_left`` is -1 before the end is triggered."""
    n = hands.shape[0]
    out[:] = 0.0
    o_hand, o_table, o_played, o_taken, o_qw, o_sizes = offsets[:6]
    o_pile, o_unseen, o_act, o_seated, o_starter, o_first = offsets[6:12]
    o_end, o_left, o_progress = offsets[12:15]
    seen = np.zeros(NUM_KINDS, dtype=np.int64)
    n_played = 0
    for k in range(NUM_KINDS):
        h = hands[player, k]
        if player == mover:
            h -= played[k]
        out[o_hand + k] = h
        out[o_table + k] = table[k]
        out[o_played + k] = played[k]
        seen[k] = h + table[k] + played[k]
        n_played += played[k]
    for line in range(NUM_LINES):
        out[o_taken + line] = taken[line]
    for i in range(n):
        p = (player + i) % n
        size = 0
        for k in range(NUM_KINDS):
            size += hands[p, k]
        if p == mover:
            size -= n_played
        out[o_sizes + i] = size
        for line in range(NUM_LINES):
            times = qwirkles[p, line]
            out[o_qw + i * NUM_LINES + line] = times
            if times:
                for j in range(6):
                    seen[LINE_KIND[line, j]] += times
        out[o_seated + i] = 1.0
    out[o_pile] = pile_size
    for k in range(NUM_KINDS):
        out[o_unseen + k] = COPIES - seen[k]
    out[o_act + (mover - player) % n] = 1.0
    out[o_starter + (starter - player) % n] = 1.0
    out[o_first] = first_turn
    if turns_left >= 0:
        out[o_end] = 1.0
        out[o_left] = turns_left
    out[o_progress] = progress
