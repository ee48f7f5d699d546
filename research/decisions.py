"""What the policy diagnostics share: a policy's game, and its decisions in games against
``greedy`` (or another agent spec; seats rotated), handed one by one to a function that says
what to play; or in *paired* games (:func:`play_paired`), each seeded on its own, so that two
subjects play the same games up to their first different choice.

``feature_choice.py``, ``qwirkle_teachers.py`` and the other scripts of ``research/`` import it
(run them from anywhere: Python puts a script's own folder on its path).
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


def agent_decide(agent: Any) -> Decide:
    """The :data:`Decide` of a scripted agent: its action at each decision."""
    return lambda state, observation, view: int(agent.act(observation, view))


def play_game(model: GameModel, state: Any, seat: int, decide: Decide, opponent: Any) -> float:
    """Play ``state`` to its end, the subject in ``seat`` (its actions chosen by ``decide``),
    ``opponent`` (an agent) in the other; the subject's credit (1 a win, 1/2 a shared one)."""
    while not model.is_over(state):
        player = model.current_player(state)
        mask = model.legal_mask(state)
        obs = {"observation": model.observe(state, player), "action_mask": mask}
        view = model.public_view(state, player)
        if player == seat:
            model.step(state, decide(state, obs, view))
        else:
            model.step(state, int(opponent.act(obs, view)))
    return float(win_credits(model.outcome(state).winners, 2)[seat])


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
    return np.array(
        [play_game(model, model.new_state(rng), game % 2, decide, agent) for game in range(games)]
    )


def play_paired(
    model: GameModel,
    env_name: str,
    games: int,
    seed: int,
    make_decide: Callable[[np.random.Generator], Decide],
    opponent: str = "heuristic",
) -> np.ndarray:
    """:func:`play_against` with every game seeded on its own: game ``g`` is dealt from
    ``[seed, 3, g]``, the subject's :data:`Decide` is made afresh from ``[seed, 4, g]`` and
    the opponent agent from ``[seed, 2, g]`` (the subject in seat ``g % 2``). Two subjects
    played with one seed so play the same games up to their first different choice (paired
    games: :func:`paired_text` compares them)."""
    credits = np.zeros(games)
    for game in range(games):
        state = model.new_state(np.random.default_rng([seed, 3, game]))
        decide = make_decide(np.random.default_rng([seed, 4, game]))
        agent = resolve_agent(opponent, env_name, np.random.default_rng([seed, 2, game]))
        credits[game] = play_game(model, state, game % 2, decide, agent)
    return credits


def paired_text(variant: np.ndarray, baseline: np.ndarray) -> str:
    """How many of two subjects' paired games (:func:`play_paired`) end differently, and the
    variant's net gain in them.

    >>> paired_text(np.array([1.0, 0.5, 0.0]), np.array([0.0, 0.5, 0.0]))
    'results differ in 1 games (net +1.0 for the variant)'
    """
    changed = int((variant != baseline).sum())
    net = variant.sum() - baseline.sum()
    return f"results differ in {changed} games (net {net:+.1f} for the variant)"


def win_rate_text(credits: np.ndarray) -> str:
    """``credits``' mean with its Wilson 95% interval, as the scripts print it.

    >>> win_rate_text(np.array([1.0, 0.5, 0.0, 1.0]))
    '0.625 (0.219-0.908)'
    """
    low, high = wilson_interval(float(credits.sum()), len(credits))
    return f"{credits.mean():.3f} ({low:.3f}-{high:.3f})"
