"""The 36 card kinds of Qwirkle Cards, their lines and their two-letter notation.

A card kind is an index ``0..35``: ``colour * 6 + symbol``. Colours (in order) are
red, orange, yellow, green, blue, purple (``R O Y G B P``); symbols are circle, cross,
diamond, square, star, clover (``o x d s t c``) — the same names, order and notation as
Qwirkle's tiles. A card is written as colour letter + symbol letter (``Rs`` = red square);
input is case-insensitive.

A *line* is a colour or a symbol: lines ``0..5`` are the colours, ``6..11`` the symbols.
Every kind lies on exactly two lines, its colour and its symbol. A multiset of cards is a
length-36 tuple (or array) of counts.

>>> card_name(kind_of(Colour.BLUE, Symbol.SQUARE))
'Bs'
>>> parse_card("bs") == kind_of(Colour.BLUE, Symbol.SQUARE)
True
>>> line_name(COLOUR_LINE[Colour.RED]), line_name(SYMBOL_LINE[Symbol.STAR])
('R', 't')
>>> [card_name(k) for k in LINE_KINDS[SYMBOL_LINE[Symbol.DIAMOND]]]
['Rd', 'Od', 'Yd', 'Gd', 'Bd', 'Pd']
>>> counts = parse_cards("Rs Rs Bd")
>>> format_cards(counts)
'Rs Rs Bd'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum

from ..errors import NotationError


class Colour(IntEnum):
    """The six colours, in the rules' order."""

    RED = 0
    ORANGE = 1
    YELLOW = 2
    GREEN = 3
    BLUE = 4
    PURPLE = 5


class Symbol(IntEnum):
    """The six symbols, in the rules' order."""

    CIRCLE = 0
    CROSS = 1
    DIAMOND = 2
    SQUARE = 3
    STAR = 4
    CLOVER = 5


COLOUR_LETTERS = "ROYGBP"
SYMBOL_LETTERS = "oxdstc"
NUM_KINDS = 36
NUM_LINES = 12
COPIES = 3
"""Copies of each kind in the game (108 cards in all)."""
TOTAL_CARDS = NUM_KINDS * COPIES

KIND_COLOUR: tuple[int, ...] = tuple(k // 6 for k in range(NUM_KINDS))
KIND_SYMBOL: tuple[int, ...] = tuple(k % 6 for k in range(NUM_KINDS))
COLOUR_LINE: tuple[int, ...] = tuple(range(6))
"""Line index of each colour."""
SYMBOL_LINE: tuple[int, ...] = tuple(range(6, 12))
"""Line index of each symbol."""
KIND_LINES: tuple[tuple[int, int], ...] = tuple(
    (KIND_COLOUR[k], 6 + KIND_SYMBOL[k]) for k in range(NUM_KINDS)
)
"""The two lines (colour line, symbol line) of each kind."""
LINE_KINDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(c * 6 + s for s in range(6)) for c in range(6)
) + tuple(tuple(c * 6 + s for c in range(6)) for s in range(6))
"""The six kinds of each line (a Qwirkle of line ``L`` is one card of each)."""


def kind_of(colour: Colour | int, symbol: Symbol | int) -> int:
    """The kind index of a colour and a symbol."""
    return int(colour) * 6 + int(symbol)


def card_name(kind: int) -> str:
    """Two-letter notation of a kind (``'Rs'``)."""
    if not 0 <= kind < NUM_KINDS:
        raise NotationError(f"card kind {kind} is out of range; allowed: 0 to 35")
    return COLOUR_LETTERS[kind // 6] + SYMBOL_LETTERS[kind % 6]


def line_name(line: int) -> str:
    """One-letter name of a line: a colour letter (``R``) or a symbol letter (``s``)."""
    if not 0 <= line < NUM_LINES:
        raise NotationError(f"line {line} is out of range; allowed: 0 to 11")
    return COLOUR_LETTERS[line] if line < 6 else SYMBOL_LETTERS[line - 6]


def parse_card(text: str) -> int:
    """The kind written as ``text`` (two letters, case-insensitive)."""
    t = text.strip()
    if len(t) != 2:
        raise NotationError(
            f"card {text!r} is not two letters; write a colour (ROYGBP) then a symbol (oxdstc)"
        )
    c = COLOUR_LETTERS.find(t[0].upper())
    s = SYMBOL_LETTERS.find(t[1].lower())
    if c < 0 or s < 0:
        raise NotationError(
            f"card {text!r} is unknown; colours are R O Y G B P, symbols are o x d s t c"
        )
    return c * 6 + s


def parse_line(text: str) -> int:
    """The line written as one letter: a colour (upper case) or a symbol (lower case)."""
    t = text.strip()
    if len(t) == 1 and t in COLOUR_LETTERS:
        return COLOUR_LETTERS.index(t)
    if len(t) == 1 and t in SYMBOL_LETTERS:
        return 6 + SYMBOL_LETTERS.index(t)
    raise NotationError(
        f"line {text!r} is unknown; a colour is one of R O Y G B P, a symbol one of o x d s t c"
    )


def parse_cards(text: str) -> tuple[int, ...]:
    """Counts of the cards written space-separated in ``text`` (empty text: no cards)."""
    counts = [0] * NUM_KINDS
    for word in text.split():
        counts[parse_card(word)] += 1
    return tuple(counts)


def format_cards(counts: Sequence[int]) -> str:
    """The cards of a multiset, in kind order, space-separated (``parse_cards`` reads it)."""
    return " ".join(card_name(k) for k in range(NUM_KINDS) for _ in range(int(counts[k])))


def kinds_to_counts(kinds: Iterable[int]) -> tuple[int, ...]:
    """Counts of a list of kinds."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return tuple(counts)


def counts_to_kinds(counts: Sequence[int]) -> list[int]:
    """The kinds of a multiset, each repeated by its count, in kind order."""
    return [k for k in range(NUM_KINDS) for _ in range(int(counts[k]))]
