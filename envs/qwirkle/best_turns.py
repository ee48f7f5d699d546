"""The most points a turn can score once a placement is made: greedy's value of a placement.

Qwirkle's greedy agent lays, each turn, the legal move that scores the most points. It sees
whole moves; a policy lays a move one tile at a time, and a tile's worth depends on the tiles
that may follow it along the same line. :func:`best_turn_points` gives each legal placement
of the player to act that worth: the most points of a complete turn that lays this tile on
this cell next (after the tiles already laid this turn), the end bonus included. Its maximum
over the placements at the start of a turn is the best move's score, and every placement
that reaches it is a tile of a best move (the greedy agent's choices). The start row counts
only once it is complete (the rules do not let it end earlier).

The same search also values each placement net of what the turn *hands on*: the most, over
those turns, of the turn's points less the expected points the next player gets by completing
a line of five the turn leaves (:func:`handed_points`: 12 for the Qwirkle times the chance,
:func:`hold_probabilities`, that the next hand holds the missing kind; seed 001's tip "Sei
vorsichtig mit Reihen aus 5 Steinen"), and the same for ending the turn now.

Two implementations give the same numbers:

- :func:`best_turn_points` searches the compiled engine's arrays (:mod:`.compiled_kernels`):
  depth first over the placements the engine's own mask allows after each tile, scoring
  every point where the turn may end with the engine's :func:`~.compiled_kernels.move_points`.
  It lays and lifts tiles on the game's own grid and works on a copy of the rest, so the
  game is unchanged when it returns.
- :func:`view_best_turn_points` reads the same numbers off the reference engine's move
  generator, as the greedy agent plans: the most points among the legal moves that hold the
  tiles laid so far and this placement, and the lines of five on the reference board
  (:func:`view_handed_points`). ``tests/test_qwirkle_features.py`` checks both against each
  other and against a search through the game-model interface (step, read the mask, step
  again, read the score and the board).

>>> import numpy as np
>>> from tabletop_rl.envs.qwirkle.compiled import QwirkleCompiledModel
>>> model = QwirkleCompiledModel()
>>> state = model.new_state(np.random.default_rng(0))
>>> mask = model.legal_mask(state)
>>> compiled = [np.zeros(model.codec.end, dtype=np.float32) for _ in range(4)]
>>> best_turn_points(state.grid, state.fit, state.meta, mask, *compiled[:2], np.zeros(1),
...                  compiled[2], np.zeros(1), compiled[3], np.zeros(1))
>>> reference = [np.zeros(model.codec.end, dtype=np.float32) for _ in range(4)]
>>> view = model.public_view(state, model.current_player(state))
>>> view_best_turn_points(view, mask, *reference[:2], np.zeros(1), reference[2], np.zeros(1),
...                       reference[3], np.zeros(1))
>>> [bool((a == b).all()) for a, b in zip(compiled, reference)], int(compiled[0].max()) >= 1
([True, True, True, True], True)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compiled_kernels as K
from .actions import Place
from .board import QWIRKLE_BONUS, QWIRKLE_LENGTH, Cell, Move, fits_alone, missing_tiles, run_tiles
from .endgame import endgame_applies, endgame_points, endgame_workspace, view_endgame_points
from .follow_ups import (
    FOLLOW_UP_WEIGHT,
    follow_up_points,
    follow_up_workspace,
    view_follow_up_points,
)
from .game import END_BONUS
from .model import QwirkleView
from .tiles import NUM_KINDS, NUM_SHAPES
from .turn_search import MAX_OPTIONS, WALK_DONE, end_points, lift, placements, walk_on


@njit(cache=True)
def hold_probabilities(unseen: np.ndarray, hand: int) -> np.ndarray:
    """Per tile kind, the probability that a hand of ``hand`` tiles, drawn from the tiles
    the viewer cannot see (``unseen[kind]`` copies of each kind), holds at least one copy of
    it (hypergeometric). Rounded to ``float32``, so that sums of a few of them are exact in
    ``float64`` whatever their order (both implementations below add them in their own).

    >>> unseen = np.zeros(36, dtype=np.int64)
    >>> unseen[:2] = 3, 1
    >>> hold_probabilities(unseen, 1)[:3].tolist()  # one tile drawn from 4: 3 of kind 0
    [0.75, 0.25, 0.0]
    """
    total = 0
    for k in range(unseen.shape[0]):
        total += unseen[k]
    out = np.zeros(unseen.shape[0], dtype=np.float32)
    for k in range(unseen.shape[0]):
        if unseen[k] <= 0 or hand <= 0:
            continue
        none = 1.0
        for i in range(min(hand, total)):
            if total - unseen[k] - i <= 0:
                none = 0.0
                break
            none *= (total - unseen[k] - i) / (total - i)
        out[k] = 1.0 - none
    return out


@njit(cache=True)
def _missing_kind(grid: np.ndarray, r: int, c: int, dr: int, dc: int) -> int:
    """The one tile kind that completes the line of five whose first tile is ``(r, c)``,
    running along ``(dr, dc)``."""
    first = grid[r, c] - 1
    same_colour = True
    kinds = 0
    for i in range(QWIRKLE_LENGTH - 1):
        t = grid[r + i * dr, c + i * dc] - 1
        kinds |= 1 << t
        if t // NUM_SHAPES != first // NUM_SHAPES:
            same_colour = False
    for k in range(NUM_KINDS):
        if kinds >> k & 1:
            continue
        if same_colour and k // NUM_SHAPES == first // NUM_SHAPES:
            return k
        if not same_colour and k % NUM_SHAPES == first % NUM_SHAPES:
            return k
    return -1


@njit(cache=True)
def handed_points(grid: np.ndarray, meta: np.ndarray, hold: np.ndarray) -> float:
    """Expected points that the tiles laid this turn hand the next player through lines of
    five: every line of five through a laid tile (counted once) whose missing kind may be
    laid alone on one of its two ends gives 12 (the Qwirkle) times ``hold`` of that kind
    (:func:`hold_probabilities` for the next player's hand)."""
    n = meta[K.PN]
    total = 0.0
    for d in range(2):
        dr = d
        dc = 1 - d
        for i in range(n):
            r = meta[K.PEND + 3 * i]
            c = meta[K.PEND + 3 * i + 1]
            sr, sc = K.run_end(grid, r, c, -dr, -dc)
            seen = False
            for j in range(i):
                qr, qc = K.run_end(grid, meta[K.PEND + 3 * j], meta[K.PEND + 3 * j + 1], -dr, -dc)
                if qr == sr and qc == sc:
                    seen = True
                    break
            if seen:
                continue
            er, ec = K.run_end(grid, r, c, dr, dc)
            if (er - sr) + (ec - sc) - 1 != QWIRKLE_LENGTH - 1:
                continue
            kind = _missing_kind(grid, sr + dr, sc + dc, dr, dc)
            fits = K.cell_fit(grid, sr, sc) | K.cell_fit(grid, er, ec)
            if kind >= 0 and fits >> kind & 1:
                total += hold[kind]
    return (QWIRKLE_LENGTH + QWIRKLE_BONUS) * total


@njit(cache=True)
def _hold_next(meta: np.ndarray) -> np.ndarray:
    """:func:`hold_probabilities` for the hand of the player after the one to act, over the
    tiles the player to act cannot see (not on the board before this turn, not in its hand)."""
    unseen = meta[K.UNSEEN : K.UNSEEN + NUM_KINDS].copy()
    cur = meta[K.CUR]
    for slot in range(K.HAND):
        t = meta[K.HANDS + 6 * cur + slot]
        if t >= 0:
            unseen[t] -= 1
    return hold_probabilities(unseen, meta[K.HLEN + (cur + 1) % meta[K.NP]])


@njit(cache=True)
def best_turn_points(
    grid: np.ndarray,
    fit: np.ndarray,
    meta: np.ndarray,
    mask: np.ndarray,
    out: np.ndarray,
    net: np.ndarray,
    turn_net: np.ndarray,
    plan: np.ndarray,
    turn_plan: np.ndarray,
    endgame: np.ndarray,
    turn_endgame: np.ndarray,
) -> None:
    """For every placement that ``mask`` (the legal mask of the player to act) allows, write
    into ``out[action]`` the most points of a complete turn that makes it next, into
    ``net[action]`` the most of such a turn's points minus the points it hands the next
    player (:func:`handed_points`; none when the turn ends the game), and into
    ``plan[action]`` the most of such a turn's net value plus
    :data:`~.follow_ups.FOLLOW_UP_WEIGHT` times its follow-up
    (:func:`~.follow_ups.follow_up_points`); other entries are left as they are.
    ``turn_net[0]`` and ``turn_plan[0]`` get the same values of ending the turn now when
    ``mask`` allows it. ``endgame[action]`` and ``turn_endgame[0]`` get the most endgame value
    (:func:`~.endgame.endgame_points`) of such turns once :func:`~.endgame.endgame_applies`,
    and ``plan``'s values before. An empty ``plan`` skips the follow-ups (and ``turn_plan``),
    an empty ``endgame`` the endgame values (``plan`` must be given for them). ``grid`` is
    restored and ``meta`` untouched on return."""
    w = meta[K.WIN]
    end = K.HAND * w * w
    m = meta.copy()
    hold = _hold_next(m)
    hand = m[K.HLEN + m[K.CUR]]
    plans = plan.shape[0] > 0
    scratch = np.zeros(mask.shape[0], dtype=np.int8)
    first = np.zeros(MAX_OPTIONS, dtype=np.int64)  # the walk's placements after the action
    later = np.zeros((K.HAND, MAX_OPTIONS), dtype=np.int64)  # and after each tile of it
    count = np.zeros(K.HAND + 1, dtype=np.int64)
    done = np.zeros(K.HAND + 1, dtype=np.int64)
    work = follow_up_workspace(fit, m, end if plans else 0)
    endgames = plans and endgame.shape[0] > 0
    ends = endgames and endgame_applies(m)
    ending = endgame_workspace(fit, m, end if ends else 0)
    if mask[end]:
        _, points = placements(grid, fit, m, scratch, first)
        turn_net[0] = _net(grid, m, hold, hand, points)
        if plans:
            follow = follow_up_points(grid, fit, m, scratch, work)
            turn_plan[0] = turn_net[0] + FOLLOW_UP_WEIGHT * follow
        if endgames:
            turn_endgame[0] = (
                endgame_points(grid, fit, m, points, scratch, ending) if ends else turn_plan[0]
            )
    for action in range(end):
        if mask[action] == 0:
            continue
        K.lay(grid, m, action)
        count[0], best = placements(grid, fit, m, scratch, first)
        best_net = _net(grid, m, hold, hand, best)
        best_plan = -np.inf
        if plans and best >= 0:
            best_plan = best_net + FOLLOW_UP_WEIGHT * follow_up_points(grid, fit, m, scratch, work)
        best_end = -np.inf
        if ends and best >= 0:
            best_end = float(endgame_points(grid, fit, m, best, scratch, ending))
        done[0] = 0
        base = m[K.PN]
        points = walk_on(grid, fit, m, scratch, first, later, count, done, base)
        while points != WALK_DONE:
            best = max(best, points)
            value = _net(grid, m, hold, hand, points)
            best_net = max(best_net, value)
            if plans and points >= 0:
                value += FOLLOW_UP_WEIGHT * follow_up_points(grid, fit, m, scratch, work)
                best_plan = max(best_plan, value)
            if ends and points >= 0:
                best_end = max(best_end, endgame_points(grid, fit, m, points, scratch, ending))
            points = walk_on(grid, fit, m, scratch, first, later, count, done, base)
        lift(grid, m)
        out[action] = best
        net[action] = best_net
        if plans:
            plan[action] = best_plan
        if endgames:
            endgame[action] = best_end if ends else best_plan


def greedy_action(
    grid: np.ndarray,
    fit: np.ndarray,
    meta: np.ndarray,
    mask: np.ndarray,
    rng: np.random.Generator,
) -> int:
    """The next sub-action of a greedy turn of the player to act, read off the compiled
    engine's arrays: a placement whose best complete turn (:func:`best_turn_points`) scores
    the most (ties drawn with ``rng``), or ending the turn once that scores as much
    (:func:`end_points`) as any way on; -1 when ``mask`` allows neither (at a turn's start
    with nothing to place: the turn is an exchange or a pass). Played step by step, the
    turn scores the most points of any legal move, the end bonus included (the greedy agent
    leaves the bonus out of its choice); ``grid`` and ``meta`` are unchanged.

    >>> import numpy as np
    >>> from tabletop_rl.envs.qwirkle.compiled import QwirkleCompiledModel
    >>> model = QwirkleCompiledModel()
    >>> state = model.new_state(np.random.default_rng(0))
    >>> action = greedy_action(state.grid, state.fit, state.meta, model.legal_mask(state),
    ...                        np.random.default_rng(0))
    >>> bool(model.legal_mask(state)[action]), action < model.codec.end
    (True, True)
    """
    end = K.HAND * int(meta[K.WIN]) ** 2
    placed = np.flatnonzero(mask[:end])
    stop = end_points(grid, meta) if mask[end] else -1
    if placed.size == 0:
        return end if stop >= 0 else -1
    values = np.zeros(end, dtype=np.float32)
    net, nothing = np.zeros(end, dtype=np.float32), np.zeros(0, dtype=np.float32)
    best_turn_points(
        grid, fit, meta, mask, values, net, np.zeros(1), nothing, nothing, nothing, nothing
    )
    scores = values[placed]
    best = scores.max()
    if stop >= best:
        return end
    ties = placed[scores == best]
    return int(ties[rng.integers(ties.size)]) if ties.size > 1 else int(ties[0])


@njit(cache=True)
def _net(grid: np.ndarray, meta: np.ndarray, hold: np.ndarray, hand: int, points: int) -> float:
    """``points`` of ending the turn now minus what it hands the next player (none when it
    empties the hand with the bag empty: the game ends); -inf when the turn may not end."""
    if points < 0:
        return -np.inf
    if meta[K.BAGN] == 0 and hand == meta[K.PN]:
        return float(points)
    return points - handed_points(grid, meta, hold)


def view_best_turn_points(
    view: QwirkleView,
    mask: np.ndarray,
    out: np.ndarray,
    net: np.ndarray,
    turn_net: np.ndarray,
    plan: np.ndarray,
    turn_plan: np.ndarray,
    endgame: np.ndarray,
    turn_endgame: np.ndarray,
) -> None:
    """:func:`best_turn_points` from the reference engine's move generator, as the greedy
    agent plans: every legal move of the player to act with its points
    (:meth:`QwirkleView.scored_moves`, plus the end bonus when it empties the hand with the
    bag empty); each move that holds the tiles laid so far this turn gives its points (and
    its points less :func:`view_handed_points`, and that plus
    :data:`~.follow_ups.FOLLOW_UP_WEIGHT` times :func:`~.follow_ups.view_follow_up_points`)
    to every placement of one of its other tiles that ``mask`` allows, and each placement
    keeps the most; the move of exactly the tiles laid so far gives ``turn_net`` and
    ``turn_plan``, and the same with :func:`~.endgame.view_endgame_points` for ``endgame`` and
    ``turn_endgame`` (``plan``'s values before the endgame). An empty ``plan`` skips the
    follow-ups, an empty ``endgame`` the endgame values. ``view`` is the public view of the
    player to act."""
    hand = view.hand
    used = {slot for _, _, slot in view.laid_this_turn}
    laid = {(r, c, hand[slot]) for r, c, slot in view.laid_this_turn}
    unseen = np.array(view.unseen, dtype=np.int64)
    hold = hold_probabilities(unseen, view.hand_sizes[(view.player + 1) % len(view.hand_sizes)])
    plans = plan.shape[0] > 0
    endgames = plans and endgame.shape[0] > 0
    ends = endgames and view.bag_size == 0 and len(view.hand_sizes) == 2
    best_net: dict[int, float] = {}
    best_plan: dict[int, float] = {}
    best_end: dict[int, float] = {}
    for move, points in view.scored_moves():
        if not laid <= set(move):
            continue
        if view.bag_size == 0 and len(move) == len(hand):
            points += END_BONUS
            value = float(points)
        else:
            value = points - view_handed_points(view, move, hold)
        planned = value
        if plans:
            planned += FOLLOW_UP_WEIGHT * view_follow_up_points(view, move)
        searched = float(view_endgame_points(view, move, points)) if ends else planned
        if len(move) == len(laid) and mask[view.codec.end]:
            turn_net[0] = value
            if plans:
                turn_plan[0] = planned
            if endgames:
                turn_endgame[0] = searched
        for r, c, tile in move:
            cell = view.window_cell(r, c)
            if (r, c, tile) in laid or cell is None:
                continue
            for slot, held in enumerate(hand):
                action = view.codec.encode(Place(slot, *cell))
                if held == tile and slot not in used and mask[action]:
                    out[action] = max(out[action], points)
                    best_net[action] = max(best_net.get(action, -np.inf), value)
                    best_plan[action] = max(best_plan.get(action, -np.inf), planned)
                    best_end[action] = max(best_end.get(action, -np.inf), searched)
    for action, value in best_net.items():
        net[action] = value
    if plans:
        for action, value in best_plan.items():
            plan[action] = value
    if endgames:
        for action, value in best_end.items():
            endgame[action] = value


def view_handed_points(view: QwirkleView, move: Move, hold: np.ndarray) -> float:
    """:func:`handed_points` on the reference board: the lines of five through ``move``'s
    tiles (laid on ``view.board``), each once, whose missing kind fits one of its two ends
    alone, 12 times ``hold`` of that kind."""
    tiles = view.board.tiles
    placed = {(r, c): t for r, c, t in move}
    seen: set[tuple[Cell, Cell]] = set()
    total = 0.0
    for r, c in placed:
        for dr, dc in ((0, 1), (1, 0)):
            line, low, high = run_tiles(tiles, placed, r, c, dr, dc)
            if len(line) != QWIRKLE_LENGTH - 1 or (low, high) in seen:
                continue
            seen.add((low, high))
            (kind,) = missing_tiles(line)
            if any(fits_alone(tiles, placed, end, kind) for end in (low, high)):
                total += float(hold[kind])
    return (QWIRKLE_LENGTH + QWIRKLE_BONUS) * total


__all__ = [
    "MAX_OPTIONS",
    "best_turn_points",
    "end_points",
    "greedy_action",
    "handed_points",
    "hold_probabilities",
    "view_best_turn_points",
    "view_handed_points",
]
