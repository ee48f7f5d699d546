"""Tianshou adapters and a masked PPO recipe (``pip install -e ".[tianshou]"``).

Tianshou's convention for action masks is a dict observation ``{"obs": ..., "mask": ...}``
(``batch.obs.obs`` and ``batch.obs.mask`` in its batches). :class:`MaskedObservation` turns
the single-agent Gymnasium env (``gymnasium.make("tabletop_rl/Liniell-v0", ...)``) into that
form, and :class:`MaskedActor` / :class:`ObservationCritic` split the mask from the
observation, so Tianshou's PPO only samples legal actions (illegal logits are set to the
lowest float before the categorical distribution is built)::

    from tabletop_rl.baselines.tianshou import train_ppo

    result = train_ppo("liniell_v0", opponent="random", epochs=5, steps_per_epoch=5000)
    print(result.test_return, result.policy)

or from the command line (writes ``policy.pt`` and ``result.json`` into ``--out``; the
summary names the observation version the policy was trained on, ``observation_version``:
see :func:`tabletop_rl.envs.core.features.observation_version`)::

    python -m tabletop_rl.baselines.tianshou --env liniell_v0 --opponent greedy \\
        --epochs 10 --steps-per-epoch 10000 --out runs/tianshou_liniell
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from tianshou.algorithm import PPO
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OnPolicyTrainerParams
from torch import nn

import tabletop_rl.envs  # noqa: F401  (registers the Gymnasium ids)
from tabletop_rl.envs.core.files import atomic_write_bytes, atomic_write_text
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.registry import GYMNASIUM_IDS, game_spec


class MaskedObservation(gymnasium.Wrapper):
    """Observations as ``{"obs": observation, "mask": legal actions (bool)}`` for Tianshou.

    The mask is the wrapped env's ``info["action_mask"]``; after the episode's last step it
    is all False.
    """

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        n = int(env.action_space.n)
        self.observation_space = gymnasium.spaces.Dict(
            {"obs": env.observation_space, "mask": gymnasium.spaces.MultiBinary(n)}
        )

    @staticmethod
    def _pack(obs: np.ndarray, info: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"obs": obs, "mask": np.asarray(info["action_mask"], dtype=bool)}

    def reset(self, **kwargs: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return self._pack(obs, info), info

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._pack(obs, info), float(reward), terminated, truncated, info


def _mlp(sizes: Sequence[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


def _tensor(x: Any, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    return torch.as_tensor(np.asarray(x) if not torch.is_tensor(x) else x, device=device).to(dtype)


class MaskedActor(nn.Module):
    """Logits of an MLP over ``obs.obs``, with illegal actions (``obs.mask`` False) ruled out."""

    def __init__(self, obs_dim: int, num_actions: int, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.net = _mlp([obs_dim, *hidden, num_actions])
        self.num_actions = num_actions

    def get_output_dim(self) -> int:
        return self.num_actions

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        device = next(self.parameters()).device
        x = _tensor(obs.obs, device, torch.float32).flatten(1)
        mask = _tensor(obs.mask, device, torch.bool)
        logits = self.net(x)
        # A finished episode's row has no legal action: keep it finite (it is never sampled).
        mask = mask | ~mask.any(dim=1, keepdim=True)
        return logits.masked_fill(~mask, torch.finfo(logits.dtype).min), state


class ObservationCritic(nn.Module):
    """State value from ``obs.obs`` (the mask is ignored)."""

    def __init__(self, obs_dim: int, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.net = _mlp([obs_dim, *hidden, 1])

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> torch.Tensor:
        device = next(self.parameters()).device
        return self.net(_tensor(obs.obs, device, torch.float32).flatten(1))


def gym_id(env_name: str) -> str:
    """The Gymnasium id of ``env_name`` (``liniell_v0`` -> ``tabletop_rl/Liniell-v0``)."""
    env_id = game_spec(env_name).gymnasium_id
    if env_id is None:
        raise ConfigError(
            f"no Gymnasium id for {env_name!r}; known: {sorted(GYMNASIUM_IDS.values())}"
        )
    return env_id


def make_env(env_name: str, opponent: str = "random", num_players: int = 2) -> gymnasium.Env:
    """One learner seat (a random seat each game) against ``opponent``, masks for Tianshou."""
    env = gymnasium.make(
        gym_id(env_name), opponent=opponent, num_players=num_players, learner_seat=None
    )
    return MaskedObservation(env)


def make_ppo(env: gymnasium.Env, hidden: Sequence[int] = (256, 256), lr: float = 3e-4) -> PPO:
    """Tianshou's PPO with a masked actor and a critic for ``env`` (a :func:`make_env`)."""
    obs_dim = int(np.prod(env.observation_space["obs"].shape))
    num_actions = int(env.action_space.n)
    actor = MaskedActor(obs_dim, num_actions, hidden)
    critic = ObservationCritic(obs_dim, hidden)
    policy = DiscreteActorPolicy(
        actor=actor, action_space=env.action_space, deterministic_eval=True
    )
    return PPO(
        policy=policy,
        critic=critic,
        optim=AdamOptimizerFactory(lr=lr),
        gamma=0.99,
        gae_lambda=0.95,
        ent_coef=0.01,
        max_grad_norm=0.5,
    )


@dataclass
class TianshouResult:
    """What :func:`train_ppo` returns."""

    algorithm: PPO
    env_steps: int
    test_return: float
    test_episodes: int
    observation_version: str
    """The version of the observation the policy was trained on (the environment's)."""

    @property
    def policy(self) -> DiscreteActorPolicy:
        return self.algorithm.policy


def train_ppo(
    env_name: str = "liniell_v0",
    opponent: str = "random",
    num_players: int = 2,
    epochs: int = 5,
    steps_per_epoch: int = 5000,
    steps_per_collect: int = 1000,
    num_envs: int = 4,
    test_episodes: int = 20,
    seed: int = 0,
) -> TianshouResult:
    """Train masked PPO with Tianshou against scripted ``opponent`` and evaluate it.

    ``test_return`` is the mean return of the trained policy (most probable legal action)
    over ``test_episodes`` games against the same opponent (``reward="win"``: +1 win,
    -1 loss, 0 full tie).
    """
    torch.manual_seed(seed)
    train_envs = DummyVectorEnv(
        [lambda: make_env(env_name, opponent, num_players) for _ in range(num_envs)]
    )
    test_envs = DummyVectorEnv([lambda: make_env(env_name, opponent, num_players)])
    train_envs.seed(seed)
    test_envs.seed(seed + 10_000)
    probe = make_env(env_name, opponent, num_players)
    algorithm = make_ppo(probe)
    training_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(steps_per_collect, num_envs)
    )
    test_collector = Collector[CollectStats](algorithm, test_envs)
    stats = algorithm.run_training(
        OnPolicyTrainerParams(
            training_collector=training_collector,
            test_collector=test_collector,
            max_epochs=epochs,
            epoch_num_steps=steps_per_epoch,
            collection_step_num_env_steps=steps_per_collect,
            update_step_num_repetitions=4,
            batch_size=256,
            test_step_num_episodes=test_episodes,
            show_progress=False,
            verbose=False,
        )
    )
    test_collector.reset()
    final = test_collector.collect(n_episode=test_episodes, reset_before_collect=True)
    train_envs.close()
    test_envs.close()
    return TianshouResult(
        algorithm=algorithm,
        env_steps=int(stats.train_step),
        test_return=float(np.mean(final.returns)),
        test_episodes=int(final.n_collected_episodes),
        observation_version=probe.unwrapped.env.observation_version,
    )


def save(result: TianshouResult, out: Path, config: dict[str, Any]) -> None:
    """Write ``policy.pt`` (the policy's state dict) and ``result.json`` (``config``, the
    results and the observation version the policy was trained on) into ``out``."""
    import io

    out.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    torch.save(result.policy.state_dict(), buffer)
    atomic_write_bytes(out / "policy.pt", buffer.getvalue())
    summary = {
        **config,
        "env_steps": result.env_steps,
        "test_return": result.test_return,
        "test_episodes": result.test_episodes,
        "observation_version": result.observation_version,
    }
    atomic_write_text(out / "result.json", json.dumps(summary, indent=2) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tabletop_rl.baselines.tianshou", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--env", default="liniell_v0", choices=sorted(GYMNASIUM_IDS.values()))
    parser.add_argument("--opponent", default="random", help="agent spec of every other seat")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--steps-per-epoch", type=int, default=5000)
    parser.add_argument("--steps-per-collect", type=int, default=1000)
    parser.add_argument("--envs", type=int, default=4)
    parser.add_argument("--test-episodes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="folder for policy.pt/result.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    result = train_ppo(
        args.env,
        args.opponent,
        args.players,
        args.epochs,
        args.steps_per_epoch,
        args.steps_per_collect,
        args.envs,
        args.test_episodes,
        args.seed,
    )
    print(
        f"{args.env}: {result.env_steps} env steps; mean return against {args.opponent} "
        f"over {result.test_episodes} games: {result.test_return:+.2f}"
    )
    if args.out is not None:
        config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
        save(result, args.out, config)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
