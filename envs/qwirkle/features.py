"""Qwirkle's observation features: what each placement scores, and the lines on the board.

:func:`qwirkle_features` is the :class:`~..core.features.FeatureSet` that
``qwirkle_v0.raw_env(features=True)`` appends to the observation (the fields are documented in
``tabletop_rl.envs.qwirkle_v0``, section *Features*). Every field lies over the same
``(window, window)`` cells as the ``board`` planes; the per-slot fields are in the placement
actions' order (plane ``slot``, row, column: entry ``slot * C + row * W + col`` is action
``slot * C + row * W + col``).

The features but the searched ones are computed by one compiled kernel from the base
observation alone (the ``board`` planes, ``bag_size`` and ``hand_sizes``) and the legal mask,
so the compiled and the reference engine, whose base observations are equal, give equal
features. The searched ones are ``place_best``, greedy's value of each placement (the most
points of a whole turn that makes it next); ``place_net`` and ``turn_net``, the same less what
the turn hands the next player through lines of five; ``place_plan`` and ``turn_plan``, that
plus what the kept tiles score next (:mod:`.follow_ups`); and ``place_endgame`` and
``turn_endgame``, the plan until the bag is empty and a three-ply search of the rest of a
two-player game then (:mod:`.endgame`). One search lays the observer's tiles
(:mod:`.best_turns`; the compiled search on the compiled engine, the reference engine's move
generator on the reference one; both tested against searches through the game-model
interface). The points follow
from the geometry: a placement the mask allows is legal, so what it scores depends only on
the lengths of the lines it builds, not on the tile:

- the runs of occupied cells left, right, up and down of every cell are counted once;
- with no tile laid yet this turn, a tile laid on a cell scores its row line and its column
  line (each of at least 2 tiles, 6 more for a Qwirkle of 6), or 1 when it touches nothing
  (the lone start tile);
- with tiles laid already, the new tile extends the turn's main line (the row when the new
  tile shares the laid tiles' row, else the column): the turn scores that line, the new
  tile's cross line, and the cross lines of the tiles laid before, whose lengths the new tile
  cannot change;
- a tile that empties the hand while the bag is empty ends the game: +6.

The line fields read the tiles off the colour and shape planes and ask the compiled rules
(:func:`~.compiled_kernels.cell_fit`, the test behind the engine's anchors) which kinds may
be laid alone on each empty cell next to a tile: ``cell_kinds`` counts them, and an end of a
line is open when that count is not 0 at the cell past it.

>>> import numpy as np
>>> from tabletop_rl.envs.core.features import FeatureModel
>>> from tabletop_rl.envs.qwirkle.model import QwirkleModel
>>> model = FeatureModel(QwirkleModel(window=13), qwirkle_features(13))
>>> state = model.new_state(np.random.default_rng(0))
>>> player = model.current_player(state)
>>> views = model.layout.decode(model.observe(state, player))
>>> legal = model.legal_mask(state)[: 6 * 13 * 13].reshape(6, 13, 13)
>>> bool((views["place_legal"] == legal).all())
True
>>> sorted({float(p) for p in views["place_points"][legal == 1]})  # the lone start tile
[1.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..core.features import FeatureSet
from ..core.model import GameModel
from ..core.observation import Field, ObservationLayout
from .best_turns import best_turn_points, view_best_turn_points
from .board import QWIRKLE_BONUS, QWIRKLE_LENGTH
from .compiled import CompiledQwirkleState
from .compiled_kernels import cell_fit
from .follow_ups import FOLLOW_UP_WEIGHT
from .game import END_BONUS
from .model import DEFAULT_WINDOW, LAID_PLANE, OCCUPIED_PLANE
from .tiles import HAND_SIZE, NUM_COLOURS, NUM_KINDS, NUM_SHAPES

MAX_TURN_POINTS = 7 * (QWIRKLE_LENGTH + QWIRKLE_BONUS) + END_BONUS
"""No turn scores more: its main line and the six cross lines of its tiles, each at most a
Qwirkle (12), and the end bonus."""
MAX_HANDED_POINTS = 7 * (QWIRKLE_LENGTH + QWIRKLE_BONUS)
"""No turn hands the next player more (in expectation): its main line and the six cross lines
of its tiles, each a line of five the next player surely completes."""
MAX_PLAN_VALUE = MAX_TURN_POINTS + FOLLOW_UP_WEIGHT * MAX_TURN_POINTS
"""No ``place_plan`` is higher: a turn's most points and the weighted most of the next move."""
MAX_ENDGAME_VALUE = 2 * MAX_TURN_POINTS
"""No endgame value is higher: a turn's most points and the most of the next move (the
opponent's reply scoring nothing)."""
MIN_ENDGAME_VALUE = -max(MAX_HANDED_POINTS, MAX_TURN_POINTS)
"""No endgame value is lower: before the bag is empty a plan's lowest (the points a turn hands
on), after it the search's (the opponent's best reply, with nothing scored)."""
MAX_JOINED_LINE = 2 * QWIRKLE_LENGTH + 1
"""The longest line a tile laid on an empty cell could join: a full line on either side."""


def qwirkle_features(window: int = DEFAULT_WINDOW) -> FeatureSet:
    """Qwirkle's feature fields over a ``window`` x ``window`` board window."""
    w = int(window)
    return FeatureSet(
        "qwirkle",
        (
            Field(
                "place_legal",
                (HAND_SIZE, w, w),
                "legal placements (slot, row, col); 0 off turn",
                spatial=True,
                action_group="place",
            ),
            Field(
                "place_points",
                (HAND_SIZE, w, w),
                "turn's points if it ended after that placement",
                high=float(MAX_TURN_POINTS),
                spatial=True,
                action_group="place",
            ),
            Field(
                "line_length",
                (2, w, w),
                "line through the cell (row, column), 0 if none",
                high=float(MAX_JOINED_LINE),
                spatial=True,
            ),
            Field(
                "line_open",
                (2, w, w),
                "ends of a tile's line that a tile kind fits",
                high=2.0,
                spatial=True,
            ),
            Field(
                "cell_kinds",
                (1, w, w),
                "tile kinds that fit an empty cell next to tiles",
                high=float(NUM_KINDS),
                spatial=True,
            ),
            Field(
                "turn_points",
                (1,),
                "points of ending the turn now if legal, else 0",
                high=float(MAX_TURN_POINTS),
                action_group="end_turn",
            ),
            Field(
                "place_best",
                (HAND_SIZE, w, w),
                "best whole turn's points after this placement",
                high=float(MAX_TURN_POINTS),
                spatial=True,
                action_group="place",
            ),
            Field(
                "place_net",
                (HAND_SIZE, w, w),
                "best whole turn's points less those it hands on",
                low=-float(MAX_HANDED_POINTS),
                high=float(MAX_TURN_POINTS),
                spatial=True,
                action_group="place",
            ),
            Field(
                "turn_net",
                (1,),
                "ending the turn now: points less those handed on",
                low=-float(MAX_HANDED_POINTS),
                high=float(MAX_TURN_POINTS),
                action_group="end_turn",
            ),
            Field(
                "place_plan",
                (HAND_SIZE, w, w),
                f"place_net plus {FOLLOW_UP_WEIGHT} x the kept tiles' next move",
                low=-float(MAX_HANDED_POINTS),
                high=float(MAX_PLAN_VALUE),
                spatial=True,
                action_group="place",
            ),
            Field(
                "turn_plan",
                (1,),
                f"turn_net plus {FOLLOW_UP_WEIGHT} x the kept tiles' next move",
                low=-float(MAX_HANDED_POINTS),
                high=float(MAX_PLAN_VALUE),
                action_group="end_turn",
            ),
            Field(
                "place_endgame",
                (HAND_SIZE, w, w),
                "place_plan; 3-ply search once bag is empty",
                low=float(MIN_ENDGAME_VALUE),
                high=float(MAX_ENDGAME_VALUE),
                spatial=True,
                action_group="place",
            ),
            Field(
                "turn_endgame",
                (1,),
                "turn_plan; 3-ply search once bag is empty",
                low=float(MIN_ENDGAME_VALUE),
                high=float(MAX_ENDGAME_VALUE),
                action_group="end_turn",
            ),
        ),
        _write,
        revision=5,
    )


_NO_MASK = np.zeros(0, dtype=np.int8)


def _write(
    model: GameModel,
    state: Any,
    player: int,
    base: dict[str, np.ndarray],
    mask: np.ndarray | None,
    out: dict[str, np.ndarray],
) -> None:
    """Fill the feature fields (see :class:`~..core.features.FeatureSet`)."""
    board = base["board"]
    to_act = mask is not None
    cells = board.shape[1] * board.shape[2]
    features_kernel(
        board,
        mask[: HAND_SIZE * cells + 1] if to_act else _NO_MASK,
        to_act,
        int(base["bag_size"][0]),
        int(base["hand_sizes"][0]),
        out["place_legal"],
        out["place_points"],
        out["turn_points"],
        out["line_length"],
        out["line_open"],
        out["cell_kinds"][0],
    )
    if to_act:
        searched = (
            out["place_best"].reshape(-1),
            out["place_net"].reshape(-1),
            out["turn_net"],
            out["place_plan"].reshape(-1),
            out["turn_plan"],
            out["place_endgame"].reshape(-1),
            out["turn_endgame"],
        )
        if isinstance(state, CompiledQwirkleState):
            best_turn_points(state.grid, state.fit, state.meta, mask, *searched)
        else:
            view_best_turn_points(model.public_view(state, player), mask, *searched)


@njit(cache=True, inline="always")
def _line(n: int) -> int:
    """Points of a line of ``n`` tiles: none below 2, 6 more for a Qwirkle."""
    if n < 2:
        return 0
    if n == QWIRKLE_LENGTH:
        return n + QWIRKLE_BONUS
    return n


@njit(cache=True)
def features_kernel(
    board: np.ndarray,
    mask: np.ndarray,
    to_act: bool,
    bag_size: int,
    hand_size: int,
    place_legal: np.ndarray,
    place_points: np.ndarray,
    turn_points: np.ndarray,
    line_length: np.ndarray,
    line_open: np.ndarray,
    cell_kinds: np.ndarray,
) -> None:
    """Write every feature field (zeroed beforehand) from the ``board`` planes (this turn's
    tiles included), the placement and end-turn part of the observer's mask (``to_act``
    only), the bag size and the observer's hand size (this turn's tiles included).

    Only the box of the laid tiles grown by one cell is visited: every feature is 0 outside
    it, and every legal placement touches a tile, except the game's first one (an empty
    board: then the whole window is visited).
    """
    w = board.shape[1]
    cells = w * w
    occupied = board[OCCUPIED_PLANE]
    laid = board[LAID_PLANE]
    r0, c0, r1, c1 = w, w, -1, -1
    for r in range(w):
        for c in range(w):
            if occupied[r, c] > 0:
                r0 = min(r0, r)
                r1 = max(r1, r)
                c0 = min(c0, c)
                c1 = max(c1, c)
    if r1 < 0:  # an empty board: the start tile, alone, scores 1
        if to_act:
            for i in range(HAND_SIZE * cells):
                if mask[i]:
                    place_legal.reshape(-1)[i] = 1.0
                    place_points.reshape(-1)[i] = 1.0
        return
    r0 = max(r0 - 1, 0)
    c0 = max(c0 - 1, 0)
    r1 = min(r1 + 1, w - 1)
    c1 = min(c1 + 1, w - 1)
    h = r1 - r0 + 1
    v = c1 - c0 + 1
    # the box's tiles (id + 1, 0 empty) with a border of empty cells for the rules' scans;
    # box cell (i, j) is window cell (r0 + i, c0 + j) and grid cell (i + 1, j + 1)
    grid = np.zeros((h + 2, v + 2), dtype=np.int8)
    for i in range(h):
        for j in range(v):
            if occupied[r0 + i, c0 + j] > 0:
                colour = 0
                shape = 0
                for k in range(NUM_COLOURS):
                    if board[k, r0 + i, c0 + j] > 0:
                        colour = k
                for k in range(NUM_SHAPES):
                    if board[NUM_COLOURS + k, r0 + i, c0 + j] > 0:
                        shape = k
                grid[i + 1, j + 1] = NUM_SHAPES * colour + shape + 1
    # runs of tiles next to each box cell, the cell itself excluded
    left = np.zeros((h, v), dtype=np.int64)
    right = np.zeros((h, v), dtype=np.int64)
    up = np.zeros((h, v), dtype=np.int64)
    down = np.zeros((h, v), dtype=np.int64)
    for i in range(h):
        for j in range(1, v):
            if grid[i + 1, j]:
                left[i, j] = left[i, j - 1] + 1
        for j in range(v - 2, -1, -1):
            if grid[i + 1, j + 2]:
                right[i, j] = right[i, j + 1] + 1
    for j in range(v):
        for i in range(1, h):
            if grid[i, j + 1]:
                up[i, j] = up[i - 1, j] + 1
        for i in range(h - 2, -1, -1):
            if grid[i + 2, j + 1]:
                down[i, j] = down[i + 1, j] + 1
    # per empty cell next to a tile, the tile kinds that may be laid there alone
    fits = np.zeros((h, v), dtype=np.int64)
    for i in range(h):
        for j in range(v):
            if grid[i + 1, j + 1] == 0 and (
                grid[i, j + 1] or grid[i + 2, j + 1] or grid[i + 1, j] or grid[i + 1, j + 2]
            ):
                f = cell_fit(grid, i + 1, j + 1)
                fits[i, j] = f
                n = 0
                while f:
                    f &= f - 1
                    n += 1
                cell_kinds[r0 + i, c0 + j] = n
    # line lengths and open ends; the turn's tiles so far
    pending = 0
    first_i = -1
    last_i = 0
    last_j = 0
    same_row = True
    cross_row = 0  # cross lines of the laid tiles if the main line is their row
    cross_col = 0  # ... if it is their column
    for i in range(h):
        for j in range(v):
            across = left[i, j] + right[i, j] + 1
            down_ = up[i, j] + down[i, j] + 1
            line_length[0, r0 + i, c0 + j] = across if across >= 2 else 0
            line_length[1, r0 + i, c0 + j] = down_ if down_ >= 2 else 0
            if grid[i + 1, j + 1]:
                line_open[0, r0 + i, c0 + j] = _fits_at(
                    fits, i, j - left[i, j] - 1, r0, c0, w
                ) + _fits_at(fits, i, j + right[i, j] + 1, r0, c0, w)
                line_open[1, r0 + i, c0 + j] = _fits_at(
                    fits, i - up[i, j] - 1, j, r0, c0, w
                ) + _fits_at(fits, i + down[i, j] + 1, j, r0, c0, w)
            if laid[r0 + i, c0 + j] > 0:
                if pending == 0:
                    first_i = i
                elif i != first_i:
                    same_row = False
                pending += 1
                last_i = i
                last_j = j
                cross_row += _line(down_)
                cross_col += _line(across)
    if not to_act:
        return
    if pending and mask[HAND_SIZE * cells]:
        # the turn ended now: the main line through the laid tiles and their cross lines
        if pending == 1 or same_row:
            points = _line(left[last_i, last_j] + right[last_i, last_j] + 1) + cross_row
        else:
            points = _line(up[last_i, last_j] + down[last_i, last_j] + 1) + cross_col
        if points == 0:  # the lone start tile
            points = 1
        if bag_size == 0 and hand_size == pending:
            points += END_BONUS
        turn_points[0] = points
    bonus = END_BONUS if bag_size == 0 and hand_size == pending + 1 else 0
    for i in range(h):
        for j in range(v):
            cell = (r0 + i) * w + c0 + j
            legal = False
            for slot in range(HAND_SIZE):
                if mask[slot * cells + cell]:
                    legal = True
                    place_legal[slot, r0 + i, c0 + j] = 1.0
            if not legal:
                continue
            points = _line(left[i, j] + right[i, j] + 1) + _line(up[i, j] + down[i, j] + 1)
            if pending == 0:
                points = max(points, 1)
            elif (pending == 1 and i == first_i) or (pending > 1 and same_row):
                points += cross_row
            else:
                points += cross_col
            for slot in range(HAND_SIZE):
                if mask[slot * cells + cell]:
                    place_points[slot, r0 + i, c0 + j] = points + bonus


@njit(cache=True, inline="always")
def _fits_at(fits: np.ndarray, i: int, j: int, r0: int, c0: int, w: int) -> int:
    """1 if some tile kind may be laid on box cell ``(i, j)`` (0 off the window; the box
    holds every cell next to a tile that lies in the window)."""
    if not (0 <= r0 + i < w and 0 <= c0 + j < w):
        return 0
    return 1 if fits[i, j] != 0 else 0


FEATURE_FIELDS = (
    "place_legal",
    "place_points",
    "line_length",
    "line_open",
    "cell_kinds",
    "turn_points",
    "place_best",
    "place_net",
    "turn_net",
    "place_plan",
    "turn_plan",
    "place_endgame",
    "turn_endgame",
)


_FIRST_ENTRY = 3 + len(FEATURE_FIELDS)
"""Where :func:`feature_offsets` gives the first entry after the base observation."""


def feature_offsets(layout: ObservationLayout) -> np.ndarray:
    """Where :func:`features_into` finds its inputs and writes its fields in a flat
    observation of ``layout`` (the base layout followed by :func:`qwirkle_features`): the
    window, the offsets of ``bag_size`` and ``hand_sizes``, of the feature fields in
    :data:`FEATURE_FIELDS` order, and the first entry after the base observation."""
    board = layout["board"]
    return np.array(
        [
            board.shape[1],
            layout.slice("bag_size").start,
            layout.slice("hand_sizes").start,
            *(layout.slice(name).start for name in FEATURE_FIELDS),
            layout.slice(FEATURE_FIELDS[0]).start,
        ],
        dtype=np.int64,
    )


@njit(cache=True)
def features_into(obs: np.ndarray, at: np.ndarray, mask: np.ndarray, to_act: bool) -> None:
    """Write the feature fields of the flat observation ``obs`` (its base part written) in
    place, for compiled callers such as the batched games: ``at`` from
    :func:`feature_offsets`, ``mask`` the observer's whole action mask (read when
    ``to_act``)."""
    w = at[0]
    cells = w * w
    obs[at[_FIRST_ENTRY] :] = 0.0
    board = obs[: (NUM_COLOURS + NUM_SHAPES + 2) * cells].reshape((-1, w, w))
    part = mask[: HAND_SIZE * cells + 1] if to_act else mask[:0]
    features_kernel(
        board,
        part,
        to_act,
        int(obs[at[1]]),
        int(obs[at[2]]),
        obs[at[3] : at[3] + HAND_SIZE * cells].reshape((HAND_SIZE, w, w)),
        obs[at[4] : at[4] + HAND_SIZE * cells].reshape((HAND_SIZE, w, w)),
        obs[at[8] : at[8] + 1],
        obs[at[5] : at[5] + 2 * cells].reshape((2, w, w)),
        obs[at[6] : at[6] + 2 * cells].reshape((2, w, w)),
        obs[at[7] : at[7] + cells].reshape((w, w)),
    )


@njit(cache=True)
def place_best_into(
    grid: np.ndarray,
    fit: np.ndarray,
    meta: np.ndarray,
    obs: np.ndarray,
    at: np.ndarray,
    mask: np.ndarray,
) -> None:
    """Write ``place_best``, ``place_net``, ``turn_net``, ``place_plan``, ``turn_plan``,
    ``place_endgame`` and ``turn_endgame`` into the flat observation ``obs`` (after
    :func:`features_into`) for the player to act of the compiled game ``grid``, ``fit``,
    ``meta``, whose legal mask is ``mask``: the fields that need the game, not only the
    observation (the search lays the hand's tiles, :func:`.best_turns.best_turn_points`)."""
    w = at[0]
    cells = HAND_SIZE * w * w
    best_turn_points(
        grid,
        fit,
        meta,
        mask,
        obs[at[9] : at[9] + cells],
        obs[at[10] : at[10] + cells],
        obs[at[11] : at[11] + 1],
        obs[at[12] : at[12] + cells],
        obs[at[13] : at[13] + 1],
        obs[at[14] : at[14] + cells],
        obs[at[15] : at[15] + 1],
    )


QWIRKLE_FEATURES = qwirkle_features(DEFAULT_WINDOW)
"""The feature set over the default 39 x 39 window."""


__all__ = [
    "FEATURE_FIELDS",
    "MAX_ENDGAME_VALUE",
    "MAX_JOINED_LINE",
    "MAX_TURN_POINTS",
    "QWIRKLE_FEATURES",
    "feature_offsets",
    "features_into",
    "place_best_into",
    "qwirkle_features",
]
