"""Fixtures shared by the tests of the results scripts (``docs/results/*.py``): load one as
when run (its folder on the path, for the helpers it imports), or run its ``main()``."""

from __future__ import annotations

import runpy
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
"""The folder of the results scripts."""


@pytest.fixture(scope="session")
def results_script() -> Callable[[str], dict[str, Any]]:
    """``load(NAME)``: the globals of ``docs/results/NAME``, loaded once per session."""
    loaded: dict[str, dict[str, Any]] = {}

    def load(name: str) -> dict[str, Any]:
        if name not in loaded:
            sys.path.insert(0, str(RESULTS))
            try:
                loaded[name] = runpy.run_path(str(RESULTS / name))
            finally:
                sys.path.remove(str(RESULTS))
        return loaded[name]

    return load


@pytest.fixture
def run_results_script(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., str]:
    """``run(NAME, *ARGS)``: what ``python docs/results/NAME ARGS...`` prints (its ``main()``
    run in this process)."""

    def run(name: str, *args: str) -> str:
        monkeypatch.syspath_prepend(str(RESULTS))
        monkeypatch.setattr(sys, "argv", [name, *args])
        capsys.readouterr()
        runpy.run_path(str(RESULTS / name))["main"]()
        return capsys.readouterr().out

    return run


@pytest.fixture(scope="session")
def heuristic_turn_starts() -> Callable[[str, int], list[tuple[Any, Any]]]:
    """``starts(ENV, SEED)``: ``(state copy, view of the player to act)`` at the start of every
    turn but the first (the game's turn model's ``turn_started``) of a two-player game of
    ENV's heuristic against itself, the deal and the heuristic seeded by SEED; played once
    per session."""
    from tabletop_rl.baselines.agents.qwirkle_cards_heuristic import QwirkleCardsHeuristicAgent
    from tabletop_rl.baselines.agents.qwirkle_heuristic import QwirkleHeuristicAgent
    from tabletop_rl.baselines.agents.turns import TURN_MODELS
    from tabletop_rl.envs.qwirkle.model import QwirkleModel
    from tabletop_rl.envs.qwirkle_cards.model import QwirkleCardsModel

    games = {
        "qwirkle_v0": (QwirkleModel, QwirkleHeuristicAgent),
        "qwirkle_cards_v0": (QwirkleCardsModel, QwirkleCardsHeuristicAgent),
    }
    played: dict[tuple[str, int], list[tuple[Any, Any]]] = {}

    def starts(env: str, seed: int) -> list[tuple[Any, Any]]:
        if (env, seed) not in played:
            model_class, heuristic = games[env]
            model, turns = model_class(2), TURN_MODELS[env]()
            agent = heuristic(np.random.default_rng(seed))
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
