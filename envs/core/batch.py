"""The public arrays every batched stepper fills (the batched API's contract, documented in
:mod:`tabletop_rl.envs.vector`), allocated in one place for every backend."""

from __future__ import annotations

import numpy as np


class BatchBuffers:
    """Preallocated result arrays of a batch of ``num_envs`` games, rewritten by each step."""

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


__all__ = ["BatchBuffers"]
