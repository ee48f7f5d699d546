"""The greedy turn of Qwirkle Cards, compiled: the most Qwirkles, then the most cards.

The scripted ``greedy`` agent (``tabletop_rl.baselines.agents.qwirkle_cards``) plays, every
turn, a legal turn that takes the most Qwirkles and, among those, plays the most cards from the
hand, ties broken at random; the search agent's playouts play the same turns. Its readable
form, :func:`~tabletop_rl.baselines.agents.qwirkle_cards.reference_best_turn`, lists the hand's
sub-multisets in Python; :func:`greedy_turn` makes the same search over the compiled
table-validity solver, in the same order and with the same random tie-breaks, so that for one
generator both return the same turn (the tests compare them position by position):

1. every non-empty sub-multiset of the hand, in :func:`~.turns.sub_multisets`' order (the
   lowest kind present counts slowest), is a candidate *selection*, keyed by the per-line
   bound on the Qwirkles takeable from the table with it (:func:`qwirkle_bound`) and its
   size;
2. the candidates are put in the order ``order`` (the caller's random permutation), then
   sorted by key, highest first, ties kept in that order;
3. in that order, until no key can beat the best turn found, a selection whose table is valid
   is searched for the most Qwirkles it can take (:func:`most_qwirkles`, only where that can
   beat the best so far), and the turn is kept when it takes more Qwirkles, or as many with
   more cards.

>>> from .cards import parse_cards
>>> from .compiled_solver import SearchWork
>>> hand = np.array(parse_cards("Rc Bd Bd"), dtype=np.int64)
>>> table = np.array(parse_cards("Ro Rx Rs Rd Rt"), dtype=np.int64)
>>> played, taken = np.zeros(36, dtype=np.int64), np.zeros(12, dtype=np.int64)
>>> w = SearchWork()
>>> greedy_turn(hand, table, np.arange(5), w.rows, w.options, w.memo, played, taken)
True
>>> played.nonzero()[0].tolist(), taken.tolist()  # Rc completes the red line, taken
([5], [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import NUM_KINDS, NUM_LINES
from .compiled_solver import CALLER_ROWS, LINE_KIND, splits

_SIZE_RADIX = 64
"""Key of a selection: its bound times this plus its size (a hand holds fewer cards)."""


@njit(cache=True, nogil=True)
def line_cap(after: np.ndarray, line: int) -> int:
    """The fewest copies of ``line``'s kinds in ``after`` (36 counts): the most Qwirkles of
    the line."""
    cap = after[LINE_KIND[line, 0]]
    for j in range(1, 6):
        cap = min(cap, after[LINE_KIND[line, j]])
    return cap


@njit(cache=True, nogil=True)
def qwirkle_bound(after: np.ndarray, start: int = 0) -> int:
    """An upper bound on the Qwirkles takeable from ``after`` (36 counts) with the lines from
    ``start`` on: per line, the fewest copies of its kinds (:func:`line_cap`), summed."""
    room = 0
    for line in range(start, NUM_LINES):
        room += line_cap(after, line)
    return room


@njit(cache=True)
def most_qwirkles(
    after: np.ndarray,
    floor: int,
    rows: np.ndarray,
    options: np.ndarray,
    memo: np.ndarray,
    taken: np.ndarray,
) -> int:
    """The most Qwirkles takeable from the valid multiset ``after`` (36 counts) leaving it
    valid, with a largest such multiset of Qwirkles in ``taken`` (12 counts); -1 (``taken``
    zeroed) when none takes more than ``floor`` (with ``floor = 0`` the empty one counts).

    Depth first, lines in order (a line may be taken again), each take checked with the
    solver; a branch stops when the per-line bound of the lines it may still take, capped by
    the cards left over six, cannot beat the best: the first largest found is returned."""
    rest = rows[CALLER_ROWS + 3, :NUM_KINDS]  # the cards left
    cur = rows[CALLER_ROWS + 4, :NUM_LINES]  # the Qwirkles taken on the current branch
    start = rows[CALLER_ROWS + 5]  # per depth (at most 18): the first line it may take
    line_at = rows[CALLER_ROWS + 6]  # per depth: the line it is trying
    rest[:] = after
    cur[:] = 0
    taken[:] = 0
    best = floor
    found = floor == 0
    cards = 0
    for k in range(NUM_KINDS):
        cards += after[k]
    depth = 0
    start[0] = 0
    entering = True
    while depth >= 0:
        if entering:
            entering = False
            if depth > best:
                best = depth
                taken[:] = cur
                found = True
            if depth + min(qwirkle_bound(rest, start[depth]), cards // 6) <= best:
                depth = _back(depth, line_at, rest, cur)
                if depth >= 0:
                    cards += 6
                continue
            line_at[depth] = start[depth]
        line = line_at[depth]
        pushed = False
        while line < NUM_LINES:
            line_at[depth] = line
            if _holds_line(rest, line):
                for j in range(6):
                    rest[LINE_KIND[line, j]] -= 1
                if splits(rest, rows, options, memo):
                    cur[line] += 1
                    cards -= 6
                    depth += 1
                    start[depth] = line
                    entering = True
                    pushed = True
                    break
                for j in range(6):
                    rest[LINE_KIND[line, j]] += 1
            line += 1
        if pushed:
            continue
        depth = _back(depth, line_at, rest, cur)
        if depth >= 0:
            cards += 6
    if not found:
        taken[:] = 0
        return -1
    return best


@njit(cache=True, inline="always")
def _holds_line(rest: np.ndarray, line: int) -> bool:
    """Whether ``rest`` holds a card of each kind of ``line``."""
    for j in range(6):  # noqa: SIM110 (numba compiles no generator expression in all())
        if rest[LINE_KIND[line, j]] == 0:
            return False
    return True


@njit(cache=True, inline="always")
def _back(depth: int, line_at: np.ndarray, rest: np.ndarray, cur: np.ndarray) -> int:
    """Leave ``depth`` for its parent: put back the parent's Qwirkle and move the parent on to
    its next line; the parent's depth (-1 once the root is left)."""
    depth -= 1
    if depth >= 0:
        line = line_at[depth]
        for j in range(6):
            rest[LINE_KIND[line, j]] += 1
        cur[line] -= 1
        line_at[depth] = line + 1
    return depth


@njit(cache=True)
def selection_count(hand: np.ndarray) -> int:
    """How many non-empty sub-multisets ``hand`` (36 counts) has: the candidates
    :func:`greedy_turn` orders (the length of its ``order``)."""
    n = 1
    for k in range(NUM_KINDS):
        n *= hand[k] + 1
    return n - 1


@njit(cache=True)
def greedy_turn(
    hand: np.ndarray,
    table: np.ndarray,
    order: np.ndarray,
    rows: np.ndarray,
    options: np.ndarray,
    memo: np.ndarray,
    played: np.ndarray,
    taken: np.ndarray,
) -> bool:
    """The greedy turn (module docstring) of ``hand`` on ``table`` (36 counts each, a turn's
    start, not the first turn): the cards it plays into ``played`` (36 counts) and the
    Qwirkles it takes into ``taken`` (12 counts); False when no card can be played.
    ``order`` is a permutation of ``range(selection_count(hand))``, the random tie-break;
    ``rows``, ``options``, ``memo``: a ``SearchWork``'s arrays."""
    live = np.zeros(NUM_KINDS, dtype=np.int64)
    m = 0
    for k in range(NUM_KINDS):
        if hand[k]:
            live[m] = k
            m += 1
    n = selection_count(hand)
    plays = np.zeros((n, NUM_KINDS), dtype=np.int64)
    keys = np.zeros(n, dtype=np.int64)
    digits = np.zeros(NUM_KINDS, dtype=np.int64)
    after = np.zeros(NUM_KINDS, dtype=np.int64)
    for j in range(n):  # selection j is sub-multiset j + 1: the last live kind counts fastest
        i = m - 1
        while digits[i] == hand[live[i]]:
            digits[i] = 0
            i -= 1
        digits[i] += 1
        size = 0
        for i in range(m):
            plays[j, live[i]] = digits[i]
            size += digits[i]
        after[:] = table + plays[j]
        keys[j] = qwirkle_bound(after) * _SIZE_RADIX + size
    ranked = order[np.argsort(-keys[order], kind="mergesort")]
    best_q, best_size = -1, -1
    cur = np.zeros(NUM_LINES, dtype=np.int64)
    found = False
    for j in ranked:
        bound, size = keys[j] // _SIZE_RADIX, keys[j] % _SIZE_RADIX
        if bound < best_q or (bound == best_q and size <= best_size):
            break
        after[:] = table + plays[j]
        if not splits(after, rows, options, memo):
            continue
        need = best_q if size > best_size else best_q + 1
        if need > bound:
            continue
        q = 0
        cur[:] = 0
        if bound:
            q = most_qwirkles(after, need - 1, rows, options, memo, cur)
            if q < 0:
                continue
        if q > best_q or (q == best_q and size > best_size):
            best_q, best_size = q, size
            played[:] = plays[j]
            taken[:] = cur
            found = True
    return found


__all__ = ["greedy_turn", "line_cap", "most_qwirkles", "qwirkle_bound", "selection_count"]
