"""Many Liniell games stepped together: one compiled call per step for the whole batch.

:class:`LiniellBatch` keeps ``num_envs`` games of the compiled core (:mod:`.compiled`) as
one ``(num_envs, STATE_SIZE)`` ``int16`` array and writes every game's result into
preallocated public arrays (``observation``, ``action_mask``, ``current_player``,
``rewards``, ``terminated``, ``truncated``), in the style of Pgx and EnvPool::

    batch = LiniellBatch(num_envs=256, num_players=2, seed=0)
    batch.reset()
    while training:
        actions = policy(batch.observation, batch.action_mask)   # (256,) ints
        batch.step(actions)

Conventions (the batched API's contract):

- The observation of game ``i`` is that of ``current_player[i]``, the seat to act, in the
  layout of ``liniell_v0`` (2707 ``float32`` entries with the default tile set; with
  ``features=True`` the feature fields follow, computed by one compiled pass over the
  batch after each step, as ``liniell_v0.raw_env(features=True)`` shows them).
- **Rewards** (``reward="win"``, the default): 0 during a game; on the step that ends it,
  +1 to each winner and -1 to every other seat, 0 to all on a full tie (the rules' tie-break
  on blue diamonds included). ``reward="score"``: every step, each seat's change of
  provisional score, as ``liniell_v0``'s ``reward="score"``. Liniell has no truncation:
  ``truncated`` stays all False.
- **Autoreset on the next step**: a game that ended has ``terminated[i]`` set, its final
  observation also in ``final_observation[i]``, its final scores in ``episode_scores[i]``
  and its outcome in :meth:`outcome`; its action mask row is all ones (as Pgx does, so that
  a sampler never meets an empty row) and the action given for it on the next step is
  ignored: that step starts the slot's next game instead (rewards 0, ``terminated`` False).
- **Seeds**: slot ``i`` draws its games from ``np.random.default_rng([seed, i])``, one
  :meth:`~.compiled_model.LiniellCompiledModel.new_state` deal per game in order, so game
  ``k`` of slot ``i`` is the reference game ``LiniellModel.new_state`` makes from that
  generator after ``k`` earlier deals. The deals are drawn in Python when a slot's next
  game starts (a few microseconds, once per game); the steps run compiled.
- The arrays are the batch's own buffers, rewritten by every step: read or copy them, never
  write into them (an observation row is updated in place from its previous contents).
- ``step(actions, active)`` plays only the games with ``active[i]`` set (the others keep
  their rows as they are); :meth:`restart` starts a slot's next game from a given generator.
- ``threads`` > 1 splits the games into that many blocks, stepped at once by a thread pool
  (the compiled step releases the GIL).

>>> batch = LiniellBatch(num_envs=4, num_players=3, seed=0)
>>> batch.reset()
>>> batch.observation.shape, batch.action_mask.shape, batch.rewards.shape
((4, 2707), (4, 209), (4, 3))
>>> batch.step(batch.action_mask.argmax(axis=1))
>>> bool(batch.action_mask[:, 196:].any(axis=1).all())  # the occupy step follows each lay
True
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from pathlib import Path

import numpy as np

from ..core.batch import BatchBuffers, check_active, check_batch_options
from ..core.compiled_random import bitgen_address
from ..core.features import with_features
from ..core.model import Outcome
from ..errors import ConfigError, IllegalActionError
from . import compiled as core
from .compiled_layout import NUM_PLAYERS, STATE_SIZE, WRITTEN_SIZE
from .compiled_model import LiniellCompiledModel, LiniellCompiledState
from .features import LINIELL_FEATURES, batch_features, feature_offsets
from .tileset import NUM_TILES, TileSet


class LiniellBatch(BatchBuffers):
    """``num_envs`` Liniell games stepped together (see the module docstring);
    ``features=True`` appends the observation features, as ``liniell_v0.raw_env(
    features=True)`` does (:mod:`.features`)."""

    env_options = ("features",)
    """The environment options the batch takes (``VectorGames`` passes them through)."""
    state_fields = (
        "states", "final_states", "episodes", "_rngs", "_next_stacks", "_next_starts",
        "_done", "_actions", "_written", "_started",
    )  # fmt: skip
    """What :meth:`state_dict` saves besides the public buffers."""
    observe_all_updates = True
    """:meth:`observe_all` with ``fresh`` updates its output in place (a few entries a
    step), so a caller keeps one output buffer."""

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        seed: int = 0,
        threads: int = 1,
        reward: str = "win",
        tile_set: str | Path | TileSet = "default",
        features: bool = False,
    ) -> None:
        n_envs, seed, self.threads = check_batch_options(num_envs, seed, threads, reward)
        if not isinstance(features, bool):
            raise ConfigError(f"features must be True or False, got {features!r}")
        self.model = LiniellCompiledModel(num_players=num_players, tile_set=tile_set)
        self.features = features
        self.layout = self.model.layout
        if features:
            self.layout = with_features(self.model, LINIELL_FEATURES).layout
            self._feature_at = feature_offsets(self.layout)
        self.num_envs = n_envs
        self.num_players = n = self.model.num_players
        self.seed = int(seed)
        self.reward = reward
        size, actions = self.layout.size, self.model.info.num_actions
        self.states = np.zeros((n_envs, STATE_SIZE), dtype=np.int16)
        self.states[:, NUM_PLAYERS] = n
        self._allocate_buffers(n_envs, n, size, actions)
        self.final_states = np.zeros((n_envs, STATE_SIZE), dtype=np.int16)
        self.episodes = np.zeros(n_envs, dtype=np.int64)
        """Games started in each slot so far."""
        self._rngs = [np.random.default_rng([self.seed, i]) for i in range(n_envs)]
        self._next_stacks = np.zeros((n_envs, NUM_TILES), dtype=np.int16)
        self._tiles = np.array(self.model.tile_set.stack(), dtype=np.int16)
        self._next_starts = np.zeros(n_envs, dtype=np.int64)
        self._done = np.zeros(n_envs, dtype=np.int8)
        self._due = np.zeros(n_envs, dtype=np.bool_)
        """Slots whose game ended and whose next deal is not drawn yet (drawn when they step)."""
        self._active = np.ones(n_envs, dtype=np.bool_)
        self._seats = np.full(n_envs, -1, dtype=np.int64)
        self._bitgens = np.zeros((n_envs, n - 1), dtype=np.intp)
        self._actions = np.zeros(n_envs, dtype=np.int64)
        # what each observation row shows: the next step updates the row from it
        self._written = np.zeros((n_envs, WRITTEN_SIZE), dtype=np.int16)
        self._seat_written: np.ndarray | None = None  # observe_all's, per game and seat
        self._started = False
        bounds = np.linspace(0, n_envs, min(self.threads, n_envs) + 1).astype(int)
        self._blocks = [(int(lo), int(hi)) for lo, hi in pairwise(bounds)]
        self._pool = ThreadPoolExecutor(self.threads) if len(self._blocks) > 1 else None
        self._settings = core.LiniellSettings(
            self.model.geom, self.model.feats, self.model.offsets, reward == "score"
        )
        games = core.LiniellGames(
            self.states, self._next_stacks, self._next_starts, self._done, self._written,
            self.final_states,
        )  # fmt: skip
        per_call = (self._actions, self._active, self._seats, self._bitgens)
        self._block_views = [
            (tuple(a[lo:hi] for a in per_call), games.rows(lo, hi), self.buffers.rows(lo, hi))
            for lo, hi in self._blocks
        ]
        """Each block's rows of the per-call arrays (each call's actions, active games, seats
        and opponents' generators are copied into them), of the games and of the buffers."""

    def _deal(self, slots: np.ndarray) -> None:
        """Draw the next game of each slot in ``slots`` (it starts on the next step)."""
        slots = np.asarray(slots, dtype=np.int64)
        bitgens = np.array([bitgen_address(self._rngs[i]) for i in slots], dtype=np.intp)
        core.deal_games(
            bitgens, slots, self._tiles, self.num_players, self._next_stacks, self._next_starts
        )
        self.episodes[slots] += 1

    def _step_block(self, block: int) -> None:
        """The compiled step of one block of games, then its observation features."""
        per_call, games, buffers = self._block_views[block]
        core.batch_step(*per_call, games, buffers, self._settings)
        if self.features:
            batch_features(self.model.geom, self._feature_at, games.states, buffers)

    def _run(self) -> None:
        due = np.flatnonzero(self._due & self._active)
        if due.size:
            self._deal(due)
            self._due[due] = False
        if self._pool is None:  # one block, or several after close(): one after another
            for block in range(len(self._blocks)):
                self._step_block(block)
        else:
            # the compiled steps release the GIL: each thread steps its own block of games
            futures = [self._pool.submit(self._step_block, b) for b in range(len(self._blocks))]
            for future in futures:
                future.result()
        self._due |= self.terminated & self._active

    def reset(self) -> None:
        """Start the next game in every slot (the first call starts each slot's game 0)."""
        self._deal(np.flatnonzero((self._done == 0) | self._due))
        self._due[:] = False
        self._done[:] = 1
        self._active[:] = True
        self._run()
        self._started = True

    def restart(self, slots: Sequence[int], generators: Sequence[np.random.Generator]) -> None:
        """Deal the next game of each slot in ``slots`` from the generator at the same place
        in ``generators`` (the slot's generator from now on); it starts on the slot's next
        step, whose action it ignores, as after a game's end."""
        for i, rng in zip(slots, generators, strict=True):
            self._rngs[i] = rng
        slots = np.asarray(slots, dtype=np.int64)
        self._deal(slots)
        self.action_mask[slots] = 1  # as after a game's end: the next action is ignored
        self._due[slots] = False
        self._done[slots] = 1

    def step_versus_random(
        self, actions: np.ndarray, active: np.ndarray, seats: np.ndarray, bitgens: np.ndarray
    ) -> None:
        """:meth:`step`, then in each active game the other seats move until seat
        ``seats[i]`` is to act or the game is over, each uniformly at random among its legal
        actions as ``Generator.choice`` draws it, from the bit generator at ``bitgens[i, k]``
        (:func:`~tabletop_rl.envs.core.compiled_random.bitgen_address`) for the ``k``-th seat
        other than ``seats[i]``; all in one compiled call. ``rewards`` then holds the sum of
        every move's rewards, the observation and mask rows the position reached."""
        self._seats[:] = seats
        self._bitgens[:] = bitgens
        try:
            self._step(actions, active)
        finally:
            self._seats[:] = -1

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        """Play ``actions[i]`` in game ``i`` (each legal by ``action_mask``; ignored for a
        game that ended on the previous step, which starts anew instead); with ``active``,
        only the games where it is True (the others' actions are not read)."""
        self._step(actions, active)

    def _step(self, actions: np.ndarray, active: np.ndarray | None) -> None:
        if not self._started:
            raise ConfigError("call reset() before step()")
        rows = check_active(active, self.num_envs)
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {self.num_envs} integers (one per game), got "
                f"shape {actions.shape} of {actions.dtype}"
            )
        self._actions[:] = actions
        i = core.first_illegal(self._actions, self.action_mask, rows)
        if i >= 0:
            action, num_actions = int(actions[i]), self.action_mask.shape[1]
            if not 0 <= action < num_actions:
                raise IllegalActionError(
                    f"game {i}: action {action} is out of range; allowed: 0 to {num_actions - 1}"
                )
            raise IllegalActionError(
                f"game {i}: action {action} ({self.model.describe_action(None, action)}) is "
                "illegal: its action-mask entry is 0"
            )
        self._active[:] = rows
        self._run()

    def observe_all(
        self, out: np.ndarray, rows: np.ndarray, fresh: np.ndarray | None = None
    ) -> bool:
        """Every seat's observation of each game in ``rows`` into ``out[i, seat]``, compiled;
        False (nothing written) with ``features=True``, whose features it does not write.

        With ``fresh``, ``out`` must be the buffer of the previous such call: the rows of
        games with ``fresh[i]`` False are updated from what it wrote there (a few entries
        per step), the others written whole."""
        if self.features:
            return False
        if fresh is None:
            fresh = np.ones(self.num_envs, dtype=np.bool_)
            written = np.zeros((self.num_envs, self.num_players, WRITTEN_SIZE), np.int16)
        else:
            if self._seat_written is None:
                shape = (self.num_envs, self.num_players, WRITTEN_SIZE)
                self._seat_written = np.zeros(shape, dtype=np.int16)
            written = self._seat_written
        core.batch_observe_all(
            self.model.geom, self.model.feats, self.model.offsets, self.states, rows, fresh,
            out, written,
        )  # fmt: skip
        return True

    def close(self) -> None:
        """Stop the worker threads (when ``threads > 1``)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def outcome(self, i: int) -> Outcome | None:
        """How the last finished game of slot ``i`` ended (None before any ended)."""
        state = LiniellCompiledState(self.final_states[i].copy())
        if state.data[NUM_PLAYERS] == 0:
            return None
        return self.model.outcome(state)

    def state(self, i: int) -> LiniellCompiledState:
        """A copy of game ``i``'s state, for the model's text, pictures and checks."""
        return LiniellCompiledState(self.states[i].copy())


__all__ = ["LiniellBatch"]
