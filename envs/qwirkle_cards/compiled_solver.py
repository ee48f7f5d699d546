"""The validity solver compiled with numba: the search of :mod:`.solver` over small int arrays.

The question is the one :func:`.solver.find_split` answers: is there a choice of extra copies
``0 <= extra <= optional`` (per kind) such that ``fixed + extra`` splits into valid rows? The
kernel :func:`search_split` runs the same exact search as the reference — bounds tightened by
:func:`propagate_bounds`, the lines' elimination order, the staircase walk that closes every
line as early as possible, the failed (position, line states) pairs memoised — with an
explicit stack instead of recursion and the memo in a fixed-size open-addressing table of
int64 keys (:class:`SearchWork`) instead of a Python set. It can also demand that at least one
extra copy is used (``need_extra``), the question a turn asks before any card is played.

It answers existence exactly as the reference does; when several splits exist it may return
another one (the reference orders its tries by a hint, this kernel always most extras first,
then most copies to the colour line).

>>> from .cards import parse_cards
>>> is_valid_counts(parse_cards("Bs Bs Bo Bx Rs Os"))
True
>>> is_valid_counts(parse_cards("Bs Bs Bo Bx"))
False
>>> total, to_colour = find_split_arrays(parse_cards("Rs Os"), parse_cards("Ys Bd Bs"))
>>> from .cards import format_cards
>>> format_cards(total)
'Rs Os Ys Bs'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from ..errors import NotationError
from .cards import COPIES, NUM_KINDS, NUM_LINES, card_name, check_counts

KIND_A = np.array([k // 6 for k in range(NUM_KINDS)], dtype=np.int64)
"""Colour line of each kind."""
KIND_B = np.array([6 + k % 6 for k in range(NUM_KINDS)], dtype=np.int64)
"""Symbol line of each kind."""
LINE_KIND = np.array(
    [[c * 6 + s for s in range(6)] for c in range(6)]
    + [[c * 6 + s for c in range(6)] for s in range(6)],
    dtype=np.int64,
)
"""The six kinds of each line (12 x 6)."""

MEMO_BITS = 16
"""The failed-state memo has ``2 ** MEMO_BITS`` slots. It is a lossy cache: a new failure
looks at ``MEMO_PROBES`` slots from its hash and, when all hold failures of this search,
replaces the first, so a search needing more keeps the most recent ones (a lost entry costs
time, never an answer)."""
MEMO_PROBES = 8
MAX_OPTIONS = 10
"""A cell's choices ``(copies, to colour)``: at most 1 + 2 + 3 + 4 for 0 to 3 copies."""
WORK_ROWS = 40
"""Scratch vectors in a :class:`SearchWork`: 26 for the search, 6 for its callers, one for
the stamp."""
CALLER_ROWS = 32
"""The first scratch row free for the callers of :func:`search_split`."""


class SearchArrays(NamedTuple):
    """The arrays of a :class:`SearchWork`, one argument of a compiled kernel (numba passes
    a ``NamedTuple`` of arrays as one)."""

    rows: np.ndarray
    """Per-kind and per-line scratch vectors; the last row's first entry is the current
    search's memo stamp."""
    options: np.ndarray
    """Each cell's choices: copies, then copies to the colour line."""
    memo: np.ndarray
    """Failed states: two key words and the stamp of the search that stored them (a slot
    with another stamp is empty)."""


class SearchWork(SearchArrays):
    """Preallocated scratch memory of the search, reused call after call (a compiled function
    allocating small arrays in its loops spends much of its time there).

    One per thread: two searches must not share one at the same time.

    >>> work = SearchWork(memo_bits=4)
    >>> work.rows.shape, work.options.shape, work.memo.shape
    ((40, 37), (2, 36, 10), (3, 16))
    """

    __slots__ = ()

    def __new__(cls, memo_bits: int = MEMO_BITS) -> SearchWork:
        return super().__new__(
            cls,
            np.zeros((WORK_ROWS, NUM_KINDS + 1), dtype=np.int64),
            np.zeros((2, NUM_KINDS, MAX_OPTIONS), dtype=np.int64),
            np.zeros((3, 1 << memo_bits), dtype=np.int64),
        )

    def __reduce__(self) -> tuple[Any, tuple[tuple[np.ndarray, ...]]]:
        """Copies and pickles rebuild it from its arrays (not from ``memo_bits``)."""
        return type(self)._make, (tuple(self),)


@njit(cache=True)
def _line_cap(n: int, s1: int, s2: int, s3: int, mx: int) -> int:
    """The reference's line capacity from a line's contribution sums (see ``solver._line_cap``):
    ``n`` kinds can reach it, ``s_m = sum(min(c, m))``, ``mx`` the largest contribution."""
    if n < 3:
        return 0
    if mx == 1:
        return 1
    if s3 >= 9:
        return 3
    if s2 >= 6:
        return 2
    if s1 >= 3:
        return 1
    return 0


@njit(cache=True)
def propagate_bounds(
    fixed: np.ndarray, optional: np.ndarray, lo: np.ndarray, hi: np.ndarray, rows: np.ndarray
) -> bool:
    """Bounds ``lo <= to colour <= hi`` per kind, tightened until stable (``solver._propagate``);
    False when some kind has no feasible split. ``rows``: 6 scratch vectors of 12 or more."""
    cap = rows[0]
    cnt = rows[1]
    s1 = rows[2]
    s2 = rows[3]
    s3 = rows[4]
    mx = rows[5]
    for k in range(NUM_KINDS):
        lo[k] = 0
        hi[k] = fixed[k] + optional[k]
    changed = True
    while changed:
        changed = False
        cnt[:] = 0
        s1[:] = 0
        s2[:] = 0
        s3[:] = 0
        mx[:] = 0
        for k in range(NUM_KINDS):
            hn = fixed[k] + optional[k]
            if hn == 0:
                continue
            for side in range(2):
                if side == 0:
                    line = KIND_A[k]
                    c = hi[k]
                else:
                    line = KIND_B[k]
                    c = hn - lo[k]
                if c:
                    cnt[line] += 1
                    s1[line] += 1
                    s2[line] += c if c < 2 else 2
                    s3[line] += c if c < 3 else 3
                    if c > mx[line]:
                        mx[line] = c
        for line in range(NUM_LINES):
            cap[line] = _line_cap(cnt[line], s1[line], s2[line], s3[line], mx[line])
        for k in range(NUM_KINDS):
            if fixed[k] + optional[k] == 0:
                continue
            ca = cap[KIND_A[k]]
            new_hi = hi[k] if hi[k] <= ca else ca
            need = fixed[k] - cap[KIND_B[k]]
            new_lo = lo[k] if lo[k] >= need else need
            if new_lo > new_hi:
                return False
            if new_hi != hi[k] or new_lo != lo[k]:
                hi[k] = new_hi
                lo[k] = new_lo
                changed = True
    return True


@njit(cache=True)
def _quick(counts: np.ndarray, to_colour: np.ndarray) -> bool:
    """Every card to its colour line, or every card to its symbol line, when that is valid."""
    for colour_side in range(2):
        ok = True
        for line in range(6):
            size = 0
            mult = 0
            for j in range(6):
                n = counts[line * 6 + j] if colour_side == 0 else counts[j * 6 + line]
                size += n
                if n > mult:
                    mult = n
            if size and size < 3 * mult:
                ok = False
                break
        if ok:
            for k in range(NUM_KINDS):
                to_colour[k] = counts[k] if colour_side == 0 else 0
            return True
    return False


@njit(cache=True)
def _memo_slot(key1: int, key2: int, size: int) -> int:
    """A slot for a key; the mixing runs on unsigned words, where overflow wraps (signed
    overflow would be undefined in compiled code)."""
    h = np.uint64(key1) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(key2) * np.uint64(
        0xC2B2AE3D27D4EB4F
    )
    return np.int64((h >> np.uint64(20)) & np.uint64(size - 1))


@njit(cache=True)
def search_split(
    fixed: np.ndarray,
    optional: np.ndarray,
    need_extra: bool,
    total: np.ndarray,
    to_colour: np.ndarray,
    rows: np.ndarray,
    options: np.ndarray,
    memo: np.ndarray,
) -> bool:
    """Whether ``fixed + extra`` splits into valid rows for some ``0 <= extra <= optional``
    (with ``need_extra``: some non-zero ``extra``). On success ``total`` holds
    ``fixed + extra`` and ``to_colour`` the copies of each kind given to its colour line.

    ``fixed`` and ``optional`` are 36 non-negative counts with ``fixed + optional <= 3``.
    ``rows``, ``options``, ``memo``: a :class:`SearchWork`'s arrays (rows from
    ``CALLER_ROWS`` on are left alone).
    """
    any_optional = False
    for k in range(NUM_KINDS):
        if optional[k]:
            any_optional = True
            break
    if need_extra and not any_optional:
        return False
    if not any_optional:
        for k in range(NUM_KINDS):
            total[k] = fixed[k]
        if _quick(fixed, to_colour):
            return True
    lo = rows[0]
    hi = rows[1]
    if not propagate_bounds(fixed, optional, lo, hi, rows[2:8]):
        return False
    # elimination order: repeatedly the open line with the fewest undecided cells
    left = rows[2]
    left[:NUM_LINES] = 0
    nlive = 0
    for k in range(NUM_KINDS):
        if fixed[k] + optional[k]:
            left[KIND_A[k]] += 1
            left[KIND_B[k]] += 1
            nlive += 1
    if nlive == 0:
        total[:] = 0
        to_colour[:] = 0
        return not need_extra
    done = rows[3]
    done[:] = 0
    cells = rows[4]
    ncell = 0
    while ncell < nlive:
        line = -1
        best = 99
        for L in range(NUM_LINES):
            c = left[L]
            if 0 < c < best:
                best = c
                line = L
        for j in range(6):
            k = LINE_KIND[line, j]
            if fixed[k] + optional[k] and not done[k]:
                done[k] = True
                cells[ncell] = k
                ncell += 1
                left[KIND_A[k]] -= 1
                left[KIND_B[k]] -= 1
    # per line: 3 x the most copies of one kind it can receive (its count is capped there),
    # and the potential still to come after each position
    cap3 = rows[5]
    pot = rows[6]
    last_pos = rows[7]
    cap3[:NUM_LINES] = 0
    pot[:NUM_LINES] = 0
    last_pos[:NUM_LINES] = -1
    for i in range(ncell):
        k = cells[i]
        a = KIND_A[k]
        b = KIND_B[k]
        x = hi[k]
        y = fixed[k] + optional[k] - lo[k]
        if 3 * x > cap3[a]:
            cap3[a] = 3 * x
        if 3 * y > cap3[b]:
            cap3[b] = 3 * y
        pot[a] += x
        pot[b] += y
        last_pos[a] = i
        last_pos[b] = i
    rest_a = rows[8]
    rest_b = rows[9]
    opt_n = options[0]
    opt_a = options[1]
    nopt = rows[10]
    extra_after = rows[11]
    extra_after[ncell] = 0
    for i in range(ncell):
        k = cells[i]
        a = KIND_A[k]
        b = KIND_B[k]
        pot[a] -= hi[k]
        pot[b] -= fixed[k] + optional[k] - lo[k]
        rest_a[i] = pot[a]
        rest_b[i] = pot[b]
        m = 0
        for n in range(fixed[k] + optional[k], fixed[k] - 1, -1):
            top = n if n < hi[k] else hi[k]
            for x in range(top, lo[k] - 1, -1):
                opt_n[i, m] = n
                opt_a[i, m] = x
                m += 1
        nopt[i] = m
    for i in range(ncell - 1, -1, -1):
        extra_after[i] = 1 if extra_after[i + 1] or optional[cells[i]] > 0 else 0
    # depth-first search with an explicit stack; a line's state is 4 x its count + its
    # multiplicity (< 64), packed 6 bits per line: lines 0-5 in one word (with the position
    # and whether an extra is used), lines 6-11 in the other
    key1s = memo[0]
    key2s = memo[1]
    stamps = memo[2]
    size = key1s.shape[0]
    rows[WORK_ROWS - 1, 0] += 1
    gen = rows[WORK_ROWS - 1, 0]
    st = rows[12]
    st[:NUM_LINES] = 0
    word1 = rows[13]
    word2 = rows[14]
    used = rows[15]
    tried = rows[16]
    saved_a = rows[17]
    saved_b = rows[18]
    chosen = rows[19]
    word1[0] = 0
    word2[0] = 0
    used[0] = 0
    tried[0] = 0
    i = 0
    while True:
        if i == ncell:
            if used[i] or not need_extra:
                break
            i -= 1
            if i < 0:
                return False
            continue
        k = cells[i]
        la = KIND_A[k]
        lb = KIND_B[k]
        if tried[i] == 0:
            if need_extra and not used[i] and not extra_after[i]:
                failed = True
            else:
                failed = False
                key1 = word1[i] | (i << 36) | (used[i] << 42)
                key2 = word2[i]
                slot = _memo_slot(key1, key2, size)
                for _ in range(MEMO_PROBES):
                    if stamps[slot] != gen:
                        break
                    if key1s[slot] == key1 and key2s[slot] == key2:
                        failed = True
                        break
                    slot = (slot + 1) & (size - 1)
            if failed:
                i -= 1
                if i < 0:
                    return False
                continue
            saved_a[i] = st[la]
            saved_b[i] = st[lb]
        code_a = saved_a[i]
        code_b = saved_b[i]
        sa = code_a >> 2
        ma = code_a & 3
        sb = code_b >> 2
        mb = code_b & 3
        capa = cap3[la]
        capb = cap3[lb]
        advanced = False
        j = tried[i]
        while j < nopt[i]:
            n = opt_n[i, j]
            xa = opt_a[i, j]
            xb = n - xa
            j += 1
            if xa:
                nsa = sa + xa
                if nsa > capa:
                    nsa = capa
                nma = ma if ma >= xa else xa
            else:
                nsa = sa
                nma = ma
            if nsa:
                if nsa + rest_a[i] < 3 * nma:
                    continue
                if last_pos[la] == i:
                    nsa = 0
                    nma = 0
            if xb:
                nsb = sb + xb
                if nsb > capb:
                    nsb = capb
                nmb = mb if mb >= xb else xb
            else:
                nsb = sb
                nmb = mb
            if nsb:
                if nsb + rest_b[i] < 3 * nmb:
                    continue
                if last_pos[lb] == i:
                    nsb = 0
                    nmb = 0
            new_a = nsa * 4 + nma
            new_b = nsb * 4 + nmb
            st[la] = new_a
            st[lb] = new_b
            chosen[i] = j - 1
            # (shifts of non-negative numbers only: a negative one would be undefined)
            word1[i + 1] = word1[i] - (code_a << (6 * la)) + (new_a << (6 * la))
            word2[i + 1] = word2[i] - (code_b << (6 * (lb - 6))) + (new_b << (6 * (lb - 6)))
            used[i + 1] = 1 if used[i] or n > fixed[k] else 0
            tried[i] = j
            tried[i + 1] = 0
            advanced = True
            break
        if advanced:
            i += 1
            continue
        # every choice failed: restore the two lines, remember the failure, go back
        st[la] = code_a
        st[lb] = code_b
        key1 = word1[i] | (i << 36) | (used[i] << 42)
        key2 = word2[i]
        home = _memo_slot(key1, key2, size)
        slot = home
        for _ in range(MEMO_PROBES):
            if stamps[slot] != gen:
                break
            slot = (slot + 1) & (size - 1)
        if stamps[slot] == gen:
            slot = home  # all taken: the newest failure replaces one
        stamps[slot] = gen
        key1s[slot] = key1
        key2s[slot] = key2
        tried[i] = 0
        i -= 1
        if i < 0:
            return False
    total[:] = 0
    to_colour[:] = 0
    for i in range(ncell):
        k = cells[i]
        total[k] = opt_n[i, chosen[i]]
        to_colour[k] = opt_a[i, chosen[i]]
    return True


@njit(cache=True, nogil=True)
def splits(cards: np.ndarray, rows: np.ndarray, options: np.ndarray, memo: np.ndarray) -> bool:
    """Whether ``cards`` (36 counts, each 0 to 3) split into valid rows: :func:`search_split`
    with no optional cards, for compiled callers (it uses the scratch rows ``CALLER_ROWS`` to
    ``CALLER_ROWS + 2``; :func:`is_valid_counts` is the same test from Python)."""
    none = rows[CALLER_ROWS, :NUM_KINDS]
    none[:] = 0
    total = rows[CALLER_ROWS + 1, :NUM_KINDS]
    to_colour = rows[CALLER_ROWS + 2, :NUM_KINDS]
    return search_split(cards, none, False, total, to_colour, rows, options, memo)


_WORK = SearchWork()
"""The scratch memory of the module-level helpers below (single-threaded callers)."""


def _counts(values: Sequence[int] | np.ndarray, name: str) -> np.ndarray:
    """``values`` as the kernel's int64 array, once :func:`.cards.check_counts` took them (36
    whole numbers from 0 to 3: floats, bools and negative counts refused, not truncated)."""
    check_counts(values, name)
    return np.asarray(values, dtype=np.int64)


def find_split_arrays(
    fixed: Sequence[int] | np.ndarray,
    optional: Sequence[int] | np.ndarray | None = None,
    need_extra: bool = False,
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(total, to_colour)`` of a split of ``fixed`` plus some ``optional`` extras (with
    ``need_extra``, at least one), or None when there is none (the compiled
    :func:`.solver.find_split`)."""
    fix = _counts(fixed, "fixed")
    opt = np.zeros(NUM_KINDS, dtype=np.int64) if optional is None else _counts(optional, "optional")
    return _split_arrays(fix, opt, need_extra)


def _split_arrays(
    fix: np.ndarray, opt: np.ndarray, need_extra: bool
) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`find_split_arrays` on checked int64 counts."""
    if (fix + opt > COPIES).any():
        k = int(np.flatnonzero(fix + opt > COPIES)[0])
        raise NotationError(
            f"count of kind {k} ({card_name(k)}) is {fix[k]} (+{opt[k]} optional); allowed: 0 "
            f"to {COPIES} in all"
        )
    total = np.zeros(NUM_KINDS, dtype=np.int64)
    to_colour = np.zeros(NUM_KINDS, dtype=np.int64)
    w = _WORK
    found = search_split(fix, opt, need_extra, total, to_colour, w.rows, w.options, w.memo)
    return (total, to_colour) if found else None


def is_valid_counts(cards: Sequence[int] | np.ndarray) -> bool:
    """Whether a multiset of cards (36 counts, each 0 to 3) splits into valid rows; other
    counts are a :class:`NotationError` naming the first wrong one.

    >>> is_valid_counts([0.5] * 36)
    Traceback (most recent call last):
    ...
    tabletop_rl.envs.errors.NotationError: cards: count 0 (Ro) is 0.5, a float; allowed: ...
    """
    fix = _counts(cards, "cards")
    return _split_arrays(fix, np.zeros(NUM_KINDS, dtype=np.int64), False) is not None
