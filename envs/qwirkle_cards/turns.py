"""Turns: which cards to play and which Qwirkles to take, and how to build one step by step.

A turn is a choice of (a) the cards to play from the hand, at least one, and (b) the
Qwirkles to take, each six distinct cards of one line (one card of each kind of a colour or
of a symbol), such that table + played - taken is valid (rules reference, "A turn").

**Two Qwirkles of one line.** The rules let several rows of one colour or symbol lie on the
table at once, and at the end of the turn the player takes *every* 6-card row. So when the
table and the played cards hold two (or three) copies of each kind of a line, the player may
arrange, and take, two (or three) Qwirkles of that line. ``Turn.taken`` therefore counts
Qwirkles per line (0 to 3).

Because a valid table plus a Qwirkle is valid (the Qwirkle is a row), taking fewer Qwirkles
never breaks a valid turn: the cards ``P`` can be played if and only if ``table + P`` is
valid, and the Qwirkles that may then be taken form a downward-closed family.

**Building a turn by sub-actions** (the environment's actions, :class:`TurnBuilder`): first
take the Qwirkles the turn will form, one at a time, then play cards one at a time, then end
the turn. Once a card is played no more Qwirkles are taken. (Announcing the Qwirkles first
lets the action masks be computed once per turn for them instead of after every card.) A
sub-action is allowed exactly when the turn can still be completed to a legal turn, so there
are no dead ends and every legal turn is reachable: taking ``L`` needs some non-empty ``P``
within the hand such that ``table + P`` minus the Qwirkles taken (``L`` included) is a valid
multiset with no negative count; playing ``k`` needs such a ``P`` containing the cards played
so far and ``k``; ending needs the selection itself to be a legal turn. A turn takes at most
``hand size + Qwirkles taken + 1`` sub-actions (hand size + 13 whenever at most 12 Qwirkles
are taken, which needs at least 78 cards on the table and in the hand).

**The first turn** lays exactly one of the starting player's largest sets (one card of each
kind of a line that the player holds, identical cards counted once); a 6-card start row is
a Qwirkle, which is taken (first, as every take) before its cards are played.

>>> from .cards import parse_cards, format_cards
>>> table = parse_cards("Ro Rx Rs Bo Bx Bs")
>>> hand = parse_cards("Bd Bs Yd Od")
>>> sorted(format_cards(t.played) for t in legal_turns(table, hand) if not any(t.taken))
['Bd', 'Od Yd Bd']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from operator import ge, le

from .cards import LINE_KINDS, NUM_KINDS, NUM_LINES, check_counts, format_cards, line_name
from .solver import Split, find_split, quick_split, remove_cards, remove_qwirkle

Counts = tuple[int, ...]
EMPTY_CARDS: Counts = (0,) * NUM_KINDS
EMPTY_LINES: Counts = (0,) * NUM_LINES


def is_valid(cards: Sequence[int]) -> bool:
    """Whether the multiset ``cards`` (36 counts) splits into valid rows (the reference
    solver); the default ``valid`` of the listings below, which a caller may replace with the
    compiled solver's ``is_valid_counts`` (same answers, checked in the tests) for speed."""
    return find_split(tuple(cards)) is not None


@dataclass(frozen=True)
class Turn:
    """A complete turn: cards played (36 counts) and Qwirkles taken (12 counts per line)."""

    played: Counts
    taken: Counts = EMPTY_LINES

    @property
    def num_qwirkles(self) -> int:
        return sum(self.taken)

    @property
    def num_played(self) -> int:
        return sum(self.played)

    def __str__(self) -> str:
        text = "play " + format_cards(self.played)
        if any(self.taken):
            lines = [line_name(L) for L in range(NUM_LINES) for _ in range(self.taken[L])]
            text += " take " + " ".join(lines)
        return text


def add(a: Sequence[int], b: Sequence[int]) -> Counts:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def sub(a: Sequence[int], b: Sequence[int]) -> Counts:
    return tuple(x - y for x, y in zip(a, b, strict=True))


def qwirkle_cards(taken: Sequence[int]) -> Counts:
    """The cards of the Qwirkles ``taken`` (12 counts per line)."""
    out = [0] * NUM_KINDS
    for line, times in enumerate(taken):
        if times:
            for k in LINE_KINDS[line]:
                out[k] += times
    return tuple(out)


def sub_multisets(counts: Sequence[int]) -> Iterator[Counts]:
    """Every sub-multiset of ``counts`` (the empty one first)."""
    live = [k for k in range(NUM_KINDS) if counts[k]]

    def rec(i: int, cur: list[int]) -> Iterator[Counts]:
        if i == len(live):
            yield tuple(cur)
            return
        k = live[i]
        for c in range(counts[k] + 1):
            cur[k] = c
            yield from rec(i + 1, cur)
        cur[k] = 0

    yield from rec(0, [0] * NUM_KINDS)


def takeable_sets(
    after: Sequence[int], size: int | None = None, valid: Callable[[Counts], bool] = is_valid
) -> list[Counts]:
    """Every multiset of Qwirkles (12 counts) that can be taken from the valid multiset
    ``after`` (table + played) leaving it valid, the empty one included; with ``size``, only
    those of exactly ``size`` Qwirkles, in the same order, found without listing the smaller
    ones (a branch stops when its lines cannot add enough Qwirkles).

    >>> from tabletop_rl.envs.qwirkle_cards.cards import parse_cards
    >>> after = parse_cards("Ro Rx Rd Rs Rt Rc Bo Bx Bd Bs Bt Bc")
    >>> takeable_sets(after, 2) == [s for s in takeable_sets(after) if sum(s) == 2]
    True
    >>> len(takeable_sets(after, 1)), takeable_sets(after, 3)
    (2, [])
    """
    out: list[Counts] = []

    def rec(start: int, rest: Counts, taken: list[int], n: int) -> None:
        if size is None or n == size:
            out.append(tuple(taken))
            if size is not None:
                return
        else:
            room = sum(min(rest[k] for k in LINE_KINDS[line]) for line in range(start, NUM_LINES))
            if n + room < size:
                return
        for line in range(start, NUM_LINES):
            if all(rest[k] for k in LINE_KINDS[line]):
                left = list(rest)
                for k in LINE_KINDS[line]:
                    left[k] -= 1
                left_t = tuple(left)
                if valid(left_t):
                    taken[line] += 1
                    rec(line, left_t, taken, n + 1)
                    taken[line] -= 1

    rec(0, tuple(after), [0] * NUM_LINES, 0)
    return out


def max_qwirkles(after: Sequence[int]) -> Counts:
    """A largest multiset of Qwirkles takeable from the valid multiset ``after``."""
    return max(takeable_sets(after), key=lambda q: (sum(q), q))


def largest_sets(hand: Sequence[int]) -> tuple[int, list[int]]:
    """The start number of a hand and the lines of its largest sets.

    The start number is the size of the largest set of cards sharing a colour or a symbol,
    identical cards counted once.

    >>> from .cards import parse_cards, line_name
    >>> size, lines = largest_sets(parse_cards("Rs Rs Ro Rx Bs Ys Gd"))
    >>> size, [line_name(L) for L in lines]
    (3, ['R', 's'])
    """
    check_counts(hand, "hand")
    sizes = [sum(1 for k in LINE_KINDS[L] if hand[k]) for L in range(NUM_LINES)]
    best = max(sizes)
    return best, [L for L in range(NUM_LINES) if sizes[L] == best]


def start_turns(hand: Sequence[int]) -> list[Turn]:
    """The legal first turns: lay one largest set (a 6-card set is taken as a Qwirkle)."""
    size, lines = largest_sets(hand)
    turns = []
    for line in lines:
        played = [0] * NUM_KINDS
        for k in LINE_KINDS[line]:
            if hand[k]:
                played[k] = 1
        taken = [0] * NUM_LINES
        if size == 6:
            taken[line] = 1
        turns.append(Turn(tuple(played), tuple(taken)))
    return turns


def playable_sets(
    table: Sequence[int], hand: Sequence[int], valid: Callable[[Counts], bool] = is_valid
) -> list[Counts]:
    """Every non-empty ``P`` within ``hand`` such that ``table + P`` is valid."""
    out = []
    for played in sub_multisets(hand):
        if any(played) and valid(add(table, played)):
            out.append(played)
    return out


def legal_turns(
    table: Sequence[int],
    hand: Sequence[int],
    first_turn: bool = False,
    valid: Callable[[Counts], bool] = is_valid,
) -> list[Turn]:
    """Every legal turn from ``table`` with ``hand`` (empty: the player cannot play), each
    table checked with ``valid`` (:func:`is_valid`).

    ``first_turn=True`` gives the start turns (the table must be empty).
    """
    check_counts(table, "table")
    check_counts(hand, "hand")
    if first_turn:
        return start_turns(hand)
    turns = []
    for played in playable_sets(table, hand, valid):
        for taken in takeable_sets(add(table, played), valid=valid):
            turns.append(Turn(played, taken))
    return turns


def can_play(table: Sequence[int], hand: Sequence[int]) -> bool:
    """Whether any card of ``hand`` can be played (some legal turn exists)."""
    return TurnBuilder(table, hand).can_play_any()


class TurnBuilder:
    """The state of a turn being built by sub-actions, and which sub-actions keep it
    completable (see the module docstring).

    >>> from .cards import parse_cards, parse_card, parse_line
    >>> b = TurnBuilder(parse_cards("Ro Rx Rs Rd Rt"), parse_cards("Rc Bd Bd"))
    >>> [k for k in range(36) if b.can_play(k)] == [parse_card("Rc")]
    True
    >>> b.can_take(parse_line("R")), b.can_end()
    (True, False)
    >>> b.take(parse_line("R")); b.can_end(), b.can_play(parse_card("Rc"))
    (False, True)
    >>> b.play(parse_card("Rc")); b.can_end(), b.turn().num_qwirkles
    (True, 1)
    """

    def __init__(self, table: Sequence[int], hand: Sequence[int], first_turn: bool = False):
        check_counts(table, "table")
        check_counts(hand, "hand")
        self.table: Counts = tuple(table)
        self.hand: Counts = tuple(hand)
        self.first_turn = first_turn
        self.played = [0] * NUM_KINDS
        self.taken = [0] * NUM_LINES
        self._hand_kinds = [k for k in range(NUM_KINDS) if hand[k]]
        self._reset_witnesses()
        self._table_split: Split | None = None
        self._take_cache: dict[tuple[int, ...], bool] = {}
        if first_turn:
            self._start_size, self._start_lines = largest_sets(hand)

    def _reset_witnesses(self) -> None:
        self._witnesses: list[list[int]] = []  # playable P's found under the current takes
        self._witness_splits: list[tuple[list[int], Split]] = []  # with their splits
        self._dead: set[int] = set()  # kinds that can no longer join a playable P

    # ----------------------------------------------------------------- queries
    def _hint(self) -> Split | None:
        """A split of the table at the turn's start (it is valid), to repair from."""
        if self._table_split is None:
            self._table_split = find_split(self.table)
        return self._table_split

    @property
    def playing(self) -> bool:
        """True once a card was played (no more Qwirkles may be taken)."""
        return any(self.played)

    def _base(self, taken: Sequence[int]) -> list[int]:
        """Table minus the cards of the Qwirkles ``taken`` (negative: must come from the hand)."""
        out = list(self.table)
        for line, times in enumerate(taken):
            if times:
                for k in LINE_KINDS[line]:
                    out[k] -= times
        return out

    def _witness(
        self, required: Sequence[int], taken: Sequence[int], new_line: int | None = None
    ) -> tuple[list[int], Split] | None:
        """Some non-empty ``P`` within the hand, containing ``required``, such that
        ``table + P - taken`` is valid with no negative count, with a split of that multiset;
        None if there is none. ``new_line``: ``taken`` is the current takes plus this line."""
        base = self._base(taken)
        req = list(required)
        for k in range(NUM_KINDS):
            total = base[k] + req[k]
            if total < 0:
                req[k] -= total  # the Qwirkle's missing cards must come from the hand
            if req[k] > self.hand[k]:
                return None
        fixed = tuple(b + r for b, r in zip(base, req, strict=True))
        optional = tuple(h - r for h, r in zip(self.hand, req, strict=True))
        hint = self._hint() if new_line is not None else self._closest_split(req)
        if any(req):
            split = quick_split(fixed, hint)
            if split is not None:
                return req, split
            split = find_split(fixed, optional, hint=hint)
            if split is None:
                return None
            return [r + t - f for r, t, f in zip(req, split.total, fixed, strict=True)], split
        # nothing required yet: some card must still be played. First the new Qwirkle as a
        # row of a known arrangement: of a playable selection (which is then the witness) or
        # of the table (then a single card that joins the rest cheaply usually answers);
        # else one search, which uses as many extras as it can; if that finds only the
        # empty P, each card in turn.
        bare = None
        if new_line is not None:
            for w, wsplit in self._witness_splits:
                found = remove_qwirkle(wsplit, new_line)
                if found is not None:
                    return list(w), found
            if not any(self.taken) and hint is not None:
                bare = remove_qwirkle(hint, new_line)
        if bare is None:
            bare = find_split(fixed, hint=hint)
        if bare is not None:
            for k in self._hand_kinds:
                if optional[k]:
                    one = list(fixed)
                    one[k] += 1
                    split = quick_split(tuple(one), bare)
                    if split is not None:
                        req[k] = 1
                        return req, split
        split = find_split(fixed, optional, hint=hint)
        if split is None:
            return None
        extra = [t - f for t, f in zip(split.total, fixed, strict=True)]
        if any(extra):
            return extra, split
        for k in self._hand_kinds:
            if not optional[k]:
                continue
            one = list(fixed)
            one[k] += 1
            rest = list(optional)
            rest[k] -= 1
            split = find_split(tuple(one), tuple(rest))
            if split is not None:
                return [t - f for t, f in zip(split.total, fixed, strict=True)], split
        return None

    def _closest_split(self, cards: Sequence[int]) -> Split | None:
        """The split of the largest known playable selection within ``cards`` (under the
        current takes), else of the table: the nearest start for a local search."""
        best = None
        size = -1
        for w, wsplit in self._witness_splits:
            if all(map(le, w, cards)):
                n = sum(w)
                if n > size:
                    best, size = wsplit, n
        return best if best is not None else self._hint()

    def can_play(self, kind: int) -> bool:
        """Whether playing one card of ``kind`` keeps the turn completable."""
        if self.hand[kind] - self.played[kind] < 1:
            return False
        if self.first_turn:
            if self.played[kind] or (self._start_size == 6 and not any(self.taken)):
                return False  # a 6-card start row's Qwirkle is taken first
            lines = [L for L in range(NUM_LINES) if self.taken[L]] or self._start_lines
            return any(
                kind in LINE_KINDS[L] and all(k in LINE_KINDS[L] for k in self._played_kinds())
                for L in lines
            )
        if kind in self._dead:
            return False
        need = self.played[:]
        need[kind] += 1
        for w in self._witnesses:
            if all(map(ge, w, need)):
                return True
        found = self._witness(need, self.taken)
        if found is None:
            self._dead.add(kind)
            return False
        self._witnesses.append(found[0])
        self._witness_splits.append(found)
        return True

    def can_play_any(self) -> bool:
        """Whether some card can be played now (at the turn's start: whether a turn exists)."""
        return any(self.can_play(k) for k in self._hand_kinds)

    def _played_kinds(self) -> list[int]:
        return [k for k in self._hand_kinds if self.played[k]]

    def _start_complete_line(self) -> int | None:
        """The start line whose whole largest set is played, if any."""
        played = self._played_kinds()
        if len(played) != self._start_size:
            return None
        for L in self._start_lines:
            if all(k in LINE_KINDS[L] for k in played):
                return L
        return None

    def can_take(self, line: int) -> bool:
        """Whether taking a Qwirkle of ``line`` keeps the turn completable."""
        if self.playing:
            return False
        if self.first_turn:
            return self._start_size == 6 and line in self._start_lines and not any(self.taken)
        taken = self.taken[:]
        taken[line] += 1
        key = tuple(taken)
        if key not in self._take_cache:
            base = self._base(taken)
            possible = all(base[k] + self.hand[k] >= 0 for k in LINE_KINDS[line])
            witness = self._witness([0] * NUM_KINDS, taken, line) if possible else None
            self._take_cache[key] = witness is not None
        return self._take_cache[key]

    def can_end(self) -> bool:
        """Whether the selection so far is itself a legal turn."""
        if not self.playing:
            return False
        if self.first_turn:
            L = self._start_complete_line()
            return L is not None and (self._start_size < 6 or self.taken[L] == 1)
        played = self.played
        for w, wsplit in self._witness_splits:
            # a playable selection containing this one: drop the extra cards from its rows
            if all(map(ge, w, played)):
                extra = [x - p for x, p in zip(w, played, strict=True)]
                if not any(extra) or remove_cards(wsplit, extra) is not None:
                    return True
        after = self._base(self.taken)
        for k in self._hand_kinds:
            after[k] += self.played[k]
        if min(after) < 0:
            return False
        return find_split(tuple(after), hint=self._closest_split(played)) is not None

    def legal(self) -> tuple[list[int], list[int], bool]:
        """All legal sub-actions at once: kinds playable, lines takeable, whether the turn
        may end."""
        plays = [k for k in self._hand_kinds if self.can_play(k)]
        takes = [] if self.playing else [L for L in range(NUM_LINES) if self.can_take(L)]
        return plays, takes, self.can_end()

    # ----------------------------------------------------------------- changes
    def play(self, kind: int) -> None:
        self.played[kind] += 1

    def take(self, line: int) -> None:
        self.taken[line] += 1
        self._reset_witnesses()

    def turn(self) -> Turn:
        return Turn(tuple(self.played), tuple(self.taken))
