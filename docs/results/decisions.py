"""What the policy diagnostics share: a policy's game, and its decisions in games against
``greedy`` (or another agent spec; seats rotated), handed one by one to a function that says
what to play.

``teacher_agreement.py`` and ``policy_confidence.py`` import it (run them from anywhere:
Python puts a script's own folder on its path).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_rl.baselines.arena.agent_specs import resolve_agent
from tabletop_rl.baselines.ppo.checkpoint import load_checkpoint
from tabletop_rl.baselines.stats import wilson_interval, win_credits
from tabletop_rl.envs import make
from tabletop_rl.envs.core.model import GameModel

Decide = Callable[[Any, dict[str, np.ndarray], Any], int]
"""``decide(state, observation, view) -> action`` at each decision of the subject."""


def arguments(description: str, games: int) -> argparse.Namespace:
    """The diagnostics' command line: a policy, ``--games`` and ``--seed``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("policy", help="a training run, checkpoint file or pretrained/<env>")
    parser.add_argument("--games", type=int, default=games)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def policy_game(policy: str) -> tuple[str, GameModel]:
    """The environment name a policy was trained on and its game model with features."""
    env_name = str(load_checkpoint(policy)["config"]["env"])
    return env_name, make(env_name, raw=True, num_players=2, features=True).model


def play_against(
    model: GameModel,
    env_name: str,
    games: int,
    seed: int,
    decide: Decide,
    opponent: str = "greedy",
) -> np.ndarray:
    """Play ``games`` games between a subject (seat ``game % 2``), whose actions ``decide``
    chooses, and ``opponent`` (an agent spec); the games and the opponent's ties are seeded
    by ``seed``. Returns the subject's credit in each game (1 a win, 1/2 a shared one)."""
    agent = resolve_agent(opponent, env_name, np.random.default_rng([seed, 2]))
    rng = np.random.default_rng([seed, 3])
    credits = np.zeros(games)
    for game in range(games):
        state = model.new_state(rng)
        seat = game % 2
        while not model.is_over(state):
            player = model.current_player(state)
            mask = model.legal_mask(state)
            obs = {"observation": model.observe(state, player), "action_mask": mask}
            view = model.public_view(state, player)
            if player == seat:
                model.step(state, decide(state, obs, view))
            else:
                model.step(state, int(agent.act(obs, view)))
        credits[game] = win_credits(model.outcome(state).winners, 2)[seat]
    return credits


def win_rate_text(credits: np.ndarray) -> str:
    """``credits``' mean with its Wilson 95% interval, as the scripts print it.

    >>> win_rate_text(np.array([1.0, 0.5, 0.0, 1.0]))
    '0.625 (0.219-0.908)'
    """
    low, high = wilson_interval(float(credits.sum()), len(credits))
    return f"{credits.mean():.3f} ({low:.3f}-{high:.3f})"
