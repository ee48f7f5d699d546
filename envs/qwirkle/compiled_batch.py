"""Many Qwirkle games stepped together by one compiled call, in the style of EnvPool and Pgx.

:class:`QwirkleBatch` keeps ``num_envs`` games of the compiled engine in stacked arrays and
advances all of them with one call per step. Observations and masks live in preallocated
arrays that every step updates in place: a laid tile changes four board-plane entries, so
the ``(N, obs)`` observation is rewritten only where the game changed (the whole board planes
only when a game's window moves or a game starts).

The batch follows the conventions of :mod:`tabletop_rl.envs.vector` (its compiled backend for
``qwirkle_v0``): slot ``i`` of a batch seeded ``seed`` deals its games from
``np.random.default_rng([seed, i])``, one ``new_state`` of :class:`~.model.QwirkleModel` (or
:class:`~.compiled.QwirkleCompiledModel`) per game in order, so a batch replays exactly the
games of ``num_envs`` single games dealt from those generators and given the same actions.

>>> batch = QwirkleBatch(num_envs=4, num_players=2, seed=0)
>>> batch.reset()
>>> rng = np.random.default_rng(0)
>>> for _ in range(50):
...     batch.step(batch.sample_actions(rng))
>>> batch.observation.shape, batch.action_mask.dtype
((4, 21424), dtype('int8'))
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from ..core.batch import (
    BatchBuffers,
    BatchResult,
    block_rows,
    check_active,
    check_batch_options,
)
from ..core.compiled_random import choose_legal
from ..core.features import with_features
from ..core.model import Ending, Outcome
from ..errors import ConfigError, IllegalActionError
from . import compiled_kernels as K
from .compiled import CompiledQwirkleState, QwirkleCompiledModel, load_game
from .features import feature_offsets, features_into, place_best_into, qwirkle_features
from .game import GameState
from .model import DEFAULT_MAX_TURNS, DEFAULT_WINDOW

UNIFORMS = 1024
"""Uniforms drawn ahead per game for exchanges (refilled before they run out)."""


class QwirkleGames(NamedTuple):
    """The games of a :class:`QwirkleBatch` (row ``i`` of each array: game ``i``), one
    argument of its kernels."""

    grid: np.ndarray
    """``(N, GRID, GRID)`` int8: each game's board (:mod:`.compiled_kernels`)."""
    fit: np.ndarray
    """``(N, window, window)`` int64: where each tile kind fits, per window cell."""
    meta: np.ndarray
    """``(N, META_SIZE)`` int64: hands, bag, scores, turn and window of each game."""
    uniforms: np.ndarray
    """``(N, UNIFORMS)`` float64: each game's uniforms drawn ahead for exchanges."""
    fresh: np.ndarray
    """``(N,)`` bool: the game was just dealt (its next step shows it, ignoring the action)."""

    def rows(self, lo: int, hi: int) -> QwirkleGames:
        """Games ``lo`` to ``hi - 1`` (views)."""
        return block_rows(self, lo, hi)


class QwirkleSettings(NamedTuple):
    """The fixed options of a :class:`QwirkleBatch`, as its kernels read them."""

    win_rewards: bool
    """``reward="win"`` (else ``"score"``)."""
    feature_at: np.ndarray
    """The observation features' offsets (:func:`.features.feature_offsets`; empty: none)."""


@njit(cache=True)
def _clear_board(grid: np.ndarray, fit: np.ndarray, meta: np.ndarray) -> None:
    """Zero the part of ``grid`` a finished game used (its box and reach) and ``fit``."""
    if meta[K.NTILES]:
        r0, r1 = meta[K.B0R] - 7, meta[K.B1R] + 8
        c0, c1 = meta[K.B0C] - 7, meta[K.B1C] + 8
    else:
        r0 = c0 = K.RADIUS - 7
        r1 = c1 = K.RADIUS + 8
    r0, c0, r1, c1 = max(r0, 0), max(c0, 0), min(r1, K.GRID), min(c1, K.GRID)
    grid[r0:r1, c0:c1] = 0
    fit[:, :] = 0


@njit(cache=True)
def _check_actions(
    mask: np.ndarray, actions: np.ndarray, fresh: np.ndarray, active: np.ndarray
) -> int:
    """The first active game whose action is out of range or masked out (-1: none)."""
    a_max = mask.shape[1]
    for i in range(actions.shape[0]):
        if fresh[i] or not active[i]:
            continue
        a = actions[i]
        if a < 0 or a >= a_max or not mask[i, a]:
            return i
    return -1


@njit(cache=True)
def _step_one(
    i: int,
    grid: np.ndarray,
    fit: np.ndarray,
    meta: np.ndarray,
    action: int,
    uniforms: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    rewards: np.ndarray,
    win_rewards: bool,
    fresh: bool,
    feature_at: np.ndarray,
    observe: bool = True,
) -> tuple[bool, bool]:
    """Apply ``action`` to game ``i`` (or show it fresh) and update its observation, mask and
    rewards in place, the observation features too when ``feature_at`` holds their offsets
    (:func:`.features.feature_offsets`; empty: none); returns (terminated, truncated).

    With ``observe`` False only the board planes (shared by every seat's view) follow the
    game: the part after them (the hand, scores, seat to act) and the features are left
    for a later :func:`_show` (a random opponent reads nothing but the mask)."""
    w = meta[K.WIN]
    cells = w * w
    end = K.HAND * cells
    rewards[:] = 0.0
    if fresh:
        K.write_planes(grid, meta, obs)
        meta[K.REPAINT] = 0
    elif action < end:
        wr, wc, t = K.lay(grid, meta, action)
        base = wr * w + wc
        K._paint(obs, cells, base, t)
        obs[K.LAID_PLANE * cells + base] = 1.0
    else:
        player = meta[K.CUR]
        moved = action == end
        if moved:
            for j in range(meta[K.PN]):
                r = meta[K.PEND + 3 * j]
                c = meta[K.PEND + 3 * j + 1]
                obs[K.LAID_PLANE * cells + (r - meta[K.ORR]) * w + (c - meta[K.ORC])] = 0.0
            _, points = K.end_turn(grid, fit, meta)
            if not win_rewards:
                rewards[player] = points
        elif action <= end + K.NUM_EXCHANGES:
            at = meta[K.UPOS]
            slots = action - end
            K.exchange(meta, slots, uniforms[at : at + 6])
            while slots:
                at += slots & 1
                slots >>= 1
            meta[K.UPOS] = at
        else:
            K.pass_turn(meta)
        K.new_turn(grid, fit, meta, moved)
        if meta[K.REPAINT]:
            K.write_planes(grid, meta, obs)
            meta[K.REPAINT] = 0
    if observe:
        K.write_tail(meta, meta[K.CUR], obs, K.NUM_PLANES * cells)
    over = meta[K.OVER] == 1
    truncated = meta[K.TRUNC] == 1
    if over and win_rewards:
        n = meta[K.NP]
        best = meta[K.SCORES]
        for p in range(1, n):
            best = max(best, meta[K.SCORES + p])
        winners = 0
        for p in range(n):
            if meta[K.SCORES + p] == best:
                winners += 1
        if winners < n:
            for p in range(n):
                rewards[p] = 1.0 if meta[K.SCORES + p] == best else -1.0
    if over or truncated:
        mask[:] = 1  # a sampler never meets an empty row; the next action is ignored
    else:
        if fresh:
            mask[:] = 0  # the row of the game before (all ones) or of no game yet
        else:
            K.clear_mask(meta, mask)
        K.fill_mask(grid, fit, meta, mask)
    if observe:
        _show_features(grid, fit, meta, obs, mask, feature_at, over or truncated)
    return over, truncated


@njit(cache=True)
def _show_features(
    grid: np.ndarray,
    fit: np.ndarray,
    meta: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    feature_at: np.ndarray,
    ended: bool,
) -> None:
    """The observation features of the position (none when ``feature_at`` is empty)."""
    if feature_at.size:
        features_into(obs, feature_at, mask, not ended)
        if not ended:
            place_best_into(grid, fit, meta, obs, feature_at, mask)


@njit(cache=True)
def _finish(
    i: int,
    meta: np.ndarray,
    obs: np.ndarray,
    final_obs: np.ndarray,
    scores: np.ndarray,
) -> None:
    final_obs[:] = obs
    for p in range(meta[K.NP]):
        scores[p] = meta[K.SCORES + p]


@njit(cache=True, nogil=True)
def _step_games(
    actions: np.ndarray,
    active: np.ndarray,
    games: QwirkleGames,
    buffers: BatchResult,
    settings: QwirkleSettings,
) -> None:
    """Play ``actions[i]`` in each game with ``active[i]`` set (a game just dealt is shown
    instead, its action ignored), writing the game's rows of ``buffers``."""
    meta, fresh, obs = games.meta, games.fresh, buffers.observation
    for i in range(actions.shape[0]):
        if not active[i]:
            continue
        over, cut = _step_one(
            i,
            games.grid[i],
            games.fit[i],
            meta[i],
            actions[i],
            games.uniforms[i],
            obs[i],
            buffers.action_mask[i],
            buffers.rewards[i],
            settings.win_rewards,
            fresh[i],
            settings.feature_at,
        )
        fresh[i] = False
        buffers.terminated[i] = over
        buffers.truncated[i] = cut
        buffers.current_player[i] = meta[i, K.CUR]
        if over or cut:
            _finish(i, meta[i], obs[i], buffers.final_observation[i], buffers.episode_scores[i])


@njit(cache=True, nogil=True)
def _step_games_versus_random(
    actions: np.ndarray,
    active: np.ndarray,
    seats: np.ndarray,
    bitgens: np.ndarray,
    games: QwirkleGames,
    buffers: BatchResult,
    settings: QwirkleSettings,
) -> None:
    """:func:`_step_games`, then in each active game the seats other than ``seats[i]`` move
    until that seat is to act or the game is over, each uniformly at random among its legal
    actions from the bit generator at ``bitgens[i, k]`` (``k``: the mover's seat, counted
    without ``seats[i]``); ``rewards[i]`` sums every move's. The observation's hand part
    and features are written once, for the position reached."""
    rewards, fresh = buffers.rewards, games.fresh
    win_rewards, feature_at = settings.win_rewards, settings.feature_at
    step_rewards = np.zeros(rewards.shape[1], dtype=np.float32)
    for i in range(actions.shape[0]):
        if not active[i]:
            continue
        g, f, m = games.grid[i], games.fit[i], games.meta[i]
        o, row, uniforms = buffers.observation[i], buffers.action_mask[i], games.uniforms[i]
        seat = seats[i]
        over, cut = _step_one(
            i, g, f, m, actions[i], uniforms, o, row, rewards[i], win_rewards, fresh[i],
            feature_at, False,
        )  # fmt: skip
        fresh[i] = False
        while not (over or cut) and m[K.CUR] != seat:
            mover = m[K.CUR]
            action = choose_legal(bitgens[i, mover - (mover > seat)], row)
            over, cut = _step_one(
                i, g, f, m, action, uniforms, o, row, step_rewards, win_rewards, False,
                feature_at, False,
            )  # fmt: skip
            for p in range(step_rewards.shape[0]):
                rewards[i, p] += step_rewards[p]
        cur = m[K.CUR]
        K.write_tail(m, cur, o, K.NUM_PLANES * m[K.WIN] * m[K.WIN])
        _show_features(g, f, m, o, row, feature_at, over or cut)
        buffers.terminated[i] = over
        buffers.truncated[i] = cut
        buffers.current_player[i] = cur
        if over or cut:
            _finish(i, m, o, buffers.final_observation[i], buffers.episode_scores[i])


@njit(cache=True)
def _observe_all(grid: np.ndarray, meta: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    """Every seat's observation of each game with ``rows[i]`` set into ``out[i, seat]``."""
    for i in range(meta.shape[0]):
        if rows[i]:
            for p in range(meta[i, K.NP]):
                K.observe(grid[i], meta[i], p, out[i, p])


@njit(cache=True)
def _sample(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """One uniformly random legal action per game (``u`` uniforms in [0, 1))."""
    for i in range(mask.shape[0]):
        row = mask[i]
        count = 0
        for a in range(row.shape[0]):
            count += row[a]
        pick = np.int64(u[i] * count)
        for a in range(row.shape[0]):
            if row[a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1


class QwirkleBatch(BatchBuffers):
    """``num_envs`` Qwirkle games stepped together (observation and mask after every step).

    Public arrays, updated in place by :meth:`reset` and :meth:`step` (read them, copy what
    you keep):

    - ``observation`` ``(N, obs)`` float32: the player to act's observation (the layout of
      :class:`~.model.QwirkleModel`; ``features=True`` appends the observation features, as
      ``qwirkle_v0.raw_env(features=True)`` does); after a game's last step, its final
      position.
    - ``action_mask`` ``(N, A)`` int8: that player's legal actions (all 1 after a game's last
      step: the action given for that slot next is ignored).
    - ``current_player`` ``(N,)`` int64: the seat to act.
    - ``rewards`` ``(N, players)`` float32: this step's rewards per seat (``reward="score"``:
      the points scored, end bonus included; ``"win"``: +1 / -1 when a game ends with a
      winner, 0 on a full tie, a truncation and every other step).
    - ``terminated`` / ``truncated`` ``(N,)`` bool: the game ended by the rules / by the turn
      limit with this step.
    - ``final_observation`` ``(N, obs)`` float32 and ``episode_scores`` ``(N, players)``
      float32: the last position and final scores of each game's most recent finished game
      (written when it ends, kept until its next game ends).

    A finished game starts its next game on the following :meth:`step` (its action is ignored
    then); that step's ``observation`` is the new game's first position, with zero rewards.
    ``step(actions, active)`` plays only the games with ``active[i]`` set (the others keep
    their rows as they are); :meth:`restart` starts a slot's next game from a given generator.
    ``threads > 1`` steps that many blocks of games at once, in threads (the compiled step
    releases the GIL). The batch does not count the legal moves a board window hides (the
    environments' ``lost_moves`` info, 0 in practice with the default 39-cell window).
    """

    env_options = ("features",)
    """The environment's options that :class:`~tabletop_rl.envs.vector.VectorGames` passes
    on to this batch (any other makes it step the game model instead)."""
    state_fields = (
        "_grid", "_fit", "_meta", "_uniforms", "_fresh", "_rngs", "_rng_base", "_started",
        "_endings",
    )  # fmt: skip
    """What :meth:`state_dict` saves besides the public buffers."""

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        seed: int = 0,
        threads: int = 1,
        *,
        reward: str = "win",
        max_turns: int = DEFAULT_MAX_TURNS,
        window: int = DEFAULT_WINDOW,
        features: bool = False,
    ) -> None:
        num_envs, seed, threads = check_batch_options(num_envs, seed, threads, reward)
        if not isinstance(features, bool):
            raise ConfigError(f"features={features!r} is not allowed; allowed: True or False")
        self.model = QwirkleCompiledModel(num_players, max_turns, window)
        """The single-game model: layout, codec and rules of every game in the batch."""
        layout = self.model.layout
        self._feature_at = np.zeros(0, dtype=np.int64)
        if features:
            layout = with_features(self.model, qwirkle_features(self.model.window)).layout
            self._feature_at = feature_offsets(layout)
        self.num_envs = n = int(num_envs)
        self.num_players = self.model.num_players
        self.seed = int(seed)
        self.threads = int(threads)
        self.reward = reward
        size, actions = layout.size, self.model.info.num_actions
        players = self.num_players
        # np.zeros takes fresh zeroed pages: a game touches only the part of its board it uses
        self._grid = np.zeros((n, K.GRID, K.GRID), dtype=np.int8)
        self._fit = np.zeros((n, self.model.window, self.model.window), dtype=np.int64)
        self._meta = np.zeros((n, K.META_SIZE), dtype=np.int64)
        self._uniforms = np.zeros((n, UNIFORMS), dtype=np.float64)
        self._fresh = np.zeros(n, dtype=np.bool_)
        self._all = np.ones(n, dtype=np.bool_)
        self._rngs = [np.random.default_rng([self.seed, i]) for i in range(n)]
        self._rng_base: list[Any] = [None] * n
        """Per slot, its generator's state before the uniforms drawn ahead (None: none)."""
        self._started = False
        self._endings = np.zeros(n, dtype=np.int8)
        """Per slot, how its last finished game ended: 0 none yet, 1 by the rules, 2 cut."""
        self._allocate_buffers(n, players, size, actions)
        self._no_actions = np.zeros(n, dtype=np.int64)
        self._settings = QwirkleSettings(reward == "win", self._feature_at)
        games = QwirkleGames(self._grid, self._fit, self._meta, self._uniforms, self._fresh)
        bounds = np.linspace(0, n, self.threads + 1).astype(int)
        self._blocks = [
            (int(lo), int(hi), games.rows(lo, hi), self.buffers.rows(lo, hi))
            for lo, hi in pairwise(bounds)
            if hi > lo
        ]
        """Each thread's rows, games and buffers (views of the batch's)."""
        self._pool = ThreadPoolExecutor(self.threads) if len(self._blocks) > 1 else None

    # ------------------------------------------------------------- games
    def _deal(self, i: int) -> None:
        """Start game ``i``'s next game from its generator (at the position the reference
        engine's generator would have reached: the pre-drawn uniforms not used are undone)."""
        rng = self._rngs[i]
        meta = self._meta[i]
        if self._rng_base[i] is not None:
            rng.bit_generator.state = self._rng_base[i]
            rng.random(int(meta[K.UPOS]))
        _clear_board(self._grid[i], self._fit[i], meta)
        game = GameState(self.num_players, rng, max_turns=self.model.max_turns)
        load_game(game, self.model.window, self._grid[i], self._fit[i], meta)
        self._draw_uniforms(i)
        self._fresh[i] = True

    def _draw_uniforms(self, i: int) -> None:
        rng = self._rngs[i]
        self._rng_base[i] = rng.bit_generator.state
        self._uniforms[i] = rng.random(UNIFORMS)
        self._meta[i, K.UPOS] = 0

    def _refill_uniforms(self, i: int) -> None:
        rng = self._rngs[i]
        rng.bit_generator.state = self._rng_base[i]
        rng.random(int(self._meta[i, K.UPOS]))
        self._draw_uniforms(i)

    def reset(self) -> None:
        """Start the next game in every slot (each slot's generator continues)."""
        self._started = True
        for i in range(self.num_envs):
            self._deal(i)
        self._run(self._no_actions, self._all)

    def restart(self, slots: Sequence[int], generators: Sequence[np.random.Generator]) -> None:
        """Deal the next game of each slot in ``slots`` from the generator at the same place
        in ``generators`` (the slot's generator from now on: its exchanges draw from it); it
        starts on the slot's next step, whose action it ignores, as after a game's end."""
        for i, rng in zip(slots, generators, strict=True):
            self._rngs[i] = rng
            self._rng_base[i] = None
            self.action_mask[i] = 1  # as after a game's end: the next action is ignored
            self._deal(int(i))

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        """Apply one action per game (the action of a game that ended last step is ignored:
        that game starts its next game instead); with ``active``, only in the games where it
        is True (the others' actions are not read). Raises :class:`IllegalActionError`
        naming the first game whose action its mask does not allow."""
        self._step(actions, active, None, None)

    def step_versus_random(
        self, actions: np.ndarray, active: np.ndarray, seats: np.ndarray, bitgens: np.ndarray
    ) -> None:
        """:meth:`step`, then in each active game the other seats move until seat
        ``seats[i]`` is to act or the game is over, each uniformly at random among its legal
        actions as ``Generator.choice`` draws it, from the bit generator at ``bitgens[i, k]``
        (:func:`~tabletop_rl.envs.core.compiled_random.bitgen_address`) for the ``k``-th seat
        other than ``seats[i]``; all in one compiled call. ``rewards`` then holds the sum of
        every move's rewards, the observation and mask rows the position reached (the
        opponents' own views are not written on the way)."""
        self._step(actions, active, seats, bitgens)

    def _step(
        self,
        actions: np.ndarray,
        active: np.ndarray | None,
        seats: np.ndarray | None,
        bitgens: np.ndarray | None,
    ) -> None:
        if not self._started:
            raise ConfigError("call reset() before step()")
        rows = check_active(active, self.num_envs)
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise IllegalActionError(
                f"actions must have shape ({self.num_envs},), one per game; got {actions.shape}"
            )
        if not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(f"actions must be integers, got dtype {actions.dtype}")
        actions = actions.astype(np.int64, copy=False)
        for i in np.flatnonzero((self.terminated | self.truncated) & rows & ~self._fresh):
            self._deal(int(i))
        bad = _check_actions(self.action_mask, actions, self._fresh, rows)
        if bad >= 0:
            raise IllegalActionError(
                f"game {bad}: action {int(actions[bad])} is illegal (its action-mask entry is "
                f"0 or it is out of range 0 to {self.action_mask.shape[1] - 1})"
            )
        # an exchange takes up to HAND uniforms, and each seat may exchange once in a call
        moves = 1 if seats is None else self.num_players
        for i in np.flatnonzero(self._meta[:, K.UPOS] > UNIFORMS - K.HAND * moves):
            self._refill_uniforms(int(i))
        self._run(actions, rows, seats, bitgens)
        self._endings[self.terminated & rows] = 1
        self._endings[self.truncated & rows] = 2

    def outcome(self, i: int) -> Outcome | None:
        """How the last finished game of slot ``i`` ended (None before any ended)."""
        ending = int(self._endings[i])
        if not ending:
            return None
        scores = tuple(float(s) for s in self.episode_scores[i])
        if ending == 2:
            return Outcome(Ending.TRUNCATED, (), scores)
        best = max(scores)
        return Outcome(Ending.FINISHED, tuple(p for p, s in enumerate(scores) if s == best), scores)

    def state(self, i: int) -> CompiledQwirkleState:
        """A copy of game ``i``'s position as the compiled model's state, for its
        observations, pictures and checks (its turn log is not kept: it is empty)."""
        meta = self._meta[i].copy()
        rng = copy.deepcopy(self._rngs[i])
        if self._rng_base[i] is not None:  # where the game's own generator stands
            rng.bit_generator.state = self._rng_base[i]
            rng.random(int(meta[K.UPOS]))
        hands = int(meta[K.HLEN : K.HLEN + meta[K.NP]].sum())
        tiles = hands + int(meta[K.BAGN]) + int(meta[K.NTILES]) + int(meta[K.PN])
        return CompiledQwirkleState(
            self._grid[i].copy(), self._fit[i].copy(), meta, rng, [], [], tiles
        )

    def observe_all(
        self, out: np.ndarray, rows: np.ndarray, fresh: np.ndarray | None = None
    ) -> bool:
        """Every seat's observation of each game in ``rows`` into ``out[i, seat]``, compiled
        (written whole: ``fresh`` is not needed); False (nothing written) with
        ``features=True``, whose features it does not write."""
        if self._feature_at.size:
            return False
        _observe_all(self._grid, self._meta, rows, out)
        return True

    def player_info(self, seats: np.ndarray) -> dict[str, np.ndarray]:
        """``lost_moves`` of seat ``seats[i]`` in game ``i`` (the batch does not count the
        moves a board window hides: 0, as with the default window in practice)."""
        return {"lost_moves": self._meta[np.arange(self.num_envs), K.LOST + seats].copy()}

    def _run(
        self,
        actions: np.ndarray,
        active: np.ndarray,
        seats: np.ndarray | None = None,
        bitgens: np.ndarray | None = None,
    ) -> None:
        """Step the active games with one compiled call per thread block; with ``seats`` and
        ``bitgens``, their random opponents move too (:meth:`step_versus_random`)."""
        kernel: Any = _step_games
        per_game: tuple[np.ndarray, ...] = (actions, active)
        if seats is not None and bitgens is not None:
            kernel = _step_games_versus_random
            seats, bitgens = np.asarray(seats, dtype=np.int64), np.asarray(bitgens, np.intp)
            per_game = (actions, active, seats, bitgens)
        if self._pool is None:
            for lo, hi, games, buffers in self._blocks:
                kernel(*(a[lo:hi] for a in per_game), games, buffers, self._settings)
            return
        # the compiled step releases the GIL: each thread steps its own block of games
        futures = [
            self._pool.submit(kernel, *(a[lo:hi] for a in per_game), games, buffers, self._settings)
            for lo, hi, games, buffers in self._blocks
        ]
        for future in futures:
            future.result()

    def close(self) -> None:
        """Stop the worker threads (when ``threads > 1``)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """One uniformly random legal action per game (0 for a game about to restart)."""
        out = np.zeros(self.num_envs, dtype=np.int64)
        _sample(self.action_mask, rng.random(self.num_envs), out)
        return out


__all__ = ["QwirkleBatch"]
