"""The scripted teachers name every action they rate best (``Teacher.best_actions``).

Kickstarting labels each learner decision with that whole set, so it must hold the action the
agent plays (``act`` draws from it), only legal actions, and, in the games whose turns take
several sub-actions, every order of playing a best turn's parts. These tests ask the
heuristics at every decision of a random learner's games (both before and after ``act``).
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.baselines.agents import make_agent
from tabletop_rl.baselines.agents.base import Teacher, best_choices
from tabletop_rl.envs import make

# Qwirkle Cards turns are slow to plan late in a game: its games are cut short
DECISIONS = {"liniell_v0": 40, "qwirkle_v0": 120, "qwirkle_cards_v0": 40}


@pytest.mark.parametrize("env_name", sorted(DECISIONS))
def test_the_heuristic_plays_one_of_its_best_actions(env_name: str) -> None:
    model = make(env_name, raw=True).model
    rng = np.random.default_rng(7)
    teacher = make_agent("heuristic", env_name, np.random.default_rng(8))
    assert isinstance(teacher, Teacher)
    state = model.new_state(rng)
    asked = several = 0
    while not model.is_over(state) and asked < DECISIONS[env_name]:
        seat = model.current_player(state)
        mask = model.legal_mask(state)
        if seat == 0:
            obs = {"observation": model.observe(state, seat), "action_mask": mask}
            view = model.public_view(state, seat)
            best = best_choices(teacher, obs, view)
            assert best and len(set(best)) == len(best), best
            assert all(mask[a] for a in best), best
            assert teacher.act(obs, view) in best
            assert best_choices(teacher, obs, view) == best  # asking again changes nothing
            asked += 1
            several += len(best) > 1
        model.step(state, int(rng.choice(np.flatnonzero(mask))))
    assert asked == DECISIONS[env_name] or model.is_over(state)
    assert several > 0  # ties or free orders occur, so the sets are exercised


def test_every_order_of_a_best_qwirkle_move_is_a_best_action() -> None:
    """Mid-turn on a best move of several tiles, each of its tiles still to lay is a best
    action (the order of laying a move's tiles does not change the move)."""
    model = make("qwirkle_v0", raw=True).model
    rng = np.random.default_rng(3)
    teacher = make_agent("heuristic", "qwirkle_v0", np.random.default_rng(4))
    checked = 0
    for _ in range(4):
        state = model.new_state(rng)
        while not model.is_over(state):
            seat = model.current_player(state)
            obs = {
                "observation": model.observe(state, seat),
                "action_mask": model.legal_mask(state),
            }
            view = model.public_view(state, seat)
            best = teacher.best_actions(obs, view)
            if not view.laid_this_turn:
                plays = [a for a in best if a != view.codec.end]
                options = teacher.candidates(view)
                top = max((v for v, _ in options), default=None)
                moves = [o for v, o in options if v >= top - 1e-9 and not isinstance(o, int)]
                if len(moves) == 1 and len(moves[0]) > 1:
                    # one best move of several tiles: each best action lays one of its tiles
                    cells = {view.window_cell(r, c) for r, c, _ in moves[0]}
                    laid = [view.codec.decode(a) for a in plays]
                    assert {(p.row, p.col) for p in laid} <= cells
                    checked += len(plays) > 1
            model.step(state, teacher.act(obs, view))
    assert checked > 0
