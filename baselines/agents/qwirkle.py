"""Qwirkle's scripted greedy agent.

:class:`QwirkleGreedyAgent` lays, each turn, the move that scores the most points this turn
over the *full* set of legal moves (the rules engine's complete move generator: gap-bridging
moves, extensions to the left and upwards, tiles at both ends of a line), ties broken at
random. When it cannot place, it exchanges the tiles least useful to it: it keeps its largest
set of distinct tiles sharing a colour or a shape and returns duplicates first, then the tiles
outside that set (fewest partners first), as many as the bag allows; with nothing to exchange
it passes. It plays from ``env.public_view(agent)`` only (its own hand and the public
board), and emits its turn one sub-action at a time.

>>> import numpy as np
>>> from tabletop_rl.envs import qwirkle_v0
>>> env = qwirkle_v0.raw_env()
>>> env.reset(seed=0)
>>> agent = QwirkleGreedyAgent(np.random.default_rng(0))
>>> action = agent.act(env.observe(env.agent_selection), env.public_view(env.agent_selection))
>>> bool(env.action_mask()[action])
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tabletop_rl.envs.qwirkle.actions import Exchange, Pass, Place
from tabletop_rl.envs.qwirkle.tiles import COLOUR_MASKS, SHAPE_MASKS, Tile
from tabletop_rl.envs.qwirkle_v0 import QwirkleView

from .base import SeededAgent


class QwirkleGreedyAgent(SeededAgent):
    """Most points this turn; exchanges its least useful tiles when it cannot place."""

    name = "greedy"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self._plan: list[int] = []
        self._laid: list[tuple[int, int, int]] = []

    def forget_game(self) -> None:
        """Drop the planned turn (a new game starts)."""
        self._plan = []
        self._laid = []

    # ------------------------------------------------------------ acting
    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        if not isinstance(view, QwirkleView):
            raise ValueError(
                "QwirkleGreedyAgent needs the public view: act(obs, env.public_view(agent))"
            )
        mask = observation["action_mask"]
        end = view.end_turn
        laid = list(view.laid_this_turn)
        if not laid or laid != self._laid[: len(laid)]:
            if laid:  # not our plan (someone else laid these): stop here if we may
                if mask[end]:
                    return end
                raise ValueError("QwirkleGreedyAgent cannot continue a turn it did not start")
            self._plan = self._plan_turn(view, end)
            self._laid = []
        action = self._plan[len(laid)]
        move = view.codec.decode(action)
        if isinstance(move, Place):
            r0, c0 = view.window_origin
            self._laid.append((move.row + r0, move.col + c0, move.slot))
        if not mask[action]:
            raise RuntimeError(f"QwirkleGreedyAgent planned masked action {action}")
        return action

    # ---------------------------------------------------------- planning
    def best_moves(self, view: QwirkleView) -> tuple[int, list[tuple]]:
        """The highest score this turn and every visible move reaching it."""
        scored = view.scored_moves()
        if not scored:
            return 0, []
        best = max(s for _, s in scored)
        return best, [m for m, s in scored if s == best]

    def turn_actions(self, view: QwirkleView) -> list[int]:
        """The whole greedy turn of the viewer (to act at a turn's start) as sub-actions."""
        return self._plan_turn(view, view.end_turn)

    def _plan_turn(self, view: QwirkleView, end: int) -> list[int]:
        _, best = self.best_moves(view)
        if best:
            move = best[int(self.rng.integers(len(best)))]
            return [*self.placements(view, move), end]
        if view.max_exchange:
            slots = self.exchange_slots(view.hand, view.max_exchange)
            return [view.codec.encode(Exchange(tuple(slots)))]
        return [view.codec.encode(Pass())]

    @staticmethod
    def placements(view: QwirkleView, move: Sequence[tuple[int, int, Tile]]) -> list[int]:
        """The lay actions of ``move`` (in its order), each tile from the first free slot
        holding its kind."""
        free = list(range(len(view.hand)))
        actions = []
        for r, c, t in move:
            slot = next(s for s in free if view.hand[s] == t)
            free.remove(slot)
            wr, wc = view.window_cell(r, c)  # type: ignore[misc]
            actions.append(view.codec.encode(Place(slot, wr, wc)))
        return actions

    @staticmethod
    def exchange_slots(hand: Sequence[Tile], limit: int) -> list[int]:
        """The slots to exchange: duplicates, then tiles outside the largest set.

        >>> from tabletop_rl.envs.qwirkle import parse_tile
        >>> hand = [parse_tile(c) for c in "Ro Rx Rx Rd Bs Yt".split()]
        >>> QwirkleGreedyAgent.exchange_slots(hand, 6)
        [2, 4, 5]
        >>> QwirkleGreedyAgent.exchange_slots(hand, 1)
        [2]
        """
        kinds = set(hand)
        groups = [g for g in (*COLOUR_MASKS, *SHAPE_MASKS)]
        keep_group = max(groups, key=lambda g: sum(1 for t in kinds if g >> t & 1))

        def partners(t: Tile) -> int:
            return max(sum(1 for u in kinds if g >> u & 1) for g in groups if g >> t & 1)

        seen: set[Tile] = set()
        duplicates, outside, kept = [], [], []
        for s, t in enumerate(hand):
            if t in seen:
                duplicates.append(s)
            elif keep_group >> t & 1:
                kept.append(s)
            else:
                outside.append(s)
            seen.add(t)
        outside.sort(key=lambda s: partners(hand[s]))
        order = duplicates + outside
        if not order:  # the whole hand is one set that fits nowhere: start afresh
            order = kept
        return sorted(order[:limit])
