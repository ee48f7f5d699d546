"""Qwirkle positions for the tests: the reference engine after random whole turns, and the
decisions of games the heuristic plays on a feature model of either engine.

Tests import this module after putting ``tests/`` on ``sys.path`` (as they do ``toy_games``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from tabletop_rl.baselines.agents.qwirkle_heuristic import QwirkleHeuristicAgent
from tabletop_rl.envs.core.features import FeatureModel
from tabletop_rl.envs.qwirkle.compiled import QwirkleCompiledModel
from tabletop_rl.envs.qwirkle.features import qwirkle_features
from tabletop_rl.envs.qwirkle.game import GameState
from tabletop_rl.envs.qwirkle.model import QwirkleModel

WINDOW = 39


def random_position(seed: int, turns: int) -> GameState:
    """A two-player game after ``turns`` random whole turns (placements, else exchanges,
    else passes) drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    game = GameState(2, rng)
    for _ in range(turns):
        moves = game.legal_moves()
        if game.finished:
            break
        if moves:
            game.place(moves[int(rng.integers(len(moves)))])
        elif game.max_exchange():
            game.exchange(game.hand[: game.max_exchange()])
        else:
            game.pass_turn()
    return game


def feature_model(engine: str, num_players: int = 2) -> FeatureModel:
    """Qwirkle on ``engine`` (``compiled`` or ``reference``) with its observation features."""
    cls = QwirkleCompiledModel if engine == "compiled" else QwirkleModel
    return FeatureModel(cls(num_players=num_players), qwirkle_features(WINDOW))


def played_positions(model: FeatureModel, seed: int, every: int, limit: int) -> Iterator[Any]:
    """Every ``every``-th decision of a game the heuristic plays (a random legal action one
    step in four, which it then continues), at most ``limit`` of them."""
    rng = np.random.default_rng(seed)
    agent = QwirkleHeuristicAgent(np.random.default_rng(seed))
    state = model.new_state(rng)
    steps = found = 0
    while not model.is_over(state) and found < limit:
        mask = model.legal_mask(state)
        view = model.public_view(state, model.current_player(state))
        if steps % every == 0 and (mask[: model.codec.end].any() or mask[model.codec.end]):
            found += 1
            yield state
        if rng.random() < 0.25:
            action = int(rng.choice(np.flatnonzero(mask)))
        else:
            action = agent.act({"action_mask": mask}, view)
        model.step(state, action)
        steps += 1
