"""SB3-contrib's MaskablePPO on the compiled batch of ``gymnasium.make_vec``, for a wall-clock
budget: its learner steps per second, then its win rate against ``random`` and ``greedy``.

Training uses ``gymnasium.make_vec(id, vectorization_mode="vector_entry_point")`` (the
opponents' moves inside the compiled batch, :mod:`tabletop_rl.envs.gym_vector`) against the
``random`` opponent, the learner on a seat drawn per game, through
:class:`tabletop_rl.baselines.sb3.GymnasiumVecEnv`. Evaluation plays ``--eval-games`` games
against each opponent (the most probable legal action; ``random`` inside the batch,
``greedy`` on the path ``make_vec`` gives it) and counts wins, draws and losses::

    pip install -e ".[sb3]"
    python benchmarks/sb3_maskable_batch.py --env liniell_v0 --minutes 10 --eval-games 1000

Needs an otherwise idle machine for its learner steps per second to mean anything.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
from gymnasium.vector import AutoresetMode
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from tabletop_rl.baselines.sb3 import GymnasiumVecEnv
from tabletop_rl.envs import GYMNASIUM_IDS

IDS = {name: env_id for env_id, name in GYMNASIUM_IDS.items()}


class StopAfter(BaseCallback):
    """Stops training once ``seconds`` of wall time have passed since training began."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.start = 0.0

    def _on_training_start(self) -> None:
        self.start = time.perf_counter()

    def _on_step(self) -> bool:
        return time.perf_counter() - self.start < self.seconds


def evaluate(
    model: MaskablePPO, env_name: str, opponent: str, games: int, num_envs: int, seed: int
) -> tuple[int, int, int]:
    """(wins, draws, losses) of ``model`` over ``games`` games against ``opponent``, each
    sub-environment playing its share (the learner's seat drawn per game)."""
    envs = gymnasium.make_vec(
        IDS[env_name],
        num_envs=num_envs,
        opponent=opponent,
        learner_seat=None,
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    quota = np.full(num_envs, games // num_envs)
    quota[: games % num_envs] += 1
    played = np.zeros(num_envs, dtype=np.int64)
    results = {1.0: 0, 0.0: 0, -1.0: 0}
    obs, info = envs.reset(seed=seed)
    while (played < quota).any():
        actions, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
        obs, rewards, terminated, truncated, info = envs.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            if played[i] < quota[i]:
                played[i] += 1
                results[float(np.sign(rewards[i]))] += 1
    envs.close()
    return results[1.0], results[0.0], results[-1.0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="liniell_v0", choices=sorted(IDS))
    parser.add_argument("--minutes", type=float, default=10.0, help="wall-clock training time")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--n-steps", type=int, default=64, help="rollout steps per sub-env")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--n-epochs", type=int, default=4)
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--eval-opponents", nargs="+", default=["random", "greedy"])
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.torch_threads)
    envs = gymnasium.make_vec(
        IDS[args.env],
        num_envs=args.num_envs,
        vectorization_mode="vector_entry_point",
        opponent="random",
        learner_seat=None,
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    env = GymnasiumVecEnv(envs)
    env.seed(args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    start = time.perf_counter()
    model.learn(total_timesteps=10**12, callback=StopAfter(args.minutes * 60))
    seconds = time.perf_counter() - start
    print(
        f"{args.env}: MaskablePPO on make_vec vector_entry_point ({args.num_envs} envs, "
        f"random opponent): {model.num_timesteps:,} learner steps in {seconds:.0f} s = "
        f"{model.num_timesteps / seconds:,.0f} learner steps per second (training included)"
    )
    for opponent in args.eval_opponents:
        wins, draws, losses = evaluate(
            model, args.env, opponent, args.eval_games, min(args.num_envs, 64), args.seed + 1
        )
        total = wins + draws + losses
        print(
            f"  against {opponent}: {wins} wins, {draws} draws, {losses} losses in {total} "
            f"games: win rate {wins / total:.1%}"
        )
    env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
