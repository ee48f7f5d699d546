"""Qwirkle's ``place_plan`` and ``turn_plan`` features against a brute force.

The follow-up of a turn (what the tiles it keeps score in one move on the board it leaves) is
found here without the move generator: every sequence of kept tiles on empty cells that the
reference board accepts as a legal move, tile by tile. A placement's plan value is then the
most, over the ways to finish the turn through the game model (step, read the mask, step
again), of ``turn_net`` where the turn ends (tested in ``test_qwirkle_features.py``) plus
``FOLLOW_UP_WEIGHT`` times that follow-up.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tabletop_rl.envs.core.features import FeatureModel
from tabletop_rl.envs.qwirkle.board import Board
from tabletop_rl.envs.qwirkle.follow_ups import FOLLOW_UP_WEIGHT
from tabletop_rl.envs.qwirkle.game import END_BONUS

sys.path.insert(0, str(Path(__file__).parent))
from qwirkle_positions import feature_model, played_positions


def brute_follow_up(view: Any) -> int:
    """The most points of a legal move of the hand's tiles not laid this turn, on the board
    with this turn's tiles, inside the window: every sequence of (empty cell next to a tile,
    kept tile) that the board accepts as a move at every length (the rules make every part
    of a legal move legal), without the move generator."""
    laid = [(r, c, view.hand[slot]) for r, c, slot in view.laid_this_turn]
    used = {slot for _, _, slot in view.laid_this_turn}
    kept = [t for slot, t in enumerate(view.hand) if slot not in used]
    if not kept:
        return 0
    board = Board({**view.board.tiles, **{(r, c): t for r, c, t in laid}})
    best = 0

    def extend(move: list[tuple[int, int, int]], left: list[int]) -> None:
        nonlocal best
        if move:
            points = board.score(move)
            if view.bag_size == 0 and not left:
                points += END_BONUS
            best = max(best, points)
        taken = {(r, c) for r, c, _ in move}
        cells = {
            (r + dr, c + dc)
            for (r, c) in [*board.tiles, *taken]
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
        }
        for cell in cells:
            if cell in board.tiles or cell in taken or view.window_cell(*cell) is None:
                continue
            for i, tile in enumerate(left):
                if tile in left[:i]:
                    continue  # the same tile kind again: the same moves
                candidate = [*move, (*cell, tile)]
                if board.is_legal(candidate):
                    extend(candidate, left[:i] + left[i + 1 :])

    extend([], kept)
    return best


def searched_plans(model: FeatureModel, state: Any) -> tuple[dict[int, float], float | None]:
    """For each legal placement, the most over the ways to finish the turn through the game
    model of ``turn_net`` + weight x :func:`brute_follow_up` where it ends; and that value of
    ending the turn now (None when the turn may not end)."""
    end = model.codec.end

    def plan_now(st: Any) -> float:
        player = model.current_player(st)
        net = model.layout.decode(model.observe(st, player))["turn_net"][0]
        return float(net) + FOLLOW_UP_WEIGHT * brute_follow_up(model.public_view(st, player))

    def best(st: Any) -> float:
        mask = model.legal_mask(st)
        value = plan_now(st) if mask[end] else -np.inf
        for action in np.flatnonzero(mask[:end]):
            after = model.copy(st)
            model.step(after, int(action))
            value = max(value, best(after))
        return value

    plans = {}
    for action in np.flatnonzero(model.legal_mask(state)[:end]):
        after = model.copy(state)
        model.step(after, int(action))
        plans[int(action)] = best(after)
    return plans, plan_now(state) if model.legal_mask(state)[end] else None


@pytest.mark.parametrize(("engine", "limit"), [("compiled", 14), ("reference", 4)])
def test_place_plan_is_the_best_turn_net_plus_its_weighted_follow_up(
    engine: str, limit: int
) -> None:
    model = feature_model(engine)
    checked = {"turn start": 0, "mid-turn": 0, "follow-up counts": 0, "end now": 0}
    for seed in range(2):
        for state in played_positions(model, 40 + seed, every=5, limit=limit):
            views = model.layout.decode(model.observe(state, model.current_player(state)))
            plan = views["place_plan"].reshape(-1)
            expected, now = searched_plans(model, state)
            actions = np.array(sorted(expected), dtype=np.int64)
            assert not np.delete(plan, actions).any()
            np.testing.assert_allclose(plan[actions], [expected[a] for a in actions], atol=1e-4)
            if now is None:
                assert views["turn_plan"][0] == 0.0
            else:
                assert views["turn_plan"][0] == pytest.approx(now, abs=1e-4)
                checked["end now"] += 1
            view = model.public_view(state, model.current_player(state))
            checked["mid-turn" if view.laid_this_turn else "turn start"] += 1
            net = views["place_net"].reshape(-1)[actions]
            checked["follow-up counts"] += bool((plan[actions] > net + 1e-4).any())
    assert all(n > 0 for n in checked.values()), checked


def test_a_non_actor_sees_no_plans() -> None:
    model = feature_model("compiled")
    state = model.new_state(np.random.default_rng(2))
    other = 1 - model.current_player(state)
    views = model.layout.decode(model.observe(state, other))
    assert not views["place_plan"].any() and views["turn_plan"][0] == 0.0
