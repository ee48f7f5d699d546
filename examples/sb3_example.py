"""Using tabletop-rl with other libraries: SB3-contrib's MaskablePPO on one seat of a game.

Every environment of the suite becomes a Gymnasium ``Env`` with
``tabletop_rl.envs.core.SingleAgentEnv``: the learner plays one seat (here a random seat each
game) and the other seats are played by opponents (here the scripted ``random`` agent). The
wrapper's ``action_masks()`` method is the convention of SB3-contrib's ``MaskablePPO``, so
the policy only ever picks legal actions::

    pip install -e ".[sb3]"
    python examples/sb3_example.py                  # Liniell, 20,000 steps, about a minute
    python examples/sb3_example.py qwirkle_v0 5000

Self-play: ``train_self_play`` lets one MaskablePPO learner make every seat's decisions
(``tabletop_rl.baselines.sb3.SelfPlayVecEnv``: each seat of each game is one SB3
sub-environment with its own rewards), then the result is judged against random opponents::

    python examples/sb3_example.py liniell_v0 20000 --self-play

``tests/test_sb3_maskable.py`` runs these functions with a few hundred steps.
"""

from __future__ import annotations

import sys

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy

from tabletop_rl.baselines.agents import make_agent
from tabletop_rl.baselines.sb3 import SelfPlayVecEnv
from tabletop_rl.envs import make
from tabletop_rl.envs.core import SingleAgentEnv


def make_env(
    env_name: str = "liniell_v0", opponent: str = "random", seed: int = 0
) -> SingleAgentEnv:
    """One seat of ``env_name`` for the learner; every other seat plays scripted ``opponent``."""
    game = make(env_name, raw=True)
    opponents = [
        make_agent(opponent, env_name, np.random.default_rng([seed, seat]))
        for seat in range(game.num_players - 1)
    ]
    return SingleAgentEnv(game, opponents=opponents, learner_seat=None)


def train(
    env_name: str = "liniell_v0", total_timesteps: int = 20_000, n_steps: int = 512, seed: int = 0
) -> MaskablePPO:
    """Train MaskablePPO against random opponents."""
    env = make_env(env_name, seed=seed)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=n_steps, batch_size=64, seed=seed, device="cpu", verbose=0
    )
    model.learn(total_timesteps=total_timesteps)
    return model


def train_self_play(
    env_name: str = "liniell_v0",
    total_timesteps: int = 20_000,
    num_games: int = 4,
    n_steps: int = 128,
    seed: int = 0,
) -> MaskablePPO:
    """Train MaskablePPO by self-play: the learner makes the decisions of every seat."""
    env = SelfPlayVecEnv(env_name, num_games=num_games, seed=seed)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=n_steps, batch_size=256, seed=seed, device="cpu", verbose=0
    )
    model.learn(total_timesteps=total_timesteps)
    return model


def play_game(model: MaskablePPO, env: SingleAgentEnv, seed: int) -> float:
    """One game of the trained policy (most probable legal action); the learner's return."""
    obs, _info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        action, _state = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, reward, terminated, truncated, _info = env.step(int(action))
        total += reward
        done = terminated or truncated
    return total


def main(argv: list[str]) -> int:
    # The policy is a small MLP: one thread is fastest and leaves the other cores alone.
    torch.set_num_threads(1)
    self_play = "--self-play" in argv
    argv = [a for a in argv if a != "--self-play"]
    env_name = argv[0] if argv else "liniell_v0"
    total_timesteps = int(argv[1]) if len(argv) > 1 else 20_000
    model = (train_self_play if self_play else train)(env_name, total_timesteps)
    eval_env = make_env(env_name, seed=1)
    mean, std = evaluate_policy(model, eval_env, n_eval_episodes=100, use_masking=True, warn=False)
    print(f"{env_name}: mean return against random opponents {mean:+.2f} (std {std:.2f})")
    print(f"one more game: return {play_game(model, eval_env, seed=12345):+.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
