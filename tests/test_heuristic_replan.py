"""The Qwirkle and Qwirkle Cards heuristics continue any partial turn.

Their turns take several sub-actions, and as kickstarting teachers they are asked at every
decision of a learner that plays its own sub-actions. Off their plan (or without one) they
re-plan: the best complete turn that extends what was played so far. These tests play a
random learner's games, ask the heuristics at every one of its decisions, and check the
re-planned turn against a brute force over the completions.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tabletop_rl.baselines.agents.qwirkle_cards_heuristic import QwirkleCardsHeuristicAgent
from tabletop_rl.baselines.agents.qwirkle_heuristic import QwirkleHeuristicAgent
from tabletop_rl.envs import make
from tabletop_rl.envs.qwirkle.moves import legal_moves
from tabletop_rl.envs.qwirkle_cards.actions import END_TURN
from tabletop_rl.envs.qwirkle_cards.solver import find_split
from tabletop_rl.envs.qwirkle_cards.turns import Turn, add, qwirkle_cards, sub_multisets

AGENTS = {"qwirkle_v0": QwirkleHeuristicAgent, "qwirkle_cards_v0": QwirkleCardsHeuristicAgent}
# Qwirkle Cards turns are slow to plan late in a game: its games are cut short
DECISIONS = {"qwirkle_v0": None, "qwirkle_cards_v0": 40}


def _mid_turn(view: Any) -> bool:
    if hasattr(view, "laid_this_turn"):
        return bool(view.laid_this_turn)
    return any(view.played) or any(view.taken)


def learner_positions(env_name: str, seed: int, limit: int | None) -> Iterator[tuple[Any, Any]]:
    """(model, state) at each decision of seat 0, a random learner (seat 1 plays randomly
    too), up to ``limit`` decisions; the caller must not change the state."""
    model = make(env_name, raw=True).model
    rng = np.random.default_rng(seed)
    state = model.new_state(rng)
    seen = 0
    while not model.is_over(state) and (limit is None or seen < limit):
        if model.current_player(state) == 0:
            seen += 1
            yield model, state
        model.step(state, int(rng.choice(np.flatnonzero(model.legal_mask(state)))))


def _obs(model: Any, state: Any) -> dict[str, np.ndarray]:
    seat = model.current_player(state)
    return {"observation": model.observe(state, seat), "action_mask": model.legal_mask(state)}


@pytest.mark.parametrize("env_name", sorted(AGENTS))
def test_the_heuristic_labels_every_decision_of_a_random_learner(env_name: str) -> None:
    """A persistent teacher (kept across the game) and a fresh one asked only mid-turn both
    give a legal action at every decision: none is left without a label."""
    for seed in (0, 1):
        persistent = AGENTS[env_name](np.random.default_rng(seed))
        decisions = mid_turn = 0
        for model, state in learner_positions(env_name, seed, DECISIONS[env_name]):
            obs = _obs(model, state)
            view = model.public_view(state, 0)
            action = persistent.act(obs, view)
            assert obs["action_mask"][action], (seed, decisions, action)
            decisions += 1
            if _mid_turn(view):
                mid_turn += 1
                fresh = AGENTS[env_name](np.random.default_rng(seed + decisions))
                assert obs["action_mask"][fresh.act(obs, view)]
        assert decisions > 20 and mid_turn > 5  # the learner left the plans many times


def _finish_turn(model: Any, state: Any, agent: Any) -> Any:
    """Let ``agent`` play the rest of the current turn on a copy of ``state``; the player's
    view just before its turn ends (the whole turn selected)."""
    state = copy.deepcopy(state)
    seat = model.current_player(state)
    while True:
        view = model.public_view(state, seat)
        action = agent.act(_obs(model, state), view)
        if action == getattr(view, "end_turn", END_TURN):
            return view
        model.step(state, action)
        assert model.current_player(state) == seat


def test_a_qwirkle_replan_plays_the_best_completion_of_the_partial_turn() -> None:
    checked = 0
    for seed in (2, 3):
        for model, state in learner_positions("qwirkle_v0", seed, None):
            view = model.public_view(state, 0)
            if view.first_turn or not view.laid_this_turn:
                continue
            agent = QwirkleHeuristicAgent(np.random.default_rng(seed))
            laid = {(r, c, view.hand[s]) for r, c, s in view.laid_this_turn}
            board, hand = view.board, list(view.hand)
            values = [
                agent.move_value(view, move, board.score(move), board.anchors)
                for move in legal_moves(board, hand)
                if laid <= set(move) and all(view.window_cell(r, c) for r, c, _ in move)
            ]
            end = _finish_turn(model, state, agent)
            played = tuple((r, c, end.hand[s]) for r, c, s in end.laid_this_turn)
            assert laid <= set(played)
            value = agent.move_value(view, played, board.score(played), board.anchors)
            assert value == pytest.approx(max(values))
            checked += 1
    assert checked > 10


def test_a_qwirkle_cards_replan_plays_the_best_completion_of_the_partial_turn() -> None:
    """Once cards are played no more Qwirkles may be taken: the completions are the cards
    added to those played that leave a valid table."""
    checked = 0
    for model, state in learner_positions("qwirkle_cards_v0", 4, 40):
        view = model.public_view(state, 0)
        if view.first_turn or not any(view.played):
            continue
        agent = QwirkleCardsHeuristicAgent(np.random.default_rng(4))
        hand = add(view.hand, view.played)
        gone = qwirkle_cards(view.taken)
        values = []
        for more in sub_multisets(view.hand):
            played = add(view.played, more)
            after = tuple(t + p - g for t, p, g in zip(view.table, played, gone, strict=True))
            if min(after) >= 0 and find_split(after) is not None:
                values.append(agent.turn_value(view, hand, Turn(played, view.taken)))
        end = _finish_turn(model, state, agent)
        assert end.taken == view.taken
        assert all(e >= p for e, p in zip(end.played, view.played, strict=True))
        value = agent.turn_value(view, hand, Turn(end.played, end.taken))
        assert value == pytest.approx(max(values))
        checked += 1
    assert checked > 5
