"""Rules engine of Qwirkle Cards (see ``shared/rules/qwirkle_cards.md``).

The table is a multiset of cards (counts over the 36 kinds); :func:`is_valid_table` decides
whether it splits into valid rows, :func:`arrange_rows` shows one such split.
"""

from __future__ import annotations

from .cards import (
    COLOUR_LETTERS,
    NUM_KINDS,
    NUM_LINES,
    SYMBOL_LETTERS,
    Colour,
    Symbol,
    card_name,
    format_cards,
    kind_of,
    line_name,
    parse_card,
    parse_cards,
    parse_line,
)
from .solver import Split, arrange_rows, find_split, is_valid_table

__all__ = [
    "COLOUR_LETTERS",
    "NUM_KINDS",
    "NUM_LINES",
    "SYMBOL_LETTERS",
    "Colour",
    "Split",
    "Symbol",
    "arrange_rows",
    "card_name",
    "find_split",
    "format_cards",
    "is_valid_table",
    "kind_of",
    "line_name",
    "parse_card",
    "parse_cards",
    "parse_line",
]
