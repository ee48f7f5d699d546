"""The odds of a Qwirkle Cards line: which of its kinds the table lacks, and the chance
that the next player's hand holds them all.

Shared by the observation features (:mod:`.features`) and the turn values
(:mod:`.turn_values`). A kind is *missing* from a line when none of its copies lies on the
table; the chance is the hypergeometric estimate of a hand of the next player's size drawn
from the copies the observer cannot see (inclusion-exclusion over the missing kinds).

>>> import numpy as np
>>> ratios = np.empty(MAX_COPIES_MISSING + 1)
>>> draw_ratios(60, 9, ratios)
>>> table = np.zeros(36, dtype=np.int64); table[1:6] = 1  # a colour line but for kind 0
>>> unseen = np.zeros(36, dtype=np.int64); unseen[0] = 3
>>> missing, short, seen, chance = line_value(0, table, table, unseen, ratios,
...                                           np.empty(MAX_COPIES_MISSING + 1))
>>> missing, short, seen, round(chance, 3)
(1, 1, 1, 0.391)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import COPIES
from .compiled_solver import LINE_KIND

MAX_COPIES_MISSING = 6 * COPIES
"""Unseen copies of a line's missing kinds, at most (six kinds of three copies)."""


@njit(cache=True, nogil=True)
def draw_ratios(total: int, hand: int, ratios: np.ndarray) -> None:
    """``ratios[g]``: the probability that a hand of ``hand`` cards drawn from ``total``
    misses ``g`` given cards, ``C(total - g, hand) / C(total, hand)``; all 0 for an empty
    hand (a player with no card cannot play, so completes nothing)."""
    for g in range(ratios.shape[0]):
        r = 1.0
        if hand <= 0 or hand > total - g:
            r = 0.0
        else:
            for i in range(hand):
                r *= (total - g - i) / (total - i)
        ratios[g] = r


@njit(cache=True, nogil=True)
def line_value(
    line: int,
    left: np.ndarray,
    kept: np.ndarray,
    unseen: np.ndarray,
    ratios: np.ndarray,
    terms: np.ndarray,
    most_missing: int = 6,
) -> tuple[int, int, int, float]:
    """``(missing, short, unseen kinds, next player's chance)`` of ``line`` on the table
    ``left`` with the observer keeping ``kept`` (see the module docstring); ``terms`` is
    scratch space for the inclusion-exclusion (``MAX_COPIES_MISSING + 1`` floats). The
    chance is 0 where a missing kind has no unseen copy, and left at 0 (not computed) where
    more than ``most_missing`` kinds are missing (a caller that charges no such line)."""
    missing = 0
    short = 0
    seen_out = 0
    for j in range(6):
        k = LINE_KIND[line, j]
        if left[k] > 0:
            continue
        missing += 1
        if kept[k] <= 0:
            short += 1
        if unseen[k] > 0:
            seen_out += 1
    if seen_out < missing or missing > most_missing:
        return missing, short, seen_out, 0.0
    # inclusion-exclusion over the missing kinds (the hand lacks none of them), its terms
    # gathered by the unseen copies they exclude: terms[g] = sum of (-1)^|S| over the sets S
    # of missing kinds with g copies in all
    terms[0] = 1.0
    top = 0
    for j in range(6):
        k = LINE_KIND[line, j]
        if left[k] > 0:
            continue
        c = unseen[k]
        for g in range(top + 1, top + c + 1):
            terms[g] = 0.0
        for g in range(top, -1, -1):
            terms[g + c] -= terms[g]
        top += c
    chance = 0.0
    for g in range(top + 1):
        chance += terms[g] * ratios[g]
    return missing, short, seen_out, min(1.0, max(0.0, chance))


__all__ = ["MAX_COPIES_MISSING", "draw_ratios", "line_value"]
