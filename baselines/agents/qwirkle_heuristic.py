"""A scripted Qwirkle player: greedy's moves, judged with the strategy tips of seed 001.

The greedy agent (issue 2) plays the move that scores most this turn. This agent considers
the same complete set of legal moves (the rules engine's :func:`legal_moves`; on the first
turn every start row) and every exchange, and values each one as

    points this turn (+ the end bonus when the move empties the hand for good)
    + value of the tiles kept in hand (the *leave*)
    - expected points handed to the next player through lines of five
    + expected points of a line of five we can complete ourselves next turn.

- **Lines of five** (seed 001: "Sei vorsichtig mit Reihen aus 5 Steinen"). A line of five
  misses exactly one tile kind. If a move leaves such a line (the main line or a cross line)
  and the missing tile fits on one of its open ends, the next player completes it for a
  Qwirkle (12 points) if they hold a copy. The agent counts the copies it cannot see
  (``view.unseen``: 3 minus the copies on the board and in its own hand; seed 001's tip:
  "Liegen schon alle 3 roten Kreise, kannst du eine rote Reihe ohne Risiko auf 5 Steine
  bringen") and charges 12 times the probability that the opponent's hand holds one of them
  (hypergeometric over the unseen tiles). No unseen copy, no risk. If the agent keeps the
  missing tile itself, the line is a chance of its own for the next turn. A line of four is
  charged the same way for the chance that the next player holds both missing tiles. Once
  the bag is empty the unseen tiles are the opponent's hand, so the charge is exact.
- **Keep tiles that combine.** The leave is worth a little for every pair of kept tiles that
  could share a line (same colour or same shape, not identical) and costs something for
  every duplicate (two identical tiles never share a line) and for every kept tile that fits
  nowhere on the board.
- **Several lines.** A move that builds several lines at once already scores each of them;
  the leave value breaks ties between equal scores toward keeping good tiles.
- **Exchange wisely.** Exchanging scores nothing this turn, so it wins only when every move
  is poor and the hand is poor: each possible exchange is valued by the leave of the tiles
  it keeps plus the expected value of fresh tiles, and compared with the best move.

Measured against greedy in two-player games (seats rotated): ``tabletop-rl arena --env
qwirkle_v0 --agents greedy heuristic --games 1000 --seed 21`` gives a win rate of 0.546
(Wilson 95% interval 0.516-0.577) and a mean margin of +3.1 points (200.7 against 197.6);
``--games 400 --seed 7`` gave 0.556 (0.507-0.604). The edge is small: greedy is a strong
Qwirkle player, and all of the measured gain comes from the lines-of-five rule: on the same
1,000 games of seed 21, the agent without the leave (``heuristic:pair=0,duplicate=0,dead=0``)
wins 0.543 (0.513-0.574), and valuing a move only by its points less the expected Qwirkle
points its lines of five hand on (``heuristic:risk=1,risk4=0,chance=0,pair=0,duplicate=0,
dead=0,exchange_margin=1000``: no leave, no lines of four, no chances of our own, no
exchange while a move is legal) 0.544 (0.514-0.575). On the 400 games of
seed 7, stronger caution (``risk=2.5,risk4=2.5``) lost to greedy (0.430), valuing our own
lines of five more (``chance=1.0``) gave 0.542 and rarer exchanges (``exchange_margin=3``)
0.554. An opponent-reply estimate (the next player's best score through the tiles just
laid, over sampled hands) made the agent weaker (0.42 over 200 games) and is not used.

A turn is emitted as the environment's sub-actions: the tiles of the chosen move one by one
in the engine's order (every prefix a legal move), then the end-turn action. Ties between
equal values are broken by the agent's generator; the agent is deterministic given its seed.

**Any partial turn is continued** (a kickstarting teacher is asked at every decision of a
learner that lays its own tiles). Mid-turn, when the tiles laid so far are not part of the
planned move, or there is no plan for this turn (the agent was first asked mid-turn), the
agent re-plans: among the legal moves of the turn's starting position that contain the laid
tiles (the laid tiles themselves are one: every partial move is a legal move; on the first
turn only complete start rows), it takes the best by the same value and tie-break, and lays
its next tile whose placement the mask allows, or ends the turn when that move is what is laid
already (the next best move if the masks forbid continuing one). The new plan is kept for the
rest of the turn, so a re-plan runs the move generator once per deviation: 6.3 ms on average
(median 4.1 ms, at most 40 ms) over the 201 re-plans of 5 games of a random learner (seeds
0-4). An agent that follows its own plan plays exactly as if it never re-planned.

>>> import numpy as np
>>> from tabletop_rl.envs import qwirkle_v0
>>> env = qwirkle_v0.raw_env()
>>> env.reset(seed=1)
>>> agent = QwirkleHeuristicAgent(np.random.default_rng(0))
>>> obs = env.observe(env.agent_selection)
>>> action = agent.act(obs, env.public_view(env.agent_selection))
>>> bool(obs["action_mask"][action])
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from tabletop_rl.envs.qwirkle.actions import Exchange, Pass, Place
from tabletop_rl.envs.qwirkle.board import (
    QWIRKLE_BONUS,
    QWIRKLE_LENGTH,
    fits_alone,
    missing_tiles,
    run_tiles,
)
from tabletop_rl.envs.qwirkle.game import CENTRE, END_BONUS
from tabletop_rl.envs.qwirkle.moves import first_turn_moves, legal_moves
from tabletop_rl.envs.qwirkle.tiles import Tile

from .base import SeededAgent
from .heuristic_weights import with_overrides

Move = tuple[tuple[int, int, Tile], ...]


@dataclass(frozen=True)
class QwirkleWeights:
    """Weights of a move's value (see the module docstring)."""

    risk: float = 1.5
    """Multiplies the expected Qwirkle points a line of five hands to the next player."""
    risk4: float = 1.5
    """The same for a line of four (the next player needs both missing tiles)."""
    chance: float = 0.5
    """Multiplies the expected Qwirkle points of a line of five we can complete next turn."""
    pair: float = 0.3
    """Value of each pair of kept tiles that could share a line."""
    duplicate: float = 1.5
    """Cost of each kept tile identical to another kept tile."""
    dead: float = 0.5
    """Cost of each kept tile that fits on no open cell of the board."""
    fresh: float = 0.6
    """Expected leave value of each tile drawn from the bag (for exchanges)."""
    exchange_margin: float = 1.0
    """An exchange must beat the best move by this much."""


@lru_cache(maxsize=1 << 14)
def holds_all(copies: tuple[int, ...], unseen: int, hand: int) -> float:
    """Probability that a hand of ``hand`` tiles drawn from ``unseen`` tiles holds one tile of
    each of some kinds, ``copies[i]`` unseen copies of kind i (inclusion-exclusion).

    >>> holds_all((0,), 50, 6), round(holds_all((3,), 50, 6), 3), round(holds_all((3, 3), 50, 6), 3)
    (0.0, 0.324, 0.093)
    """
    if hand <= 0 or unseen <= 0 or any(c <= 0 for c in copies):
        return 0.0
    hand = min(hand, unseen)
    denominator = comb(unseen, hand)
    n = len(copies)
    probability = 0.0
    for subset in range(1 << n):
        gone = sum(copies[i] for i in range(n) if subset >> i & 1)
        sign = -1.0 if bin(subset).count("1") % 2 else 1.0
        probability += sign * comb(unseen - gone, hand) / denominator
    return max(0.0, probability)


class QwirkleHeuristicAgent(SeededAgent):
    """Greedy's moves judged by leave, lines of five and exchanges (module docstring); any
    partial turn is continued with the best move that contains its tiles.

    ``weights`` replaces the default :class:`QwirkleWeights`; keyword arguments override single
    weights (arena spec: ``heuristic:name=value``).
    """

    name = "heuristic"

    def __init__(
        self, rng: np.random.Generator, weights: QwirkleWeights | None = None, **overrides: float
    ) -> None:
        self.rng = rng
        self.weights = with_overrides(
            weights or QwirkleWeights(), overrides, "QwirkleHeuristicAgent"
        )
        self._plan: tuple[Any, Move] | None = None
        self._options: tuple[Any, list[tuple[float, Any]]] | None = None
        """The valued options of the turn :meth:`best_actions` was last asked about."""

    def forget_game(self) -> None:
        """Drop the planned turn (a new game starts)."""
        self._plan = None
        self._options = None

    # ---------------------------------------------------------------- valuing
    def leave_value(self, kept: Sequence[Tile], anchors: Mapping | None) -> float:
        """Value of the tiles kept in hand (pairs that combine, duplicates, dead tiles)."""
        w = self.weights
        value = 0.0
        counts = Counter(kept)
        kinds = list(counts)
        for i, a in enumerate(kinds):
            for b in kinds[i + 1 :]:
                if a // 6 == b // 6 or a % 6 == b % 6:
                    value += w.pair
        value -= w.duplicate * (len(kept) - len(kinds))
        if anchors is not None and w.dead:
            fits = 0
            for mask in anchors.values():
                fits |= mask
            value -= w.dead * sum(n for t, n in counts.items() if not fits >> t & 1)
        return value

    def next_player_chance(self, view: Any, missing: Sequence[Tile]) -> float:
        """The chance that the next player's hand holds every kind of ``missing`` (the tiles
        a line of four or five lacks): a hand of their size drawn from ``view.unseen``. The
        one estimate of the risk; a variant that estimates otherwise overrides it
        (``research/opponent_hand.py``)."""
        unseen = view.unseen
        opp_hand = view.hand_sizes[(view.player + 1) % len(view.hand_sizes)]
        return holds_all(tuple(unseen[t] for t in missing), sum(unseen), opp_hand)

    def fives(
        self, tiles: Mapping, placed: Mapping, kept: Sequence[Tile], view: Any
    ) -> tuple[float, float]:
        """(risk, chance): expected Qwirkle points of the lines of five the move leaves
        for the next player, and for us next turn."""
        w = self.weights
        if not (w.risk or w.chance):
            return 0.0, 0.0
        seen: set = set()
        risk = chance = 0.0
        for r, c in placed:
            for dr, dc in ((0, 1), (1, 0)):
                line, low, high = run_tiles(tiles, placed, r, c, dr, dc)
                short = QWIRKLE_LENGTH - len(line)
                if short not in (1, 2) or (low, high) in seen:
                    continue
                if short == 2 and not w.risk4:
                    continue
                seen.add((low, high))
                missing = missing_tiles(line)
                if not all(
                    any(fits_alone(tiles, placed, end, t) for end in (low, high)) for t in missing
                ):
                    continue
                p = self.next_player_chance(view, missing)
                if short == 1:
                    risk += (QWIRKLE_LENGTH + QWIRKLE_BONUS) * p
                    if missing[0] in kept:
                        chance += (QWIRKLE_LENGTH + QWIRKLE_BONUS) * (1.0 - p)
                else:
                    risk += w.risk4 * (QWIRKLE_LENGTH + QWIRKLE_BONUS) * p
        return risk, chance

    def move_value(self, view: Any, move: Move, points: int, anchors: Mapping | None) -> float:
        """Value of playing ``move`` (scoring ``points``) from the viewer's hand."""
        w = self.weights
        kept = list(view.hand)
        for _, _, t in move:
            kept.remove(t)
        value = float(points)
        if not kept and view.bag_size == 0:
            value += END_BONUS
        tiles = view.board.tiles
        placed = {(r, c): t for r, c, t in move}
        risk, chance = self.fives(tiles, placed, kept, view)
        value += w.chance * chance - w.risk * risk
        value += self.leave_value(kept, anchors)
        return value

    # --------------------------------------------------------------- planning
    def candidates(self, view: Any) -> list[tuple[float, Any]]:
        """(value, move or exchange mask) of every option at the start of a turn."""
        w = self.weights
        hand = list(view.hand)
        out = self.move_candidates(view)
        if view.first_turn:
            return out
        anchors = view.board.anchors
        n = view.max_exchange
        if n:
            size = len(hand)
            for m in range(1, 1 << size):
                swapped = bin(m).count("1")
                if swapped > n:
                    continue
                kept = [hand[s] for s in range(size) if not m >> s & 1]
                value = self.leave_value(kept, anchors) + w.fresh * swapped - w.exchange_margin
                out.append((value, m))
        return out

    def move_candidates(self, view: Any) -> list[tuple[float, Move]]:
        """(value, move) of every move (no exchange) from the position at the start of the
        turn (``view.board`` and ``view.hand``), in the move generator's order."""
        hand = list(view.hand)
        board = view.board
        out: list[tuple[float, Move]] = []
        if view.first_turn:
            for move in first_turn_moves(hand, CENTRE):
                if any(view.window_cell(r, c) is None for r, c, _ in move):
                    continue
                points = len(move) + (QWIRKLE_BONUS if len(move) == QWIRKLE_LENGTH else 0)
                out.append((self.move_value(view, move, points, None), move))
            return out
        anchors = board.anchors
        for move in legal_moves(board, hand):
            if any(view.window_cell(r, c) is None for r, c, _ in move):
                continue
            points = board.score(move)
            out.append((self.move_value(view, move, points, anchors), move))
        return out

    def completions(self, view: Any) -> list[tuple[float, Move]]:
        """(value, move) of every move from the start of the turn that contains the tiles
        laid so far this turn (``view.laid_this_turn``): the ways to finish the turn. Mid-turn
        the laid tiles themselves are one of them (every partial move is a legal move), except
        on the first turn, whose start row must be complete."""
        laid = laid_placements(view)
        return [(v, m) for v, m in self.move_candidates(view) if laid <= set(m)]

    def _choose(self, scored: list[tuple[float, Any]]) -> Any:
        best = max(v for v, _ in scored)
        ties = [o for v, o in scored if v >= best - 1e-9]
        return ties[0] if len(ties) == 1 else ties[int(self.rng.integers(len(ties)))]

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        if view is None:
            raise ValueError("QwirkleHeuristicAgent needs the public view (QwirkleView)")
        mask = observation["action_mask"]
        codec = view.codec
        key = _turn_key(view)
        if not view.laid_this_turn:
            options = self.candidates(view)
            if not options:
                return codec.encode(Pass())  # nothing else is possible
            choice = self._choose(options)
            if isinstance(choice, int):
                self._plan = None
                return codec.encode(Exchange.from_bits(choice))
            self._plan = (key, choice)
        plan = self._plan
        if plan is not None and plan[0] == key:
            action = self._next_action(view, plan[1], mask)
            if action is not None:
                return action
        return self._replan(view, key, mask)

    def _next_action(self, view: Any, move: Move, mask: np.ndarray) -> int | None:
        """The next sub-action of ``move`` after the tiles laid so far: the first of
        :func:`ways_on` (its first tile not laid yet, in the move's order, whose placement is
        unmasked, or the end of the turn once every tile is laid); None if the laid tiles are
        not part of ``move`` or the masks forbid every way on."""
        if not laid_placements(view) <= set(move):
            return None
        action = next(ways_on(view, move, mask), None)
        if action == view.codec.end:
            self._plan = None
        return action

    def _replan(self, view: Any, key: Any, mask: np.ndarray) -> int:
        """Mid-turn off the plan (or without one): the best move that contains the tiles laid
        so far (same values and tie-breaks as at the start of a turn), next best while the
        masks forbid continuing one; the new plan is kept for the rest of the turn."""
        options = self.completions(view)
        while options:
            move = self._choose(options)
            self._plan = (key, move)
            action = self._next_action(view, move, mask)
            if action is not None:
                return action
            options = [o for o in options if o[1] is not move]
        self._plan = None
        raise ValueError(
            "QwirkleHeuristicAgent found no legal move containing the tiles laid this turn"
        )

    def best_actions(self, observation: Mapping[str, np.ndarray], view: Any = None) -> list[int]:
        """Every sub-action that starts or continues one of the best turns here: the turns
        :meth:`act` draws from (the best options at the start of a turn, the best completions
        of the tiles laid so far mid-turn, the next best while the masks forbid a turn), and
        every order of laying a best move's tiles. The options are valued once per turn.
        """
        if view is None:
            raise ValueError("QwirkleHeuristicAgent needs the public view (QwirkleView)")
        mask = observation["action_mask"]
        codec = view.codec
        key = _turn_key(view)
        if self._options is None or self._options[0] != key:
            self._options = (key, self.candidates(view))
        options = self._options[1]
        if view.laid_this_turn:
            laid = laid_placements(view)
            options = [(v, o) for v, o in options if not isinstance(o, int) and laid <= set(o)]
        elif not options:
            return [int(codec.encode(Pass()))]  # nothing else is possible
        while options:
            top = max(v for v, _ in options)
            best = [o for v, o in options if v >= top - 1e-9]
            found: set[int] = set()
            for option in best:
                if isinstance(option, int):
                    found.add(int(codec.encode(Exchange.from_bits(option))))
                else:
                    found.update(ways_on(view, option, mask))
            if found:
                return sorted(found)
            options = [(v, o) for v, o in options if v < top - 1e-9]
        raise ValueError(
            "QwirkleHeuristicAgent found no legal move containing the tiles laid this turn"
        )


def ways_on(view: Any, move: Move, mask: np.ndarray) -> Iterator[int]:
    """Every unmasked way on with ``move`` (which holds the tiles laid so far), in the move's
    order: a placement of each of its tiles not laid yet, from every hand slot holding that
    tile, or the end of the turn once all are laid."""
    laid = laid_placements(view)
    if len(laid) == len(move):
        if mask[view.codec.end]:
            yield int(view.codec.end)
        return
    used = {slot for _, _, slot in view.laid_this_turn}
    for r, c, t in move:
        cell = view.window_cell(r, c)
        if (r, c, t) in laid or cell is None:
            continue
        for slot, tile in enumerate(view.hand):
            if tile == t and slot not in used:
                action = int(view.codec.encode(Place(slot, *cell)))
                if mask[action]:
                    yield action


def _turn_key(view: Any) -> tuple[Any, ...]:
    """What identifies the position at the start of the viewer's turn (a plan's key)."""
    return (len(view.board), view.board.bounds() if len(view.board) else None, view.hand)


def laid_placements(view: Any) -> set[tuple[int, int, Tile]]:
    """The tiles laid so far this turn as ``(row, col, tile)``."""
    return {(r, c, view.hand[slot]) for r, c, slot in view.laid_this_turn}


__all__ = [
    "QwirkleHeuristicAgent",
    "QwirkleWeights",
    "holds_all",
    "laid_placements",
    "missing_tiles",
    "ways_on",
]
