"""docs/results/decisions.py's paired games: every game seeded on its own, so two subjects
play the same games up to their first different choice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_rl.baselines.arena.agent_specs import resolve_agent
from tabletop_rl.envs import make

ENV = "qwirkle_cards_v0"


def paired(
    results_script: Callable[[str], dict[str, Any]], games: int, spec: str, opponent: str
) -> np.ndarray:
    """The credits of ``spec`` in ``games`` paired games against ``opponent`` (agent specs)."""
    decisions = results_script("decisions.py")
    model = make(ENV, raw=True, num_players=2).model
    return decisions["play_paired"](
        model,
        ENV,
        games,
        7,
        lambda rng: decisions["agent_decide"](resolve_agent(spec, ENV, rng)),
        opponent,
    )


def test_a_game_depends_on_its_own_seeds_alone(
    results_script: Callable[[str], dict[str, Any]],
) -> None:
    """Whoever plays game 0, games 1-3 are played the same (the random opponent's draws
    included): each game's deal and agents come from its own seeds."""
    decisions = results_script("decisions.py")
    model = make(ENV, raw=True, num_players=2).model

    def games_seen(first: str) -> list[list[int]]:
        seen: list[list[int]] = []

        def make_decide(rng: np.random.Generator) -> Callable[..., int]:
            agent = resolve_agent(first if not seen else "random", ENV, rng)
            actions: list[int] = []
            seen.append(actions)

            def decide(state: Any, obs: dict[str, np.ndarray], view: Any) -> int:
                actions.append(int(agent.act(obs, view)))
                return actions[-1]

            return decide

        decisions["play_paired"](model, ENV, 4, 7, make_decide, "random")
        return seen

    after_random, after_greedy = games_seen("random"), games_seen("greedy")
    assert after_random[0] != after_greedy[0]
    assert after_random[1:] == after_greedy[1:]


def test_the_same_subject_plays_the_same_games(
    results_script: Callable[[str], dict[str, Any]],
) -> None:
    first, second = (paired(results_script, 6, "greedy", "greedy") for _ in range(2))
    text = results_script("decisions.py")["paired_text"](first, second)
    assert text == "results differ in 0 games (net +0.0 for the variant)"
    other = paired(results_script, 6, "random", "greedy")
    assert results_script("decisions.py")["paired_text"](other, first) != text
