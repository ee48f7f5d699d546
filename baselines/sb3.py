"""Stable-Baselines3 self-play: one SB3 learner plays every seat (``pip install -e ".[sb3]"``).

:class:`SelfPlayVecEnv` is an SB3 ``VecEnv`` over
:class:`tabletop_rl.envs.core.self_play.SelfPlayGames`: each seat of each game is one of its
sub-environments, so SB3's rollout buffer keeps one stream per seat and computes every seat's
returns from that seat's own rewards. The exact rules (which action a waiting seat sends,
what reward a step returns, how discounting and autoreset work) are in that module's
docstring; in short, slot ``(game, seat)`` receives at each step exactly the reward the game
gave that seat for that step's decision, and waiting seats' samples carry no policy gradient.

``action_masks()`` is served through ``env_method``, so SB3-contrib's ``MaskablePPO`` picks
only legal actions::

    from sb3_contrib import MaskablePPO
    from tabletop_rl.baselines.sb3 import SelfPlayVecEnv

    env = SelfPlayVecEnv("liniell_v0", num_games=4, num_players=2, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=256, device="cpu")
    model.learn(total_timesteps=20_000)

The trained policy plays any seat: ``model.predict(obs, action_masks=mask)`` with a single
seat's observation and mask (e.g. through :class:`tabletop_rl.envs.core.SingleAgentEnv`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from tabletop_rl.envs import make
from tabletop_rl.envs.core.self_play import SelfPlayGames

_METHODS = ("action_masks",)


class SelfPlayVecEnv(VecEnv):
    """Every seat of ``num_games`` games of ``env_name`` as one SB3 sub-environment each.

    Keyword arguments (``num_players``, ``reward``, ...) go to the game's constructor.
    ``seed`` seeds the first reset (SB3's ``env.seed(s)`` also works, before a reset).
    """

    def __init__(
        self, env_name: str, num_games: int = 1, seed: int | None = None, **env_kwargs: Any
    ) -> None:
        self.games = SelfPlayGames(lambda: make(env_name, raw=True, **env_kwargs), num_games)
        super().__init__(
            self.games.num_slots, self.games.observation_space, self.games.action_space
        )
        self.env_name = env_name
        self._seed = seed
        self._actions: np.ndarray | None = None

    # ------------------------------------------------------------------ stepping
    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds[0] is not None else self._seed
        obs, _masks = self.games.reset(seed=seed)
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        obs, rewards, terminated, truncated, infos = self.games.step(self._actions)
        self._actions = None
        for info, cut, done in zip(infos, truncated, terminated, strict=True):
            if "final_obs" in info:  # SB3's names for the last observation of an episode
                info["terminal_observation"] = info.pop("final_obs")
                info["TimeLimit.truncated"] = bool(cut and not done)
        return obs, rewards, terminated | truncated, infos

    def action_masks(self) -> np.ndarray:
        """Every sub-environment's mask (``int8`` rows)."""
        return self.games.action_masks()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        self._seeds = [seed] * self.num_envs
        return self._seeds

    def close(self) -> None:
        for game in self.games.games:
            game.close()

    # ------------------------------------------------- VecEnv attribute plumbing
    def _indices(self, indices: int | Iterable[int] | None) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: int | Iterable[int] | None = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        if method_name not in _METHODS:
            raise AttributeError(f"SelfPlayVecEnv sub-environments have no method {method_name!r}")
        masks = self.games.action_masks()
        return [masks[i] for i in self._indices(indices)]

    def get_attr(self, attr_name: str, indices: int | Iterable[int] | None = None) -> list[Any]:
        if attr_name in _METHODS:
            return [getattr(self, attr_name) for _ in self._indices(indices)]
        if attr_name == "render_mode":
            return [None for _ in self._indices(indices)]
        raise AttributeError(f"SelfPlayVecEnv sub-environments have no attribute {attr_name!r}")

    def set_attr(
        self, attr_name: str, value: Any, indices: int | Iterable[int] | None = None
    ) -> None:
        raise AttributeError(f"SelfPlayVecEnv sub-environments cannot set {attr_name!r}")

    def env_is_wrapped(
        self, wrapper_class: type, indices: int | Iterable[int] | None = None
    ) -> list[bool]:
        return [False for _ in self._indices(indices)]


__all__ = ["SelfPlayVecEnv"]
