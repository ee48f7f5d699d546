"""The turn builder's legality compiled with numba: which plays, takes and end are legal.

:func:`turn_mask` computes in one call what :meth:`.turns.TurnBuilder.legal` answers, exactly
as :mod:`.turns` defines it (its module docstring): playing ``k`` needs some ``P`` within the
hand, containing the cards played so far and ``k``, with ``table + P`` minus the Qwirkles
taken valid and nowhere negative; taking ``L`` (before any card is played) needs such a
non-empty ``P`` with ``L`` added to the Qwirkles taken; ending needs the selection itself to
be a legal turn. The first turn lays exactly one of the starter's largest sets, its Qwirkle
taken first when it has 6 cards.

Like the reference, a builder keeps what it learnt during a turn: the playable selections it
found (*witnesses*: a later query contained in one needs no search) and the kinds proved
unplayable (*dead*: they stay so while cards are added), both forgotten when a Qwirkle is
taken. :class:`CompiledTurnBuilder` has :class:`.turns.TurnBuilder`'s interface, so the rules
engine runs on it unchanged (:class:`CompiledQwirkleCardsGame`).

>>> from .cards import parse_cards, parse_card, parse_line
>>> b = CompiledTurnBuilder(parse_cards("Ro Rx Rs Rd Rt"), parse_cards("Rc Bd Bd"))
>>> [k for k in range(36) if b.can_play(k)] == [parse_card("Rc")]
True
>>> b.can_take(parse_line("R")), b.can_end()
(True, False)
>>> b.take(parse_line("R")); b.can_end(), b.can_play(parse_card("Rc"))
(False, True)
>>> b.play(parse_card("Rc")); b.can_end(), b.turn().num_qwirkles
(True, 1)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from .cards import NUM_KINDS, NUM_LINES, check_counts
from .compiled_solver import (
    CALLER_ROWS,
    KIND_A,
    KIND_B,
    LINE_KIND,
    SearchWork,
    search_split,
)
from .game import QwirkleCardsGame
from .turns import Turn

MAX_WITNESSES = 32
"""Playable selections a builder remembers (the oldest is overwritten past that)."""

# A turn's int64 vector: the inputs (table and hand at the turn's start, the selection so
# far, whether it is the first turn), the builder's memory and the legal sub-actions.
TABLE = 0
HAND = TABLE + NUM_KINDS
PLAYED = HAND + NUM_KINDS
TAKEN = PLAYED + NUM_KINDS
FIRST = TAKEN + NUM_LINES
DEAD = FIRST + 1
"""Kinds proved unplayable under the Qwirkles taken so far."""
NUM_WITNESSES = DEAD + NUM_KINDS
"""Playable selections found so far (the last ``MAX_WITNESSES`` are kept)."""
PLAYS = NUM_WITNESSES + 1
TAKES = PLAYS + NUM_KINDS
END = TAKES + NUM_LINES
TURN_SIZE = END + 1


@njit(cache=True)
def start_sets(hand: np.ndarray, lines: np.ndarray) -> int:
    """The start number of ``hand`` (its largest set sharing a line, identical cards counted
    once); ``lines[L]`` is set to 1 for the lines holding such a set (``turns.largest_sets``)."""
    best = 0
    for L in range(NUM_LINES):
        n = 0
        for j in range(6):
            if hand[LINE_KIND[L, j]]:
                n += 1
        lines[L] = n
        if n > best:
            best = n
    for L in range(NUM_LINES):
        lines[L] = 1 if lines[L] == best else 0
    return best


@njit(cache=True)
def _start_turn_mask(
    hand: np.ndarray,
    played: np.ndarray,
    taken: np.ndarray,
    plays: np.ndarray,
    takes: np.ndarray,
    start_lines: np.ndarray,
) -> bool:
    """The first turn's legal sub-actions (``TurnBuilder`` with ``first_turn=True``)."""
    size = start_sets(hand, start_lines)
    any_taken = False
    for L in range(NUM_LINES):
        if taken[L]:
            any_taken = True
    playing = False
    n_played = 0
    for k in range(NUM_KINDS):
        if played[k]:
            playing = True
            if hand[k]:
                n_played += 1
    # the lines a play may follow: the Qwirkle taken, else every largest set's line
    for k in range(NUM_KINDS):
        plays[k] = 0
        if hand[k] - played[k] < 1 or played[k]:
            continue
        if size == 6 and not any_taken:
            continue
        for L in range(NUM_LINES):
            if not (taken[L] if any_taken else start_lines[L]):
                continue
            if KIND_A[k] != L and KIND_B[k] != L:
                continue
            fits = True
            for q in range(NUM_KINDS):
                if hand[q] and played[q] and KIND_A[q] != L and KIND_B[q] != L:
                    fits = False
                    break
            if fits:
                plays[k] = 1
                break
    for L in range(NUM_LINES):
        takes[L] = 1 if (not playing and size == 6 and start_lines[L] and not any_taken) else 0
    if not playing or n_played != size:
        return False
    for L in range(NUM_LINES):
        if not start_lines[L]:
            continue
        complete = True
        for q in range(NUM_KINDS):
            if hand[q] and played[q] and KIND_A[q] != L and KIND_B[q] != L:
                complete = False
                break
        if complete:
            return size < 6 or taken[L] == 1
    return False


@njit(cache=True)
def _selection_query(
    base: np.ndarray,
    hand: np.ndarray,
    required: np.ndarray,
    fixed: np.ndarray,
    optional: np.ndarray,
) -> int:
    """Set up the search for some non-empty ``P`` within ``hand``, containing ``required``,
    that makes ``base + P`` valid and nowhere negative: ``fixed`` and ``optional`` are its
    cards and extras. Returns -1 when no such ``P`` exists (a card needed is not in the hand),
    1 when the search must use an extra card (nothing is required), else 0."""
    need_extra = 1
    for k in range(NUM_KINDS):
        r = required[k]
        if base[k] + r < 0:
            r = -base[k]  # a taken Qwirkle's missing cards must come from the hand
        if r > hand[k]:
            return -1
        if r:
            need_extra = 0
        fixed[k] = base[k] + r
        optional[k] = hand[k] - r
    return need_extra


@njit(cache=True)
def turn_mask(
    turn: np.ndarray,
    witnesses: np.ndarray,
    rows: np.ndarray,
    options: np.ndarray,
    memo: np.ndarray,
) -> None:
    """Write the legal sub-actions of the turn being built into ``turn[PLAYS:END + 1]``:
    which kinds may be played, which lines' Qwirkles taken, whether the turn may end (see the
    module docstring).

    ``turn`` is the turn's vector (``TURN_SIZE`` entries, laid out by the offsets above);
    ``witnesses`` (``MAX_WITNESSES`` x 36) the playable selections found this turn;
    ``rows``, ``options``, ``memo``: a :class:`SearchWork`'s arrays.
    """
    table = turn[TABLE:HAND]
    hand = turn[HAND:PLAYED]
    played = turn[PLAYED:TAKEN]
    taken = turn[TAKEN:FIRST]
    dead = turn[DEAD:NUM_WITNESSES]
    plays = turn[PLAYS:TAKES]
    takes = turn[TAKES:END]
    if turn[FIRST]:
        turn[END] = _start_turn_mask(hand, played, taken, plays, takes, rows[CALLER_ROWS])
        return
    base = rows[CALLER_ROWS]
    need = rows[CALLER_ROWS + 1]
    total = rows[CALLER_ROWS + 2]
    to_colour = rows[CALLER_ROWS + 3]
    fixed = rows[CALLER_ROWS + 4]
    optional = rows[CALLER_ROWS + 5]
    playing = False
    for k in range(NUM_KINDS):
        base[k] = table[k]
        need[k] = played[k]
        if played[k]:
            playing = True
    for L in range(NUM_LINES):
        if taken[L]:
            for j in range(6):
                base[LINE_KIND[L, j]] -= taken[L]
    found = turn[NUM_WITNESSES]
    stored = found if found < MAX_WITNESSES else MAX_WITNESSES
    plays[:] = 0
    takes[:] = 0
    turn[END] = 0
    # one query per kind (play it), then per line (take its Qwirkle, before any card is
    # played), then the end of the turn (once a card is played); the search is called from
    # one place only, which keeps the compiled code small
    for q in range(NUM_KINDS + NUM_LINES + 1):
        k = q
        line = q - NUM_KINDS
        if q < NUM_KINDS:
            if hand[k] - played[k] < 1 or dead[k]:
                continue
            need[k] += 1
            inside = False
            for w in range(stored):
                inside = True
                for c in range(NUM_KINDS):
                    if witnesses[w, c] < need[c]:
                        inside = False
                        break
                if inside:
                    break
            if inside:
                plays[k] = 1
                need[k] -= 1
                continue
            setup = _selection_query(base, hand, need, fixed, optional)
        elif q < NUM_KINDS + NUM_LINES:
            if playing:
                continue
            for j in range(6):
                base[LINE_KIND[line, j]] -= 1
            setup = _selection_query(base, hand, need, fixed, optional)
        else:
            if not playing:
                continue
            setup = 0
            for c in range(NUM_KINDS):
                fixed[c] = base[c] + played[c]
                optional[c] = 0
                if fixed[c] < 0:
                    setup = -1
            if setup == 0:
                for w in range(stored):
                    same = True
                    for c in range(NUM_KINDS):
                        if witnesses[w, c] != played[c]:
                            same = False
                            break
                    if same:
                        turn[END] = 1
                        setup = -1
                        break
        ok = False
        if setup >= 0:
            ok = search_split(fixed, optional, setup == 1, total, to_colour, rows, options, memo)
        if q < NUM_KINDS:
            if ok:
                plays[k] = 1
                slot = found % MAX_WITNESSES
                for c in range(NUM_KINDS):
                    witnesses[slot, c] = total[c] - base[c]
                found += 1
                stored = found if found < MAX_WITNESSES else MAX_WITNESSES
            else:
                dead[k] = 1
            need[k] -= 1
        elif q < NUM_KINDS + NUM_LINES:
            takes[line] = ok
            for j in range(6):
                base[LINE_KIND[line, j]] += 1
        elif ok:
            turn[END] = 1
    turn[NUM_WITNESSES] = found


class CompiledTurnBuilder:
    """:class:`.turns.TurnBuilder`'s interface over :func:`turn_mask`: the state of a turn
    being built by sub-actions and which sub-actions keep it completable.

    The legal sub-actions are computed all at once, when first asked after a change, and
    read from arrays after that.
    """

    _work = SearchWork()
    """Scratch memory of the search, shared by the builders of one thread."""

    def __init__(self, table: Sequence[int], hand: Sequence[int], first_turn: bool = False):
        check_counts(table, "table")
        check_counts(hand, "hand")
        self._turn = turn = np.zeros(TURN_SIZE, dtype=np.int64)
        turn[TABLE:HAND] = table
        turn[HAND:PLAYED] = hand
        turn[FIRST] = bool(first_turn)
        self.first_turn = bool(first_turn)
        self._witnesses = np.zeros((MAX_WITNESSES, NUM_KINDS), dtype=np.int64)
        self._fresh = False
        self._playing = False

    # views of the turn's vector (properties, so that copies and pickles stay consistent)
    @property
    def table(self) -> np.ndarray:
        """The table at the turn's start (36 counts)."""
        return self._turn[TABLE:HAND]

    @property
    def hand(self) -> np.ndarray:
        """The hand at the turn's start (36 counts)."""
        return self._turn[HAND:PLAYED]

    @property
    def played(self) -> np.ndarray:
        """The cards played so far (36 counts)."""
        return self._turn[PLAYED:TAKEN]

    @property
    def taken(self) -> np.ndarray:
        """The Qwirkles taken so far (12 counts per line)."""
        return self._turn[TAKEN:FIRST]

    def _update(self) -> None:
        if not self._fresh:
            w = self._work
            turn_mask(self._turn, self._witnesses, w.rows, w.options, w.memo)
            self._fresh = True

    @property
    def playing(self) -> bool:
        """True once a card was played (no more Qwirkles may be taken)."""
        return self._playing

    def can_play(self, kind: int) -> bool:
        """Whether playing one card of ``kind`` keeps the turn completable."""
        self._update()
        return bool(self._turn[PLAYS + kind])

    def can_take(self, line: int) -> bool:
        """Whether taking a Qwirkle of ``line`` keeps the turn completable."""
        self._update()
        return bool(self._turn[TAKES + line])

    def can_end(self) -> bool:
        """Whether the selection so far is itself a legal turn."""
        self._update()
        return bool(self._turn[END])

    def can_play_any(self) -> bool:
        """Whether some card can be played now (at the turn's start: whether a turn exists)."""
        self._update()
        return bool(self._turn[PLAYS:TAKES].any())

    def legal(self) -> tuple[list[int], list[int], bool]:
        """All legal sub-actions at once: kinds playable, lines takeable, whether the turn
        may end."""
        self._update()
        return (
            np.flatnonzero(self._turn[PLAYS:TAKES]).tolist(),
            np.flatnonzero(self._turn[TAKES:END]).tolist(),
            bool(self._turn[END]),
        )

    def mask_into(self, mask: np.ndarray) -> None:
        """Write the plays (entries 0-35), takes (36-47) and end (48) into an action mask."""
        self._update()
        mask[: NUM_KINDS + NUM_LINES + 1] = self._turn[PLAYS : END + 1]

    def play(self, kind: int) -> None:
        self._turn[PLAYED + kind] += 1
        self._playing = True
        self._fresh = False

    def take(self, line: int) -> None:
        self._turn[TAKEN + line] += 1
        self._turn[DEAD : NUM_WITNESSES + 1] = 0
        self._fresh = False

    def turn(self) -> Turn:
        return Turn(tuple(self.played.tolist()), tuple(self.taken.tolist()))


class CompiledQwirkleCardsGame(QwirkleCardsGame):
    """The rules engine with its sub-actions' legality decided by compiled code
    (:class:`CompiledTurnBuilder`); everything else, the random draws included, is the
    reference engine's, so one seed gives the same game in both."""

    turn_builder = CompiledTurnBuilder
