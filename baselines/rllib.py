"""RLlib on Ray: masked PPO self-play on any of the games (``pip install -e ".[rllib]"``).

:class:`RLlibGameEnv` is an RLlib ``MultiAgentEnv`` over a raw game: at each step only the
seat to move gets an observation, ``{"observations": ..., "action_mask": ...}`` (the keys
RLlib's action-masking module, ``ActionMaskingTorchRLModule``, expects; the mask is float
0/1). When the game ends every seat gets its last
observation and ``terminateds["__all__"]`` is set (``truncateds`` at the game's length
limit). Every step returns a reward for every seat (0 for most; RLlib adds a seat's rewards
up until its next observation), so each seat's return is exactly its reward in the game. An
illegal action ends the game with -1 for that seat.

Every seat is mapped to a policy by :func:`seat_policy_mapping`: with ``shared=True`` (self-play,
the default) all seats share the module ``"main"``, otherwise seat ``i`` gets its own module
``"seat_i"``.

Train from the command line (a local Ray instance unless ``--address`` names a cluster)::

    python -m tabletop_rl.baselines.rllib --env liniell_v0 --iterations 50 --out runs/rllib
    python -m tabletop_rl.baselines.rllib --env liniell_v0 --iterations 500 \\
        --address ray://head-node:10001 --env-runners 32 --out runs/rllib_cluster

Every Ray node needs tabletop-rl installed (``pip install "tabletop-rl[rllib]"``). The
checkpoint in ``--out`` plays in the arena as the agent spec ``rllib:PATH``
(:class:`RLlibAgent`), e.g. ``tabletop-rl arena --env liniell_v0 --agents rllib:runs/rllib
greedy``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from tabletop_rl.envs import available_envs, make
from tabletop_rl.envs.core.aec import TabletopAECEnv
from tabletop_rl.envs.core.files import atomic_write_text
from tabletop_rl.envs.errors import ConfigError

MAIN_POLICY = "main"


def _masked_obs(obs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A game observation in RLlib's action-masking form."""
    return {
        "observations": np.asarray(obs["observation"], dtype=np.float32),
        "action_mask": np.asarray(obs["action_mask"], dtype=np.float32),
    }


def _multi_agent_env_class() -> type:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    class _RLlibGameEnv(MultiAgentEnv):
        """See :class:`RLlibGameEnv`."""

        def __init__(self, config: Mapping[str, Any] | None = None) -> None:
            super().__init__()
            config = dict(config or {})
            env_name = config.pop("env", "liniell_v0")
            self.game: TabletopAECEnv = make(env_name, raw=True, **config)
            self.agents = self.possible_agents = list(self.game.possible_agents)
            spaces = self.game.observation_space(self.agents[0])
            n = int(self.game.action_space(self.agents[0]).n)
            inner = spaces["observation"]
            obs_space = gymnasium.spaces.Dict(
                {
                    "observations": gymnasium.spaces.Box(
                        np.asarray(inner.low, np.float32),
                        np.asarray(inner.high, np.float32),
                        inner.shape,
                        np.float32,
                    ),
                    "action_mask": gymnasium.spaces.Box(0.0, 1.0, (n,), np.float32),
                }
            )
            self.observation_spaces = {a: obs_space for a in self.agents}
            self.action_spaces = {a: self.game.action_space(a) for a in self.agents}

        def reset(
            self, *, seed: int | None = None, options: dict | None = None
        ) -> tuple[dict, dict]:
            self.game.reset(seed=seed)
            mover = self.game.agent_selection
            return {mover: _masked_obs(self.game.observe(mover))}, {}

        def step(self, action_dict: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
            game = self.game
            mover = game.agent_selection
            action = int(action_dict[mover])
            infos: dict[str, dict] = {}
            if 0 <= action < len(game.action_mask()) and game.action_mask()[action]:
                game.step(action)
                rewards = {a: float(game.rewards.get(a, 0.0)) for a in self.agents}
                done = bool(game.terminations[mover])
                cut = bool(game.truncations[mover]) and not done
            else:
                rewards = {mover: -1.0}
                infos[mover] = {"illegal_action": f"action {action} is not legal now"}
                done, cut = True, False
            rewards = {a: rewards.get(a, 0.0) for a in self.agents}
            if done or cut:
                obs = {a: _masked_obs(game.observe(a)) for a in self.agents}
            else:
                nxt = game.agent_selection
                obs = {nxt: _masked_obs(game.observe(nxt))}
            return obs, rewards, {"__all__": done}, {"__all__": cut}, infos

    return _RLlibGameEnv


def __getattr__(name: str) -> Any:
    # RLlibGameEnv subclasses RLlib's MultiAgentEnv, so Ray is imported only when it is used.
    if name == "RLlibGameEnv":
        cls = _multi_agent_env_class()
        cls.__name__ = cls.__qualname__ = "RLlibGameEnv"
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def seat_policy_mapping(
    num_players: int, shared: bool = True
) -> tuple[list[str], Callable[..., str]]:
    """Policy ids and the agent-to-module mapping: all seats on ``"main"`` or one each."""
    if shared:
        return [MAIN_POLICY], lambda agent_id, *args, **kwargs: MAIN_POLICY
    ids = [f"seat_{i}" for i in range(num_players)]

    def mapping(agent_id: str, *args: Any, **kwargs: Any) -> str:
        return f"seat_{agent_id.rsplit('_', 1)[-1]}"

    return ids, mapping


def ppo_config(
    env_name: str,
    num_players: int = 2,
    shared: bool = True,
    env_runners: int = 0,
    train_batch_size: int = 4000,
    minibatch_size: int = 256,
    num_epochs: int = 10,
    hidden: Sequence[int] = (256, 256),
    seed: int = 0,
) -> Any:
    """RLlib's PPO with action masking and every seat mapped to a policy."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    policies, mapping = seat_policy_mapping(num_players, shared)
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"head_fcnet_hiddens": list(hidden), "head_fcnet_activation": "relu"},
    )
    return (
        PPOConfig()
        .environment(_env_class(), env_config={"env": env_name, "num_players": num_players})
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1)
        .multi_agent(policies=set(policies), policy_mapping_fn=mapping)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(policies, module))
        )
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
        )
        .debugging(seed=seed)
    )


def _env_class() -> type:
    return __getattr__("RLlibGameEnv")


def train(
    env_name: str,
    iterations: int,
    out: Path | None = None,
    address: str | None = None,
    **config_kwargs: Any,
) -> list[dict[str, Any]]:
    """Train for ``iterations`` PPO iterations on Ray (local unless ``address``).

    Returns one summary per iteration (env steps, episodes, mean episode length). With
    ``out``, saves the algorithm's checkpoint there and writes ``progress.json``.
    """
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    try:
        algo = ppo_config(env_name, **config_kwargs).build_algo()
        history = []
        for i in range(iterations):
            result = algo.train()
            runners = result.get("env_runners", {})
            history.append(
                {
                    "iteration": i + 1,
                    "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
                    "episodes": int(runners.get("num_episodes_lifetime", 0)),
                    "episode_len_mean": float(runners.get("episode_len_mean", float("nan"))),
                }
            )
        if out is not None:
            out = Path(out).resolve()
            out.mkdir(parents=True, exist_ok=True)
            algo.save_to_path(str(out))
            meta = {"env": env_name, **config_kwargs, "history": history}
            atomic_write_text(out / "progress.json", json.dumps(meta, indent=2, default=str) + "\n")
        algo.stop()
        return history
    finally:
        if started_here:
            ray.shutdown()


class RLlibAgent:
    """An RLlib checkpoint as an agent (arena spec ``rllib:PATH``).

    Picks the most probable legal action of the checkpoint's module ``policy`` (``"main"``,
    the self-play module; ``"seat_i"`` for a run with ``--policy-per-seat``); ties go to
    ``rng``. No Ray cluster is needed,
    only the ``rllib`` extra. RLlib checkpoints are pickles: load only checkpoints you trust.
    """

    name = "rllib"
    needs_view = False

    def __init__(self, path: str | Path, rng: np.random.Generator, policy: str = MAIN_POLICY):
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule

        root = Path(path)
        module_dir = root / "learner_group" / "learner" / "rl_module" / policy
        if not module_dir.is_dir():
            raise ConfigError(
                f"{root} is not an RLlib checkpoint with module {policy!r} "
                f"(expected {module_dir}); train one with python -m tabletop_rl.baselines.rllib"
            )
        self.module = RLModule.from_checkpoint(module_dir)
        self.rng = rng
        self._torch = torch

    def reseed(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        torch = self._torch
        obs = _masked_obs(observation)
        batch = {"obs": {k: torch.as_tensor(v[None]) for k, v in obs.items()}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("RLlibAgent.act: the action mask has no legal action")
        best = legal[logits[legal] == logits[legal].max()]
        return int(best[0] if best.size == 1 else self.rng.choice(best))


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m tabletop_rl.baselines.rllib``."""
    parser = argparse.ArgumentParser(
        prog="python -m tabletop_rl.baselines.rllib",
        description="Masked PPO self-play on RLlib (a local Ray instance unless --address).",
    )
    parser.add_argument("--env", default="liniell_v0", choices=available_envs())
    parser.add_argument("--iterations", type=int, required=True)
    parser.add_argument("--address", default=None, help="Ray cluster address (default: local)")
    parser.add_argument("--out", type=Path, default=None, help="checkpoint folder")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--policy-per-seat", action="store_true", help="one module per seat")
    parser.add_argument("--env-runners", type=int, default=0, help="Ray actors sampling games")
    parser.add_argument("--train-batch-size", type=int, default=4000)
    parser.add_argument("--minibatch-size", type=int, default=256)
    parser.add_argument("--num-epochs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.iterations < 1:
        parser.error("--iterations must be at least 1")
    history = train(
        args.env,
        args.iterations,
        out=args.out,
        address=args.address,
        num_players=args.players,
        shared=not args.policy_per_seat,
        env_runners=args.env_runners,
        train_batch_size=args.train_batch_size,
        minibatch_size=args.minibatch_size,
        num_epochs=args.num_epochs,
        seed=args.seed,
    )
    for row in history:
        print(
            f"iteration {row['iteration']}: {row['env_steps']} env steps, "
            f"{row['episodes']} games, mean length {row['episode_len_mean']:.1f}"
        )
    if args.out is not None:
        print(f"checkpoint: {args.out} (arena agent spec rllib:{args.out})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
