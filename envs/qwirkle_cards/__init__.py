"""Rules engine of Qwirkle Cards (see ``docs/rules/qwirkle_cards.md``).

The table is a multiset of cards (counts over the 36 kinds); :func:`is_valid_table` decides
whether it splits into valid rows, :func:`arrange_rows` shows one such split,
:func:`legal_turns` lists a position's legal turns, :class:`QwirkleCardsGame` plays a game.

>>> from tabletop_rl.envs.qwirkle_cards import legal_turns, parse_cards
>>> [str(t) for t in legal_turns(parse_cards("Bo Bx Bs"), parse_cards("Bt Bs"))]
['play Bt']
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
from .game import END_RULES, QwirkleCardsGame, QwirkleCardsState, Status, TurnEnd
from .notation import from_text, to_text
from .solver import Split, arrange_rows, find_split, is_valid_table
from .turns import Turn, TurnBuilder, largest_sets, legal_turns, start_turns

__all__ = [
    "COLOUR_LETTERS",
    "END_RULES",
    "NUM_KINDS",
    "NUM_LINES",
    "SYMBOL_LETTERS",
    "Colour",
    "QwirkleCardsGame",
    "QwirkleCardsState",
    "Split",
    "Status",
    "Symbol",
    "Turn",
    "TurnBuilder",
    "TurnEnd",
    "arrange_rows",
    "card_name",
    "find_split",
    "format_cards",
    "from_text",
    "is_valid_table",
    "kind_of",
    "largest_sets",
    "legal_turns",
    "line_name",
    "parse_card",
    "parse_cards",
    "parse_line",
    "start_turns",
    "to_text",
]
