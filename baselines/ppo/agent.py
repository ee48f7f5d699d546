"""A trained PPO policy as an :class:`~tabletop_rl.baselines.agents.Agent`.

``load_ppo_agent(path, env_name, rng)`` reads a run directory's checkpoint (or a checkpoint
file, or ``pretrained/<env name>``) and returns an agent that plays the most probable legal
action (``greedy=True``, default) or samples from the masked policy with ``rng``.

A policy trained with observation features (``env_kwargs: {features: true}``) needs them in
the observations it is given: its :attr:`PPOAgent.env_kwargs` says so, and the arena and
``play`` build their environment accordingly. Features are appended after the basic
observation, so a policy trained without them reads the first entries of a featured
observation and plays in the same environment as one trained with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import nn

from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.registry import game_name, make

from .checkpoint import load_checkpoint, network_from_checkpoint
from .config import PPOConfig, config_from_dict
from .distributions import MaskedCategorical


class PPOAgent:
    """Acts with a trained actor-critic on the observation and its mask."""

    needs_view = False

    def __init__(
        self,
        net: nn.Module,
        rng: np.random.Generator,
        greedy: bool = True,
        name: str = "ppo",
        obs_size: int | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        self.net = net.eval()
        self.rng = rng
        self.greedy = greedy
        self.name = name
        self.obs_size = obs_size
        """Entries of the observation the network reads (None: all)."""
        self.env_kwargs = dict(env_kwargs or {})
        """What the environment must be built with for this policy (``{"features": True}``
        for a policy trained on features, else empty)."""

    @torch.no_grad()
    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        full = np.asarray(observation["observation"], np.float32)
        if self.obs_size is not None and len(full) != self.obs_size:
            if len(full) < self.obs_size:
                raise ConfigError(
                    f"{self.name} reads observations of {self.obs_size} entries, got "
                    f"{len(full)}: "
                    + (
                        f"build the environment with {self.env_kwargs}"
                        if self.env_kwargs
                        else "it was trained on another observation of this game"
                    )
                )
            full = full[: self.obs_size]  # a featured observation starts with the basic one
        obs = torch.as_tensor(full)[None]
        mask = torch.as_tensor(np.asarray(observation["action_mask"])).bool()[None]
        logits, _ = self.net(obs)
        dist = MaskedCategorical(logits, mask)
        if self.greedy:
            return int(dist.mode()[0])
        probs = dist.probs[0].double().numpy()
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))


def load_ppo_agent(
    path: str, env_name: str, rng: np.random.Generator, greedy: bool = True
) -> PPOAgent:
    """The policy of the checkpoint at ``path`` (run directory or file) for ``env_name``."""
    cfg, net = network_from_checkpoint(load_checkpoint(path), f"checkpoint {path!r}")
    _check_game(cfg, path, env_name)
    size = make(cfg.env, raw=True, **cfg.env_kwargs).layout.size
    return PPOAgent(
        net, rng, greedy=greedy, name=f"ppo:{path}", obs_size=size, env_kwargs=_needs(cfg)
    )


def checkpoint_env_kwargs(path: str, env_name: str) -> dict[str, Any]:
    """What the environment must be built with for the policy at ``path`` to read its
    observations (:attr:`PPOAgent.env_kwargs`), read from the checkpoint's config alone:
    no network is built."""
    cfg = config_from_dict(load_checkpoint(path)["config"])
    _check_game(cfg, path, env_name)
    return _needs(cfg)


def _check_game(cfg: PPOConfig, path: str, env_name: str) -> None:
    if game_name(cfg.env) != game_name(env_name):
        raise ConfigError(f"checkpoint {path!r} was trained on {cfg.env!r}, not {env_name!r}")


def _needs(cfg: PPOConfig) -> dict[str, Any]:
    """The environment options a policy trained with ``cfg`` needs: ``{"features": True}``
    when it was trained on observation features, else none."""
    return {k: v for k, v in cfg.env_kwargs.items() if k == "features" and v}
