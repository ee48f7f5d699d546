"""Liniell's observation features: what each legal lay would do, as the rules engine says.

A lay changes a line's route (its longest path between ends, rules reference "Scoring") at
tiles far from the cell laid on, so a network that reads the ``routes`` planes still has to
infer the route a new tile would make. The greedy agent reads that from the rules engine:
it tries every placement, every occupation after it, and keeps the best provisional score
margin. :data:`LINIELL_FEATURES` puts the same numbers into the observation, one entry per
lay action, in the lay action group's order (window row, window column, rotation:
``channels_last`` planes over the window of the ``tiles`` planes):

- ``lay_legal``: 1 for every legal lay of the drawn tile.
- ``lay_gain``: the change of the observer's provisional score the lay alone makes (its
  lines grow, close, or change route; before any occupation).
- ``lay_opponent_gain``: the change the lay makes to the best opponent's provisional score
  (the highest score among the other seats, before and after).
- ``lay_turn_margin``: the observer's score minus the best opponent's after the best turn
  that starts with this lay: the lay followed by the best occupation or none, or by the best
  compulsory moves after a join (greedy's value of the lay; its argmax is greedy's lay).
- ``lay_join``: 1 where the lay joins lines occupied by different players, so that a
  compulsory move follows (the observer takes the joined line, its pawns go home).

One more field describes the position rather than a lay: ``open_ends`` (planes over the
window, observer first) counts, at every empty cell that can still receive a tile, the sides
facing each player's occupied lines. Those are the lines' open ends (the route still grows
there) and, where two players' lines face one cell, a merge point where the next player can
join them and take the line: what the heuristic agent reads beyond greedy's margin.

Revision 3 gives greedy's value of each occupation and of skipping (``occupy_turn_margin``,
``skip_turn_margin``), and revision 4 the heuristic agent's value of the position after the best
turn each lay, occupation or skip starts (``lay_turn_value``, ``occupy_turn_value``,
``skip_turn_value``; :mod:`.turn_values`): the same searches value every finish of the turn
both ways.

The lay fields are zero outside the lay step, when the observer is not the player to act, and
for illegal lays. The values do not depend on the hidden stack order: scores change only
with the board and the pawns, never with the next tile drawn.

Both engines compute the same values: the compiled engine with :func:`lay_features` (one
numba kernel over the legal lays), the reference engine through the game-model interface
(copy the state, step, read the scores; :func:`model_lay_features`); ``open_ends`` comes
from the base observation's planes (:func:`open_ends`).

>>> import numpy as np
>>> from tabletop_rl.envs.core.features import with_features
>>> from tabletop_rl.envs.liniell.compiled_model import LiniellCompiledModel
>>> model = with_features(LiniellCompiledModel(), LINIELL_FEATURES)
>>> state = model.new_state(np.random.default_rng(0))
>>> views = model.layout.decode(model.observe(state, model.current_player(state)))
>>> views["lay_legal"].shape, int(views["lay_legal"].sum()) == int(model.legal_mask(state).sum())
((7, 7, 4), True)
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numba import njit

from ..core.batch import BatchResult
from ..core.features import FeatureSet
from ..core.model import GameModel
from ..core.observation import Field, ObservationLayout
from . import compiled as core
from .actions import NUM_LAY, SKIP
from .board import NUM_CELLS, WINDOW
from .compiled_layout import (
    CMAX,
    CMIN,
    CURRENT,
    DRAWN,
    KIND,
    LAY,
    MOVE,
    NUM_ACTIONS,
    NUM_PLAYERS,
    OCCUPY_ACTION,
    OVER,
    PAWNS,
    PHASE,
    RMAX,
    RMIN,
    SKIP_ACTION,
    STACK_SIZE,
    STATE_SIZE,
)
from .compiled_lines import across, best_opponent_points, find, player_points, points_margin
from .compiled_model import LiniellCompiledModel
from .model import MAX_PLAYERS, MAX_SCORE
from .tileset import NUM_TILES
from .turn_values import SCRATCH_SIZE, compiled_position_value, position_value

LAY_SHAPE = (WINDOW, WINDOW, 4)
"""The lay action group's shape: window row, window column, rotation."""
NUM_OCCUPY = SKIP - NUM_LAY
"""The occupy action group's size (``3 * port + source``)."""
MAX_OPEN_ENDS = 4 * NUM_TILES
"""Open ends of one player's lines at most: every port of every laid tile faces one cell."""
MAX_MERGE_POINTS = NUM_CELLS
"""Merge points at most: one per window cell."""


def _lay_field(name: str, description: str, low: float, high: float) -> Field:
    return Field(
        name,
        LAY_SHAPE,
        description,
        low=low,
        high=high,
        spatial=True,
        channels_last=True,
        action_group="lay",
    )


LAY_FIELDS = (
    _lay_field("lay_legal", "1 for each legal lay of the drawn tile (cell x rotation)", 0, 1),
    _lay_field(
        "lay_gain",
        "change of the observer's provisional score that this lay makes",
        -MAX_SCORE,
        MAX_SCORE,
    ),
    _lay_field(
        "lay_opponent_gain",
        "change of the best opponent's provisional score that this lay makes",
        -MAX_SCORE,
        MAX_SCORE,
    ),
    _lay_field(
        "lay_turn_margin",
        "observer's score minus the best opponent's after the best turn starting with this "
        "lay (best occupation, none, or compulsory moves): greedy's value of the lay",
        -MAX_SCORE,
        MAX_SCORE,
    ),
    _lay_field(
        "lay_join",
        "1 where this lay joins lines of different players (a compulsory move follows)",
        0,
        1,
    ),
    _lay_field(
        "lay_open_ends",
        "change of the open-end margin (the observer's open ends less the most of an "
        "opponent's) that this lay makes",
        -2 * MAX_OPEN_ENDS,
        2 * MAX_OPEN_ENDS,
    ),
    _lay_field(
        "lay_merge_points",
        "change of the number of merge points at the observer's lines that this lay makes",
        -MAX_MERGE_POINTS,
        MAX_MERGE_POINTS,
    ),
)
"""The per-lay feature fields, in observation order (see the module docstring)."""

OCCUPY_FIELDS = (
    Field(
        "occupy_open_ends",
        (NUM_OCCUPY,),
        "change of the open-end margin that this occupation (or compulsory move) makes",
        low=-2 * MAX_OPEN_ENDS,
        high=2 * MAX_OPEN_ENDS,
        action_group="occupy",
    ),
    Field(
        "occupy_merge_points",
        (NUM_OCCUPY,),
        "change of the number of merge points at the observer's lines that this occupation "
        "(or compulsory move) makes",
        low=-MAX_MERGE_POINTS,
        high=MAX_MERGE_POINTS,
        action_group="occupy",
    ),
)
"""The per-occupation feature fields, in the occupy action group's order (``3 * port +
source``)."""

OPEN_ENDS = Field(
    "open_ends",
    (MAX_PLAYERS, WINDOW, WINDOW),
    "plane q: at each empty cell that can still receive a tile (4 x 4 rule), the sides facing "
    "a line occupied by player q (observer first): open ends, and merge points where two "
    "players' lines meet",
    high=4,
    spatial=True,
)

TURN_FIELDS = (
    Field(
        "occupy_turn_margin",
        (NUM_OCCUPY,),
        "observer's score minus the best opponent's after the best finish of the turn that "
        "starts with this occupation (or compulsory move): greedy's value of it",
        low=-MAX_SCORE,
        high=MAX_SCORE,
        action_group="occupy",
    ),
    Field(
        "skip_turn_margin",
        (1,),
        "observer's score minus the best opponent's if the turn ends now with no occupation "
        "(0 where skipping is not legal): greedy's value of skipping",
        low=-MAX_SCORE,
        high=MAX_SCORE,
        action_group="skip",
    ),
)
"""Greedy's values of the occupy step's actions (features revision 3), in the occupy and
skip action groups' order; appended after :data:`OPEN_ENDS` so that the fields before them
keep their offsets."""

VALUE_DESCRIPTION = (
    "the heuristic agent's value of the position after the best turn that starts with this "
    "{}: its lines' points and open ends, pawns in reserve and merge risk, less the best "
    "opponent's (turn_values.position_value)"
)
VALUE_FIELDS = (
    _lay_field("lay_turn_value", VALUE_DESCRIPTION.format("lay"), -2 * MAX_SCORE, 2 * MAX_SCORE),
    Field(
        "occupy_turn_value",
        (NUM_OCCUPY,),
        VALUE_DESCRIPTION.format("occupation (or compulsory move)"),
        low=-2 * MAX_SCORE,
        high=2 * MAX_SCORE,
        action_group="occupy",
    ),
    Field(
        "skip_turn_value",
        (1,),
        VALUE_DESCRIPTION.format("skip") + " (0 where skipping is not legal)",
        low=-2 * MAX_SCORE,
        high=2 * MAX_SCORE,
        action_group="skip",
    ),
)
"""The heuristic's values of every step's actions (features revision 4), in the lay, occupy
and skip action groups' order; appended after :data:`TURN_FIELDS` so that the fields before
them keep their offsets."""

FIELDS = (*LAY_FIELDS, *OCCUPY_FIELDS, OPEN_ENDS, *TURN_FIELDS, *VALUE_FIELDS)
"""All feature fields, in observation order."""


# ------------------------------------------------------------ compiled engine
@njit(cache=True)
def _copy(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[:] = src`` as a plain loop: numba compiles slice assignment to a generic loop
    about 20 times slower than this one on a state vector."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True)
def _in_turn(s: np.ndarray, player: int) -> bool:
    return s[PHASE] != OVER and s[CURRENT] == player


@njit(cache=True)
def _best_turn(
    s: np.ndarray,
    geom: np.ndarray,
    player: int,
    tiles_left: int,
    work: np.ndarray,
    masks: np.ndarray,
    next_action: np.ndarray,
    tally: np.ndarray,
    sums: np.ndarray,
) -> tuple[int, float]:
    """The best margin ``player`` reaches by finishing the turn from ``s``, and the best
    :func:`~.turn_values.compiled_position_value` (``tiles_left`` tiles still to lay): a
    depth-first search over the occupations, skipping and compulsory moves (``work``,
    ``masks`` and ``next_action`` rows 1 on are its stack; ``s`` has an empty stack, so the
    game ends with the turn; ``tally`` and ``sums`` are the position value's scratch)."""
    if not _in_turn(s, player):
        return points_margin(s, player), compiled_position_value(
            s, geom, player, tiles_left, tally, sums
        )
    best = -(1 << 20)
    best_value = -np.inf
    depth = 1
    _copy(work[1], s)
    core.legal_mask(work[1], geom, masks[1])
    next_action[1] = OCCUPY_ACTION
    while depth >= 1:
        mask = masks[depth]
        action = next_action[depth]
        while action < NUM_ACTIONS and mask[action] == 0:
            action += 1
        if action == NUM_ACTIONS:
            depth -= 1
            continue
        next_action[depth] = action + 1
        child = work[depth + 1]
        _copy(child, work[depth])
        core.apply(child, geom, action)
        if _in_turn(child, player):
            depth += 1
            core.legal_mask(child, geom, masks[depth])
            next_action[depth] = OCCUPY_ACTION
        else:
            best = max(best, points_margin(child, player))
            value = compiled_position_value(child, geom, player, tiles_left, tally, sums)
            best_value = max(best_value, value)
    return best, best_value


@njit(cache=True)
def _same_placement(geom: np.ndarray, kind: int, a: int, b: int) -> bool:
    """Whether rotations ``a`` and ``b`` of tile ``kind`` lay the same pieces (a symmetric
    tile), so that both lays give the same position."""
    for column in range(geom.shape[2]):  # noqa: SIM110 (numba compiles no all(generator))
        if geom[kind, a, column] != geom[kind, b, column]:
            return False
    return True


@njit(cache=True)
def _holds(s: np.ndarray, root: int, player: int) -> bool:
    """Whether one of ``player``'s pawns stands on line ``root``."""
    for slot in range(2):
        pawn = s[PAWNS + 2 * player + slot]
        if pawn >= 0 and find(s, pawn) == root:
            return True
    return False


@njit(cache=True)
def open_end_margin(
    s: np.ndarray, geom: np.ndarray, player: int, facing: np.ndarray
) -> tuple[int, int]:
    """``(margin, merges)`` of position ``s`` for ``player``: the open ends of ``player``'s
    lines less the most of another player's, and the merge points at ``player``'s lines
    (the ``open_ends`` planes summed, as the module docstring defines them; ``facing``:
    scratch of ``2 * MAX_PLAYERS`` entries; ``s`` is only read)."""
    n = s[NUM_PLAYERS]
    for q in range(n):
        facing[q] = 0
    merges = 0
    r0, r1, c0, c1 = core.fillable_span(s[RMIN], s[RMAX], s[CMIN], s[CMAX])
    for r in range(r0, r1):
        for c in range(c0, c1):
            cell = r * WINDOW + c
            if s[KIND + cell] >= 0:
                continue
            for q in range(n):
                facing[MAX_PLAYERS + q] = 0
            for port in range(4):
                piece = across(s, geom, cell, port)
                if piece < 0:
                    continue
                root = find(s, piece)
                for q in range(n):
                    if _holds(s, root, q):
                        facing[MAX_PLAYERS + q] += 1
            others = 0
            for q in range(n):
                facing[q] += facing[MAX_PLAYERS + q]
                if q != player:
                    others += facing[MAX_PLAYERS + q]
            if facing[MAX_PLAYERS + player] > 0 and others > 0:
                merges += 1
    best = 0
    for q in range(n):
        if q != player:
            best = max(best, facing[q])
    return facing[player] - best, merges


@njit(cache=True)
def occupy_features(
    s: np.ndarray,
    geom: np.ndarray,
    player: int,
    mask: np.ndarray,
    open_ends: np.ndarray,
    merge_points: np.ndarray,
    turn_margin: np.ndarray,
    skip_margin: np.ndarray,
    turn_value: np.ndarray,
    skip_value: np.ndarray,
    work: np.ndarray,
    masks: np.ndarray,
    next_action: np.ndarray,
    facing: np.ndarray,
    tally: np.ndarray,
    sums: np.ndarray,
) -> None:
    """Write the occupy step's fields (zeroed: ``open_ends``, ``merge_points``,
    ``turn_margin`` and ``turn_value`` of :data:`NUM_OCCUPY` entries, ``skip_margin`` and
    ``skip_value`` of one) for the legal occupations, compulsory moves and skip in ``mask``:
    the change each occupation makes to the open-end margin and the merge points
    (:func:`open_end_margin`), the best margin and position value of a turn that starts with
    it, and the margin and position value of skipping; ``work``, ``masks``, ``next_action``,
    ``facing``, ``tally`` and ``sums`` are :func:`lay_features`' scratch.

    Each action is tried on a copy of ``s`` whose stack is emptied, as in
    :func:`lay_features`: the turn then ends the game, and scores do not depend on the draw."""
    tiles_left = s[STACK_SIZE]
    margin0, merges0 = open_end_margin(s, geom, player, facing)
    after = work[0]
    for action in range(OCCUPY_ACTION, SKIP_ACTION + 1):
        if mask[action] == 0:
            continue
        _copy(after, s)
        after[STACK_SIZE] = 0  # a turn that ends draws nothing: pawns stay as they are
        core.apply(after, geom, action)
        if action == SKIP_ACTION:
            skip_margin[0], skip_value[0] = _best_turn(
                after, geom, player, tiles_left, work, masks, next_action, tally, sums
            )
            continue
        margin, merges = open_end_margin(after, geom, player, facing)
        k = action - OCCUPY_ACTION
        open_ends[k] = margin - margin0
        merge_points[k] = merges - merges0
        turn_margin[k], turn_value[k] = _best_turn(
            after, geom, player, tiles_left, work, masks, next_action, tally, sums
        )


@njit(cache=True)
def lay_features(
    s: np.ndarray,
    geom: np.ndarray,
    player: int,
    mask: np.ndarray,
    legal: np.ndarray,
    gain: np.ndarray,
    opponent_gain: np.ndarray,
    turn_margin: np.ndarray,
    join: np.ndarray,
    open_ends: np.ndarray,
    merge_points: np.ndarray,
    turn_value: np.ndarray,
    work: np.ndarray,
    masks: np.ndarray,
    next_action: np.ndarray,
    facing: np.ndarray,
    tally: np.ndarray,
    sums: np.ndarray,
) -> None:
    """Write the seven lay fields and ``lay_turn_value`` (zeroed ``(7, 7, 4)`` arrays: window
    row, window column, rotation) for the legal lays in ``mask``; ``work``, ``masks`` and
    ``next_action`` (:data:`MAX_DEPTH` rows), ``facing`` (:func:`open_end_margin`'s),
    ``tally`` and ``sums`` (:data:`~.turn_values.SCRATCH_SIZE` entries each) are scratch.

    Each lay is tried on a copy of ``s`` whose stack is emptied, so that the turn ends the
    game instead of drawing (and listing the legal lays of) the next tile: scores do not
    depend on the draw, and the search stays within this turn. Rotations of a symmetric
    tile that lay the same pieces share one evaluation."""
    own0 = player_points(s, player)
    opp0 = best_opponent_points(s, player)
    kind = s[DRAWN]
    tiles_left = s[STACK_SIZE]
    after = work[0]
    margin0, merges0 = open_end_margin(s, geom, player, facing)
    for action in range(NUM_LAY):
        if mask[action] == 0:
            continue
        cell = action >> 2
        row = cell // WINDOW
        col = cell % WINDOW
        rot = action & 3
        legal[row, col, rot] = 1
        same = -1
        for earlier in range(rot):
            if mask[4 * cell + earlier] and _same_placement(geom, kind, earlier, rot):
                same = earlier
                break
        if same >= 0:
            gain[row, col, rot] = gain[row, col, same]
            opponent_gain[row, col, rot] = opponent_gain[row, col, same]
            turn_margin[row, col, rot] = turn_margin[row, col, same]
            join[row, col, rot] = join[row, col, same]
            open_ends[row, col, rot] = open_ends[row, col, same]
            merge_points[row, col, rot] = merge_points[row, col, same]
            turn_value[row, col, rot] = turn_value[row, col, same]
            continue
        _copy(after, s)
        after[STACK_SIZE] = 0
        core.apply(after, geom, action)
        gain[row, col, rot] = player_points(after, player) - own0
        opponent_gain[row, col, rot] = best_opponent_points(after, player) - opp0
        margin, merges = open_end_margin(after, geom, player, facing)
        open_ends[row, col, rot] = margin - margin0
        merge_points[row, col, rot] = merges - merges0
        turn_margin[row, col, rot], turn_value[row, col, rot] = _best_turn(
            after, geom, player, tiles_left, work, masks, next_action, tally, sums
        )
        join[row, col, rot] = 1 if after[PHASE] == MOVE else 0


MAX_DEPTH = 8
"""Scratch rows of :func:`lay_features`: the lay, the turn's start after it, then one per
compulsory move (a tile joins lines in at most two places) or occupation, with room to
spare."""


class _Scratch(threading.local):
    """:func:`lay_features`' scratch arrays, one set per thread, reused call after call
    (fresh arrays cost more than the kernel's work on them)."""

    def __init__(self) -> None:
        self.work = np.empty((MAX_DEPTH, STATE_SIZE), dtype=np.int16)
        self.masks = np.empty((MAX_DEPTH, NUM_ACTIONS), dtype=np.int8)
        self.next_action = np.empty(MAX_DEPTH, dtype=np.int64)
        self.facing = np.empty(2 * MAX_PLAYERS, dtype=np.int64)
        self.tally = np.empty(SCRATCH_SIZE, dtype=np.int64)
        self.sums = np.empty(SCRATCH_SIZE, dtype=np.float64)


_SCRATCH = _Scratch()


# ----------------------------------------------------- any engine (the model)
def _split(scores: tuple[float, ...], player: int) -> tuple[float, float]:
    """``player``'s score and the best opponent's."""
    return scores[player], max(x for p, x in enumerate(scores) if p != player)


def _model_best_turn(
    model: GameModel, state: Any, player: int, tiles_left: int
) -> tuple[float, float]:
    """The best margin ``player`` reaches by finishing the turn from ``state``, and the best
    :func:`~.turn_values.position_value` (``tiles_left`` tiles still to lay)."""
    if model.is_over(state) or model.current_player(state) != player:
        own, opp = _split(model.scores(state), player)
        board = model.public_view(state, player).board
        return own - opp, position_value(board, player, tiles_left)
    best = best_value = -np.inf
    for action in np.flatnonzero(model.legal_mask(state)):
        child = model.copy(state)
        model.step_unchecked(child, int(action))
        margin, value = _model_best_turn(model, child, player, tiles_left)
        best, best_value = max(best, margin), max(best_value, value)
    return float(best), float(best_value)


def _tiles_left(model: GameModel, state: Any, player: int) -> int:
    """The tiles still in the stack (what the position value scales the reserve by)."""
    return len(model.public_view(state, player).stack)


def model_open_end_margin(model: GameModel, state: Any, player: int) -> tuple[int, int]:
    """:func:`open_end_margin` through the game-model interface (any engine): the
    ``open_ends`` planes of ``player``'s observation, summed (module docstring)."""
    base = model.layout.decode(model.observe(state, player))
    planes = np.zeros(OPEN_ENDS.shape, dtype=np.float32)
    open_ends(base["tiles"][0], base["lines"], planes)
    return margin_of(planes)


def margin_of(planes: np.ndarray) -> tuple[int, int]:
    """``(margin, merges)`` from ``open_ends`` planes (observer first): the observer's open
    ends less the most of another player's, and the cells facing both the observer's lines
    and another player's.

    >>> planes = np.zeros((4, 7, 7), dtype=np.float32)
    >>> planes[0, 2, 2] = planes[0, 2, 3] = planes[1, 2, 3] = 1
    >>> margin_of(planes)
    (1, 1)
    """
    totals = planes.reshape(len(planes), -1).sum(axis=1)
    merges = (planes[0] > 0) & (planes[1:] > 0).any(axis=0)
    return int(totals[0] - totals[1:].max()), int(merges.sum())


def model_lay_features(
    model: GameModel, state: Any, player: int, mask: np.ndarray, out: dict[str, np.ndarray]
) -> None:
    """:func:`lay_features` through the game-model interface (any engine): copy the state,
    step the lay, read the scores and open ends, and search the rest of the turn the same
    way; ``out`` holds the feature fields by name, zeroed but for ``open_ends``, written for
    ``state`` already."""
    flat = {name: view.reshape(-1) for name, view in out.items()}
    own0, opp0 = _split(model.scores(state), player)
    tiles_left = _tiles_left(model, state, player)
    margin0, merges0 = margin_of(out[OPEN_ENDS.name])
    for action in np.flatnonzero(mask[:NUM_LAY]):
        after = model.copy(state)
        model.step_unchecked(after, int(action))
        own, opp = _split(model.scores(after), player)
        margin, merges = model_open_end_margin(model, after, player)
        flat["lay_open_ends"][action] = margin - margin0
        flat["lay_merge_points"][action] = merges - merges0
        flat["lay_legal"][action] = 1
        flat["lay_gain"][action] = own - own0
        flat["lay_opponent_gain"][action] = opp - opp0
        flat["lay_turn_margin"][action], flat["lay_turn_value"][action] = _model_best_turn(
            model, after, player, tiles_left
        )
        joined = (
            not model.is_over(after)
            and model.current_player(after) == player
            and not model.legal_mask(after)[SKIP]
        )
        flat["lay_join"][action] = float(joined)


def model_occupy_features(
    model: GameModel, state: Any, player: int, mask: np.ndarray, out: dict[str, np.ndarray]
) -> None:
    """:func:`occupy_features` through the game-model interface (any engine); ``out`` as
    for :func:`model_lay_features`."""
    margin0, merges0 = margin_of(out[OPEN_ENDS.name])
    tiles_left = _tiles_left(model, state, player)
    for action in np.flatnonzero(mask[NUM_LAY:SKIP]):
        after = model.copy(state)
        model.step_unchecked(after, int(NUM_LAY + action))
        margin, merges = model_open_end_margin(model, after, player)
        out["occupy_open_ends"][action] = margin - margin0
        out["occupy_merge_points"][action] = merges - merges0
        out["occupy_turn_margin"][action], out["occupy_turn_value"][action] = _model_best_turn(
            model, after, player, tiles_left
        )
    if mask[SKIP]:
        after = model.copy(state)
        model.step_unchecked(after, SKIP)
        out["skip_turn_margin"][0], out["skip_turn_value"][0] = _model_best_turn(
            model, after, player, tiles_left
        )


# ----------------------------------------------------------- open ends
def open_ends(occupied: np.ndarray, lines: np.ndarray, out: np.ndarray) -> None:
    """Write the ``open_ends`` planes into ``out`` (zeroed, ``(4, 7, 7)``) from the base
    observation's tile occupancy plane and ``lines`` planes (engine-independent).

    A cell can still receive a tile when the laid area with it fits a 4 x 4 square; each
    side of such an empty cell faces the port of the neighbouring tile across it, and counts
    for the player whose line holds that port.

    >>> occupied = np.zeros((WINDOW, WINDOW), dtype=np.float32)
    >>> occupied[3, 3] = 1
    >>> lines = np.zeros((4 * MAX_PLAYERS, WINDOW, WINDOW), dtype=np.float32)
    >>> lines[4 * 1 + 1, 3, 3] = 1  # player 1's line leaves the tile at port E
    >>> out = np.zeros((MAX_PLAYERS, WINDOW, WINDOW), dtype=np.float32)
    >>> open_ends(occupied, lines, out)
    >>> [(int(q), int(r), int(c)) for q, r, c in zip(*np.nonzero(out))]
    [(1, 3, 4)]
    """
    _open_ends(occupied, lines, out)


@njit(cache=True)
def _open_ends(occupied: np.ndarray, lines: np.ndarray, out: np.ndarray) -> None:
    rmin = cmin = WINDOW
    rmax = cmax = -1
    for r in range(WINDOW):
        for c in range(WINDOW):
            if occupied[r, c] != 0:
                rmin = min(rmin, r)
                rmax = max(rmax, r)
                cmin = min(cmin, c)
                cmax = max(cmax, c)
    r0, r1, c0, c1 = core.fillable_span(rmin, rmax, cmin, cmax)
    for r in range(r0, r1):
        for c in range(c0, c1):
            if occupied[r, c] != 0:
                continue
            for q in range(MAX_PLAYERS):
                facing = 0.0
                if r > 0:
                    facing += lines[4 * q + 2, r - 1, c]  # the tile above, its S port
                if r < WINDOW - 1:
                    facing += lines[4 * q, r + 1, c]  # the tile below, its N port
                if c > 0:
                    facing += lines[4 * q + 1, r, c - 1]  # the tile to the left, its E port
                if c < WINDOW - 1:
                    facing += lines[4 * q + 3, r, c + 1]  # the tile to the right, its W port
                out[q, r, c] = facing


# ------------------------------------------------------------------ batches
def feature_offsets(layout: ObservationLayout) -> np.ndarray:
    """Where :func:`batch_features` reads and writes in an observation row of ``layout``
    (the base layout with :data:`LINIELL_FEATURES`): the starts of the ``tiles`` and
    ``lines`` planes, then of each feature field in :data:`FIELDS` order."""
    names = ("tiles", "lines", *(f.name for f in FIELDS))  # lays, occupations, ends, turns
    return np.array([layout.slice(name).start for name in names], dtype=np.int64)


@njit(cache=True, nogil=True)
def _row_features(
    s: np.ndarray,
    geom: np.ndarray,
    off: np.ndarray,
    row: np.ndarray,
    player: int,
    mask: np.ndarray,
    acts: bool,
    work: np.ndarray,
    masks: np.ndarray,
    next_action: np.ndarray,
    facing: np.ndarray,
    tally: np.ndarray,
    sums: np.ndarray,
) -> None:
    """The features of one observation row (its base part written already; ``acts``: the
    observer is to act, so the lay or occupy fields are written)."""
    cells = WINDOW * WINDOW
    start = off[2]
    row[start:] = 0
    size = cells * 4
    lay = [row[off[2 + k] : off[2 + k] + size].reshape((WINDOW, WINDOW, 4)) for k in range(7)]
    occupy = [row[off[9 + k] : off[9 + k] + NUM_OCCUPY] for k in range(2)]
    occupy_turn = row[off[12] : off[12] + NUM_OCCUPY]
    skip_turn = row[off[13] : off[13] + 1]
    lay_value = row[off[14] : off[14] + size].reshape((WINDOW, WINDOW, 4))
    occupy_value = row[off[15] : off[15] + NUM_OCCUPY]
    skip_value = row[off[16] : off[16] + 1]
    occupied = row[off[0] : off[0] + cells].reshape((WINDOW, WINDOW))
    lines = row[off[1] : off[1] + 4 * MAX_PLAYERS * cells].reshape(
        (4 * MAX_PLAYERS, WINDOW, WINDOW)
    )
    ends = row[off[11] : off[11] + MAX_PLAYERS * cells].reshape((MAX_PLAYERS, WINDOW, WINDOW))
    _open_ends(occupied, lines, ends)
    if not acts:
        return
    if s[PHASE] == LAY:
        lay_features(
            s,
            geom,
            player,
            mask,
            lay[0],
            lay[1],
            lay[2],
            lay[3],
            lay[4],
            lay[5],
            lay[6],
            lay_value,
            work,
            masks,
            next_action,
            facing,
            tally,
            sums,
        )
    else:
        occupy_features(
            s,
            geom,
            player,
            mask,
            occupy[0],
            occupy[1],
            occupy_turn,
            skip_turn,
            occupy_value,
            skip_value,
            work,
            masks,
            next_action,
            facing,
            tally,
            sums,
        )


@njit(cache=True, nogil=True)
def batch_features(
    geom: np.ndarray, off: np.ndarray, states: np.ndarray, buffers: BatchResult
) -> None:
    """Write the features of a batch's observation rows after its compiled step (row ``i``
    of each array is game ``i``; ``off`` from :func:`feature_offsets`): the lay or occupy
    features for the player to act where a game goes on, ``open_ends`` everywhere, and those of a
    game's final position into its ``final_observation`` row when it ended."""
    work = np.empty((MAX_DEPTH, STATE_SIZE), dtype=np.int16)
    masks = np.empty((MAX_DEPTH, NUM_ACTIONS), dtype=np.int8)
    next_action = np.empty(MAX_DEPTH, dtype=np.int64)
    facing = np.empty(2 * MAX_PLAYERS, dtype=np.int64)
    tally = np.empty(SCRATCH_SIZE, dtype=np.int64)
    sums = np.empty(SCRATCH_SIZE, dtype=np.float64)
    for i in range(states.shape[0]):
        s = states[i]
        player = buffers.current_player[i]
        ended = buffers.terminated[i]
        _row_features(
            s,
            geom,
            off,
            buffers.observation[i],
            player,
            buffers.action_mask[i],
            not ended,
            work,
            masks,
            next_action,
            facing,
            tally,
            sums,
        )
        if ended:
            _row_features(
                s,
                geom,
                off,
                buffers.final_observation[i],
                player,
                buffers.action_mask[i],
                False,
                work,
                masks,
                next_action,
                facing,
                tally,
                sums,
            )


# ------------------------------------------------------------- the feature set
def write_features(
    model: GameModel,
    state: Any,
    player: int,
    base: dict[str, np.ndarray],
    mask: np.ndarray | None,
    out: dict[str, np.ndarray],
) -> None:
    """The :class:`~..core.features.FeatureSet` writer (see the module docstring)."""
    open_ends(base["tiles"][0], base["lines"], out[OPEN_ENDS.name])
    if mask is None:
        return
    # the occupy step: an occupation, a compulsory move or skipping is legal
    lays, occupations = mask[:NUM_LAY].any(), mask[NUM_LAY : SKIP + 1].any()
    if isinstance(model, LiniellCompiledModel):
        scratch = _SCRATCH
        if lays:
            lay_features(
                state.data,
                model.geom,
                player,
                mask,
                *(out[field.name] for field in LAY_FIELDS),
                out["lay_turn_value"],
                scratch.work,
                scratch.masks,
                scratch.next_action,
                scratch.facing,
                scratch.tally,
                scratch.sums,
            )
        if occupations:
            occupy_features(
                state.data,
                model.geom,
                player,
                mask,
                *(out[field.name] for field in (*OCCUPY_FIELDS, *TURN_FIELDS)),
                out["occupy_turn_value"],
                out["skip_turn_value"],
                scratch.work,
                scratch.masks,
                scratch.next_action,
                scratch.facing,
                scratch.tally,
                scratch.sums,
            )
    elif lays:
        model_lay_features(model, state, player, mask, out)
    elif occupations:
        model_occupy_features(model, state, player, mask, out)


LINIELL_FEATURES = FeatureSet("liniell", FIELDS, write_features, revision=4)
"""Liniell's observation features (see the module docstring), revision 4 (the environment's
version history says what each revision changed)."""

__all__ = [
    "FIELDS",
    "LAY_FIELDS",
    "LAY_SHAPE",
    "LINIELL_FEATURES",
    "OCCUPY_FIELDS",
    "OPEN_ENDS",
    "TURN_FIELDS",
    "VALUE_FIELDS",
    "batch_features",
    "feature_offsets",
    "lay_features",
    "margin_of",
    "model_lay_features",
    "model_occupy_features",
    "model_open_end_margin",
    "occupy_features",
    "open_end_margin",
    "open_ends",
    "write_features",
]
