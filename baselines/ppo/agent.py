"""A trained PPO policy as an :class:`~tabletop_rl.baselines.agents.Agent`.

``load_ppo_agent(path, env_name, rng)`` reads a run directory's checkpoint (or a checkpoint
file) and returns an agent that plays the most probable legal action (``greedy=True``,
default) or samples from the masked policy with ``rng``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import nn

from tabletop_rl.envs.errors import ConfigError

from .checkpoint import load_checkpoint, network_from_checkpoint
from .distributions import MaskedCategorical


class PPOAgent:
    """Acts with a trained actor-critic on the observation and its mask."""

    def __init__(
        self, net: nn.Module, rng: np.random.Generator, greedy: bool = True, name: str = "ppo"
    ) -> None:
        self.net = net.eval()
        self.rng = rng
        self.greedy = greedy
        self.name = name

    @torch.no_grad()
    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        obs = torch.as_tensor(np.asarray(observation["observation"], np.float32))[None]
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
    cfg, net = network_from_checkpoint(load_checkpoint(path))
    if cfg.env != env_name:
        raise ConfigError(f"checkpoint {path!r} was trained on {cfg.env!r}, not {env_name!r}")
    return PPOAgent(net, rng, greedy=greedy, name=f"ppo:{path}")
