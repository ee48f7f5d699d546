"""Checkpoints: written atomically, loaded with ``torch.load(..., weights_only=True)``.

A checkpoint holds only tensors and plain containers: the resolved config (a dict), the
network's and optimizer's state dicts, the step counters, the random generators' states
(torch generator state as a tensor, numpy bit-generator states as JSON strings) and the
self-play collector's state (see :meth:`SelfPlayCollector.state_dict`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

from tabletop_rl.envs.errors import ConfigError

from ..env_factory import make_env
from ..files import atomic_write
from .config import PPOConfig, config_from_dict
from .networks import build_network

CHECKPOINT_NAME = "checkpoint.pt"


def save_checkpoint(state: dict[str, Any], path: str | Path) -> None:
    """Write ``state`` to ``path`` atomically (a temporary file, then ``os.replace``)."""
    atomic_write(path, lambda f: torch.save(state, f))


def checkpoint_path(path: str | Path) -> Path:
    """The checkpoint file of a run directory (or ``path`` itself when it is a file)."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT_NAME
    if not path.is_file():
        raise ConfigError(f"no checkpoint at {str(path)!r}")
    return path


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Load a checkpoint file or a run directory's checkpoint (tensors and containers only).

    A truncated or damaged file, or one that is not a checkpoint, raises a
    :class:`ConfigError` naming the file.
    """
    file = checkpoint_path(path)
    try:
        state = torch.load(file, weights_only=True)
    except Exception as exc:  # a damaged file fails anywhere in torch's reader or unpickler
        raise ConfigError(
            f"checkpoint {str(file)!r} cannot be read; the file is truncated or damaged, or not "
            f"a checkpoint written by training (torch.load said: {exc})"
        ) from exc
    if not isinstance(state, dict) or "config" not in state:
        raise ConfigError(
            f"checkpoint {str(file)!r} holds no training state (a dict with a 'config'); "
            "was it written by tabletop-rl's PPO training?"
        )
    return state


def make_network(cfg: PPOConfig) -> nn.Module:
    """The network a config describes, for its environment, initialised from its seed."""
    env = make_env(cfg.env, **cfg.env_kwargs)
    return build_network(
        cfg.network,
        env.layout,
        env.action_layout(),
        env.info.num_actions,
        cfg.conv_channels,
        cfg.hidden_sizes,
        seed=cfg.seed,
        board_head_channels=cfg.board_head_channels,
    )


def network_from_checkpoint(state: dict[str, Any]) -> tuple[PPOConfig, nn.Module]:
    """The config and the trained network stored in a loaded checkpoint."""
    cfg = config_from_dict(state["config"])
    net = make_network(cfg)
    net.load_state_dict(state["model"])
    net.eval()
    return cfg, net
