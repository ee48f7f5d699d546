"""Scripted agents for Qwirkle Cards (``qwirkle_cards_v0``).

:class:`QwirkleCardsGreedyAgent` plays, every turn, a legal turn that takes the most
Qwirkles and, among those, plays the most cards from the hand (ties broken at random). It
plans the whole turn from the public view at the turn's start (branch and bound over the
hand's sub-multisets, best first) and then emits it sub-action by sub-action: the
Qwirkles, then the cards, then "end turn" (the environment's order). A player who cannot
play redraws (or passes).

>>> import numpy as np
>>> from tabletop_rl.envs import qwirkle_cards_v0
>>> env = qwirkle_cards_v0.raw_env()
>>> env.reset(seed=0)
>>> agent = QwirkleCardsGreedyAgent(np.random.default_rng(0))
>>> action = agent.act(env.observe(env.agent_selection), env.public_view(env.agent_selection))
>>> bool(env.action_mask()[action])
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tabletop_rl.envs.qwirkle_cards.actions import (
    CANNOT_PLAY,
    END_TURN,
    PlayCard,
    QwirkleCardsCodec,
    TakeQwirkle,
)
from tabletop_rl.envs.qwirkle_cards.cards import LINE_KINDS, NUM_KINDS, NUM_LINES
from tabletop_rl.envs.qwirkle_cards.compiled_solver import SearchWork, is_valid_counts
from tabletop_rl.envs.qwirkle_cards.greedy_turns import greedy_turn, selection_count
from tabletop_rl.envs.qwirkle_cards.turns import Turn, start_turns, sub_multisets
from tabletop_rl.envs.qwirkle_cards_v0 import QwirkleCardsView

from .base import SeededAgent

CODEC = QwirkleCardsCodec()


_LINE_KIND_INDEX = np.array(LINE_KINDS, dtype=np.intp)
"""``(lines, 6)``: the card kinds of each line, to take the bound of many multisets at once."""


def qwirkle_bound(after: tuple[int, ...]) -> int:
    """An upper bound on the Qwirkles takeable from ``after``: per line, the fewest copies
    of its kinds, summed.

    >>> from tabletop_rl.envs.qwirkle_cards.cards import parse_cards
    >>> qwirkle_bound(parse_cards("Ro Rx Rs Rd Rt Rc Bo"))
    1
    """
    return int(qwirkle_bounds(np.asarray(after)[None])[0])


def qwirkle_bounds(after: np.ndarray) -> np.ndarray:
    """:func:`qwirkle_bound` of every row of ``after`` (``(n, 36)`` counts)."""
    return after[:, _LINE_KIND_INDEX].min(axis=2).sum(axis=1)


def most_qwirkles(after: tuple[int, ...], floor: int = 0) -> tuple[int, ...] | None:
    """A largest multiset of Qwirkles (12 counts) takeable from the valid ``after``, or None
    when none has more than ``floor`` Qwirkles (with ``floor=0`` the empty one counts)."""
    best: list[int] = [0] * NUM_LINES
    best_n = [floor]
    found = [floor == 0]

    def rec(start: int, rest: list[int], taken: list[int], n: int) -> None:
        if n > best_n[0]:
            best_n[0] = n
            best[:] = taken
            found[0] = True
        # only lines from `start` on may still be added
        room = sum(min(rest[k] for k in LINE_KINDS[line]) for line in range(start, NUM_LINES))
        if n + min(room, sum(rest) // 6) <= best_n[0]:
            return
        for line in range(start, NUM_LINES):
            kinds = LINE_KINDS[line]
            if all(rest[k] for k in kinds):
                for k in kinds:
                    rest[k] -= 1
                if is_valid_counts(rest):
                    taken[line] += 1
                    rec(line, rest, taken, n + 1)
                    taken[line] -= 1
                for k in kinds:
                    rest[k] += 1

    rec(0, list(after), [0] * NUM_LINES, 0)
    return tuple(best) if found[0] else None


def best_turn(view: QwirkleCardsView, rng: np.random.Generator) -> Turn | None:
    """The greedy turn from the start of the viewer's turn; None when they cannot play.

    Searched by the compiled :func:`~tabletop_rl.envs.qwirkle_cards.greedy_turns.greedy_turn`;
    for one generator the same turn as :func:`reference_best_turn` (which it replaces for
    speed), drawing the same numbers from ``rng``; the first turn, a draw among the start
    rows, is the reference's own."""
    if view.first_turn:
        return reference_best_turn(view, rng)
    hand_counts = np.array(view.hand, dtype=np.int64) + np.array(view.played, dtype=np.int64)
    order = rng.permutation(selection_count(hand_counts))
    played = np.zeros(NUM_KINDS, dtype=np.int64)
    taken = np.zeros(NUM_LINES, dtype=np.int64)
    w = _GREEDY_WORK
    table = np.array(view.table, dtype=np.int64)
    if not greedy_turn(hand_counts, table, order, w.rows, w.options, w.memo, played, taken):
        return None
    return Turn(tuple(played.tolist()), tuple(taken.tolist()))


_GREEDY_WORK = SearchWork()
"""The solver's scratch memory of :func:`best_turn` (one call at a time)."""


def reference_best_turn(view: QwirkleCardsView, rng: np.random.Generator) -> Turn | None:
    """:func:`best_turn` in Python, as the module docstring reads (the readable reference the
    tests hold the compiled search to)."""
    hand = tuple(h + p for h, p in zip(view.hand, view.played, strict=True))
    if view.first_turn:
        turns = start_turns(hand)
        return turns[int(rng.integers(len(turns)))]
    selections = [played for played in sub_multisets(hand) if any(played)]
    plays = np.array(selections, dtype=np.int64).reshape(-1, NUM_KINDS)
    afters = plays + np.asarray(view.table, dtype=np.int64)
    keys = zip(qwirkle_bounds(afters).tolist(), plays.sum(axis=1).tolist(), strict=True)
    candidates = [(b, n, i) for i, (b, n) in enumerate(keys)]
    order = rng.permutation(len(candidates))
    candidates = [candidates[i] for i in order]
    candidates.sort(key=lambda c: (c[0], c[1]), reverse=True)
    best: Turn | None = None
    best_key = (-1, -1)
    for bound, size, i in candidates:
        if (bound, size) <= best_key:
            break
        if not is_valid_counts(afters[i]):
            continue
        played, after = selections[i], tuple(afters[i].tolist())
        # what beats the best so far: as many Qwirkles with more cards, or more Qwirkles
        need = best_key[0] if size > best_key[1] else best_key[0] + 1
        if need > bound:
            continue
        taken = most_qwirkles(after, floor=need - 1) if bound else (0,) * NUM_LINES
        if taken is None:
            continue
        key = (sum(taken), size)
        if key > best_key:
            best_key = key
            best = Turn(played, taken)
    return best


class QwirkleCardsGreedyAgent(SeededAgent):
    """Most Qwirkles this turn, then most cards played (see the module docstring)."""

    name = "greedy"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self._plan: Turn | None = None
        self._plan_table: tuple[int, ...] | None = None

    def forget_game(self) -> None:
        """Drop the planned turn (a new game starts)."""
        self._plan = None
        self._plan_table = None

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        mask = observation["action_mask"]
        if mask[CANNOT_PLAY]:
            self._plan = None
            return CANNOT_PLAY
        if not isinstance(view, QwirkleCardsView):
            raise ValueError("QwirkleCardsGreedyAgent needs view=env.public_view(agent)")
        if not self._plan_fits(view):
            self._plan = best_turn(view, self.rng)
            self._plan_table = view.table
            if self._plan is None:  # cannot happen while the mask offers a play
                raise RuntimeError("no legal turn found although the mask allows one")
        plan = self._plan
        assert plan is not None
        action = self._next_action(plan, view)
        if not mask[action]:
            raise RuntimeError(f"greedy plan {plan} led to an illegal action {action}")
        if action == END_TURN:
            self._plan = None
        return action

    def _plan_fits(self, view: QwirkleCardsView) -> bool:
        plan = self._plan
        if plan is None or view.table != self._plan_table:
            return False
        return all(p <= q for p, q in zip(view.played, plan.played, strict=True)) and all(
            t <= q for t, q in zip(view.taken, plan.taken, strict=True)
        )

    @staticmethod
    def _next_action(plan: Turn, view: QwirkleCardsView) -> int:
        for line in range(NUM_LINES):
            if view.taken[line] < plan.taken[line]:
                return CODEC.encode(TakeQwirkle(line))
        for k in range(NUM_KINDS):
            if view.played[k] < plan.played[k]:
                return CODEC.encode(PlayCard(k))
        return END_TURN
