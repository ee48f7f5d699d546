"""Fixtures shared by several test files."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest


@pytest.fixture(scope="session")
def heuristic_turn_starts() -> Callable[[str, int], list[tuple[Any, Any]]]:
    """``starts(ENV, SEED)``: ``(state copy, view of the player to act)`` at the start of every
    turn but the first (the game's turn model's ``turn_started``) of a two-player game of
    ENV's heuristic against itself, the deal and the heuristic seeded by SEED; played once
    per session."""
    from tabletop_rl.baselines.agents import agent_class
    from tabletop_rl.baselines.agents.turns import turn_model_class
    from tabletop_rl.envs.games import GAMES_BY_NAME, resolve

    played: dict[tuple[str, int], list[tuple[Any, Any]]] = {}

    def starts(env: str, seed: int) -> list[tuple[Any, Any]]:
        if (env, seed) not in played:
            model = resolve(GAMES_BY_NAME[env].model, "game model")(2)
            turns = turn_model_class(env)()
            agent = agent_class("heuristic", env)(np.random.default_rng(seed))
            state = model.new_state(np.random.default_rng(seed))
            found = []
            while not model.is_over(state):
                player = model.current_player(state)
                view = model.public_view(state, player)
                if not turns.turn_started(view) and not view.first_turn:
                    found.append((model.copy(state), view))
                mask = model.legal_mask(state)
                obs = {"observation": model.observe(state, player), "action_mask": mask}
                model.step(state, agent.act(obs, view))
            played[env, seed] = found
        return played[env, seed]

    return starts
