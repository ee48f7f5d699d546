"""Qwirkle Cards' action space: indices, typed actions and the play notation.

``kind`` (0 to 35) plays that card from the hand; ``TAKE + line`` takes the Qwirkle of a
line (6 colours, then 6 symbols); ``END_TURN`` ends the turn; ``CANNOT_PLAY`` is the redraw
(or pass, with an empty pile) of a player who cannot play.

>>> codec = QwirkleCardsCodec()
>>> codec.decode(codec.parse(None, "Rs"))
PlayCard(kind=3)
>>> codec.to_text(None, TAKE + 6)
'take o'
>>> codec.parse(None, "redraw") == CANNOT_PLAY
True
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..core.model import ActionCodec
from ..errors import NotationError
from .cards import NUM_KINDS, NUM_LINES, card_name, line_name, parse_card, parse_line

TAKE = NUM_KINDS
"""First take action: ``TAKE + line``."""
END_TURN = TAKE + NUM_LINES
CANNOT_PLAY = END_TURN + 1
NUM_ACTIONS = CANNOT_PLAY + 1


class PlayCard(NamedTuple):
    """Play a card of ``kind`` from the hand onto the table."""

    kind: int


class TakeQwirkle(NamedTuple):
    """Take the Qwirkle of ``line`` (0-5 colours, 6-11 symbols) off the table."""

    line: int


class EndTurn(NamedTuple):
    """End the turn (the table must split into valid rows)."""


class CannotPlay(NamedTuple):
    """Redraw (or pass when the pile is empty): only for a player who cannot play."""


QwirkleCardsAction = PlayCard | TakeQwirkle | EndTurn | CannotPlay


class QwirkleCardsCodec(ActionCodec[Any, QwirkleCardsAction]):
    """Qwirkle Cards' action codec; the notation is the card name (``Rs``), ``take R`` /
    ``take s``, ``end`` and ``redraw`` (no state needed)."""

    num_actions = NUM_ACTIONS

    def decode(self, action: int) -> QwirkleCardsAction:
        action = self.check_index(action)
        if action < TAKE:
            return PlayCard(action)
        if action < END_TURN:
            return TakeQwirkle(action - TAKE)
        return EndTurn() if action == END_TURN else CannotPlay()

    def encode(self, action: QwirkleCardsAction) -> int:
        if isinstance(action, PlayCard) and 0 <= action.kind < NUM_KINDS:
            return int(action.kind)
        if isinstance(action, TakeQwirkle) and 0 <= action.line < NUM_LINES:
            return TAKE + int(action.line)
        if isinstance(action, EndTurn):
            return END_TURN
        if isinstance(action, CannotPlay):
            return CANNOT_PLAY
        raise NotationError(
            f"{action!r} is not a Qwirkle Cards action (PlayCard(0-35), TakeQwirkle(0-11), "
            "EndTurn or CannotPlay)"
        )

    def to_text(self, state: Any, action: int) -> str:
        move = self.decode(action)
        if isinstance(move, PlayCard):
            return card_name(move.kind)
        if isinstance(move, TakeQwirkle):
            return f"take {line_name(move.line)}"
        return "end" if isinstance(move, EndTurn) else "redraw"

    def parse(self, state: Any, text: str) -> int:
        if not isinstance(text, str):
            raise NotationError(f"a Qwirkle Cards move is text, got {type(text).__name__}")
        words = text.split()
        lowered = [w.lower() for w in words]
        if lowered in (["redraw"], ["pass"], ["cannot", "play"]):
            return CANNOT_PLAY
        if lowered in (["end"], ["done"]):
            return END_TURN
        if len(words) == 2 and lowered[0] == "take":
            return TAKE + parse_line(words[1])
        if len(words) == 1:
            return parse_card(words[0])
        raise NotationError(
            f"{text!r} is not one Qwirkle Cards move; write a card (Rs), 'take R' or 'take s', "
            "'end' or 'redraw'"
        )


__all__ = [
    "CANNOT_PLAY",
    "END_TURN",
    "NUM_ACTIONS",
    "TAKE",
    "CannotPlay",
    "EndTurn",
    "PlayCard",
    "QwirkleCardsAction",
    "QwirkleCardsCodec",
    "TakeQwirkle",
]
