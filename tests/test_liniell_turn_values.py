"""Liniell's ``*_turn_value`` features against the heuristic agent's own turn search."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.baselines.agents.feature_value import FeatureValueAgent
from tabletop_rl.baselines.agents.liniell_heuristic import LiniellHeuristicAgent
from tabletop_rl.envs.core.features import with_features
from tabletop_rl.envs.liniell.actions import NUM_LAY, SKIP
from tabletop_rl.envs.liniell.compiled_model import LiniellCompiledModel
from tabletop_rl.envs.liniell.features import LINIELL_FEATURES
from tabletop_rl.envs.liniell.model import LiniellModel
from tabletop_rl.envs.liniell.turn_values import (
    TURN_VALUE_WEIGHTS,
    TurnValueWeights,
    position_value,
)

VALUE_FIELDS = {"lay_turn_value": "lay", "occupy_turn_value": "occupy", "skip_turn_value": "skip"}
TEACHER = {name: 1.0 for name in VALUE_FIELDS}


def turn_values(model, obs: np.ndarray) -> np.ndarray:
    """The three fields as one array in action order (lays, occupations, skip)."""
    views = model.layout.decode(obs)
    return np.concatenate([views[name].reshape(-1) for name in VALUE_FIELDS])


def decisions(model, games: int, seed: int):
    """``(state, observation dict, view)`` at every decision of ``games`` games played by
    the heuristic (so that lines, merges and pawns in reserve all occur) with a random
    action one decision in four."""
    rng = np.random.default_rng(seed)
    agent = LiniellHeuristicAgent(np.random.default_rng([seed, 1]))
    for _ in range(games):
        state = model.new_state(rng)
        while not model.is_over(state):
            player = model.current_player(state)
            mask = model.legal_mask(state)
            obs = {"observation": model.observe(state, player), "action_mask": mask}
            view = model.public_view(state, player)
            yield state, obs, view
            if rng.random() < 0.25:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = agent.act(obs, view)
            model.step(state, action)


@pytest.mark.parametrize(("num_players", "engine"), [(2, "compiled"), (3, "reference")])
def test_each_action_reads_the_heuristics_value_of_its_best_turn(
    num_players: int, engine: str
) -> None:
    """Every legal lay, occupation, compulsory move and skip reads the value the heuristic
    agent's own turn search (``scored_actions``) gives it, to float32 precision; illegal
    actions and observers not to act read 0."""
    base = LiniellCompiledModel if engine == "compiled" else LiniellModel
    model = with_features(base(num_players), LINIELL_FEATURES)
    agent = LiniellHeuristicAgent(np.random.default_rng(0))
    checked = {"lay": 0, "occupy": 0, "skip": 0}
    for state, obs, view in decisions(model, games=4 if engine == "compiled" else 2, seed=7):
        got = turn_values(model, obs["observation"])
        expected = np.zeros_like(got)
        for value, action in agent.scored_actions(obs, view):
            expected[action] = value
        np.testing.assert_array_equal(got, expected.astype(np.float32))
        for action in np.flatnonzero(obs["action_mask"]):
            checked["lay" if action < NUM_LAY else "skip" if action == SKIP else "occupy"] += 1
        other = (model.current_player(state) + 1) % num_players
        assert not turn_values(model, model.observe(state, other)).any()
    assert min(checked.values()) > 10, checked


def test_value_agent_on_the_fields_plays_the_heuristics_choices() -> None:
    """``value:lay_turn_value=1,occupy_turn_value=1,skip_turn_value=1`` rates best exactly
    the actions the heuristic rates best, at every decision: a teacher a policy with action
    features can copy."""
    model = with_features(LiniellCompiledModel(2), LINIELL_FEATURES)
    heuristic = LiniellHeuristicAgent(np.random.default_rng(0))
    value = FeatureValueAgent(np.random.default_rng(0), "liniell_v0", TEACHER)
    ties = 0
    for _, obs, view in decisions(model, games=4, seed=11):
        best = heuristic.best_actions(obs, view)
        assert value.best_actions(obs, view) == best
        ties += len(best) > 1
    assert ties > 0


def test_position_value_weights_and_final_margin() -> None:
    """The heuristic's default weights are the features' (one definition); with no tile left
    the value is the final score margin, and before that the weights matter."""
    assert LiniellHeuristicAgent(np.random.default_rng(0)).weights == TURN_VALUE_WEIGHTS
    model = LiniellModel(2)
    rng = np.random.default_rng(3)
    state = model.new_state(rng)
    richer = TurnValueWeights(open_end=2.0, reserve=4.0)
    changed = 0
    while not model.is_over(state):
        board = model.public_view(state, 0).board
        changed += position_value(board, 0, 8, richer) != position_value(board, 0, 8)
        model.step(state, int(rng.choice(np.flatnonzero(model.legal_mask(state)))))
    assert changed > 0
    board = model.public_view(state, 0).board
    points = board.points()
    assert position_value(board, 0, tiles_left=0) == points[0] - points[1]
    assert position_value(board, 1, tiles_left=0) == points[1] - points[0]
