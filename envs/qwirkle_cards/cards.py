"""The 36 card kinds of Qwirkle Cards, their lines and their two-letter notation.

A card kind is an index ``0..35``: ``colour * 6 + symbol``. Colours (in order) are
red, orange, yellow, green, blue, purple (``R O Y G B P``); symbols are circle, cross,
diamond, square, star, clover (``o x d s t c``): Qwirkle's tile vocabulary, imported from
:mod:`tabletop_rl.envs.qwirkle.tiles` (``Symbol`` is Qwirkle's ``Shape`` under the card
game's name). A card is written as colour letter + symbol letter (``Rs`` = red square);
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

import numpy as np

from ..core.checks import brief_repr
from ..errors import NotationError
from ..notation import require_text
from ..qwirkle.tiles import (
    COLOUR_LETTERS,
    COPIES,
    NUM_KINDS,
    SHAPE_LETTERS,
    Shape,
    parse_tile,
    tile_name,
    tile_of,
)
from ..qwirkle.tiles import Colour as Colour

Symbol = Shape
"""The six symbols: Qwirkle's shapes under the card game's name."""
SYMBOL_LETTERS = SHAPE_LETTERS
kind_of = tile_of
"""The kind index ``6 * colour + symbol`` of a colour and a symbol."""

NUM_LINES = 12
TOTAL_CARDS = NUM_KINDS * COPIES
"""108 cards in all: three copies of each kind."""
HAND_SIZE = 9
"""Cards in a full hand."""

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


def card_name(kind: int) -> str:
    """Two-letter notation of a kind (``'Rs'``)."""
    if not 0 <= kind < NUM_KINDS:
        raise NotationError(f"card kind {kind} is out of range; allowed: 0 to 35")
    return tile_name(kind)


def line_name(line: int) -> str:
    """One-letter name of a line: a colour letter (``R``) or a symbol letter (``s``)."""
    if not 0 <= line < NUM_LINES:
        raise NotationError(f"line {line} is out of range; allowed: 0 to 11")
    return COLOUR_LETTERS[line] if line < 6 else SYMBOL_LETTERS[line - 6]


def parse_card(text: str) -> int:
    """The kind written as ``text`` (two letters, case-insensitive)."""
    t = require_text(text, "a card").strip()
    if len(t) != 2:
        raise NotationError(
            f"card {text!r} is not two letters; write a colour (ROYGBP) then a symbol (oxdstc)"
        )
    try:
        return parse_tile(t)
    except NotationError:
        raise NotationError(
            f"card {text!r} is unknown; colours are R O Y G B P, symbols are o x d s t c"
        ) from None


def parse_line(text: str) -> int:
    """The line written as one letter: a colour (upper case) or a symbol (lower case)."""
    t = require_text(text, "a line").strip()
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
    for word in require_text(text, "a list of cards").split():
        counts[parse_card(word)] += 1
    return tuple(counts)


def format_cards(counts: Sequence[int]) -> str:
    """The cards of a multiset, in kind order, space-separated (``parse_cards`` reads it)."""
    return " ".join(card_name(k) for k in range(NUM_KINDS) for _ in range(int(counts[k])))


def counts_problem(counts: object, name: str, lines: bool = False) -> str | None:
    """Why ``counts`` is not a multiset of cards (or of lines, with ``lines``), or None: it
    must be 36 counts (12 for lines), each a whole number (an ``int`` or a numpy integer,
    not a bool or a float) from 0 to 3, as a sequence or a 1-D integer array. The message
    starts with ``name``, the argument's name.

    >>> counts_problem(parse_cards("Rs Rs"), "hand") is None
    True
    >>> counts_problem([0.5] * 36, "cards")
    'cards: count 0 (Ro) is 0.5, a float; allowed: whole numbers (int) from 0 to 3'
    >>> counts_problem([0] * 11, "taken", lines=True)
    'taken: expected 12 counts (one per line), got 11'
    """
    size, unit = (NUM_LINES, "line") if lines else (NUM_KINDS, "card kind")
    if isinstance(counts, np.ndarray):
        if counts.shape != (size,):
            return f"{name}: expected {size} counts (one per {unit}), got shape {counts.shape}"
        if counts.dtype.kind not in "iu":
            return (
                f"{name}: counts of dtype {counts.dtype}; allowed: whole numbers (an integer "
                f"array) from 0 to {COPIES}"
            )
        if counts.min() >= 0 and counts.max() <= COPIES:
            return None
        values: Sequence = counts.tolist()
    elif isinstance(counts, str | bytes) or not isinstance(counts, Sequence):
        return f"{name}: expected {size} counts (one per {unit}), got {type(counts).__name__}"
    elif len(counts) != size:
        return f"{name}: expected {size} counts (one per {unit}), got {len(counts)}"
    else:
        values = counts
        for n in values:  # the common case first: plain ints in range
            if type(n) is not int or not 0 <= n <= COPIES:
                break
        else:
            return None
    for i, n in enumerate(values):
        label = line_name(i) if lines else card_name(i)
        if type(n) is not int and (
            isinstance(n, bool | np.bool_) or not isinstance(n, int | np.integer)
        ):
            return (
                f"{name}: count {i} ({label}) is {brief_repr(n)}, a {type(n).__name__}; "
                f"allowed: whole numbers (int) from 0 to {COPIES}"
            )
        if not 0 <= n <= COPIES:
            return f"{name}: count {i} ({label}) is {brief_repr(n)}; allowed: 0 to {COPIES}"
    return None


def check_counts(counts: object, name: str, lines: bool = False) -> None:
    """Raise a :class:`NotationError` with :func:`counts_problem` 's message, if any."""
    if problem := counts_problem(counts, name, lines):
        raise NotationError(problem)


def kinds_to_counts(kinds: Iterable[int]) -> tuple[int, ...]:
    """Counts of a list of kinds."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return tuple(counts)


def counts_to_kinds(counts: Sequence[int]) -> list[int]:
    """The kinds of a multiset, each repeated by its count, in kind order."""
    return [k for k in range(NUM_KINDS) for _ in range(int(counts[k]))]
