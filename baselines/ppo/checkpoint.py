"""Checkpoints: written atomically, loaded with ``torch.load(..., weights_only=True)``.

A checkpoint holds only tensors and plain containers: the resolved config (a dict), the
network's and optimizer's state dicts, the step counters, the random generators' states
(torch generator state as a tensor, numpy bit-generator states as JSON strings) and the
self-play collector's state (see :meth:`.batched.BatchedCollector.state_dict`).

Every checkpoint also carries the *observation version* of the environment it was trained on
(``observation_version``: :func:`tabletop_rl.envs.core.features.observation_version`, named
in each environment's version history). Building a network from a checkpoint, ``init_from``
and ``--resume`` check it against the version the environment observes now: a policy trained
on another version fails with an :class:`~tabletop_rl.envs.errors.ObservationVersionError`
naming both, before its weights are read (they might fit an observation whose fields moved).

A *policy file* (:func:`export_policy`) keeps only what playing needs: the config, the
observation version, the network's weights, and where in training they come from. The
package ships one per game, named ``pretrained/<env name>`` wherever a checkpoint path is
taken (``ppo:pretrained/liniell_v0`` in the arena and ``play``, ``tabletop-rl evaluate
pretrained/liniell_v0``, ``init_from``).

>>> pretrained_path("pretrained/chess_v0")
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ConfigError: no pretrained policy 'chess_v0'; shipped: ...
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

from tabletop_rl.envs.core.aec import TabletopAECEnv
from tabletop_rl.envs.core.files import atomic_write
from tabletop_rl.envs.errors import ConfigError, ObservationVersionError
from tabletop_rl.envs.registry import make

from .config import PPOConfig, config_from_dict
from .networks import build_network

CHECKPOINT_NAME = "checkpoint.pt"
PRETRAINED_PREFIX = "pretrained/"
"""Paths starting with this name a policy shipped with the package."""
PRETRAINED_DIR = Path(__file__).resolve().parent.parent / "pretrained"
"""Where the shipped policies live (``tabletop_rl/baselines/pretrained/<env name>.pt``)."""
VERSION_KEY = "observation_version"
"""The checkpoint entry that holds the observation version its network was trained on."""
POLICY_KEYS = (
    "config",
    VERSION_KEY,
    "model",
    "update",
    "global_step",
    "time",
    "cpu_time",
    "eval_time",
)
"""What a policy file keeps of a checkpoint."""


def shipped_policies() -> list[str]:
    """The environments with a pretrained policy in the package."""
    return sorted(p.stem for p in PRETRAINED_DIR.glob("*.pt"))


def pretrained_path(name: str) -> Path:
    """The file of the shipped policy ``pretrained/<env name>`` (a ConfigError if none)."""
    env = name[len(PRETRAINED_PREFIX) :] if name.startswith(PRETRAINED_PREFIX) else name
    path = PRETRAINED_DIR / f"{env}.pt"
    if not path.is_file():
        raise ConfigError(
            f"no pretrained policy {env!r}; shipped: {', '.join(shipped_policies()) or 'none'}"
        )
    return path


def save_checkpoint(state: dict[str, Any], path: str | Path) -> None:
    """Write ``state`` to ``path`` atomically (a temporary file, then ``os.replace``)."""
    atomic_write(path, lambda f: torch.save(state, f))


def checkpoint_path(path: str | Path) -> Path:
    """The checkpoint file of a run directory (or ``path`` itself when it is a file; or the
    shipped policy for ``pretrained/<env name>``)."""
    if str(path).startswith(PRETRAINED_PREFIX) and not Path(path).exists():
        return pretrained_path(str(path))
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


def make_network(cfg: PPOConfig, env: TabletopAECEnv | None = None) -> nn.Module:
    """The network a config describes, for its environment (``env``, if already built from
    the config), initialised from its seed."""
    if env is None:
        env = make(cfg.env, raw=True, **cfg.env_kwargs)
    return build_network(
        cfg.network,
        env.layout,
        env.action_layout(),
        env.info.num_actions,
        cfg.conv_channels,
        cfg.hidden_sizes,
        seed=cfg.seed,
        board_head_channels=cfg.board_head_channels,
        action_features=cfg.action_features,
    )


def check_observation_version(
    state: dict[str, Any], cfg: PPOConfig, source: str, env: TabletopAECEnv | None = None
) -> None:
    """An :class:`ObservationVersionError` naming both versions unless the loaded checkpoint
    ``state`` (read from ``source``, named in the error) was trained on the observation
    version that ``cfg``'s environment (``env``, if already built from ``cfg``) has now; a
    checkpoint without one (written before policies recorded it) fails too.

    >>> from tabletop_rl.baselines.ppo.toy import TicTacToeEnv
    >>> cfg = config_from_dict({"env": "tabletop_rl.baselines.ppo.toy:TicTacToeEnv"})
    >>> state = {VERSION_KEY: TicTacToeEnv().observation_version}
    >>> check_observation_version(state, cfg, "policy.pt")
    >>> check_observation_version({VERSION_KEY: "tictactoe/obs0/00000000"}, cfg, "policy.pt")
    Traceback (most recent call last):
    ...
    tabletop_rl.envs.errors.ObservationVersionError: policy.pt was trained on observation \
version 'tictactoe/obs0/00000000', but tabletop_rl.baselines.ppo.toy:TicTacToeEnv with \
env_kwargs {} observes version 'tictactoe/obs1/...' now: the observation changed since (see \
the environment's version history); retrain it, or load it with the release that wrote it
    """
    if env is None:
        env = make(cfg.env, raw=True, **cfg.env_kwargs)
    current = env.observation_version
    saved = state.get(VERSION_KEY)
    if saved == current:
        return
    if saved is None:
        trained = "carries no observation version (written before policies recorded one)"
        why = "it may have been trained on an observation that has changed since"
    else:
        trained = f"was trained on observation version {saved!r}"
        why = "the observation changed since"
    raise ObservationVersionError(
        f"{source} {trained}, but {cfg.env} with env_kwargs {cfg.env_kwargs} observes version "
        f"{current!r} now: {why} (see the environment's version history); retrain it, or "
        f"load it with the release that wrote it"
    )


def network_from_checkpoint(
    state: dict[str, Any], source: str = "the checkpoint"
) -> tuple[PPOConfig, nn.Module]:
    """The config and the trained network stored in a loaded checkpoint (read from
    ``source``, named in errors). An :class:`ObservationVersionError` when it was trained on
    another observation version than its environment has now, a ConfigError when the
    network its config builds today does not take its weights."""
    cfg = config_from_dict(state["config"])
    env = make(cfg.env, raw=True, **cfg.env_kwargs)
    check_observation_version(state, cfg, source, env)
    net = make_network(cfg, env)
    try:
        net.load_state_dict(state["model"])
    except RuntimeError as exc:
        raise ConfigError(
            f"{source}'s weights do not fit the {cfg.network} network that {cfg.env} with "
            f"env_kwargs {cfg.env_kwargs} needs in this version: the observation changed "
            f"since it was trained (see the environment's version history); retrain it, or "
            f"load it with the version that wrote it. torch said: {str(exc).splitlines()[-1]}"
        ) from None
    net.eval()
    return cfg, net


def export_policy(source: str | Path, out: str | Path) -> dict[str, Any]:
    """Write the policy file of checkpoint ``source`` (run folder or file) to ``out``
    atomically: the config and network weights only (see the module docstring)."""
    state = load_checkpoint(source)
    policy = {key: state[key] for key in POLICY_KEYS if key in state}
    save_checkpoint(policy, out)
    return policy


def load_weights(net: nn.Module, source: str, cfg: PPOConfig) -> dict[str, Any]:
    """Load the network weights of checkpoint ``source`` into ``net`` (built from ``cfg``);
    a ConfigError when the checkpoint was trained on another environment, observation
    version (:class:`ObservationVersionError`) or network."""
    state = load_checkpoint(source)
    theirs = config_from_dict(state["config"])
    if (theirs.env, theirs.env_kwargs) != (cfg.env, cfg.env_kwargs):
        raise ConfigError(
            f"init_from {source!r}: the checkpoint was trained on {theirs.env} with env_kwargs "
            f"{theirs.env_kwargs}, this run is {cfg.env} with {cfg.env_kwargs}"
        )
    check_observation_version(state, cfg, f"init_from {source!r}: the checkpoint")
    try:
        net.load_state_dict(state["model"])
    except RuntimeError as exc:
        raise ConfigError(
            f"init_from {source!r}: the checkpoint's network ({theirs.network}, conv_channels "
            f"{theirs.conv_channels}, hidden_sizes {theirs.hidden_sizes}) does not fit this run's "
            f"({cfg.network}, {cfg.conv_channels}, {cfg.hidden_sizes}): {exc}"
        ) from None
    return state
