"""The public arrays every batched stepper fills (the batched API's contract, documented in
:mod:`tabletop_rl.envs.vector`), allocated in one place for every backend."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..errors import ConfigError

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
    for name, value, low in (("num_envs", num_envs, 1), ("seed", seed, 0), ("threads", threads, 1)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise ConfigError(f"{name}={value!r} is not allowed; allowed: an int >= {low}")
    if threads > MAX_THREADS:
        raise ConfigError(f"threads={threads} is not allowed; allowed: 1 to {MAX_THREADS}")
    if reward not in REWARDS:
        raise ConfigError(f"reward={reward!r} is not allowed; allowed: {', '.join(REWARDS)}")
    return int(num_envs), int(seed), int(threads)


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


@dataclass(frozen=True)
class BatchResult:
    """What a batch's ``reset`` and ``step`` give back (:meth:`~tabletop_rl.envs.vector.\
VectorGames.step`): views of its buffers, rewritten in place by the next step."""

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

    def player_info(self, seats: np.ndarray) -> dict[str, np.ndarray]:
        """The game's per-player info entries (the environment's ``infos[agent]``, as the
        game model's ``player_info`` gives them) of seat ``seats[i]`` in game ``i``, one
        array per entry; none here (a backend whose game has entries overrides this)."""
        return {}

    def result(self) -> BatchResult:
        """The buffers as a :class:`BatchResult` (views: they follow every later step)."""
        return BatchResult(**{f.name: getattr(self, f.name) for f in fields(BatchResult)})

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


__all__ = [
    "MAX_THREADS",
    "REWARDS",
    "BatchBuffers",
    "BatchResult",
    "check_active",
    "check_batch_options",
]
