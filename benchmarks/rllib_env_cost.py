"""What RLlib's env runners pay to step the games, against the compiled batch (``rllib`` extra).

RLlib's multi-agent env runner (``MultiAgentEnvRunner``, the one self-play training with
:mod:`tabletop_rl.baselines.rllib` uses) builds its environments with RLlib's own
``make_vec``, which vectorises a ``MultiAgentEnv`` only as a ``SyncVectorMultiAgentEnv``
of one env object per game (any other ``gym_env_vectorize_mode`` is an error there), and
reads each game's object (``env.envs[i]``) while sampling: the compiled batch cannot stand
in for it. Its single-agent runner (``SingleAgentEnvRunner``) calls
``gymnasium.make_vec(id, vectorization_mode=...)``, so with
``gym_env_vectorize_mode=VECTOR_ENTRY_POINT`` it steps the learner-against-opponents games
of a Gymnasium id through the batch (:mod:`tabletop_rl.envs.gym_vector`).

This script measures, in one run: the game steps per second of RLlib's
``SyncVectorMultiAgentEnv`` over ``RLlibGameEnv`` (random legal moves, every seat) against
the compiled batch with the same self-play semantics (``SelfPlayBatch``); then the env steps
per second of a ``MultiAgentEnvRunner`` sampling with the masked PPO module of
:func:`tabletop_rl.baselines.rllib.ppo_config`, and of a ``SingleAgentEnvRunner`` on
``make_vec``'s batched path, so the share of the games in RLlib's sampling shows::

    pip install -e ".[rllib]"   # a separate virtual environment: Ray pins gymnasium 1.2.2
    python benchmarks/rllib_env_cost.py --env liniell_v0 --games 32 --seconds 3
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.vector.registration import make_vec

import tabletop_rl.envs  # noqa: F401  (registers the Gymnasium ids)
from tabletop_rl.baselines.rllib import RLlibGameEnv, ppo_config
from tabletop_rl.envs import GYMNASIUM_IDS
from tabletop_rl.envs.core.self_play import SelfPlayBatch

IDS = {name: env_id for env_id, name in GYMNASIUM_IDS.items()}


def rate(run: Callable[[], int], seconds: float) -> float:
    """Steps per second of ``run`` (it returns the steps it made) over ``seconds``."""
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += run()
    return steps / (time.perf_counter() - start)


def env_stepping(name: str, games: int, seconds: float, rounds: int) -> tuple[float, float]:
    """Game steps per second: RLlib's SyncVectorMultiAgentEnv, then the compiled batch."""
    gym.register(
        "tabletop-rllib-cost-v0",
        entry_point=lambda **kwargs: RLlibGameEnv({"env": name, "num_players": 2}),
        disable_env_checker=True,
    )
    rllib_envs = make_vec("tabletop-rllib-cost-v0", num_envs=games)
    batch = SelfPlayBatch(name, games, 2)
    rng = np.random.default_rng(0)
    obs, _infos = rllib_envs.reset(seed=0)
    batch.reset(seed=0)
    noise = rng.random((16, batch.num_slots, batch.action_space.n)).astype(np.float32)
    state = {"obs": obs, "turn": 0}

    def rllib_step() -> int:
        actions = [
            {
                agent: int(rng.choice(np.flatnonzero(view["action_mask"])))
                if view["action_mask"].any()
                else 0  # a finished game: the next step resets it, ignoring the action
                for agent, view in game.items()
            }
            for game in state["obs"]
        ]
        state["obs"] = rllib_envs.step(actions)[0]
        return games

    def batch_step() -> int:
        state["turn"] = (state["turn"] + 1) % len(noise)
        batch.step(np.argmax(noise[state["turn"]] * batch.action_masks(), axis=1))
        return games

    rates: dict[str, list[float]] = {"rllib": [], "batch": []}
    for _ in range(rounds):
        rates["rllib"].append(rate(rllib_step, seconds))
        rates["batch"].append(rate(batch_step, seconds))
    return statistics.median(rates["rllib"]), statistics.median(rates["batch"])


def runner_sampling(name: str, games: int, seconds: float) -> tuple[float, float]:
    """Env steps per second of RLlib's multi-agent runner (masked PPO, self-play) and of
    its single-agent runner on make_vec's batched path (default PPO module)."""
    config = ppo_config(name, num_players=2).env_runners(
        num_envs_per_env_runner=games, rollout_fragment_length=64
    )
    from ray.rllib.algorithms.ppo import PPOConfig

    single = (
        PPOConfig()
        .environment(IDS[name], env_config={"opponent": "random"})
        .env_runners(
            num_envs_per_env_runner=games,
            gym_env_vectorize_mode=gym.VectorizeMode.VECTOR_ENTRY_POINT,
            rollout_fragment_length=64,
        )
    )
    out = []
    for runner in (MultiAgentEnvRunner(config=config), SingleAgentEnvRunner(config=single)):
        runner.sample(num_timesteps=1024)

        def sample(runner: MultiAgentEnvRunner | SingleAgentEnvRunner = runner) -> int:
            return sum(episode.env_steps() for episode in runner.sample(num_timesteps=2048))

        out.append(rate(sample, seconds * 2))
    return out[0], out[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="liniell_v0", choices=sorted(IDS))
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rllib, batch = env_stepping(args.env, args.games, args.seconds, args.rounds)
    print(
        f"{args.env}, {args.games} games x 2 seats, random legal moves: RLlib's "
        f"SyncVectorMultiAgentEnv {rllib:,.0f} game steps/s ({1e6 / rllib:.1f} us a step), "
        f"the compiled batch {batch:,.0f} ({1e6 / batch:.1f} us), {batch / rllib:.1f}x"
    )
    multi, single = runner_sampling(args.env, args.games, args.seconds)
    print(
        f"RLlib sampling, {args.games} envs a runner: MultiAgentEnvRunner {multi:,.0f} env "
        f"steps/s ({1e6 / multi:.0f} us a step, of which the game's step above is "
        f"{100 * multi / rllib:.0f}%); SingleAgentEnvRunner on make_vec's batched path "
        f"{single:,.0f} env steps/s ({1e6 / single:.0f} us a step)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
