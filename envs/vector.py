"""Batched stepping: many games of one kind stepped together, in the style of Pgx and EnvPool.

::

    from tabletop_rl.envs.vector import VectorGames
    games = VectorGames("liniell_v0", num_envs=256, num_players=2, seed=0, threads=1)
    out = games.reset()        # out.observation (N, ...), out.action_mask (N, A),
                               # out.current_player (N,)
    out = games.step(actions)  # the same, plus out.rewards (N, players), out.terminated (N,),
                               # out.truncated (N,)

Conventions (the same for every game and backend):

- The observation of game ``i`` is that of ``current_player[i]``, the seat to act, in the
  layout of the game's environment (``float32``; the documented space says which values
  occur).
- **Rewards** (``reward="win"``, the default): 0 during a game; on the step that ends it,
  +1 to each winner and -1 to every other seat, 0 to all on a full tie or a truncation.
  ``reward="score"``: every step, the points each seat scored with it.
- **Autoreset on the next step**: a game that ended has ``terminated[i]`` (or
  ``truncated[i]``) set, its final observation also in ``final_observation[i]``, its final
  scores in ``episode_scores[i]`` and its outcome in :meth:`VectorGames.outcome`; its
  action-mask row is all ones (so a sampler never meets an empty row) and the action given
  for it on the next step is ignored: that step starts the slot's next game instead.
- **Seeds**: slot ``i`` deals its games from ``numpy.random.default_rng([seed, i])``, one
  ``new_state`` per game in order, so a batch of N equals N single games of the game model
  dealt from those generators and stepped with the same actions.
- The result's arrays are the batch's own buffers, rewritten by every step: read or copy
  them, never write into them.
- **Some games only**: ``step(actions, active=mask)`` plays only the games where ``mask``
  is True; the others are left as they are (their rows keep what the step before wrote, and
  their actions are not read). :meth:`VectorGames.restart` starts a slot's next game from a
  generator the caller gives (a game in progress there is dropped), on the slot's next step
  as after a game's end; the slot deals from that generator from then on. With both, a
  caller can play each game at its own pace (the Gymnasium vector environment of
  :mod:`tabletop_rl.envs.gym_vector` plays the opponents' moves this way).

Backends: Liniell, Qwirkle and Qwirkle Cards run on their compiled cores (one compiled call
per step for the whole batch, ``threads`` > 1 spreading the games over threads) where
available; the other games step their game models one by one into the same buffers
(``threads`` is then ignored). ``engine="reference"`` forces the game-model backend, and so
does an environment option (``**env_kwargs``) that the compiled core does not declare in its
``env_options`` (Qwirkle's and Qwirkle Cards' declare ``features``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .core.aec import TabletopAECEnv
from .core.batch import BatchBuffers, BatchResult, check_active, check_batch_options
from .core.model import GameModel, Outcome, check_engine
from .errors import ConfigError, IllegalActionError
from .games import GAMES_BY_NAME, resolve
from .registry import make


class ModelBatch(BatchBuffers):
    """N games of any :class:`~.core.model.GameModel`, stepped one by one into shared
    buffers with the batched API's conventions (module docstring)."""

    def __init__(self, model: GameModel, num_envs: int, seed: int, reward: str = "win") -> None:
        self.model = model
        self.num_envs = num_envs
        self.reward = reward
        self._allocate_buffers(
            num_envs, model.num_players, model.layout.size, model.info.num_actions
        )
        self._rngs = [np.random.default_rng([seed, i]) for i in range(num_envs)]
        self._states: list[Any] = [None] * num_envs
        self._outcomes: list[Outcome | None] = [None] * num_envs
        self._done = np.ones(num_envs, dtype=np.bool_)
        self._started = False

    def _show(self, i: int) -> None:
        state = self._states[i]
        player = self.model.current_player(state)
        self.current_player[i] = player
        self.model.observe_unchecked(state, player, self.observation[i])

    def _start(self, i: int) -> None:
        self._states[i] = self.model.new_state(self._rngs[i])
        self._done[i] = False
        self.action_mask[i] = self.model.legal_mask_unchecked(self._states[i])
        self._show(i)

    def reset(self) -> None:
        """Start the next game in every slot."""
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        for i in range(self.num_envs):
            self._start(i)
        self._started = True

    def restart(self, slots: Sequence[int], generators: Sequence[np.random.Generator]) -> None:
        """Start the next game of each slot in ``slots`` from the generator at the same place
        in ``generators`` on the slot's next step (module docstring)."""
        for i, rng in zip(slots, generators, strict=True):
            self._rngs[i] = rng
            self.action_mask[i] = 1  # as after a game's end: the next action is ignored
            self._done[i] = True

    def state(self, i: int) -> Any:
        """A copy of game ``i``'s state."""
        return self.model.copy(self._states[i])

    def player_info(self, seats: np.ndarray) -> dict[str, np.ndarray]:
        """The model's ``player_info`` of seat ``seats[i]`` in game ``i``, one array per entry."""
        pairs = zip(self._states, seats, strict=True)
        infos = [self.model.player_info(state, int(seat)) for state, seat in pairs]
        return {key: np.array([info[key] for info in infos]) for key in infos[0]}

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        """Play ``actions[i]`` in game ``i`` (legal by ``action_mask``; ignored for a game
        that ended on the previous step, which starts anew instead); with ``active``, only
        in the games where it is True."""
        if not self._started:
            raise ConfigError("call reset() before step()")
        rows = check_active(active, self.num_envs)
        actions = _check_actions(actions, self.action_mask, self.model, rows)
        model = self.model
        self.rewards[rows] = 0
        self.terminated[rows] = False
        self.truncated[rows] = False
        for i in np.flatnonzero(rows):
            if self._done[i]:
                self._start(i)
                continue
            state = self._states[i]
            result = model.step_unchecked(state, int(actions[i]))
            if self.reward == "score":
                for p, points in result.points.items():
                    self.rewards[i, p] += points
            if result.game_over or result.truncated:
                outcome = model.outcome(state)
                assert outcome is not None
                self._outcomes[i] = outcome
                if self.reward == "win":
                    self.rewards[i] += outcome.win_rewards()
                self.terminated[i] = result.game_over
                self.truncated[i] = result.truncated
                self._show(i)
                self.final_observation[i] = self.observation[i]
                self.episode_scores[i] = outcome.scores
                self.action_mask[i] = 1
                self._done[i] = True
            else:
                self.action_mask[i] = model.legal_mask_unchecked(state)
                self._show(i)

    def outcome(self, i: int) -> Outcome | None:
        """How the last finished game of slot ``i`` ended (None before any ended)."""
        return self._outcomes[i]


def _check_actions(
    actions: Any, mask: np.ndarray, model: GameModel, rows: np.ndarray
) -> np.ndarray:
    """``actions`` as an ``(N,)`` int array, each of the ``rows`` legal by ``mask``, or a
    clear error."""
    actions = np.asarray(actions)
    n, num_actions = mask.shape
    if actions.shape != (n,) or not np.issubdtype(actions.dtype, np.integer):
        raise IllegalActionError(
            f"actions must be {n} integers (one per game), got shape {actions.shape} of "
            f"{actions.dtype}"
        )
    bad = np.flatnonzero(rows & ((actions < 0) | (actions >= num_actions)))
    if bad.size:
        i = int(bad[0])
        raise IllegalActionError(
            f"game {i}: action {int(actions[i])} is out of range; allowed: 0 to {num_actions - 1}"
        )
    illegal = np.flatnonzero(rows & (mask[np.arange(n), np.where(rows, actions, 0)] == 0))
    if illegal.size:
        i = int(illegal[0])
        raise IllegalActionError(
            f"game {i}: action {int(actions[i])} "
            f"({model.describe_action(None, int(actions[i]))}) is illegal: its action-mask "
            "entry is 0"
        )
    return actions


def _compiled_backend(name: str) -> type | None:
    """The compiled batch of registered environment ``name`` (its
    :class:`~.games.GameSpec`'s), or None: none, or the compiled core cannot be imported."""
    spec = GAMES_BY_NAME.get(name)
    if spec is None or spec.compiled_batch is None:
        return None
    try:
        return resolve(spec.compiled_batch, "compiled batch")
    except ConfigError:  # the compiled core is optional at run time (numba missing)
        return None


class VectorGames:
    """``num_envs`` games of environment ``name`` stepped together (module docstring).

    >>> games = VectorGames("qwirkle_cards_v0", num_envs=3, num_players=2, seed=0)
    >>> out = games.reset()
    >>> out.observation.shape, out.action_mask.shape, out.current_player.shape
    ((3, 225), (3, 50), (3,))
    >>> out = games.step(np.argmax(out.action_mask, axis=1))
    >>> out.rewards.shape, bool(out.terminated.any())
    ((3, 2), False)
    """

    def __init__(
        self,
        name: str,
        num_envs: int,
        num_players: int = 2,
        seed: int = 0,
        threads: int = 1,
        *,
        reward: str = "win",
        engine: str = "compiled",
        **env_kwargs: Any,
    ) -> None:
        num_envs, seed, threads = check_batch_options(num_envs, seed, threads, reward)
        check_engine(engine)
        raw = make(name, raw=True, num_players=num_players, **env_kwargs)
        self._build(name, raw, num_envs, seed, threads, reward, engine, env_kwargs)

    @classmethod
    def of_env(
        cls, raw: TabletopAECEnv, num_envs: int, seed: int = 0, *, reward: str = "win"
    ) -> VectorGames:
        """``num_envs`` games of a raw environment built already (a game of one's own, of
        any :class:`~.core.aec.TabletopAECEnv`), stepped one by one on its game model.

        >>> from tabletop_rl.envs.registry import make
        >>> games = VectorGames.of_env(make("liniell_v0", raw=True), num_envs=2)
        >>> games.backend, games.reset().action_mask.shape[0]
        ('reference', 2)
        """
        num_envs, seed, threads = check_batch_options(num_envs, seed, 1, reward)
        games = cls.__new__(cls)
        games._build(str(raw.info.name), raw, num_envs, seed, threads, reward, "reference", {})
        return games

    def _build(
        self,
        name: str,
        raw: TabletopAECEnv,
        num_envs: int,
        seed: int,
        threads: int,
        reward: str,
        engine: str,
        env_kwargs: dict[str, Any],
    ) -> None:
        self.name = name
        self.model: GameModel = raw.model
        self.num_envs = int(num_envs)
        self.num_players = self.model.num_players
        self.single_observation_space = raw.layout.space()
        self.num_actions = self.model.info.num_actions
        backend = _compiled_backend(name) if engine == "compiled" else None
        if backend is not None and not set(env_kwargs) <= set(getattr(backend, "env_options", ())):
            backend = None  # an option the compiled core does not take: the game model's
        if backend is not None:
            self._batch: Any = backend(
                num_envs=self.num_envs,
                num_players=self.num_players,
                seed=int(seed),
                threads=int(threads),
                reward=reward,
                **env_kwargs,
            )
            self.backend = "compiled"
        else:
            self._batch = ModelBatch(self.model, self.num_envs, int(seed), reward)
            self.backend = "reference"
        self._result = self._batch.result()

    def reset(self) -> BatchResult:
        """Start a new game in every slot."""
        self._batch.reset()
        return self._result

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> BatchResult:
        """Play ``actions[i]`` in game ``i`` (see the module docstring for finished games);
        with ``active``, only in the games where it is True."""
        self._batch.step(actions, active)
        return self._result

    @property
    def plays_random_opponents(self) -> bool:
        """Whether :meth:`step_versus_random` runs compiled here (the compiled cores)."""
        return hasattr(self._batch, "step_versus_random")

    def step_versus_random(
        self, actions: np.ndarray, active: np.ndarray, seats: np.ndarray, opponents: Any
    ) -> BatchResult:
        """:meth:`step`, then in each active game the seats other than ``seats[i]`` move until
        that seat is to act or the game is over, each uniformly at random among its legal
        actions from its generator in ``opponents`` (a
        :class:`~tabletop_rl.envs.core.batch_policy.GameGenerators`, one per game and other
        seat, in seat order skipping ``seats[i]``), exactly as ``Generator.choice`` of the
        legal actions draws; in one compiled call. ``rewards`` then holds each seat's sum
        over every move played. Only where :attr:`plays_random_opponents`."""
        if not self.plays_random_opponents:
            raise ConfigError(
                f"{self.name}'s {self.backend} backend does not play random opponents itself"
            )
        rows = check_active(active, self.num_envs)
        seats = np.asarray(seats, dtype=np.int64)
        if (
            seats.shape != (self.num_envs,)
            or not ((seats[rows] >= 0) & (seats[rows] < self.num_players)).all()
        ):
            raise ConfigError(
                f"seats must be {self.num_envs} seats from 0 to {self.num_players - 1}"
            )
        self._batch.step_versus_random(actions, rows, seats, opponents.bitgens(rows))
        return self._result

    def restart(self, slots: Sequence[int], generators: Sequence[np.random.Generator]) -> None:
        """Start the next game of each slot in ``slots`` from the generator at the same place
        in ``generators``, on the slot's next step (module docstring). Call :meth:`reset`
        first."""
        slots = [int(i) for i in slots]
        if not all(0 <= i < self.num_envs for i in slots):
            raise ConfigError(f"slots must be games 0 to {self.num_envs - 1}, got {slots}")
        generators = list(generators)
        if len(generators) != len(slots) or not all(
            isinstance(g, np.random.Generator) for g in generators
        ):
            raise ConfigError("restart needs one numpy.random.Generator per slot")
        self._batch.restart(slots, generators)

    def close(self) -> None:
        """Stop the backend's worker threads, if it has any (``threads`` > 1); the games
        must not be stepped afterwards."""
        close = getattr(self._batch, "close", None)
        if callable(close):
            close()

    def state(self, i: int) -> Any:
        """A copy of game ``i``'s state as the game model's (:attr:`model`) state."""
        return self._batch.state(i)

    def observe(self, i: int, seat: int) -> np.ndarray:
        """Seat ``seat``'s observation of game ``i`` (a new array, the environment's layout)."""
        return self.model.observe(self._batch.state(i), seat)

    @property
    def observes_in_place(self) -> bool:
        """Whether :meth:`observe_all` with ``fresh`` updates ``out`` from what the previous
        call wrote there (Liniell's compiled core), rather than writing every row whole."""
        return bool(getattr(self._batch, "observe_all_updates", False))

    def observe_all(
        self, out: np.ndarray, rows: np.ndarray | None = None, fresh: np.ndarray | None = None
    ) -> None:
        """Every seat's observation of each game (of those where ``rows`` is True): seat
        ``p``'s view of game ``i`` into ``out[i, p]`` (``(N, players, size)`` float32), in
        one compiled call where the backend has one, else game by game through the model.

        ``fresh`` (bools, one per game) lets a backend update ``out`` rather than rewrite it:
        ``out`` must then be the buffer of the previous call with ``fresh``, and ``fresh[i]``
        set for every game that started (or was not observed) since."""
        rows = check_active(rows, self.num_envs)
        fast = getattr(self._batch, "observe_all", None)
        if fast is not None and fast(out, rows, fresh):
            return
        for i in np.flatnonzero(rows).tolist():
            state = self._batch.state(i)
            for p in range(self.num_players):
                self.model.observe(state, p, out[i, p])

    def player_info(self, seats: np.ndarray) -> dict[str, np.ndarray]:
        """The environment's per-player info entries (its ``infos[agent]``) of seat
        ``seats[i]`` in game ``i``, one array per entry."""
        return self._batch.player_info(np.asarray(seats, dtype=np.int64))

    def outcome(self, i: int) -> Outcome | None:
        """How the last finished game of slot ``i`` ended (None before any ended)."""
        return self._batch.outcome(i)

    def state_dict(self) -> dict[str, Any]:
        """Every game's state (numpy arrays and JSON text, no pickled objects), for a
        checkpoint: :meth:`load_state_dict` on games made with the same arguments continues
        exactly as these do. The compiled backends only (a :class:`ConfigError` names the
        game otherwise)."""
        if self.backend != "compiled":
            raise ConfigError(
                f"the batched games of {self.name!r} on the game-model backend cannot save "
                "their state; only the compiled backends can"
            )
        return {"name": self.name, "num_envs": self.num_envs, **self._batch.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a :meth:`state_dict` of games made with the same arguments."""
        if state.get("name") != self.name or state.get("num_envs") != self.num_envs:
            raise ConfigError(
                f"the saved games are {state.get('num_envs')} of {state.get('name')!r}; these "
                f"are {self.num_envs} of {self.name!r}"
            )
        if self.backend != "compiled":
            raise ConfigError(f"the batched games of {self.name!r} cannot load a state")
        self._batch.load_state_dict(state)


__all__ = ["BatchResult", "ModelBatch", "VectorGames"]
