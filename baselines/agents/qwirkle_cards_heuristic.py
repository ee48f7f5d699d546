"""A scripted Qwirkle Cards player: take Qwirkles, do not feed the opponent, keep good cards.

The greedy agent (issue 4) plays the turn that takes the most Qwirkles, then empties the most
cards from the hand. This agent also takes the most Qwirkles it can (found as greedy finds
them: branch and bound on a per-line bound), but among the legal turns that take that many
(every sub-multiset of the hand that leaves a valid table, each with its Qwirkle choices) it
plays the one whose position is worth most:

    - expected Qwirkles the next player can complete from the table we leave
    + lines our kept cards complete (or nearly complete) with the table
    + a little for every card played (fresh cards are drawn for it).

- **Do not feed a line an opponent can complete.** Every player may rearrange the whole
  table, so a line whose kinds lie on the table but for one or two is an open invitation:
  the next player completes it if their hand holds the missing kinds. The agent counts, for
  each line, the kinds the table lacks after its turn and the copies of them it cannot see
  (``view.unseen``: the pile and the other hands), and charges the probability that the next
  player's hand holds every missing kind (hypergeometric draws from the unseen cards). A line
  whose missing card is all in sight (on the table, in Qwirkles taken, or in our own hand) is
  safe.
- **Keep flexible cards.** A card kept in hand that, with the table, completes a line is a
  Qwirkle for us next turn that no one else can take while we hold it; one that brings a line
  within one card is worth a little. Playing such a card now only helps the opponent.
- **Take Qwirkles.** A Qwirkle taken is a point won for sure; the agent never gives one up for
  position.

The position is valued best first, so when no Qwirkle can be taken the search stops at the
first card choice that leaves a valid table; when Qwirkles can be taken only the
``take_candidates`` best card choices are compared. The turn is emitted as sub-actions (the
Qwirkles and the cards in the order the masks allow, then the end of the turn). Ties are
broken by the agent's generator; the agent is deterministic given its seed.

**Any partial turn is continued** (a kickstarting teacher is asked at every decision of a
learner that takes and plays on its own). Mid-turn, when what was taken and played so far is
not part of the planned turn, or there is no plan for this turn, the agent re-plans among the
legal turns that extend it (Qwirkles taken and cards played at least those so far; once a
card is played, exactly the Qwirkles taken): the most Qwirkles, then the best value, as at
the start of a turn (with Qwirkles still to take, only the ``take_candidates`` best card
choices, as there). It plays the next sub-action the masks allow (the next best turn if the
masks forbid continuing one) and keeps the new plan for the rest of the turn, so the turns
are searched once per deviation: 62 ms on average (median 3.7 ms; 1.5 s at most, when Qwirkles
are still to be chosen late in a game) over the 79 re-plans of 5 games of a random learner
(seeds 0-4). An agent that follows its own plan plays exactly as if it never re-planned.

Measured against greedy in two-player games (seats rotated): ``tabletop-rl arena --env
qwirkle_cards_v0 --agents greedy heuristic --games 200 --seed 11`` gives a win rate of 0.875
(Wilson 95% interval 0.822-0.914) and 8.2 Qwirkles per game against greedy's 4.5. A turn
takes about a second to plan late in the game (greedy: a fraction of that).

>>> import numpy as np
>>> from tabletop_rl.envs import qwirkle_cards_v0
>>> env = qwirkle_cards_v0.raw_env()
>>> env.reset(seed=2)
>>> agent = QwirkleCardsHeuristicAgent(np.random.default_rng(0))
>>> obs = env.observe(env.agent_selection)
>>> action = agent.act(obs, env.public_view(env.agent_selection))
>>> bool(obs["action_mask"][action])
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import ge
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
from tabletop_rl.envs.qwirkle_cards.compiled_solver import is_valid_counts
from tabletop_rl.envs.qwirkle_cards.turn_values import MAX_MISSING_CHARGED, TURN_VALUE_WEIGHTS
from tabletop_rl.envs.qwirkle_cards.turns import (
    EMPTY_LINES,
    Counts,
    Turn,
    TurnBuilder,
    add,
    qwirkle_cards,
    start_turns,
    sub_multisets,
    takeable_sets,
)

from .base import SeededAgent
from .heuristic_weights import with_overrides
from .qwirkle_cards import most_qwirkles, qwirkle_bound
from .qwirkle_heuristic import holds_all

CODEC = QwirkleCardsCodec()


@dataclass(frozen=True)
class QwirkleCardsWeights:
    """Weights of a turn's value (see the module docstring); the defaults are those of the
    observation's turn values (``TURN_VALUE_WEIGHTS``, ``qwirkle_cards_v0``'s
    ``action_turn_value``)."""

    risk: float = TURN_VALUE_WEIGHTS.risk
    """Multiplies the expected Qwirkles the next player completes from our table."""
    own_complete: float = TURN_VALUE_WEIGHTS.own_complete
    """Value of a line our kept cards complete with the table (a Qwirkle next turn)."""
    own_near: float = TURN_VALUE_WEIGHTS.own_near
    """Value of a line our kept cards bring within one card."""
    played: float = TURN_VALUE_WEIGHTS.played
    """Value of each card played (a fresh card is drawn for it)."""
    take_candidates: int = 8
    """When Qwirkles can be taken: how many card choices (best first) are compared."""


def hand_holds_all(missing: Sequence[int], unseen: Sequence[int], total: int, hand: int) -> float:
    """Probability that ``hand`` cards drawn from ``total`` unseen cards hold one of each kind
    in ``missing`` (``unseen[k]`` copies of kind k among them): Qwirkle's
    :func:`~.qwirkle_heuristic.holds_all` (inclusion-exclusion) over the missing kinds' copies.

    >>> round(hand_holds_all([0], [3] + [0] * 35, 60, 9), 3)
    0.391
    >>> hand_holds_all([0], [0] * 36, 60, 9)
    0.0
    """
    return holds_all(tuple(unseen[k] for k in missing), total, hand)


class QwirkleCardsHeuristicAgent(SeededAgent):
    """Most Qwirkles, then the least help to the next player (see the module docstring); any
    partial turn is continued with the best turn that extends it.

    ``weights`` replaces the default :class:`QwirkleCardsWeights`; keyword arguments override single
    weights (arena spec: ``heuristic:name=value``).
    """

    name = "heuristic"
    max_missing_charged = MAX_MISSING_CHARGED
    """Lines with at most this many kinds missing from the table are charged the next
    player's chance of holding them all (the observation's turn values charge the same)."""

    def __init__(
        self,
        rng: np.random.Generator,
        weights: QwirkleCardsWeights | None = None,
        **overrides: float,
    ) -> None:
        self.rng = rng
        self.weights = with_overrides(
            weights or QwirkleCardsWeights(), overrides, "QwirkleCardsHeuristicAgent"
        )
        self._plan: tuple[Any, Turn] | None = None
        self._best: tuple[Any, list[Turn]] | None = None
        """The best turns from the start of the turn :meth:`best_actions` was last asked
        about."""

    def forget_game(self) -> None:
        """Drop the planned turn (a new game starts)."""
        self._plan = None
        self._best = None

    # ---------------------------------------------------------------- valuing
    def next_player_chance(self, view: Any, missing: Sequence[int]) -> float:
        """The chance that the next player's hand holds every kind of ``missing`` (the kinds
        a line lacks, at most :attr:`max_missing_charged`): a hand of their size drawn from
        ``view.unseen`` (the cards we keep are out of their reach). The one estimate of the
        risk term; a variant that estimates otherwise overrides it
        (``research/opponent_hand.py``)."""
        unseen = view.unseen
        opp_hand = view.hand_sizes[(view.player + 1) % len(view.hand_sizes)]
        return _holds_all(tuple(sorted(unseen[k] for k in missing)), sum(unseen), opp_hand)

    def position_value(self, view: Any, table: Sequence[int], kept: Sequence[int]) -> float:
        """Value of leaving ``table`` (36 counts) and keeping ``kept`` in hand."""
        w = self.weights
        value = 0.0
        for line in range(NUM_LINES):
            kinds = LINE_KINDS[line]
            missing = [k for k in kinds if not table[k]]
            if len(missing) <= self.max_missing_charged and w.risk:
                value -= w.risk * self.next_player_chance(view, missing)
            short = sum(1 for k in missing if not kept[k])
            if short == 0:
                value += w.own_complete
            elif short == 1:
                value += w.own_near
        return value

    def turn_value(self, view: Any, hand: Sequence[int], turn: Turn) -> float:
        """Value of ``turn`` played from ``hand`` (36 counts) on ``view.table``, among turns
        that take as many Qwirkles."""
        w = self.weights
        taken = qwirkle_cards(turn.taken)
        table = [view.table[k] + turn.played[k] - taken[k] for k in range(NUM_KINDS)]
        kept = [hand[k] - turn.played[k] for k in range(NUM_KINDS)]
        return w.played * turn.num_played + self.position_value(view, table, kept)

    # --------------------------------------------------------------- planning
    def plan(self, view: Any) -> Turn:
        """The turn to play from the start of the viewer's turn (the viewer must be able to
        play): the most Qwirkles, then the best value (module docstring)."""
        hand = _turn_hand(view)
        if view.first_turn:
            scored = [(self.turn_value(view, hand, t), t) for t in start_turns(hand)]
            return self._choose(scored)
        table = view.table
        candidates = []
        for played in sub_multisets(hand):
            if any(played):
                after = tuple(t + p for t, p in zip(table, played, strict=True))
                candidates.append((qwirkle_bound(after), played, after))
        # the most Qwirkles any turn takes: usually none can be taken at all (one solver
        # query per line), else branch and bound on the per-line bound
        builder = TurnBuilder(table, hand)
        most = 0
        if any(builder.can_take(line) for line in range(NUM_LINES)):
            candidates.sort(key=lambda c: c[0], reverse=True)  # (the order ties are met in)
            most = _most_taken((bound, after) for bound, _, after in candidates)
        # the best value among the turns that take that many, best first (valued without the
        # Qwirkles' cards when some are taken: the first few valid candidates are compared)
        scored = []
        for bound, played, after in candidates:
            if bound < most:
                continue
            turn = Turn(played, EMPTY_LINES)
            scored.append((self.turn_value(view, hand, turn), turn, after))
        scored.sort(key=lambda c: c[0], reverse=True)
        best: list[tuple[float, Turn]] = []
        tried = 0
        for value, turn, after in scored:
            if most == 0 and best and value < best[0][0] - 1e-9:
                break  # exact: nothing later can be worth more
            if most and tried >= self.weights.take_candidates:
                break
            if not is_valid_counts(after):
                continue
            if most == 0:
                best.append((value, turn))
                continue
            found = False
            for taken in takeable_sets(after, most):
                full = Turn(turn.played, taken)
                best.append((self.turn_value(view, hand, full), full))
                found = True
            tried += found
        return self._choose(best)

    def _choose(self, scored: list[tuple[float, Turn]]) -> Turn:
        top = max(v for v, _ in scored)
        ties = [t for v, t in scored if v >= top - 1e-9]
        return ties[0] if len(ties) == 1 else ties[int(self.rng.integers(len(ties)))]

    def completions(self, view: Any) -> Iterator[list[tuple[float, Turn]]]:
        """The legal turns that extend what was taken and played so far this turn, best first:
        groups of equal value (the most Qwirkles, then the best :meth:`turn_value`, as
        :meth:`plan` ranks turns), each group's ties for :meth:`_choose`.

        Once a card is played no more Qwirkles may be taken, so then the Qwirkles are those
        taken; with only Qwirkles taken so far, the most any completion takes are found first
        (branch and bound on the per-line bound) and, as in :meth:`plan`, only the
        ``take_candidates`` best card choices that take that many are compared. Otherwise the
        cards are checked for a valid table lazily, best value first, so usually only the first
        few candidates cost a solver query.
        """
        hand = _turn_hand(view)
        if view.first_turn:
            scored = [
                (self.turn_value(view, hand, t), t, None)
                for t in start_turns(hand)
                if all(map(ge, t.played, view.played)) and all(map(ge, t.taken, view.taken))
            ]
            yield from _groups(scored)
            return
        gone = qwirkle_cards(view.taken)
        options = []
        for more in sub_multisets(view.hand):
            played = add(view.played, more)
            after = tuple(t + p - g for t, p, g in zip(view.table, played, gone, strict=True))
            if any(played) and min(after) >= 0:
                options.append((played, after))
        most = 0
        if not any(view.played):
            most = _most_taken((qwirkle_bound(after), after) for _, after in options)
        if most == 0:
            scored = [
                (self.turn_value(view, hand, turn), turn, after)
                for played, after in options
                for turn in (Turn(played, view.taken),)
            ]
            yield from _groups(scored)
            return
        # as plan() does: the card choices valued without the extra Qwirkles' cards, best
        # first, and only the first take_candidates that take that many compared
        ranked = sorted(
            (
                (self.turn_value(view, hand, Turn(played, view.taken)), played, after)
                for played, after in options
                if qwirkle_bound(after) >= most
            ),
            key=lambda c: c[0],
            reverse=True,
        )
        scored = []
        tried = 0
        for _, played, after in ranked:
            if tried >= self.weights.take_candidates:
                break
            if not is_valid_counts(after):
                continue
            found = False
            for more_taken in takeable_sets(after, most):
                turn = Turn(played, add(view.taken, more_taken))
                scored.append((self.turn_value(view, hand, turn), turn, None))
                found = True
            tried += found
        yield from _groups(scored)

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        if view is None:
            raise ValueError("QwirkleCardsHeuristicAgent needs the public view")
        mask = observation["action_mask"]
        if mask[CANNOT_PLAY]:
            self._plan = None
            return int(CANNOT_PLAY)
        key = _turn_key(view)
        if not any(view.played) and not any(view.taken):
            self._plan = (key, self.plan(view))
        plan = self._plan
        if plan is not None and plan[0] == key:
            action = self._next_action(view, plan[1], mask)
            if action is not None:
                return action
        return self._replan(view, key, mask)

    def _next_action(self, view: Any, turn: Turn, mask: np.ndarray) -> int | None:
        """The next sub-action of ``turn`` after what was taken and played so far, in
        whichever order the masks allow (the first of :func:`ways_on`; the end of the turn
        once all is done); None if the turn does not extend the selection so far or the masks
        forbid every way on."""
        steps = ways_on(view, turn, mask)
        if not steps:
            return None
        if steps[0] == END_TURN:
            self._plan = None
        return steps[0]

    def _replan(self, view: Any, key: Any, mask: np.ndarray) -> int:
        """Mid-turn off the plan (or without one): the best turn extending the selection so
        far (:meth:`completions`), the next best while the masks forbid continuing one; the
        new plan is kept for the rest of the turn."""
        for group in self.completions(view):
            while group:
                turn = self._choose(group)
                self._plan = (key, turn)
                action = self._next_action(view, turn, mask)
                if action is not None:
                    return action
                group = [g for g in group if g[1] is not turn]
        self._plan = None
        raise ValueError(
            "QwirkleCardsHeuristicAgent found no legal turn extending this turn's selection"
        )

    def best_actions(self, observation: Mapping[str, np.ndarray], view: Any = None) -> list[int]:
        """Every sub-action that starts or continues one of the best turns here: the turns
        :meth:`act` draws from (the best turns from the start of the turn while the selection
        so far extends one of them, else the best completions of that selection, the next best
        while the masks forbid a turn), and every order the masks allow within them. The best
        turns are found once per turn; completions only after a selection left them all.
        """
        if view is None:
            raise ValueError("QwirkleCardsHeuristicAgent needs the public view")
        mask = observation["action_mask"]
        if mask[CANNOT_PLAY]:
            return [int(CANNOT_PLAY)]
        key = _turn_key(view)
        started = any(view.played) or any(view.taken)
        if not started and (self._best is None or self._best[0] != key):
            self._best = (key, [t for _, t in next(self.completions(view))])
        if self._best is not None and self._best[0] == key:
            found = {a for turn in self._best[1] for a in ways_on(view, turn, mask)}
            if found:
                return sorted(found)
        for group in self.completions(view):
            found = {a for _, turn in group for a in ways_on(view, turn, mask)}
            if found:
                return sorted(found)
        raise ValueError(
            "QwirkleCardsHeuristicAgent found no legal turn extending this turn's selection"
        )


def ways_on(view: Any, turn: Turn, mask: np.ndarray) -> list[int]:
    """Every unmasked way on with ``turn`` after what was taken and played so far, in the
    order :meth:`QwirkleCardsHeuristicAgent.act` follows: taking any of its Qwirkles not taken
    yet (Qwirkles come before cards), else playing any of its cards not played yet, else ending
    the turn; none if ``turn`` does not extend the selection so far."""
    if not all(map(ge, turn.taken, view.taken)) or not all(map(ge, turn.played, view.played)):
        return []
    takes = [
        int(take)
        for line in range(NUM_LINES)
        if turn.taken[line] > view.taken[line] and mask[take := CODEC.encode(TakeQwirkle(line))]
    ]
    if takes:
        return takes
    plays = [
        int(play)
        for k in range(NUM_KINDS)
        if turn.played[k] > view.played[k] and mask[play := CODEC.encode(PlayCard(k))]
    ]
    if plays:
        return plays
    done = turn.taken == view.taken and turn.played == view.played
    return [int(END_TURN)] if done and mask[END_TURN] else []


def _turn_key(view: Any) -> tuple[Any, ...]:
    """What identifies the position at the start of the viewer's turn (a plan's key): the
    table, the hand before this turn's cards were played, and whether it is the first turn."""
    return (view.table, _turn_hand(view), view.first_turn)


def _turn_hand(view: Any) -> Counts:
    """The viewer's hand before this turn's cards were played."""
    return tuple(h + p for h, p in zip(view.hand, view.played, strict=True))


def _most_taken(bounded: Iterable[tuple[int, Counts]]) -> int:
    """The most Qwirkles a turn can take among the tables ``after`` (table plus the cards
    played, each with its per-line bound ``qwirkle_bound(after)``): branch and bound, best
    bound first, each valid table asked for more than the best so far."""
    most = 0
    for bound, after in sorted(bounded, key=lambda c: c[0], reverse=True):
        if bound <= most:
            break
        if not is_valid_counts(after):
            continue
        taken = most_qwirkles(after, floor=most)
        if taken is not None:
            most = max(most, sum(taken))
    return most


def _groups(scored: list[tuple[float, Turn, Counts | None]]) -> Iterator[list[tuple[float, Turn]]]:
    """``(value, turn)`` of the valid turns of ``scored`` in groups of equal value, best
    first; a turn's table ``after`` (when not None) is checked for validity only when its
    group is reached."""
    group: list[tuple[float, Turn]] = []
    top = 0.0
    for value, turn, after in sorted(scored, key=lambda c: c[0], reverse=True):
        if group and value < top - 1e-9:
            yield group
            group = []
        if after is not None and not is_valid_counts(after):
            continue
        if not group:
            top = value
        group.append((value, turn))
    if group:
        yield group


@lru_cache(maxsize=1 << 14)
def _holds_all(copies: tuple[int, ...], total: int, hand: int) -> float:
    return hand_holds_all(list(range(len(copies))), copies, total, hand)


__all__ = ["QwirkleCardsHeuristicAgent", "QwirkleCardsWeights", "hand_holds_all", "ways_on"]
