"""Liniell's compiled core: the rules as numba kernels over one game vector.

A game is one ``int16`` vector laid out by :mod:`.compiled_layout` (offsets, action ids, and
:func:`~.compiled_layout.geometry`, which turns the tile set, data, into the arrays every
kernel takes); the lines and their route scores are :mod:`.compiled_lines`' kernels and the
observation :mod:`.compiled_observation`'s. This module has the rules: placement, the game's
flow, the masks, a step, and a batch's step. The kernels follow the reference engine
(``board.py``, ``game.py``, ``scoring.py``) rule for rule, **[decision]** s included; the
differential test ``tests/test_liniell_compiled.py`` checks masks, observations, points and
outcomes against it. numba's on-disk cache keys a kernel on its own file only; the package's
cache locator stamps every cached kernel with the digest of all the package's sources
(:mod:`tabletop_rl.envs.core.kernel_cache`), so kernels may call across these files.

>>> from tabletop_rl.envs.liniell.compiled_layout import geometry
>>> from tabletop_rl.envs.liniell.tileset import load_tile_set
>>> geom, feats = geometry(load_tile_set("default"))
>>> s = new_state(np.arange(16, dtype=np.int16) % 11, 0, 2, geom)
>>> int(s[PHASE]), int(s[DRAWN]), int(s[STACK_SIZE]), int(s[NUM_LEGAL_LAYS])
(0, 4, 15, 4)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..core.batch import BatchResult, block_rows
from ..core.compiled_random import integers, permute_into
from .compiled_layout import (
    CMAX,
    CMIN,
    COMP,
    CURRENT,
    DRAWN,
    EARLY,
    FRONTIER,
    G_NG,
    G_NP,
    G_PG,
    GEOM,
    HIST,
    HISTORY,
    JOIN,
    KIND,
    LAID,
    LAST,
    LAY,
    LAY_MASK,
    MAX_PLAYERS,
    MOVE,
    NB,
    NEXT,
    NROOT,
    NUM_HIST,
    NUM_LAID,
    NUM_LAY,
    NUM_LEGAL_LAYS,
    NUM_PENDING,
    NUM_PLAYERS,
    OCCUPY,
    OCCUPY_ACTION,
    OPEN,
    OVER,
    PAWNS,
    PENDING,
    PHASE,
    PIECE_STRIDE,
    PIECES,
    RMAX,
    RMIN,
    ROOT,
    ROT,
    SIZE,
    SKIP_ACTION,
    STACK,
    STACK_SIZE,
    START,
    STATE,
    STATE_SIZE,
    TMP,
    TURN,
)
from .compiled_lines import (
    across,
    find,
    join_lines,
    occupied_roots,
    owner_of,
    piece_at,
    placed_slots,
    player_points,
    score_line,
    winners_mask,
)
from .compiled_observation import observe_update
from .grid import CENTRE_CELL, NUM_CELLS, WINDOW
from .tileset import NUM_TILES, SQUARE


# ----------------------------------------------------------------- placement
@njit(cache=True)
def _top(s: np.ndarray, g: int) -> int:
    while s[COMP + g] != g:
        g = s[COMP + g]
    return g


@njit(cache=True)
def _first_root(s: np.ndarray, p: int) -> bool:
    """Whether ``NROOT[p]`` is a line not seen across an earlier port."""
    r = s[NROOT + p]
    for q in range(p):  # noqa: SIM110 (numba compiles no generator expression in all())
        if s[NROOT + q] == r:
            return False
    return True


@njit(f"int64({STATE}, {GEOM}, int64, int64, int64)", cache=True)
def joins(s: np.ndarray, geom: np.ndarray, cell: int, kind: int, rot: int) -> int:
    """The joins of occupied lines that laying ``kind`` turned ``rot`` on ``cell`` makes
    (their pieces into ``JOIN``, in port order), or -1 when the merge ban forbids it.

    ``NROOT`` holds the roots across the cell's ports and ``OCC_ROOT`` the occupied roots,
    both as before the lay (**[decision]**: legality is judged on the pawns as they stood)."""
    ng = geom[kind, rot, G_NG]
    for g in range(ng):
        s[COMP + g] = g
    for p in range(4):
        r = s[NROOT + p]
        if r < 0:
            continue
        for q in range(p):
            if s[NROOT + q] == r:
                a = _top(s, geom[kind, rot, G_PG + p])
                b = _top(s, geom[kind, rot, G_PG + q])
                if a != b:
                    s[COMP + max(a, b)] = min(a, b)
                break
    count = 0
    for p in range(4):
        t = _top(s, geom[kind, rot, G_PG + p])
        first = True
        for q in range(p):
            if _top(s, geom[kind, rot, G_PG + q]) == t:
                first = False
                break
        if not first:
            continue
        owners = 0
        held = 0
        for q in range(p, 4):
            r = s[NROOT + q]
            if r < 0 or _top(s, geom[kind, rot, G_PG + q]) != t or not _first_root(s, q):
                continue
            owner = owner_of(s, r)
            if owner < 0:
                continue
            if owners & (1 << owner):
                return -1
            owners |= 1 << owner
            held += 1
        if held >= 2:
            s[JOIN + count] = cell * 4 + geom[kind, rot, G_PG + p]
            count += 1
    return count


@njit(cache=True)
def _neighbour_roots(s: np.ndarray, geom: np.ndarray, cell: int) -> int:
    """Fill ``NROOT`` for ``cell``; return how many ports touch a laid tile."""
    touching = 0
    for p in range(4):
        other = across(s, geom, cell, p)
        if other >= 0:
            s[NROOT + p] = find(s, other)
            touching += 1
        else:
            s[NROOT + p] = -1
    return touching


@njit(cache=True)
def compute_lay_mask(s: np.ndarray, geom: np.ndarray) -> int:
    """Fill ``LAY_MASK`` with the legal lays of the drawn tile (contact, 4 x 4 square,
    same-colour merge ban); return their number."""
    for cell in range(NUM_CELLS):
        s[LAY_MASK + cell] = 0
    if s[NUM_LAID] == 0:
        s[LAY_MASK + CENTRE_CELL] = 15
        return 4
    kind = s[DRAWN]
    r0, r1, c0, c1 = fillable_span(s[RMIN], s[RMAX], s[CMIN], s[CMAX])
    ban = False
    for p in range(s[NUM_PLAYERS]):
        if s[PAWNS + 2 * p] >= 0 and s[PAWNS + 2 * p + 1] >= 0:
            ban = True
    if ban:
        occupied_roots(s)
    count = 0
    frontier = _frontier(s)
    for row in range(r0, r1):
        for col in range(c0, c1):
            cell = row * WINDOW + col
            if (frontier >> cell) & 1:
                count += _lay_cell(s, geom, cell, kind, ban)
    return count


@njit(cache=True)
def fillable_span(rmin: int, rmax: int, cmin: int, cmax: int) -> tuple[int, int, int, int]:
    """``(row_start, row_stop, col_start, col_stop)``: the window cells that can still
    receive a tile, given the laid area's bounds (the 4 x 4 rule: the area with the cell
    fits a ``SQUARE`` square); all of the window while nothing is laid (``rmax = -1``).
    The compiled core's one copy of the rule (the lay mask and the observation features
    read it; the reference engine's is :meth:`.board.Board.fillable_span`).

    >>> fillable_span(3, 4, 2, 2)  # rows 3-4 and column 2 laid
    (1, 7, 0, 6)
    """
    return (
        max(rmax - SQUARE + 1, 0),
        min(rmin + SQUARE, WINDOW),
        max(cmax - SQUARE + 1, 0),
        min(cmin + SQUARE, WINDOW),
    )


@njit(cache=True)
def _frontier(s: np.ndarray) -> int:
    """The ``FRONTIER`` cells as one int64 bit set."""
    bits = np.int64(0)
    for k in range(4):
        bits |= (np.int64(s[FRONTIER + k]) & 0xFFFF) << (16 * k)
    return bits


@njit(cache=True)
def _store_frontier(s: np.ndarray, bits: int) -> None:
    for k in range(4):
        word = (bits >> (16 * k)) & 0xFFFF
        s[FRONTIER + k] = word - 65536 if word >= 32768 else word


@njit(f"int64({STATE}, {GEOM}, int64, int64, boolean)", cache=True)
def _lay_cell(s: np.ndarray, geom: np.ndarray, cell: int, kind: int, ban: bool) -> int:
    """Mark the legal rotations of ``kind`` on the candidate ``cell`` in ``LAY_MASK``."""
    if not ban:
        s[LAY_MASK + cell] = 15
        return 4
    count = 0
    clash = False
    if ban:
        _neighbour_roots(s, geom, cell)
        seen = 0
        for p in range(4):
            r = s[NROOT + p]
            if r < 0 or not _first_root(s, p):
                continue
            owner = owner_of(s, r)
            if owner >= 0:
                if seen & (1 << owner):
                    clash = True
                seen |= 1 << owner
    for rot in range(4):
        if not clash or joins(s, geom, cell, kind, rot) >= 0:
            s[LAY_MASK + cell] |= 1 << rot
            count += 1
    return count


# ---------------------------------------------------------------- game flow
@njit(cache=True)
def _start_turn(s: np.ndarray, geom: np.ndarray) -> None:
    size = s[STACK_SIZE]
    if size == 0:
        s[PHASE] = OVER
        return
    s[DRAWN] = s[STACK + size - 1]
    s[STACK_SIZE] = size - 1
    s[PHASE] = LAY
    s[NUM_LEGAL_LAYS] = compute_lay_mask(s, geom)
    if s[NUM_LEGAL_LAYS] == 0:
        s[PHASE] = OVER
        s[EARLY] = 1


@njit(cache=True)
def _end_turn(s: np.ndarray, geom: np.ndarray) -> None:
    s[TURN] += 1
    s[NUM_PENDING] = 0
    s[CURRENT] = (s[CURRENT] + 1) % s[NUM_PLAYERS]
    _start_turn(s, geom)


@njit(cache=True)
def _pop_pending(s: np.ndarray) -> None:
    for i in range(s[NUM_PENDING] - 1):
        s[PENDING + i] = s[PENDING + i + 1]
    s[NUM_PENDING] -= 1


@njit(cache=True)
def _next_move(s: np.ndarray, geom: np.ndarray) -> None:
    """Run the pending joins: a compulsory move where the joined line holds two pawns."""
    while s[NUM_PENDING] > 0:
        root = find(s, s[PENDING])
        held = 0
        for j in range(2 * s[NUM_PLAYERS]):
            piece = s[PAWNS + j]
            if piece >= 0 and find(s, piece) == root:
                held += 1
        if held >= 2:
            s[PHASE] = MOVE
            return
        _pop_pending(s)
    _end_turn(s, geom)


@njit(cache=True)
def init_state(
    s: np.ndarray, stack: np.ndarray, start_player: int, num_players: int, geom: np.ndarray
) -> None:
    """Make ``s`` a new game: ``stack`` (kinds, drawn from the end) and the first player.

    The piece records are left as they are: a piece's fields are set when its tile is laid,
    and nothing reads those of a cell without a tile."""
    s[:PIECES] = 0
    s[PAWNS:] = 0
    for c in range(NUM_CELLS):
        s[KIND + c] = -1
        s[ROT + c] = -1
    for j in range(2 * MAX_PLAYERS):
        s[PAWNS + j] = -1
    for i in range(NUM_TILES):
        s[STACK + i] = stack[i]
    s[NUM_PLAYERS] = num_players
    s[STACK_SIZE] = NUM_TILES
    s[RMIN] = WINDOW
    s[CMIN] = WINDOW
    s[RMAX] = -1
    s[CMAX] = -1
    s[CURRENT] = start_player
    s[START] = start_player
    s[DRAWN] = -1
    s[LAST] = -1
    _start_turn(s, geom)


@njit(cache=True)
def new_state(stack: np.ndarray, start_player: int, num_players: int, geom: np.ndarray):
    """A new game's state vector (see :func:`init_state`)."""
    s = np.zeros(STATE_SIZE, dtype=np.int16)
    init_state(s, stack, start_player, num_players, geom)
    return s


@njit(cache=True)
def _put(s: np.ndarray, geom: np.ndarray, cell: int, kind: int, rot: int) -> None:
    """Put a tile on ``cell`` and join its lines (no rule checked), as ``Board.put``."""
    s[KIND + cell] = kind
    s[ROT + cell] = rot
    for g in range(geom[kind, rot, G_NG]):
        piece = cell * 4 + g
        s[ROOT + PIECE_STRIDE * piece] = piece
        s[NEXT + PIECE_STRIDE * piece] = piece
        s[SIZE + PIECE_STRIDE * piece] = 1
        s[OPEN + PIECE_STRIDE * piece] = geom[kind, rot, G_NP + g]
    for p in range(4):
        other = across(s, geom, cell, p)
        if other < 0:
            continue
        mine = cell * 4 + geom[kind, rot, G_PG + p]
        s[OPEN + PIECE_STRIDE * mine] -= 1
        s[OPEN + PIECE_STRIDE * other] -= 1
        join_lines(s, mine, other)
    s[LAID + s[NUM_LAID]] = cell
    s[NUM_LAID] += 1
    frontier = _frontier(s) & ~(np.int64(1) << cell)
    for p in range(4):
        other = NB[cell, p]
        if other >= 0 and s[KIND + other] < 0:
            frontier |= np.int64(1) << other
    _store_frontier(s, frontier)
    row = cell // WINDOW
    col = cell % WINDOW
    s[RMIN] = min(s[RMIN], row)
    s[RMAX] = max(s[RMAX], row)
    s[CMIN] = min(s[CMIN], col)
    s[CMAX] = max(s[CMAX], col)


@njit(cache=True)
def _lay(s: np.ndarray, geom: np.ndarray, cell: int, rot: int) -> None:
    kind = s[DRAWN]
    count = 0
    if s[NUM_LAID] > 0:
        occupied_roots(s)
        _neighbour_roots(s, geom, cell)
        count = joins(s, geom, cell, kind, rot)
    _put(s, geom, cell, kind, rot)
    s[DRAWN] = -1
    s[LAST] = cell
    # only the lines through the new tile changed (pieces and open ends): rescore them
    ng = geom[kind, rot, G_NG]
    for g in range(ng):
        root = find(s, cell * 4 + g)
        fresh = True
        for h in range(g):
            if find(s, cell * 4 + h) == root:
                fresh = False
        if fresh:
            score_line(s, geom, root)
    if count > 0:
        for i in range(count):
            s[PENDING + i] = s[JOIN + i]
        s[NUM_PENDING] = count
        _next_move(s, geom)
    else:
        s[PHASE] = OCCUPY


@njit(cache=True)
def _occupy(s: np.ndarray, geom: np.ndarray, port: int, source: int) -> None:
    player = s[CURRENT]
    piece = piece_at(s, geom, s[LAST], port)
    if source == 0:
        slot = 0 if s[PAWNS + 2 * player] < 0 else 1
    else:
        first, second, _ = placed_slots(s, geom, player)
        slot = first if source == 1 else second
    if s[PHASE] == OCCUPY:
        s[PAWNS + 2 * player + slot] = piece
        _end_turn(s, geom)
        return
    root = find(s, piece)
    old = 0
    for j in range(2 * s[NUM_PLAYERS]):
        other = s[PAWNS + j]
        if other >= 0 and find(s, other) == root:
            old |= 1 << j
    s[PAWNS + 2 * player + slot] = piece
    for j in range(2 * s[NUM_PLAYERS]):
        if old & (1 << j):
            s[PAWNS + j] = -1
    _pop_pending(s)
    _next_move(s, geom)


@njit(cache=True)
def apply(s: np.ndarray, geom: np.ndarray, action: int) -> None:
    """Apply the legal ``action`` (lay, occupy or skip) to ``s``."""
    if s[NUM_HIST] < HISTORY:
        s[HIST + s[NUM_HIST]] = action
        s[NUM_HIST] += 1
    if action < NUM_LAY:
        _lay(s, geom, action >> 2, action & 3)
    elif action == SKIP_ACTION:
        _end_turn(s, geom)
    else:
        port = (action - OCCUPY_ACTION) // 3
        _occupy(s, geom, port, (action - OCCUPY_ACTION) % 3)


@njit(cache=True)
def step(s: np.ndarray, geom: np.ndarray, action: int, points: np.ndarray) -> bool:
    """Apply ``action``; write each player's change of provisional score into ``points``
    and return whether the game is over."""
    n = s[NUM_PLAYERS]
    for p in range(n):
        s[TMP + p] = player_points(s, p)
    apply(s, geom, action)
    for p in range(n):
        points[p] = player_points(s, p) - s[TMP + p]
    return s[PHASE] == OVER


# ------------------------------------------------------------------- masks
@njit(cache=True)
def _occupy_mask(s: np.ndarray, geom: np.ndarray, mask: np.ndarray) -> None:
    cell = s[LAST]
    for p in range(4):
        s[NROOT + p] = find(s, piece_at(s, geom, cell, p))
    player = s[CURRENT]
    first, second, placed = placed_slots(s, geom, player)
    if s[PHASE] == OCCUPY:
        occupied_roots(s)
        for port in range(4):
            r = s[NROOT + port]
            if owner_of(s, r) >= 0 or not _first_root(s, port):
                continue
            base = OCCUPY_ACTION + 3 * port
            if placed < 2:
                mask[base] = 1
            for i in range(placed):
                mask[base + 1 + i] = 1
        mask[SKIP_ACTION] = 1
        return
    target = find(s, s[PENDING])
    port = 0
    while s[NROOT + port] != target:
        port += 1
    base = OCCUPY_ACTION + 3 * port
    if placed < 2:
        mask[base] = 1
    if placed >= 1 and find(s, s[PAWNS + 2 * player + first]) != target:
        mask[base + 1] = 1
    if placed == 2 and find(s, s[PAWNS + 2 * player + second]) != target:
        mask[base + 2] = 1


@njit(cache=True)
def legal_mask(s: np.ndarray, geom: np.ndarray, mask: np.ndarray) -> None:
    """Write the legal actions of the player to act into ``mask`` (all 0 once over)."""
    mask[:] = 0
    phase = s[PHASE]
    if phase == LAY:
        for cell in range(NUM_CELLS):
            bits = s[LAY_MASK + cell]
            if bits:
                for rot in range(4):
                    mask[4 * cell + rot] = (bits >> rot) & 1
    elif phase != OVER:
        _occupy_mask(s, geom, mask)


# ----------------------------------------------------------------- batches
@njit(cache=True)
def first_illegal(actions: np.ndarray, mask: np.ndarray, active: np.ndarray) -> int:
    """The first active row whose action is out of range or has mask entry 0, or -1 if
    none."""
    for i in range(actions.shape[0]):
        if not active[i]:
            continue
        action = actions[i]
        if action < 0 or action >= mask.shape[1] or mask[i, action] == 0:
            return i
    return -1


@njit(cache=True)
def deal_games(
    bitgens: np.ndarray,
    slots: np.ndarray,
    tiles: np.ndarray,
    num_players: int,
    stacks: np.ndarray,
    starts: np.ndarray,
) -> None:
    """The next deal of each game ``slots[k]`` from the bit generator at ``bitgens[k]``:
    the stack ``Generator.permutation(tiles)`` into ``stacks[slots[k]]`` and the first player
    ``Generator.integers(num_players)`` into ``starts[slots[k]]``, the draws of
    :meth:`~.compiled_model.LiniellCompiledModel.deal`."""
    for k in range(slots.shape[0]):
        permute_into(bitgens[k], tiles, stacks[slots[k]])
        starts[slots[k]] = integers(bitgens[k], np.uint64(num_players))


@njit(cache=True, nogil=True)
def batch_observe_all(
    geom: np.ndarray,
    feats: np.ndarray,
    off: np.ndarray,
    states: np.ndarray,
    rows: np.ndarray,
    fresh: np.ndarray,
    out: np.ndarray,
    written: np.ndarray,
) -> None:
    """Every seat's observation of each game with ``rows[i]`` set: seat ``p``'s of game
    ``i`` into ``out[i, p]``, updated from what the last call wrote there (``written[i, p]``,
    :func:`observe_update`), or written whole where ``fresh[i]`` is set."""
    for i in range(states.shape[0]):
        if rows[i]:
            for p in range(states[i, NUM_PLAYERS]):
                observe_update(
                    states[i], geom, feats, off, p, out[i, p], written[i, p], fresh[i] != 0
                )


class LiniellGames(NamedTuple):
    """The games of a batch (row ``i`` of each array: game ``i``), one argument of
    :func:`batch_step`."""

    states: np.ndarray
    """``(N, STATE_SIZE)`` int16: each game's vector."""
    next_stacks: np.ndarray
    """``(N, NUM_TILES)`` int16: the stack of each slot's next game, dealt ahead."""
    next_starts: np.ndarray
    """``(N,)`` int64: the first player of each slot's next game."""
    done: np.ndarray
    """``(N,)`` int8: the game ended (or none started): its next step starts the next."""
    written: np.ndarray
    """``(N, WRITTEN_SIZE)`` int16: what each observation row shows (:func:`observe_update`)."""
    final_states: np.ndarray
    """``(N, STATE_SIZE)`` int16: each slot's last finished game."""

    def rows(self, lo: int, hi: int) -> LiniellGames:
        """Games ``lo`` to ``hi - 1`` (views)."""
        return block_rows(self, lo, hi)


class LiniellSettings(NamedTuple):
    """The fixed options of a batch, as :func:`batch_step` reads them."""

    geom: np.ndarray
    """The tile set's geometry (:func:`~.compiled_layout.geometry`)."""
    feats: np.ndarray
    """Each oriented tile's features in the observation's ``tiles`` planes (:func:`~.\
compiled_layout.geometry`)."""
    offsets: np.ndarray
    """Where each observation field starts in a row."""
    score_rewards: bool
    """``reward="score"`` (else ``"win"``)."""


@njit(cache=True, nogil=True)
def batch_step(
    actions: np.ndarray,
    active: np.ndarray,
    seats: np.ndarray,
    bitgens: np.ndarray,
    games: LiniellGames,
    buffers: BatchResult,
    settings: LiniellSettings,
) -> None:
    """Step every game of a batch (row ``i`` of each array is game ``i``): play
    ``actions[i]`` and write the game's results into its rows of ``games`` and ``buffers``;
    a game with ``done[i]`` set starts anew from ``next_stacks[i]``/``next_starts[i]``
    instead (its action is ignored); a game with ``active[i]`` 0 is left as it is, its rows
    untouched.

    Where ``seats[i]`` >= 0, the other seats then move until seat ``seats[i]`` is to act or
    the game is over, each uniformly at random among its legal actions as
    ``Generator.choice`` draws it, from the bit generator at ``bitgens[i, k]`` for the
    ``k``-th seat after ``seats[i]`` is skipped; ``rewards[i]`` then sums every move's.
    Observation rows are updated in place (:func:`observe_update`), once per call. Runs
    without the GIL, so threads can step separate blocks of rows at once."""
    states, done, final_states = games.states, games.done, games.final_states
    observation, action_mask, rewards = buffers.observation, buffers.action_mask, buffers.rewards
    geom, score_rewards = settings.geom, settings.score_rewards
    points = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for i in range(states.shape[0]):
        if not active[i]:
            continue
        s = states[i]
        n = s[NUM_PLAYERS]
        rewards[i, :] = 0
        over = False
        fresh = done[i] != 0
        if fresh:
            init_state(s, games.next_stacks[i], games.next_starts[i], n, geom)
            done[i] = 0
        else:
            over = step(s, geom, actions[i], points)
            if score_rewards:
                for p in range(n):
                    rewards[i, p] = points[p]
        seat = seats[i]
        while seat >= 0 and not over and s[CURRENT] != seat:
            mover = s[CURRENT]
            row = action_mask[i]
            legal_mask(s, geom, row)
            count = 0
            for a in range(row.shape[0]):
                count += row[a] != 0
            left = integers(bitgens[i, mover - (mover > seat)], np.uint64(count))
            chosen = 0
            for a in range(row.shape[0]):
                left -= row[a] != 0
                if left < 0:
                    chosen = a
                    break
            over = step(s, geom, chosen, points)
            if score_rewards:
                for p in range(n):
                    rewards[i, p] += points[p]
        buffers.terminated[i] = over
        player = s[CURRENT]
        buffers.current_player[i] = player
        observe_update(
            s,
            geom,
            settings.feats,
            settings.offsets,
            player,
            observation[i],
            games.written[i],
            fresh,
        )
        if over:
            done[i] = 1
            action_mask[i, :] = 1
            buffers.final_observation[i, :] = observation[i]
            final_states[i, :] = s
            won = winners_mask(s)
            for p in range(n):
                buffers.episode_scores[i, p] = player_points(s, p)
            if not score_rewards and won != (1 << n) - 1:
                for p in range(n):
                    rewards[i, p] = 1 if won & (1 << p) else -1
        else:
            legal_mask(s, geom, action_mask[i])
