"""Text notation for a whole Qwirkle Cards position (for bug reports and tests).

One ``key: value`` line per item; cards in the two-letter notation, lines (Qwirkles) as one
letter (a colour ``R``, a symbol ``s``), ``-`` for nothing. The pile is listed bottom to top
(the next card drawn is the last one). Example::

    qwirkle_cards v0
    players: 2
    starter: 0
    to_move: 1
    turn: 1
    first_turn: no
    end_rule: finish_round
    max_turns: 500
    turns_left: -
    passes: 0
    status: running
    table: Rd Od Yd
    pile: Bs Bo
    hand 0: Rs Rs
    hand 1: Bd Bx
    qwirkles 0: -
    qwirkles 1: -
    played: -
    taken: -

>>> import numpy as np
>>> from .game import QwirkleCardsGame
>>> game = QwirkleCardsGame(2, np.random.default_rng(3))
>>> game.apply_turn(game.legal_turns()[0])
>>> text = to_text(game.state)
>>> to_text(from_text(text)) == text
True
"""

from __future__ import annotations

import re

from ..core.checks import brief_repr
from ..errors import NotationError
from ..notation import require_text
from .cards import (
    NUM_LINES,
    card_name,
    format_cards,
    line_name,
    parse_card,
    parse_cards,
    parse_line,
)
from .game import END_RULES, QwirkleCardsState, Status
from .position import position_problem

HEADER = "qwirkle_cards v0"
MAX_DIGITS = 18
"""The most digits a number of the notation may have (an int64 holds every such number)."""
_INT_RE = re.compile(r"-?[0-9]+")


def _cards(counts: list[int]) -> str:
    return format_cards(counts) or "-"


def _lines(counts: list[int]) -> str:
    return " ".join(line_name(L) for L in range(NUM_LINES) for _ in range(counts[L])) or "-"


def to_text(state: QwirkleCardsState) -> str:
    """The position as text (:func:`from_text` reads it back)."""
    s = state
    rows = [
        HEADER,
        f"players: {s.num_players}",
        f"starter: {s.starter}",
        f"to_move: {s.to_move}",
        f"turn: {s.turn_count}",
        f"first_turn: {'yes' if s.first_turn else 'no'}",
        f"end_rule: {s.end_rule}",
        f"max_turns: {s.max_turns}",
        f"turns_left: {'-' if s.turns_left is None else s.turns_left}",
        f"passes: {s.passes}",
        f"status: {s.status.value}",
        f"table: {_cards(s.table)}",
        "pile: " + (" ".join(card_name(k) for k in s.pile) or "-"),
    ]
    rows += [f"hand {p}: {_cards(h)}" for p, h in enumerate(s.hands)]
    rows += [f"qwirkles {p}: {_lines(q)}" for p, q in enumerate(s.qwirkles)]
    rows += [f"played: {_cards(s.played)}", f"taken: {_lines(s.taken)}"]
    return "\n".join(rows) + "\n"


def _int(value: str, key: str) -> int:
    """``value`` as an int: ASCII digits with an optional minus sign, at most
    :data:`MAX_DIGITS` of them (no counter of a game comes near; a longer one is refused
    unread)."""
    if not _INT_RE.fullmatch(value) or len(value.lstrip("-")) > MAX_DIGITS:
        raise NotationError(
            f"{key}: expected a whole number of at most {MAX_DIGITS} digits, got "
            f"{brief_repr(value)}"
        )
    return int(value)


def from_text(text: str) -> QwirkleCardsState:
    """Read a position written by :func:`to_text` (unknown or missing keys are errors).

    The position must be one the rules can continue from (:mod:`.position`: conservation,
    hand sizes, a valid table, counters in range, the turn under way); a
    :class:`NotationError` names what is wrong.
    """
    text = require_text(text, "a Qwirkle Cards position")
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines or lines[0] != HEADER:
        raise NotationError(f"a position starts with the line {HEADER!r}")
    fields: dict[str, str] = {}
    for ln in lines[1:]:
        if ":" not in ln:
            raise NotationError(f"line {ln!r} is not 'key: value'")
        key, value = ln.split(":", 1)
        key = key.strip()
        if key in fields:
            raise NotationError(f"key {key!r} appears twice")
        fields[key] = value.strip()
    players = _int(fields.get("players", ""), "players")
    if not 2 <= players <= 4:
        raise NotationError(f"players: {players} is not allowed; allowed: 2 to 4")
    expected = {
        "players", "starter", "to_move", "turn", "first_turn", "end_rule", "max_turns",
        "turns_left", "passes", "status", "table", "pile", "played", "taken",
    }  # fmt: skip
    expected |= {f"hand {p}" for p in range(players)} | {f"qwirkles {p}" for p in range(players)}
    missing = expected - set(fields)
    extra = set(fields) - expected
    if missing or extra:
        raise NotationError(
            f"position keys wrong: missing {sorted(missing)}, unknown {sorted(extra)}"
        )

    def cards(key: str) -> list[int]:
        value = fields[key]
        return [0] * 36 if value == "-" else list(parse_cards(value))

    def qlines(key: str) -> list[int]:
        out = [0] * NUM_LINES
        if fields[key] != "-":
            for word in fields[key].split():
                out[parse_line(word)] += 1
        return out

    if fields["end_rule"] not in END_RULES:
        raise NotationError(f"end_rule: {fields['end_rule']!r}; allowed: {', '.join(END_RULES)}")
    statuses = {st.value: st for st in Status}
    if fields["status"] not in statuses:
        raise NotationError(f"status: {fields['status']!r}; allowed: {', '.join(statuses)}")
    if fields["first_turn"] not in ("yes", "no"):
        raise NotationError("first_turn: write yes or no")
    pile = [] if fields["pile"] == "-" else [parse_card(w) for w in fields["pile"].split()]
    state = QwirkleCardsState(
        num_players=players,
        hands=[cards(f"hand {p}") for p in range(players)],
        table=cards("table"),
        pile=pile,
        qwirkles=[qlines(f"qwirkles {p}") for p in range(players)],
        starter=_int(fields["starter"], "starter"),
        to_move=_int(fields["to_move"], "to_move"),
        turn_count=_int(fields["turn"], "turn"),
        first_turn=fields["first_turn"] == "yes",
        played=cards("played"),
        taken=qlines("taken"),
        end_rule=fields["end_rule"],
        max_turns=_int(fields["max_turns"], "max_turns"),
        turns_left=None
        if fields["turns_left"] == "-"
        else _int(fields["turns_left"], "turns_left"),
        passes=_int(fields["passes"], "passes"),
        status=statuses[fields["status"]],
    )
    if problem := position_problem(state):
        raise NotationError(f"impossible position: {problem}")
    return state
