"""The public arrays every batched stepper fills (the batched API's contract, documented in
:mod:`tabletop_rl.envs.vector`), allocated in one place for every backend."""

from __future__ import annotations

import json
from typing import Any, NamedTuple, TypeVar

import numpy as np

from ..errors import ConfigError
from .checks import check_int, check_seed
from .model import Ending, Outcome

REWARDS = ("win", "score")
"""Reward modes of the batched API."""
MAX_THREADS = 64
"""The most threads a batch may be spread over."""


def check_batch_options(
    num_envs: Any, seed: Any, threads: Any, reward: Any
) -> tuple[int, int, int]:
    """``(num_envs, seed, threads)`` as ints, or a clear :class:`ConfigError` naming the
    option and what is allowed (``reward`` must be one of :data:`REWARDS`).

    >>> check_batch_options(256, 0, 1, "win")
    (256, 0, 1)
    """
    num_envs = check_int("num_envs", num_envs, 1)
    seed = check_seed(seed)
    threads = check_int("threads", threads, 1, MAX_THREADS)
    if reward not in REWARDS:
        raise ConfigError(f"reward={reward!r} is not allowed; allowed: {', '.join(REWARDS)}")
    return num_envs, seed, threads


def check_active(active: Any, num_envs: int) -> np.ndarray:
    """``active`` (which games a step plays) as an ``(N,)`` bool array: all True for None,
    or a clear :class:`ConfigError`.

    >>> check_active(None, 2).tolist(), check_active([True, False], 2).tolist()
    ([True, True], [True, False])
    """
    if active is None:
        return np.ones(num_envs, dtype=np.bool_)
    rows = np.asarray(active)
    if rows.shape != (num_envs,) or rows.dtype != np.bool_:
        raise ConfigError(
            f"active must be {num_envs} bools (one per game), got shape {rows.shape} of "
            f"{rows.dtype}"
        )
    return rows


Rows = TypeVar("Rows", bound=tuple)


def block_rows(arrays: Rows, lo: int, hi: int) -> Rows:
    """Rows ``lo:hi`` of every member of ``arrays``, a ``NamedTuple`` of per-game arrays
    (row ``i`` of each: game ``i``), as the same ``NamedTuple``: the views one thread
    block's compiled call takes (a batch makes them once, when it is built).

    >>> out = BatchResult(*(np.arange(4) for _ in BatchResult._fields))
    >>> block_rows(out, 1, 3).rewards.tolist()
    [1, 2]
    """
    return type(arrays)(*(a[lo:hi] for a in arrays))


class BatchResult(NamedTuple):
    """What a batch's ``reset`` and ``step`` give back (:meth:`~tabletop_rl.envs.vector.\
VectorGames.step`): views of its buffers, rewritten in place by the next step. The batches'
    compiled kernels take it as one argument (numba passes a ``NamedTuple`` of arrays as
    one), the rows of a thread block (:meth:`rows`) where the games are split over
    threads."""

    observation: np.ndarray
    """``(N, observation size)`` float32: each game's observation for its seat to act."""
    action_mask: np.ndarray
    """``(N, num_actions)`` int8 (all ones for a game that just ended)."""
    current_player: np.ndarray
    """``(N,)`` int64: the seat to act in each game."""
    rewards: np.ndarray
    """``(N, players)`` float32: what each seat got from the last step."""
    terminated: np.ndarray
    """``(N,)`` bool: the game ended by its rules with the last step."""
    truncated: np.ndarray
    """``(N,)`` bool: the game was cut off by its turn limit with the last step."""
    final_observation: np.ndarray
    """``(N, observation size)``: the last observation of each slot's last finished game."""
    episode_scores: np.ndarray
    """``(N, players)``: the final scores of each slot's last finished game."""

    def rows(self, lo: int, hi: int) -> BatchResult:
        """Rows ``lo:hi`` (games ``lo`` to ``hi - 1``) of every array, as views."""
        return block_rows(self, lo, hi)


class BatchBuffers:
    """Preallocated result arrays of a batch of ``num_envs`` games, rewritten by each step
    (each array as documented in :class:`BatchResult`)."""

    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    final_observation: np.ndarray
    episode_scores: np.ndarray
    buffers: BatchResult

    state_fields: tuple[str, ...] = ()
    """The attributes that hold the batch's games beyond the public buffers (arrays, random
    generators, lists of generators, generator states or outcomes, flags): what
    :meth:`state_dict` saves. Empty: the batch cannot save its state."""

    def state_dict(self) -> dict[str, Any]:
        """Everything the batch's future depends on, as ``{"arrays": {name: copy}, "rest":
        JSON text}`` (no pickled objects): :meth:`load_state_dict` on a batch made with the
        same arguments makes it continue exactly as this one does."""
        if not self.state_fields:
            raise ConfigError(f"{type(self).__name__} cannot save its state")
        arrays = {name: getattr(self, name).copy() for name in BatchResult._fields}
        rest: dict[str, Any] = {}
        for name in self.state_fields:
            value = getattr(self, name)
            if isinstance(value, np.ndarray):
                arrays[name] = value.copy()
            else:
                rest[name] = _encode(value)
        return {"arrays": arrays, "rest": json.dumps(rest)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a :meth:`state_dict` of a batch made with the same arguments (a clear
        :class:`ConfigError`, and no change, for one of another game or size)."""
        if not self.state_fields:
            raise ConfigError(f"{type(self).__name__} cannot load a state")
        arrays, rest = state["arrays"], json.loads(state["rest"])
        names = set(BatchResult._fields) | set(self.state_fields)
        if set(arrays) | set(rest) != names:
            raise ConfigError(f"the saved state is not one of a {type(self).__name__}")
        for name, saved in arrays.items():
            saved = np.asarray(saved)
            own = getattr(self, name)
            if not isinstance(own, np.ndarray) or own.shape != saved.shape:
                raise ConfigError(
                    f"the saved state's {name!r} has shape {saved.shape}; this batch's is "
                    f"{getattr(own, 'shape', None)} (another game, size or player count)"
                )
        for name, saved in arrays.items():
            getattr(self, name)[...] = saved  # in place: compiled calls hold views of them
        for name, value in rest.items():
            setattr(self, name, _decode(value, getattr(self, name)))

    def player_info(self, seats: np.ndarray) -> dict[str, np.ndarray]:
        """The game's per-player info entries (the environment's ``infos[agent]``, as the
        game model's ``player_info`` gives them) of seat ``seats[i]`` in game ``i``, one
        array per entry; none here (a backend whose game has entries overrides this)."""
        return {}

    def result(self) -> BatchResult:
        """The buffers as a :class:`BatchResult` (views: they follow every later step)."""
        return self.buffers

    def _allocate_buffers(
        self, num_envs: int, num_players: int, obs_size: int, num_actions: int
    ) -> None:
        self.observation = np.zeros((num_envs, obs_size), dtype=np.float32)
        self.action_mask = np.zeros((num_envs, num_actions), dtype=np.int8)
        self.current_player = np.zeros(num_envs, dtype=np.int64)
        self.rewards = np.zeros((num_envs, num_players), dtype=np.float32)
        self.terminated = np.zeros(num_envs, dtype=np.bool_)
        self.truncated = np.zeros(num_envs, dtype=np.bool_)
        self.final_observation = np.zeros((num_envs, obs_size), dtype=np.float32)
        self.episode_scores = np.zeros((num_envs, num_players), dtype=np.float32)
        self.buffers = BatchResult(**{name: getattr(self, name) for name in BatchResult._fields})
        """The buffers above as one :class:`BatchResult`, as the compiled kernels take them."""


def _encode(value: Any) -> Any:
    """A batch attribute as JSON-able containers (see :meth:`BatchBuffers.state_dict`)."""
    if isinstance(value, np.random.Generator):
        return {"generator": value.bit_generator.state}
    if isinstance(value, Outcome):
        return {"outcome": [value.ending.name, list(value.winners), list(value.scores)]}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str | dict):
        return value
    raise TypeError(f"cannot save a batch attribute of type {type(value).__name__}")


def _decode(value: Any, current: Any) -> Any:
    """The attribute :func:`_encode` saved, generators restored into ``current``'s where it
    has them (the batch's own objects stay shared with whatever holds them)."""
    if isinstance(value, dict) and "generator" in value:
        state = value["generator"]
        rng = current
        if not isinstance(rng, np.random.Generator):
            rng = np.random.Generator(getattr(np.random, state["bit_generator"])())
        rng.bit_generator.state = state
        return rng
    if isinstance(value, dict) and "outcome" in value:
        ending, winners, scores = value["outcome"]
        return Outcome(Ending[ending], tuple(winners), tuple(float(s) for s in scores))
    if isinstance(value, list):
        own = current if isinstance(current, list) and len(current) == len(value) else []
        return [_decode(v, own[k] if own else None) for k, v in enumerate(value)]
    return value


__all__ = [
    "MAX_THREADS",
    "REWARDS",
    "BatchBuffers",
    "BatchResult",
    "block_rows",
    "check_active",
    "check_batch_options",
]
