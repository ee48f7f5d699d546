"""What a Qwirkle Cards heuristic's turn says about the hand it was played from.

The ``heuristic`` plays the turn of most Qwirkles, then of the best turn value (its risk, its
kept lines, its cards played). So a hand it held at the start of a turn is *consistent* with
the turn it played when, from that hand, no legal turn takes more Qwirkles and, when none takes
any, none is worth more (:func:`could_choose`). With Qwirkles to take the heuristic compares
only its best few card choices, so there the Qwirkles alone are checked. The turns' values come
from the compiled kernel of the observation's turn values (``write_turn_values``: the most
Qwirkles and the best turn value of a legal turn continuing with each sub-action, the
heuristic's defaults).

:func:`hands_kept` samples what the opponent kept after its last turn: hands of its size that
hold the cards it played, the rest drawn from the cards the observer could not see then,
each kept when consistent (rejection sampling; the uniform draw is the prior the heuristic's own
chance assumes). ``opponent_hand.py``'s ``choices`` variant draws the opponent's present hand
from them.

>>> from tabletop_rl.envs.qwirkle_cards.cards import parse_cards
>>> table = np.array(parse_cards("Ro Rx Rs Rd Rt"))
>>> unseen = np.full(36, 2, dtype=np.int64)
>>> blue_row = np.array(parse_cards("Bo Bx Bs"))
>>> nothing_taken = np.zeros(12, dtype=np.int64)
>>> # holding the red circle, the heuristic would have taken the red Qwirkle:
>>> hand = np.array(parse_cards("Rc Bo Bx Bs"))
>>> could_choose(hand, table, unseen, blue_row, nothing_taken, 9)
False
>>> # without it, the blue row is the one legal turn:
>>> hand = np.array(parse_cards("Bo Bx Bs Gd"))
>>> could_choose(hand, table, unseen, blue_row, nothing_taken, 9)
True
"""

from __future__ import annotations

import numpy as np

from tabletop_rl.envs.qwirkle_cards.actions import END_TURN, NUM_ACTIONS
from tabletop_rl.envs.qwirkle_cards.cards import NUM_KINDS, NUM_LINES
from tabletop_rl.envs.qwirkle_cards.compiled_solver import SearchWork
from tabletop_rl.envs.qwirkle_cards.compiled_turns import CompiledTurnBuilder
from tabletop_rl.envs.qwirkle_cards.line_odds import MAX_COPIES_MISSING, draw_ratios
from tabletop_rl.envs.qwirkle_cards.turn_values import (
    TURN_VALUE_WEIGHTS,
    turn_value,
    write_turn_values,
)
from tabletop_rl.envs.qwirkle_cards.turns import qwirkle_cards

WEIGHTS = np.array(TURN_VALUE_WEIGHTS, dtype=np.float64)
"""The heuristic's default weights, as the compiled turn value reads them."""
TIE = 1e-9
"""How much below the best value a turn may be and still count as one of the best."""


class ChoiceCheck:
    """The scratch arrays of :func:`could_choose` (one per thread)."""

    def __init__(self) -> None:
        self.work = SearchWork()
        self.mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self.most = np.zeros(NUM_ACTIONS)
        self.best = np.zeros(NUM_ACTIONS)
        self.no_cards = np.zeros(NUM_KINDS, dtype=np.int64)
        self.no_lines = np.zeros(NUM_LINES, dtype=np.int64)
        self.ratios = np.empty(MAX_COPIES_MISSING + 1)
        self.terms = np.empty(MAX_COPIES_MISSING + 1)


_CHECK = ChoiceCheck()


def could_choose(
    hand: np.ndarray,
    faced: np.ndarray,
    unseen: np.ndarray,
    played: np.ndarray,
    taken: np.ndarray,
    next_hand: int,
    check: ChoiceCheck = _CHECK,
) -> bool:
    """Whether the heuristic, holding ``hand`` (36 counts, the turn's cards included) at the
    start of a turn (not the first) on the table ``faced``, with ``unseen`` the cards it could
    not see and ``next_hand`` the next player's hand size, may have played the turn of
    ``played`` cards (36 counts, at least one) and ``taken`` Qwirkles (12 counts per line):
    no legal turn takes more Qwirkles, and when none takes any, none is worth more (module
    docstring)."""
    mask = check.mask
    mask[:] = 0
    CompiledTurnBuilder(faced, hand).mask_into(mask)
    mask[END_TURN] = 0  # nothing is selected yet: the turn starts with a play or a take
    legal = mask == 1
    if not legal.any():
        return False
    write_turn_values(
        hand, faced, check.no_cards, check.no_lines, unseen, next_hand, False, mask,
        check.most, check.best, check.work.rows, check.work.options, check.work.memo,
    )  # fmt: skip
    most = check.most[legal].max()
    if int(taken.sum()) != most:
        return False
    if most > 0:
        return True
    best = check.best[legal & (check.most == most)].max()
    left = faced + played - np.array(qwirkle_cards(tuple(taken)), dtype=np.int64)
    total = int(unseen.sum())
    draw_ratios(total, min(next_hand, total), check.ratios)
    value = turn_value(
        left, hand - played, int(played.sum()), unseen, check.ratios, check.terms, WEIGHTS
    )
    return bool(value >= best - TIE)


def draw_cards(pool: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` cards (36 counts) drawn without replacement from ``pool`` (36 counts); all of it
    when it holds fewer."""
    cards = np.repeat(np.arange(NUM_KINDS), pool)
    drawn = rng.choice(cards, size=min(n, len(cards)), replace=False)
    return np.bincount(drawn, minlength=NUM_KINDS).astype(np.int64)


def hands_kept(
    faced: np.ndarray,
    hidden: np.ndarray,
    own_hand: np.ndarray,
    hand_size: int,
    played: np.ndarray,
    taken: np.ndarray,
    proposals: int,
    rng: np.random.Generator,
    check: ChoiceCheck = _CHECK,
) -> list[np.ndarray]:
    """What the heuristic may have kept (36 counts each) after a turn of ``played`` cards and
    ``taken`` Qwirkles from a hand of ``hand_size`` cards on the table ``faced``, seen by the
    next player, who held ``own_hand`` and could not see ``hidden`` (the pile and that hand;
    all 36 counts): of ``proposals`` hands holding ``played`` and the rest drawn from
    ``hidden``, those :func:`could_choose` keeps, less the cards played (the heuristic could
    not see the pile and ``own_hand``)."""
    kept = []
    rest = hidden - played
    next_hand = int(own_hand.sum())
    for _ in range(proposals):
        hand = played + draw_cards(rest, hand_size - int(played.sum()), rng)
        unseen = hidden + own_hand - hand
        if could_choose(hand, faced, unseen, played, taken, next_hand, check):
            kept.append(hand - played)
    return kept


__all__ = ["ChoiceCheck", "could_choose", "draw_cards", "hands_kept"]
