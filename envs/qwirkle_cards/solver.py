"""The validity solver: can a multiset of cards be split into valid rows?

A *row* is 3 to 6 different cards sharing a colour or a symbol. Since the whole table may be
rearranged every turn, the table is a multiset of cards (counts over the 36 kinds), and it is
*valid* when it can be split into rows. Every card goes to a row of its colour or a row of
its symbol, so a split is a choice, for every kind, of how many of its copies go to its colour
line and how many to its symbol line. The cards one line receives can then be split into
rows if and only if there are none, or their number is at least 3 times the largest
multiplicity among them (``line_ok``; a test checks this fact exhaustively against
brute force). With ``m`` that multiplicity the line holds ``m`` rows; dealing its cards
round-robin, most frequent kind first, gives rows of distinct kinds whose sizes differ by at
most one, so each holds 3 to 6 cards.

The search (:func:`find_split`) walks the 6 x 6 grid of kinds (colour x symbol) in a
staircase order — colour 0's row, symbol 0's column, colour 1's row, … — so that each line
is complete, and checked, as early as possible. A line's state is its card count (capped at
9, which satisfies any multiplicity up to 3) and its largest multiplicity; a partial line is
pruned as soon as the cards still able to reach it cannot make up 3 times its multiplicity,
and failed (position, line states) pairs are memoised. The same search also decides the
*optional* question the action masks ask: given required cards and optional extra copies
(the rest of a hand), is there a choice of extras that makes the whole valid — and which?

>>> from .cards import parse_cards
>>> is_valid_table(parse_cards("Rd Od Yd"))
True
>>> is_valid_table(parse_cards("Rd Od"))
False
>>> is_valid_table(parse_cards("Bs Bs Bo Bx"))  # two blue squares cannot share a row
False
>>> is_valid_table(parse_cards("Bs Bs Bo Bx Rs Os"))  # ...but one may join the squares
True
>>> is_valid_table(())
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import NotationError
from .cards import (
    COPIES,
    KIND_LINES,
    LINE_KINDS,
    NUM_KINDS,
    NUM_LINES,
    card_name,
    check_counts,
    counts_to_kinds,
)

_SIGMA_CAP = 9
"""A line count of 9 or more satisfies any multiplicity (at most 3 copies of a kind)."""


def line_ok(count: int, max_mult: int) -> bool:
    """Whether a line receiving ``count`` cards, ``max_mult`` of the most frequent kind, splits
    into rows.

    >>> line_ok(0, 0), line_ok(3, 1), line_ok(5, 2), line_ok(6, 2)
    (True, True, False, True)
    """
    return count == 0 or count >= 3 * max_mult


@dataclass(frozen=True)
class Split:
    """A solution: for every kind, its total copies and the copies given to its colour line.

    ``total[k] - to_colour[k]`` copies of kind ``k`` go to its symbol line.
    """

    total: tuple[int, ...]
    to_colour: tuple[int, ...]

    def line_cards(self, line: int) -> dict[int, int]:
        """Kind -> copies that ``line`` receives."""
        out: dict[int, int] = {}
        for k in range(NUM_KINDS):
            c_line, s_line = KIND_LINES[k]
            n = (
                self.to_colour[k]
                if line == c_line
                else (self.total[k] - self.to_colour[k] if line == s_line else 0)
            )
            if n:
                out[k] = n
        return out


def _line_cap(contribs: list[int]) -> int:
    """The largest multiplicity a line can hold given the most copies of each of its kinds
    it can receive: the largest ``m`` with ``sum(min(c, m)) >= 3 m`` (0 when none)."""
    for m in (3, 2, 1):
        total = 0
        for c in contribs:
            total += c if c < m else m
        if total >= 3 * m:
            return m
    return 0


def _propagate(fixed: Sequence[int], optional: Sequence[int]) -> tuple[list[int], list[int]] | None:
    """Bounds ``(lo, hi)`` on the copies each kind gives its colour line, tightened until stable.

    A line that holds ``m`` copies of one kind needs at least ``3 m`` cards, so (with at most
    ``c`` copies of each kind able to reach it) the largest ``m`` with ``sum(min(c, m)) >= 3 m``
    caps what it can take of any one kind; a line that cannot reach 3 different kinds takes
    nothing. None when some kind has no feasible split.
    """
    hi_n = [fixed[k] + optional[k] for k in range(NUM_KINDS)]
    live = [k for k in range(NUM_KINDS) if hi_n[k]]
    lo = [0] * NUM_KINDS  # least copies to the colour line
    hi = hi_n[:]  # most copies to the colour line
    changed = True
    while changed:
        changed = False
        contribs: list[list[int]] = [[] for _ in range(NUM_LINES)]
        for k in live:
            a, b = KIND_LINES[k]
            x = hi[k]
            if x:
                contribs[a].append(x)
            y = hi_n[k] - lo[k]
            if y:
                contribs[b].append(y)
        cap = [0] * NUM_LINES
        for L in range(NUM_LINES):
            c = contribs[L]
            if len(c) >= 3:
                cap[L] = 1 if max(c) == 1 else _line_cap(c)
        for k in live:
            a, b = KIND_LINES[k]
            ca = cap[a]
            new_hi = hi[k] if hi[k] <= ca else ca
            # the symbol line takes n - x <= cap_b copies, n >= fixed
            need = fixed[k] - cap[b]
            new_lo = lo[k] if lo[k] >= need else need
            if new_lo > new_hi:
                return None
            if new_hi != hi[k] or new_lo != lo[k]:
                hi[k], lo[k] = new_hi, new_lo
                changed = True
    return lo, hi


_OPTIONS: dict[tuple[int, int, int, int, int], tuple[tuple[int, int, int], ...]] = {}


def _options(
    hi_n: int, fixed: int, lo: int, hi: int, target: int
) -> tuple[tuple[int, int, int], ...]:
    """A cell's ``(copies, to colour, to symbol)`` choices: most copies used first, then the
    colour share nearest ``target`` (-1: most to the colour line first)."""
    key = (hi_n, fixed, lo, hi, target)
    opts = _OPTIONS.get(key)
    if opts is None:
        out = []
        for n in range(hi_n, fixed - 1, -1):
            values = list(range(min(n, hi), lo - 1, -1))
            if target >= 0:
                values.sort(key=lambda a: abs(a - target))
            out.extend((n, a, n - a) for a in values)
        opts = _OPTIONS[key] = tuple(out)
    return opts


def _search(
    fixed: Sequence[int], optional: Sequence[int], hint: Split | None = None
) -> Split | None:
    """Find a split of ``fixed + extra`` for some ``0 <= extra <= optional``; None if none.

    With a ``hint`` (a split of a nearby multiset) each kind first tries the hint's choice.
    """
    fixed = [int(x) for x in fixed]
    optional = [int(x) for x in optional]
    bounds = _propagate(fixed, optional)
    if bounds is None:
        return None
    lo_a, hi_a = bounds
    live = [k for k in range(NUM_KINDS) if fixed[k] or optional[k]]
    if not live:
        return Split((0,) * NUM_KINDS, (0,) * NUM_KINDS)
    # elimination order: repeatedly the open line with the fewest undecided cells; its
    # undecided cells are decided next, after which it is complete
    undecided: list[list[int]] = [[] for _ in range(NUM_LINES)]
    for k in live:
        a, b = KIND_LINES[k]
        undecided[a].append(k)
        undecided[b].append(k)
    left = [len(u) for u in undecided]
    done = [False] * NUM_KINDS
    cells: list[int] = []
    nlive = len(live)
    while len(cells) < nlive:
        line = -1
        best = 99
        for L in range(NUM_LINES):
            c = left[L]
            if 0 < c < best:
                best = c
                line = L
        for k in undecided[line]:
            if not done[k]:
                done[k] = True
                cells.append(k)
                a, b = KIND_LINES[k]
                left[a] -= 1
                left[b] -= 1
    ncell = len(cells)
    # per line: 3 x the most copies of one kind it can receive (its count is capped there),
    # and the potential still to come after each position
    cap3 = [0] * NUM_LINES
    pot = [0] * NUM_LINES
    to_a = [0] * NUM_KINDS
    to_b = [0] * NUM_KINDS
    for k in cells:
        a, b = KIND_LINES[k]
        x = hi_a[k]
        y = fixed[k] + optional[k] - lo_a[k]
        to_a[k] = x
        to_b[k] = y
        if 3 * x > cap3[a]:
            cap3[a] = 3 * x
        if 3 * y > cap3[b]:
            cap3[b] = 3 * y
        pot[a] += x
        pot[b] += y
    last_pos = [-1] * NUM_LINES
    for i, k in enumerate(cells):
        a, b = KIND_LINES[k]
        last_pos[a] = i
        last_pos[b] = i
    steps = []
    for i, k in enumerate(cells):
        a, b = KIND_LINES[k]
        pot[a] -= to_a[k]
        pot[b] -= to_b[k]
        target = hint.to_colour[k] if hint is not None else -1
        opts = _options(fixed[k] + optional[k], fixed[k], lo_a[k], hi_a[k], target)
        steps.append(
            (a, b, pot[a], pot[b], last_pos[a] == i, last_pos[b] == i, cap3[a], cap3[b], opts)
        )
    # a line's state is 4 x its count + its multiplicity (< 64); the whole state is packed
    # into one int, 6 bits per line, so that failed (position, state) pairs are cheap to keep
    failed: set[int] = set()
    chosen: list[tuple[int, int, int]] = [(0, 0, 0)] * ncell
    st = [0] * NUM_LINES

    def rec(i: int, packed: int) -> bool:
        if i == ncell:
            return True
        key = packed * 64 + i
        if key in failed:
            return False
        la, lb, ra, rb, ca, cb, capa, capb, opts = steps[i]
        code_a, code_b = st[la], st[lb]
        sa, ma = code_a >> 2, code_a & 3
        sb, mb = code_b >> 2, code_b & 3
        shift_a, shift_b = 6 * la, 6 * lb
        for opt in opts:
            _n, a, b = opt
            if a:
                nsa = sa + a
                if nsa > capa:
                    nsa = capa
                nma = ma if ma >= a else a
            else:
                nsa, nma = sa, ma
            if nsa:
                # a partial line must still be able to reach 3 x its multiplicity
                if nsa + ra < 3 * nma:
                    continue
                if ca:  # closed: valid now, then forgotten (state 0)
                    nsa = nma = 0
            if b:
                nsb = sb + b
                if nsb > capb:
                    nsb = capb
                nmb = mb if mb >= b else b
            else:
                nsb, nmb = sb, mb
            if nsb:
                if nsb + rb < 3 * nmb:
                    continue
                if cb:
                    nsb = nmb = 0
            new_a = nsa * 4 + nma
            new_b = nsb * 4 + nmb
            st[la] = new_a
            st[lb] = new_b
            chosen[i] = opt
            nxt = packed + ((new_a - code_a) << shift_a) + ((new_b - code_b) << shift_b)
            if rec(i + 1, nxt):
                return True
        st[la] = code_a
        st[lb] = code_b
        failed.add(key)
        return False

    if not rec(0, 0):
        return None
    total = [0] * NUM_KINDS
    to_colour = [0] * NUM_KINDS
    for i, k in enumerate(cells):
        total[k] = chosen[i][0]
        to_colour[k] = chosen[i][1]
    return Split(tuple(total), tuple(to_colour))


def _quick(counts: tuple[int, ...]) -> Split | None:
    """A split that sends every card to its colour line, or every card to its symbol line,
    when that one is valid (common on large tables); None otherwise (not a proof)."""
    for colour_side in (True, False):
        ok = True
        for line in range(6):
            size = mult = 0
            for j in range(6):
                n = counts[line * 6 + j] if colour_side else counts[j * 6 + line]
                size += n
                if n > mult:
                    mult = n
            if size and size < 3 * mult:
                ok = False
                break
        if ok:
            return Split(counts, counts if colour_side else _NO_OPTIONAL)
    return None


_LOCAL_MOVES = 8


def _local_search(counts: tuple[int, ...], hint: Split | None) -> Split | None:
    """A split of ``counts`` found by improving moves from a start assignment (``hint``'s
    choices where it has the kind, else every copy to the kind's fuller line); None if it gets
    stuck (not a proof).

    A line's penalty is how many cards it lacks (``3 x multiplicity - count``, 0 when empty
    or valid); each move changes how one kind's copies divide between its two lines, choosing
    the change that lowers the penalty of a broken line's neighbourhood most.
    """
    line_total = [0] * NUM_LINES
    for k in range(NUM_KINDS):
        if counts[k]:
            c, s = KIND_LINES[k]
            line_total[c] += counts[k]
            line_total[s] += counts[k]
    a = [0] * NUM_KINDS
    for k in range(NUM_KINDS):
        n = counts[k]
        if not n:
            continue
        if hint is not None and hint.total[k]:
            a[k] = min(n, hint.to_colour[k])
        else:
            c, s = KIND_LINES[k]
            a[k] = n if line_total[c] >= line_total[s] else 0

    def penalty(line: int) -> int:
        size = mult = 0
        if line < 6:
            for k in LINE_KINDS[line]:
                x = a[k]
                size += x
                if x > mult:
                    mult = x
        else:
            for k in LINE_KINDS[line]:
                x = counts[k] - a[k]
                size += x
                if x > mult:
                    mult = x
        return 0 if size >= 3 * mult else 3 * mult - size

    pen = [penalty(L) for L in range(NUM_LINES)]
    for _ in range(_LOCAL_MOVES):
        worst = max(range(NUM_LINES), key=pen.__getitem__)
        if not pen[worst]:
            return Split(counts, tuple(a))
        best_gain = 0
        best: tuple[int, int] | None = None
        for k in LINE_KINDS[worst]:
            n = counts[k]
            if not n:
                continue
            c, s = KIND_LINES[k]
            old_a = a[k]
            before = pen[c] + pen[s]
            for na in range(n + 1):
                if na == old_a:
                    continue
                a[k] = na
                gain = before - penalty(c) - penalty(s)
                if gain > best_gain:
                    best_gain = gain
                    best = (k, na)
            a[k] = old_a
        if best is None:
            return None
        k, na = best
        a[k] = na
        c, s = KIND_LINES[k]
        pen[c] = penalty(c)
        pen[s] = penalty(s)
    return None


_CACHE: dict[tuple[bytes, bytes], Split | None] = {}
_CACHE_LIMIT = 20_000
"""Entries kept before the cache is emptied (a few megabytes; hits come mostly from the
queries of one turn, so a small cache loses little)."""
_NO_OPTIONAL = (0,) * NUM_KINDS


def find_split(
    fixed: Sequence[int], optional: Sequence[int] | None = None, hint: Split | None = None
) -> Split | None:
    """A split into valid rows of ``fixed`` plus some of the ``optional`` extra copies.

    Returns None when no choice of extras ``0 <= extra <= optional`` (per kind) makes the
    multiset valid. ``Split.total`` tells which extras were used; the search tries to use as
    many extras as possible first. ``hint`` (a split of a nearby multiset) is tried first by
    moving only the changed copies. Results are cached.

    >>> from .cards import parse_cards, format_cards
    >>> s = find_split(parse_cards("Rs Os"), parse_cards("Ys Bd Bs"))
    >>> format_cards(s.total)
    'Rs Os Ys Bs'
    >>> find_split(parse_cards("Rs Os"), parse_cards("Bd")) is None
    True
    """
    check_counts(fixed, "fixed")
    fix = tuple(int(x) for x in fixed)
    if optional is None:
        opt = _NO_OPTIONAL
    else:
        check_counts(optional, "optional")
        opt = tuple(int(x) for x in optional)
        for k in range(NUM_KINDS):
            if fix[k] + opt[k] > COPIES:
                raise NotationError(
                    f"count of kind {k} ({card_name(k)}) is {fix[k]} (+{opt[k]} optional); "
                    f"allowed: 0 to {COPIES} in all"
                )
    key = (bytes(fix), bytes(opt))
    try:
        return _CACHE[key]
    except KeyError:
        pass
    result = None
    if not any(opt):
        result = _quick(fix)
        if result is None:
            result = _local_search(fix, hint)
    if result is None:
        result = _search(fix, opt, hint)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = result
    return result


def quick_split(counts: Sequence[int], hint: Split | None = None) -> Split | None:
    """A split of ``counts`` found cheaply (cache, one-sided splits, local search from
    ``hint``), or
    None — which proves nothing; :func:`find_split` decides."""
    fix = tuple(counts)
    key = (bytes(fix), bytes(_NO_OPTIONAL))
    if key in _CACHE:
        return _CACHE[key]
    result = _quick(fix)
    if result is None:
        result = _local_search(fix, hint)
    if result is not None:
        _CACHE[key] = result
    return result


def remove_cards(split: Split, cards: Sequence[int]) -> Split | None:
    """A split of ``split.total - cards`` that takes each removed copy from the line holding
    it in ``split`` (the colour line first, or else the symbol line first), when every line
    stays valid; None otherwise (not a proof).

    >>> from .cards import parse_cards
    >>> s = find_split(parse_cards("Ro Rx Rd Rs"))
    >>> remove_cards(s, parse_cards("Rs")).total == parse_cards("Ro Rx Rd")
    True
    >>> remove_cards(s, parse_cards("Rs Rd")) is None
    True
    """
    for colour_first in (True, False):
        total = list(split.total)
        a = list(split.to_colour)
        touched: set[int] = set()
        ok = True
        for k in range(NUM_KINDS):
            c = cards[k]
            if not c:
                continue
            if c > total[k]:
                return None
            from_colour = min(c, a[k]) if colour_first else max(0, c - (total[k] - a[k]))
            total[k] -= c
            a[k] -= from_colour
            if from_colour:
                touched.add(KIND_LINES[k][0])
            if c - from_colour:
                touched.add(KIND_LINES[k][1])
        for L in touched:
            size = mult = 0
            for k in LINE_KINDS[L]:
                x = a[k] if L < 6 else total[k] - a[k]
                size += x
                if x > mult:
                    mult = x
            if size and size < 3 * mult:
                ok = False
                break
        if ok:
            return Split(tuple(total), tuple(a))
    return None


def remove_qwirkle(split: Split, line: int) -> Split | None:
    """A split of ``split.total`` minus one Qwirkle of ``line`` obtained by taking each of its
    cards from the line that holds it in ``split`` (``line`` itself when it has a copy),
    when every line stays valid; None otherwise (not a proof).

    >>> from .cards import parse_cards, parse_line
    >>> s = find_split(parse_cards("Ro Rx Rd Rs Rt Rc Bs Ys"))
    >>> remove_qwirkle(s, parse_line("R")) is None  # Bs Ys alone are left
    True
    >>> s = find_split(parse_cards("Ro Rx Rd Rs Rt Rc Ro Rx Rd"))
    >>> remove_qwirkle(s, parse_line("R")).total == parse_cards("Ro Rx Rd")
    True
    """
    total = list(split.total)
    a = list(split.to_colour)
    colour_line = line < 6
    touched = {line}
    for k in LINE_KINDS[line]:
        n = total[k]
        if not n:
            return None
        on_colour = a[k]
        total[k] = n - 1
        if colour_line:
            if on_colour:
                a[k] = on_colour - 1
            else:
                touched.add(KIND_LINES[k][1])
        elif n - on_colour == 0:  # the symbol line holds none: take it from the colour line
            a[k] = on_colour - 1
            touched.add(KIND_LINES[k][0])
    for L in touched:
        size = mult = 0
        for k in LINE_KINDS[L]:
            x = a[k] if L < 6 else total[k] - a[k]
            size += x
            if x > mult:
                mult = x
        if size and size < 3 * mult:
            return None
    return Split(tuple(total), tuple(a))


def is_valid_table(cards: Sequence[int]) -> bool:
    """Whether a multiset of cards (36 counts, each 0 to 3) splits into valid rows.

    Card names are refused with a pointer to the counts they stand for:

    >>> is_valid_table(["Rd", "Od", "Yd"])
    Traceback (most recent call last):
    ...
    tabletop_rl.envs.errors.NotationError: is_valid_table takes 36 card counts ...
    """
    if isinstance(cards, str | bytes) or (
        isinstance(cards, Sequence) and any(isinstance(n, str) for n in cards)
    ):
        raise NotationError(
            "is_valid_table takes 36 card counts (kind 6 * colour + symbol), not card names; "
            f"convert names with parse_cards, e.g. parse_cards('Rd Od Yd'); got {cards!r}"
        )
    if isinstance(cards, Sequence | np.ndarray) and len(cards) == 0:
        return True
    check_counts(cards, "table")
    return find_split(cards) is not None


def split_line(cards: dict[int, int]) -> list[list[int]]:
    """Deal one line's cards into rows of 3 to 6 distinct kinds (the line must be valid).

    >>> split_line({0: 2, 1: 2, 2: 1, 3: 1})
    [[0, 1, 2], [0, 1, 3]]
    """
    count = sum(cards.values())
    if count == 0:
        return []
    mult = max(cards.values())
    if not line_ok(count, mult):
        raise ValueError(f"{count} cards with a kind {mult} times do not split into rows")
    rows: list[list[int]] = [[] for _ in range(mult)]
    order = sorted(cards, key=lambda k: (-cards[k], k))
    i = 0
    for k in order:
        for _ in range(cards[k]):
            rows[i % mult].append(k)
            i += 1
    return [sorted(r) for r in rows]


def arrange_rows(cards: Sequence[int]) -> list[list[int]]:
    """One concrete arrangement of a valid table into rows (lists of kinds), for display.

    Symbol rows come first, then colour rows (the seed's suggested layout).

    >>> from .cards import parse_cards, card_name
    >>> [[card_name(k) for k in row] for row in arrange_rows(parse_cards("Rd Od Yd Bs Bo Bx"))]
    [['Rd', 'Od', 'Yd'], ['Bo', 'Bx', 'Bs']]
    """
    split = find_split(cards)
    if split is None:
        raise ValueError(f"the table {counts_to_kinds(cards)} does not split into valid rows")
    rows: list[list[int]] = []
    for line in list(range(6, 12)) + list(range(6)):
        rows.extend(split_line(split.line_cards(line)))
    return rows
