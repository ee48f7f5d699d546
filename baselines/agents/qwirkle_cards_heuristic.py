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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
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
from tabletop_rl.envs.qwirkle_cards.solver import find_split
from tabletop_rl.envs.qwirkle_cards.turns import (
    EMPTY_LINES,
    Turn,
    TurnBuilder,
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
    """Weights of a turn's value (see the module docstring)."""

    risk: float = 1.0
    """Multiplies the expected Qwirkles the next player completes from our table."""
    own_complete: float = 0.6
    """Value of a line our kept cards complete with the table (a Qwirkle next turn)."""
    own_near: float = 0.1
    """Value of a line our kept cards bring within one card."""
    played: float = 0.05
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
    """Most Qwirkles, then the least help to the next player (see the module docstring).

    ``weights`` replaces the default :class:`QwirkleCardsWeights`; keyword arguments override single
    weights (arena spec: ``heuristic:name=value``).
    """

    name = "heuristic"

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

    def forget_game(self) -> None:
        """Drop the planned turn (a new game starts)."""
        self._plan = None

    # ---------------------------------------------------------------- valuing
    def position_value(self, view: Any, table: Sequence[int], kept: Sequence[int]) -> float:
        """Value of leaving ``table`` (36 counts) and keeping ``kept`` in hand."""
        w = self.weights
        unseen = view.unseen
        total = sum(unseen)
        n = len(view.hand_sizes)
        opp_hand = view.hand_sizes[(view.player + 1) % n]
        value = 0.0
        for line in range(NUM_LINES):
            kinds = LINE_KINDS[line]
            missing = [k for k in kinds if not table[k]]
            if len(missing) <= 2 and w.risk:
                # cards we keep are out of the opponent's reach
                copies = tuple(sorted(unseen[k] for k in missing))
                value -= w.risk * _holds_all(copies, total, opp_hand)
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
        hand = tuple(h + p for h, p in zip(view.hand, view.played, strict=True))
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
            candidates.sort(key=lambda c: c[0], reverse=True)
            for bound, _, after in candidates:
                if bound <= most:
                    break
                if find_split(after) is None:
                    continue
                taken = most_qwirkles(after, floor=most)
                if taken is not None:
                    most = max(most, sum(taken))
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
            if find_split(after) is None:
                continue
            if most == 0:
                best.append((value, turn))
                continue
            found = False
            for taken in takeable_sets(after):
                if sum(taken) == most:
                    full = Turn(turn.played, taken)
                    best.append((self.turn_value(view, hand, full), full))
                    found = True
            tried += found
        return self._choose(best)

    def _choose(self, scored: list[tuple[float, Turn]]) -> Turn:
        top = max(v for v, _ in scored)
        ties = [t for v, t in scored if v >= top - 1e-9]
        return ties[0] if len(ties) == 1 else ties[int(self.rng.integers(len(ties)))]

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        if view is None:
            raise ValueError("QwirkleCardsHeuristicAgent needs the public view")
        mask = observation["action_mask"]
        if mask[CANNOT_PLAY]:
            self._plan = None
            return int(CANNOT_PLAY)
        hand = tuple(h + p for h, p in zip(view.hand, view.played, strict=True))
        key = (view.table, hand, view.first_turn)
        if not any(view.played) and not any(view.taken):
            self._plan = (key, self.plan(view))
        plan = self._plan
        if plan is None or plan[0] != key:
            raise ValueError("QwirkleCardsHeuristicAgent lost its plan for this turn")
        turn = plan[1]
        if any(v > t for t, v in zip(turn.taken, view.taken, strict=True)) or any(
            v > p for p, v in zip(turn.played, view.played, strict=True)
        ):
            raise ValueError("QwirkleCardsHeuristicAgent cannot continue a turn that left its plan")
        # the planned sub-actions in whichever order the masks allow
        for line in range(NUM_LINES):
            take = CODEC.encode(TakeQwirkle(line))
            if turn.taken[line] > view.taken[line] and mask[take]:
                return take
        for k in range(NUM_KINDS):
            play = CODEC.encode(PlayCard(k))
            if turn.played[k] > view.played[k] and mask[play]:
                return play
        if any(t > v for t, v in zip(turn.taken, view.taken, strict=True)) or any(
            p > v for p, v in zip(turn.played, view.played, strict=True)
        ):
            raise ValueError(f"QwirkleCardsHeuristicAgent's plan {turn} is masked")
        self._plan = None
        return int(END_TURN)


@lru_cache(maxsize=1 << 14)
def _holds_all(copies: tuple[int, ...], total: int, hand: int) -> float:
    return hand_holds_all(list(range(len(copies))), copies, total, hand)


__all__ = ["QwirkleCardsHeuristicAgent", "QwirkleCardsWeights", "hand_holds_all"]
