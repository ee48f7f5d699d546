"""What makes a Qwirkle Cards position possible: the checks behind every way of building one.

:func:`position_problem` names the first thing wrong with a :class:`~.game.QwirkleCardsState`
(or returns None). The text notation refuses such a position with a ``NotationError``, the
game's constructor with a ``ConfigError``, and the engine's own invariant check
(:meth:`~.game.QwirkleCardsGame.check_invariants`) with an ``InvariantError``: one definition
of a position the rules can continue from, three callers.

A position may leave cards out (a test position with a short pile); the checks are:

- shapes: a hand and the table are 36 counts, the Qwirkles and the line counts 12, each a
  whole number from 0 to 3 (:func:`.cards.counts_problem`); the pile lists kinds 0 to 35;
- conservation: at most 3 copies of a kind across the hands, the table, the pile and the
  players' Qwirkles (each Qwirkle holds one card of each kind of its line);
- hand sizes: at most 9 cards;
- counters: seats in range; the turn number from 0 to ``max_turns`` (below it while the game
  runs, equal to it once truncated); passes below the number of players while running, and
  only with an empty pile; ``turns_left`` from 1 to the number of players while running, set
  only once the pile is empty;
- the first turn: an empty table, no Qwirkles, turn 0, the starter to move with a largest set
  of at least 3 cards, no smaller than anyone's;
- between turns the table splits into valid rows (:func:`.solver.is_valid_table`);
- the turn under way: cards played this turn come from the mover's hand, and the Qwirkles
  taken and cards played so far can still make a legal turn; a finished game has none.

>>> import numpy as np
>>> from .game import QwirkleCardsGame
>>> game = QwirkleCardsGame(2, np.random.default_rng(0))
>>> position_problem(game.state) is None
True
>>> game.state.played[game.state.hands[game.to_move].index(0)] = 1  # a card not in the hand
>>> position_problem(game.state)
'played: Ro is played but player 0 holds no Ro...'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .cards import (
    COPIES,
    HAND_SIZE,
    LINE_KINDS,
    NUM_KINDS,
    NUM_LINES,
    TOTAL_CARDS,
    card_name,
    counts_problem,
    format_cards,
    line_name,
)
from .solver import find_split
from .turns import TurnBuilder, largest_sets

if TYPE_CHECKING:
    from .game import QwirkleCardsState


def _lines(counts: Sequence[int]) -> str:
    return " ".join(line_name(L) for L in range(NUM_LINES) for _ in range(counts[L])) or "-"


def position_problem(state: QwirkleCardsState) -> str | None:
    """The first problem of ``state`` as a message naming what is wrong and what is allowed;
    None for a position the rules can continue from (see the module docstring)."""
    s = state
    n = s.num_players
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 4:
        return f"players: {n!r} is not allowed; allowed: 2 to 4"
    for name, value in (("hands", s.hands), ("qwirkles", s.qwirkles)):
        if not isinstance(value, Sequence) or len(value) != n:
            return f"{name}: expected one entry per player ({n}), got {value!r}"
    shapes = [(f"hand {p}", h, False) for p, h in enumerate(s.hands)]
    shapes += [(f"qwirkles {p}", q, True) for p, q in enumerate(s.qwirkles)]
    shapes += [("table", s.table, False), ("played", s.played, False), ("taken", s.taken, True)]
    for name, counts, lines in shapes:
        if problem := counts_problem(counts, name, lines):
            return problem
    if isinstance(s.pile, str | bytes) or not isinstance(s.pile, Sequence):
        return (
            f"pile: expected a list of card kinds (0 to {NUM_KINDS - 1}), got "
            f"{type(s.pile).__name__}"
        )
    if len(s.pile) > TOTAL_CARDS:
        return f"pile: {len(s.pile)} cards; the game has {TOTAL_CARDS}"
    for k in s.pile:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < NUM_KINDS:
            return f"pile: {k!r} is not a card kind; allowed: 0 to {NUM_KINDS - 1}"
    for key in ("turn_count", "passes", "max_turns", "turns_left"):
        value = getattr(s, key)
        if not (value is None and key == "turns_left") and (
            isinstance(value, bool) or not isinstance(value, int)
        ):
            return f"{key}: {value!r} is not a whole number"
    if not isinstance(s.first_turn, bool) or getattr(s.status, "value", None) not in (
        "running",
        "finished",
        "truncated",
    ):
        return f"first_turn must be a bool and status a Status, got {s.first_turn!r}, {s.status!r}"
    for key in ("starter", "to_move"):
        seat = getattr(s, key)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            return f"{key}: {seat!r} is not a seat; allowed: 0 to {n - 1}"
    return (
        _conservation_problem(s)
        or _counter_problem(s)
        or _first_turn_problem(s)
        or _table_problem(s)
        or _turn_problem(s)
    )


def _conservation_problem(s: QwirkleCardsState) -> str | None:
    copies = [s.table[k] + sum(h[k] for h in s.hands) for k in range(NUM_KINDS)]
    for k in s.pile:
        copies[k] += 1
    for q in s.qwirkles:
        for line in range(NUM_LINES):
            for k in LINE_KINDS[line]:
                copies[k] += q[line]
    for k in range(NUM_KINDS):
        if copies[k] > COPIES:
            return (
                f"{copies[k]} copies of {card_name(k)} in the hands, the table, the pile and "
                f"the Qwirkles; the game has {COPIES}"
            )
    for p, h in enumerate(s.hands):
        if sum(h) > HAND_SIZE:
            return f"hand {p}: {sum(h)} cards; a hand holds at most {HAND_SIZE}"
    return None


def _counter_problem(s: QwirkleCardsState) -> str | None:
    n, status = s.num_players, s.status.value
    running = status == "running"
    if isinstance(s.max_turns, bool) or not isinstance(s.max_turns, int) or s.max_turns < 1:
        return f"max_turns: {s.max_turns!r}; allowed: a whole number from 1"
    if not 0 <= s.turn_count <= s.max_turns:
        return f"turn: {s.turn_count} is out of range; allowed: 0 to max_turns ({s.max_turns})"
    if running and s.turn_count == s.max_turns:
        return f"turn: {s.turn_count} reaches max_turns while the game runs; the game is truncated"
    if status == "truncated" and s.turn_count != s.max_turns:
        return f"status: truncated at turn {s.turn_count}; a game is truncated at max_turns"
    if not 0 <= s.passes <= (n - 1 if running else n):
        return f"passes: {s.passes} is out of range; allowed: 0 to {n - 1} while the game runs"
    if s.passes and s.pile:
        return f"passes: {s.passes} with cards in the pile; a player passes only when it is empty"
    if s.turns_left is not None:
        if s.pile:
            return "turns_left: set while the pile holds cards; the end comes once it is empty"
        low = 1 if running else 0
        if not low <= s.turns_left <= n:
            return f"turns_left: {s.turns_left} is out of range; allowed: {low} to {n}"
    return None


def _first_turn_problem(s: QwirkleCardsState) -> str | None:
    if not s.first_turn:
        if s.turn_count == 0:
            return "turn: 0 but first_turn is no; the first turn is turn 0"
        return None
    if s.turn_count or any(s.table) or any(map(any, s.qwirkles)) or s.turns_left is not None:
        return (
            "first_turn: yes needs turn 0, an empty table, no Qwirkles and no end triggered; "
            f"got turn {s.turn_count}, table {format_cards(s.table) or '-'}"
        )
    if s.status.value != "running" or s.to_move != s.starter:
        return "first_turn: yes needs a running game with the starter to move"
    numbers = [largest_sets(h)[0] for h in s.hands]
    if numbers[s.starter] < 3 or numbers[s.starter] < max(numbers):
        return (
            f"starter: player {s.starter}'s largest set has {numbers[s.starter]} cards; the "
            f"starter has the largest set of all (start numbers {numbers}), at least 3"
        )
    return None


def _table_problem(s: QwirkleCardsState) -> str | None:
    if any(s.table) and find_split(s.table) is None:
        return (
            f"table: {format_cards(s.table)} does not split into valid rows (3 to 6 different "
            "cards sharing a colour or a symbol); between turns the table is always valid"
        )
    return None


def _turn_problem(s: QwirkleCardsState) -> str | None:
    if not any(s.played) and not any(s.taken):
        return None
    if s.status.value != "running":
        return "played/taken: a turn is under way in a game that is over"
    hand = s.hands[s.to_move]
    for k in range(NUM_KINDS):
        if s.played[k] > hand[k]:
            return (
                f"played: {card_name(k)} is played but player {s.to_move} holds no "
                f"{'more ' if hand[k] else ''}{card_name(k)}; cards played this turn come "
                f"from the hand of the player to move ({format_cards(hand) or '-'})"
            )
    builder = TurnBuilder(s.table, hand, first_turn=s.first_turn)
    for line in range(NUM_LINES):
        for _ in range(s.taken[line]):
            if not builder.can_take(line):
                return (
                    f"taken: {_lines(s.taken)} cannot be taken by player {s.to_move} from "
                    "this table and hand in a legal turn"
                )
            builder.take(line)
    for k in range(NUM_KINDS):
        for _ in range(s.played[k]):
            if not builder.can_play(k):
                return (
                    f"played: {format_cards(s.played)} (with Qwirkles taken: "
                    f"{_lines(s.taken)}) cannot be part of a legal turn from this table"
                )
            builder.play(k)
    return None
