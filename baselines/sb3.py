"""Stable-Baselines3 self-play: one SB3 learner plays every seat (``pip install -e ".[sb3]"``).

:class:`SelfPlayVecEnv` is an SB3 ``VecEnv`` over
:class:`tabletop_rl.envs.core.self_play.SelfPlayBatch` (the games in one compiled batch; the
same games as the game-by-game :class:`~tabletop_rl.envs.core.self_play.SelfPlayGames`,
step for step): each seat of each game is one of its
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

:class:`GymnasiumVecEnv` hands SB3 any Gymnasium vector environment with same-step
autoreset, above all the compiled batch of ``gymnasium.make_vec`` (one learner seat per
game, the opponents' moves inside the step, :mod:`tabletop_rl.envs.gym_vector`)::

    import gymnasium
    from gymnasium.vector import AutoresetMode
    from tabletop_rl.baselines.sb3 import GymnasiumVecEnv

    envs = gymnasium.make_vec("tabletop_rl/Liniell-v0", num_envs=64, opponent="random",
                              autoreset_mode=AutoresetMode.SAME_STEP)
    model = MaskablePPO("MlpPolicy", GymnasiumVecEnv(envs), n_steps=64, device="cpu")
    model.learn(total_timesteps=100_000)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from tabletop_rl.envs.core.self_play import SelfPlayBatch
from tabletop_rl.envs.errors import ConfigError

_METHODS = ("action_masks",)


class _MaskedVecEnv(VecEnv):
    """SB3's sub-environment plumbing for a batch whose only method is ``action_masks``."""

    def action_masks(self) -> np.ndarray:
        raise NotImplementedError

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
            raise AttributeError(
                f"{type(self).__name__} sub-environments have no method {method_name!r}"
            )
        masks = self.action_masks()
        return [masks[i] for i in self._indices(indices)]

    def get_attr(self, attr_name: str, indices: int | Iterable[int] | None = None) -> list[Any]:
        if attr_name in _METHODS:
            return [getattr(self, attr_name) for _ in self._indices(indices)]
        if attr_name == "render_mode":
            return [None for _ in self._indices(indices)]
        raise AttributeError(
            f"{type(self).__name__} sub-environments have no attribute {attr_name!r}"
        )

    def set_attr(
        self, attr_name: str, value: Any, indices: int | Iterable[int] | None = None
    ) -> None:
        raise AttributeError(f"{type(self).__name__} sub-environments cannot set {attr_name!r}")

    def env_is_wrapped(
        self, wrapper_class: type, indices: int | Iterable[int] | None = None
    ) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        self._seeds = [seed] * self.num_envs
        return self._seeds


class SelfPlayVecEnv(_MaskedVecEnv):
    """Every seat of ``num_games`` games of ``env_name`` as one SB3 sub-environment each.

    Keyword arguments (``num_players``, ``reward``, ...) go to the game's constructor.
    ``seed`` seeds the first reset (SB3's ``env.seed(s)`` also works, before a reset).
    """

    def __init__(
        self, env_name: str, num_games: int = 1, seed: int | None = None, **env_kwargs: Any
    ) -> None:
        self.games = SelfPlayBatch(env_name, num_games, **env_kwargs)
        super().__init__(
            self.games.num_slots, self.games.observation_space, self.games.action_space
        )
        self.env_name = env_name
        self._seed = seed
        self._actions: np.ndarray | None = None

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

    def close(self) -> None:
        self.games.close()


class GymnasiumVecEnv(_MaskedVecEnv):
    """An SB3 ``VecEnv`` over a Gymnasium vector environment ``envs`` whose autoreset mode
    is ``SAME_STEP`` (SB3's own convention), with ``action_masks()`` for MaskablePPO.

    An episode's last observation goes to ``infos[i]["terminal_observation"]`` and
    ``"TimeLimit.truncated"`` says whether it was cut off, as SB3's own vector environments
    say it; an ``illegal_action`` entry of the episode's last info is kept. SB3's
    ``env.seed(s)`` seeds the next reset (sub-environment ``i`` with ``s + i``).
    """

    def __init__(self, envs: gymnasium.vector.VectorEnv) -> None:
        mode = envs.metadata.get("autoreset_mode")
        if mode != AutoresetMode.SAME_STEP:
            raise ConfigError(
                f"GymnasiumVecEnv needs a vector env with AutoresetMode.SAME_STEP, got {mode}; "
                "make it with autoreset_mode=AutoresetMode.SAME_STEP (vector_kwargs= for sync)"
            )
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)
        self.envs = envs
        self._masks = np.zeros((envs.num_envs, int(envs.single_action_space.n)), dtype=np.int8)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        seeds = None if self._seeds[0] is None else list(self._seeds)
        obs, info = self.envs.reset(seed=seeds)
        self._masks = info["action_mask"]
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        self._seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        return self._seeds

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        obs, rewards, terminated, truncated, info = self.envs.step(self._actions)
        self._actions = None
        self._masks = info["action_mask"]
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        dones = terminated | truncated
        last = info.get("final_info", {})
        for i in np.flatnonzero(dones).tolist():
            infos[i]["terminal_observation"] = info["final_obs"][i]
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if last.get("_illegal_action", np.zeros(0, bool))[i : i + 1].any():
                infos[i]["illegal_action"] = last["illegal_action"][i]
        return obs, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """Every sub-environment's mask (``int8`` rows)."""
        return np.asarray(self._masks, dtype=np.int8)

    def close(self) -> None:
        self.envs.close()


__all__ = ["GymnasiumVecEnv", "SelfPlayVecEnv"]
