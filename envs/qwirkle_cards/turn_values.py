"""What each sub-action leads to: the best whole turn that continues with it.

A Qwirkle Cards turn is several sub-actions (Qwirkles taken, then cards played one by one,
then the end of the turn), but what a player wants is a good *turn*. For every legal
sub-action of the player to act, :func:`write_turn_values` looks at every legal turn that
continues the selection so far with that sub-action and reports

- the most Qwirkles such a turn takes (the whole turn's, those already taken included), and
- the best *turn value* among the turns that take that many: the value the scripted
  ``heuristic`` agent ranks turns by, with its default weights (:data:`TURN_VALUE_WEIGHTS`,
  which are that agent's defaults):

      - ``risk`` x the next player's chance of holding every missing kind, summed over the
        lines with at most two kinds missing from the table the turn leaves
      + ``own_complete`` x the lines whose missing kinds are all among the cards kept
      + ``own_near`` x the lines with one missing kind not among them
      + ``played`` x the cards the turn plays.

So an agent that picks the sub-action with the most Qwirkles and then the best value plays
the heuristic's turns, one sub-action at a time, and a policy can read the same numbers.

The legal turns are enumerated exactly: every sub-multiset of the cards still in hand added
to the selection, every multiset of further Qwirkles (while no card has been played and a
take is legal), each checked with the table-validity solver. Pruning keeps that cheap
without changing the answer: the selections without further Qwirkles are valued first (in
the order of a counter over the hand's kinds, so only the lines of the kinds each step
changes are read again, and a line's chance is computed only where it is charged) and
checked best value first, each only while it holds an action whose best is not found yet;
the Qwirkle choices are searched branch and bound on the per-line bound, and a choice is
valued and checked only when it could beat a record. The first turn is the start row: one of
the starter's largest sets (its Qwirkle taken first when it has six cards). The chances are
the hypergeometric estimates of :mod:`.line_odds` (the features' ``line_next_chance``).

Playing ``Rd`` onto ``Ro Rx Rs`` takes no Qwirkle and is worth 0.05 for the card, less
the next player's chance (0.051) of holding both ``Rt`` and ``Rc``:

>>> from .cards import parse_cards, parse_card
>>> from .actions import NUM_ACTIONS
>>> from .compiled_solver import SearchWork
>>> table = np.array(parse_cards("Ro Rx Rs"))
>>> hand = np.array(parse_cards("Rd Bd Bd"))
>>> zero = np.zeros(36, dtype=np.int64)
>>> w = SearchWork()
>>> mask = np.zeros(NUM_ACTIONS, dtype=np.int8); mask[parse_card("Rd")] = 1
>>> unseen = np.full(36, 2, dtype=np.int64)
>>> most = np.zeros(NUM_ACTIONS); value = np.zeros(NUM_ACTIONS)
>>> write_turn_values(hand, table, zero, np.zeros(12, dtype=np.int64), unseen, 9, False,
...                   mask, most, value, w.rows, w.options, w.memo)
>>> int(most[parse_card("Rd")]), round(float(value[parse_card("Rd")]), 3)
(0, -0.001)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .actions import END_TURN, NUM_ACTIONS, TAKE
from .cards import NUM_KINDS, NUM_LINES
from .compiled_solver import KIND_A, KIND_B, LINE_KIND, splits
from .compiled_turns import start_sets
from .greedy_turns import line_cap, qwirkle_bound
from .line_odds import MAX_COPIES_MISSING, draw_ratios, line_value


class TurnValueWeights(NamedTuple):
    """The weights of a turn's value (see the module docstring)."""

    risk: float = 1.0
    """Multiplies the next player's expected completable lines (at most two kinds missing)."""
    own_complete: float = 0.6
    """Value of a line the kept cards complete with the table (a Qwirkle next turn)."""
    own_near: float = 0.1
    """Value of a line the kept cards bring within one card."""
    played: float = 0.05
    """Value of each card played (a fresh card is drawn for it)."""


TURN_VALUE_WEIGHTS = TurnValueWeights()
"""The weights of :func:`write_turn_values` (the ``heuristic`` agent's defaults)."""

_WEIGHTS = np.array(TURN_VALUE_WEIGHTS, dtype=np.float64)
"""The weights as the compiled code reads them (a constant array)."""

NO_TURN = -1.0
"""``most`` of an action no legal turn continues with (an illegal one) while searching."""

MAX_MISSING_CHARGED = 2
"""Lines with at most this many kinds missing are charged the next player's chance."""


@njit(cache=True, nogil=True, inline="always")
def _add_line(value: float, missing: int, short: int, chance: float, weights: np.ndarray) -> float:
    """``value`` plus one line's part of a turn value (module docstring)."""
    if missing <= MAX_MISSING_CHARGED:
        value -= weights[0] * chance
    if short == 0:
        value += weights[1]
    elif short == 1:
        value += weights[2]
    return value


@njit(cache=True, nogil=True)
def turn_value(
    left: np.ndarray,
    kept: np.ndarray,
    num_played: int,
    unseen: np.ndarray,
    ratios: np.ndarray,
    terms: np.ndarray,
    weights: np.ndarray,
) -> float:
    """The value of a turn that leaves the table ``left``, keeps ``kept`` and plays
    ``num_played`` cards (module docstring; ``weights`` in :class:`TurnValueWeights` order)."""
    value = weights[3] * num_played
    for line in range(NUM_LINES):
        missing, short, _, chance = line_value(
            line, left, kept, unseen, ratios, terms, MAX_MISSING_CHARGED
        )
        value = _add_line(value, missing, short, chance, weights)
    return value


@njit(cache=True, nogil=True)
def _note(action: int, qwirkles: int, value: float, most: np.ndarray, best: np.ndarray) -> None:
    """Keep ``(qwirkles, value)`` for ``action`` if it beats what it has."""
    if qwirkles > most[action] or (qwirkles == most[action] and value > best[action]):
        most[action] = qwirkles
        best[action] = value


@njit(cache=True, nogil=True)
def _first_turn(
    hand: np.ndarray,
    played: np.ndarray,
    taken: np.ndarray,
    table: np.ndarray,
    unseen: np.ndarray,
    ratios: np.ndarray,
    terms: np.ndarray,
    weights: np.ndarray,
    most: np.ndarray,
    best: np.ndarray,
) -> None:
    """The start row's turns: per line holding one of the largest sets, that set (one card
    of each of the line's kinds held), its Qwirkle taken first when it has six cards."""
    held = hand + played
    lines = np.zeros(NUM_LINES, dtype=np.int64)
    size = start_sets(held, lines)
    left = table.copy()
    kept = hand.copy()
    for L in range(NUM_LINES):
        if not lines[L]:
            continue
        extends = True
        for line in range(NUM_LINES):
            if taken[line] > (1 if line == L and size == 6 else 0):
                extends = False
        for k in range(NUM_KINDS):
            if played[k] > (1 if held[k] and (KIND_A[k] == L or KIND_B[k] == L) else 0):
                extends = False
        if not extends:
            continue
        left[:] = table
        kept[:] = hand
        for j in range(6):
            k = LINE_KIND[L, j]
            if held[k]:
                kept[k] -= 1 - played[k]
                left[k] += 0 if size == 6 else 1
        qwirkles = 1 if size == 6 else 0
        value = turn_value(left, kept, size, unseen, ratios, terms, weights)
        if size == 6 and not taken[L]:
            _note(TAKE + L, qwirkles, value, most, best)
            continue
        done = True
        for j in range(6):
            k = LINE_KIND[L, j]
            if held[k] and not played[k]:
                _note(k, qwirkles, value, most, best)
                done = False
        if done:
            _note(END_TURN, qwirkles, value, most, best)


@njit(cache=True, nogil=True)
def write_turn_values(
    hand: np.ndarray,
    table: np.ndarray,
    played: np.ndarray,
    taken: np.ndarray,
    unseen: np.ndarray,
    next_hand: int,
    first_turn: bool,
    mask: np.ndarray,
    most: np.ndarray,
    best: np.ndarray,
    rows: np.ndarray,
    options: np.ndarray,
    memo: np.ndarray,
) -> None:
    """For every legal action of ``mask`` (the acting observer's), ``most[a]``: the most
    Qwirkles of a legal turn continuing the selection with ``a``, and ``best[a]``: the best
    turn value among those (module docstring); 0 for the others. ``hand`` excludes the cards
    played this turn; the inputs are counts as in the observation (any integer dtype);
    ``next_hand`` is the next player's hand size; ``rows``, ``options``, ``memo``: the
    solver's scratch arrays (a :class:`~.compiled_solver.SearchWork`'s, one per thread)."""
    hand_ = hand.astype(np.int64)
    table_ = table.astype(np.int64)
    played_ = played.astype(np.int64)
    taken_ = taken.astype(np.int64)
    unseen_ = unseen.astype(np.int64)
    total = int(unseen_.sum())
    ratios = np.empty(MAX_COPIES_MISSING + 1, dtype=np.float64)
    draw_ratios(total, min(next_hand, total), ratios)
    terms = np.empty(MAX_COPIES_MISSING + 1, dtype=np.float64)
    weights = _WEIGHTS
    found = np.full(NUM_ACTIONS, NO_TURN)
    value = np.full(NUM_ACTIONS, -np.inf)
    if first_turn:
        _first_turn(hand_, played_, taken_, table_, unseen_, ratios, terms, weights, found, value)
    else:
        _later_turn(
            hand_, played_, taken_, table_, unseen_, mask, ratios, terms, weights, found,
            value, rows, options, memo,
        )  # fmt: skip
    for a in range(NUM_ACTIONS):
        if mask[a] and found[a] > NO_TURN:
            most[a] = found[a]
            best[a] = value[a]
        else:
            most[a] = 0.0
            best[a] = 0.0


@njit(cache=True, nogil=True)
def _selection(
    idx: int,
    subsets: np.ndarray,
    kinds: np.ndarray,
    n: int,
    base: np.ndarray,
    hand: np.ndarray,
    after: np.ndarray,
    kept: np.ndarray,
) -> int:
    """``after`` and ``kept`` of the sub-multiset ``subsets[idx]`` of the hand played onto
    ``base``; returns its number of cards."""
    count = 0
    for k in range(NUM_KINDS):
        after[k] = base[k]
        kept[k] = hand[k]
    for i in range(n):
        c = subsets[idx, i]
        after[kinds[i]] += c
        kept[kinds[i]] -= c
        count += c
    return count


@njit(cache=True, nogil=True, inline="always")
def _move_cards(k: int, cards: int, after: np.ndarray, kept: np.ndarray) -> None:
    """Move ``cards`` cards of kind ``k`` from the kept hand to the table (back if < 0)."""
    after[k] += cards
    kept[k] -= cards


@njit(cache=True, nogil=True)
def _later_turn(
    hand: np.ndarray,
    played: np.ndarray,
    taken: np.ndarray,
    table: np.ndarray,
    unseen: np.ndarray,
    mask: np.ndarray,
    ratios: np.ndarray,
    terms: np.ndarray,
    weights: np.ndarray,
    most: np.ndarray,
    best: np.ndarray,
    rows: np.ndarray,
    options: np.ndarray,
    memo: np.ndarray,
) -> None:
    """Every turn after the start row that continues the selection: each sub-multiset
    ``more`` of the hand played on, and (while no card is played and a take is legal) each
    multiset of further Qwirkles, when the table they leave is valid.

    Without further Qwirkles the selections are valued first and checked for a valid table
    best first, each only while it holds an action whose best is not found yet (the
    heuristic's lazy order: usually a few solver queries, not one per selection)."""
    num_taken = int(taken.sum())
    num_played0 = int(played.sum())
    may_take = False
    if num_played0 == 0:
        for line in range(NUM_LINES):
            if mask[TAKE + line]:
                may_take = True
    kinds = np.empty(NUM_KINDS, dtype=np.int64)
    n = 0
    size = 1
    for k in range(NUM_KINDS):
        if hand[k] > 0:
            kinds[n] = k
            n += 1
            size *= hand[k] + 1
    base = table + played
    for line in range(NUM_LINES):
        t = taken[line]
        if t:
            for j in range(6):
                base[LINE_KIND[line, j]] -= t
    subsets = np.zeros((size, max(n, 1)), dtype=np.int64)
    values = np.full(size, -np.inf)
    more = np.zeros(NUM_KINDS, dtype=np.int64)
    after = np.empty(NUM_KINDS, dtype=np.int64)
    kept = np.empty(NUM_KINDS, dtype=np.int64)
    extra = np.zeros(NUM_LINES, dtype=np.int64)
    stack = np.empty(NUM_KINDS, dtype=np.int64)
    nxt = np.empty(NUM_KINDS + 1, dtype=np.int64)
    # every sub-multiset valued as turn_value values it, with the table and hand it leaves
    # kept up to date as the counter moves and only the lines of changed kinds re-read
    owed = 0  # kinds the table still owes (a taken Qwirkle's card not yet played back)
    for k in range(NUM_KINDS):
        after[k] = base[k]
        kept[k] = hand[k]
        owed += after[k] < 0
    missing_at = np.empty(NUM_LINES, dtype=np.int64)
    short_at = np.empty(NUM_LINES, dtype=np.int64)
    chance_at = np.empty(NUM_LINES, dtype=np.float64)
    stale = np.ones(NUM_LINES, dtype=np.bool_)
    count = num_played0
    for idx in range(size):
        for line in range(NUM_LINES):
            if stale[line]:
                missing_at[line], short_at[line], _, chance_at[line] = line_value(
                    line, after, kept, unseen, ratios, terms, MAX_MISSING_CHARGED
                )
                stale[line] = False
        for i in range(n):
            subsets[idx, i] = more[kinds[i]]
        if owed == 0 and count > 0:
            value = weights[3] * count
            for line in range(NUM_LINES):
                value = _add_line(value, missing_at[line], short_at[line], chance_at[line], weights)
            values[idx] = value
        # the next sub-multiset (a mixed-radix counter over the kinds in hand)
        i = 0
        while i < n and more[kinds[i]] == hand[kinds[i]]:
            k = kinds[i]
            _move_cards(k, -more[k], after, kept)
            owed += (after[k] < 0) - (after[k] + more[k] < 0)
            count -= more[k]
            more[k] = 0
            stale[KIND_A[k]] = stale[KIND_B[k]] = True
            i += 1
        if i < n:
            k = kinds[i]
            more[k] += 1
            _move_cards(k, 1, after, kept)
            owed += (after[k] < 0) - (after[k] - 1 < 0)
            count += 1
            stale[KIND_A[k]] = stale[KIND_B[k]] = True
    if may_take:
        # further Qwirkles: the selections of the highest per-line bound first
        bounds = np.full(size, -1, dtype=np.int64)
        for idx in range(size):
            if values[idx] > -np.inf:
                _selection(idx, subsets, kinds, n, base, hand, after, kept)
                bounds[idx] = qwirkle_bound(after)
        for idx in np.argsort(-bounds):
            if bounds[idx] < 0:
                break
            count = _selection(idx, subsets, kinds, n, base, hand, after, kept) + num_played0
            _more_qwirkles(
                after, kept, count, num_taken, extra, stack, nxt, mask, unseen, ratios,
                terms, weights, most, best, rows, options, memo,
            )  # fmt: skip
    # the card plays and the end of the turn: best value first
    pending = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    left = 0
    for i in range(n):
        if mask[kinds[i]]:
            pending[kinds[i]] = True
            left += 1
    if mask[END_TURN]:
        pending[END_TURN] = True
        left += 1
    order = np.argsort(-values)
    for idx in order:
        if left == 0 or values[idx] == -np.inf:
            break
        holds = False
        empty = True
        for i in range(n):
            if subsets[idx, i]:
                empty = False
                if pending[kinds[i]]:
                    holds = True
        if empty and pending[END_TURN]:
            holds = True
        if not holds:
            continue
        _selection(idx, subsets, kinds, n, base, hand, after, kept)
        if not splits(after, rows, options, memo):
            continue
        for i in range(n):
            k = kinds[i]
            if subsets[idx, i] and pending[k]:
                _note(k, num_taken, values[idx], most, best)
                pending[k] = False
                left -= 1
        if empty and pending[END_TURN]:
            _note(END_TURN, num_taken, values[idx], most, best)
            pending[END_TURN] = False
            left -= 1


@njit(cache=True, nogil=True)
def _improves(
    extra: np.ndarray, qwirkles: int, value: float, most: np.ndarray, best: np.ndarray
) -> bool:
    """Whether ``(qwirkles, value)`` beats the record of a take action of ``extra``'s lines."""
    for L in range(NUM_LINES):
        if extra[L]:
            a = TAKE + L
            if qwirkles > most[a] or (qwirkles == most[a] and value > best[a]):
                return True
    return False


@njit(cache=True, nogil=True)
def _may_beat(
    after: np.ndarray,
    line: int,
    qwirkles: int,
    extra: np.ndarray,
    mask: np.ndarray,
    most: np.ndarray,
) -> bool:
    """Whether taking more Qwirkles of lines from ``line`` on (``qwirkles`` so far, those of
    ``extra`` among them) may reach the record of a take action it could note: the per-line
    bound (the fewest copies of a line's kinds on ``after``) against the lowest such record."""
    bound = 0
    floor = np.inf
    for L in range(NUM_LINES):
        if extra[L] and most[TAKE + L] < floor:
            floor = most[TAKE + L]
    for L in range(line, NUM_LINES):
        cap = line_cap(after, L)
        bound += cap
        if cap > 0 and mask[TAKE + L] and most[TAKE + L] < floor:
            floor = most[TAKE + L]
    return qwirkles + bound >= floor


@njit(cache=True, nogil=True)
def _more_qwirkles(
    after: np.ndarray,
    kept: np.ndarray,
    count: int,
    num_taken: int,
    extra: np.ndarray,
    stack: np.ndarray,
    nxt: np.ndarray,
    mask: np.ndarray,
    unseen: np.ndarray,
    ratios: np.ndarray,
    terms: np.ndarray,
    weights: np.ndarray,
    most: np.ndarray,
    best: np.ndarray,
    rows: np.ndarray,
    options: np.ndarray,
    memo: np.ndarray,
) -> None:
    """Every non-empty multiset of further Qwirkles taken off ``after`` (lines in
    non-decreasing order, depth first): a legal turn where the table left is valid, noted
    for each of its lines' take actions. Branch and bound: a subtree is left when even the
    per-line bound on the Qwirkles still takeable (the fewest copies of a line's kinds)
    cannot reach the record of any take action it could note, and a turn's table is
    checked only when it would beat a record. ``after`` is restored on return."""
    depth = 0
    extra[:] = 0
    nxt[0] = 0 if _may_beat(after, 0, num_taken, extra, mask, most) else NUM_LINES
    while depth >= 0:
        line = nxt[depth]
        if line >= NUM_LINES:
            depth -= 1
            if depth >= 0:
                gone = stack[depth]
                extra[gone] -= 1
                for j in range(6):
                    after[LINE_KIND[gone, j]] += 1
                nxt[depth] = gone + 1
            continue
        if line_cap(after, line) <= 0 or depth >= stack.shape[0]:
            nxt[depth] = line + 1
            continue
        for j in range(6):
            after[LINE_KIND[line, j]] -= 1
        extra[line] += 1
        stack[depth] = line
        depth += 1
        nxt[depth] = (
            line if _may_beat(after, line, num_taken + depth, extra, mask, most) else NUM_LINES
        )
        q = num_taken + depth
        if not _improves(extra, q, np.inf, most, best):
            continue  # fewer Qwirkles than every record it could beat: no need to value it
        v = turn_value(after, kept, count, unseen, ratios, terms, weights)
        if _improves(extra, q, v, most, best) and splits(after, rows, options, memo):
            for L in range(NUM_LINES):
                if extra[L]:
                    _note(TAKE + L, q, v, most, best)


__all__ = ["TURN_VALUE_WEIGHTS", "TurnValueWeights", "turn_value", "write_turn_values"]
