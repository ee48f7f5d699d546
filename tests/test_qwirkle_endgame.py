"""Qwirkle's endgame search (``envs/qwirkle/endgame.py``) and the features that carry it,
``place_endgame`` and ``turn_endgame``.

The reference search's values are the three plies played through the game model (lay a move
by its actions, end the turn, read the scores; every reply, every next move) at endgame
positions of heuristic games; the compiled features equal the reference engine's at every
decision of heuristic games (a random action one step in four) once the bag is empty; before
that, and with three players, they are the plan's (``place_plan``, ``turn_plan``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_rl.envs.core.features import FeatureModel
from tabletop_rl.envs.qwirkle.actions import Place
from tabletop_rl.envs.qwirkle.endgame import view_endgame_points
from tabletop_rl.envs.qwirkle.model import QwirkleModel

sys.path.insert(0, str(Path(__file__).parent))
from qwirkle_positions import feature_model, played_positions

FIELDS = ("place_endgame", "turn_endgame")


def play(model: QwirkleModel, state: Any, move: Any) -> int:
    """Lay ``move`` through the model's actions and end the turn; the mover's points."""
    view = model.public_view(state, model.current_player(state))
    before = view.scores[view.player]
    used: set[int] = set()
    for r, c, tile in move:
        slot = next(s for s, t in enumerate(view.hand) if t == tile and s not in used)
        used.add(slot)
        model.step(state, view.codec.encode(Place(slot, *view.window_cell(r, c))))
    model.step(state, view.codec.end)
    return model.public_view(state, view.player).scores[view.player] - before


def test_the_endgame_value_is_three_plies_through_the_game_model(
    heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]],
) -> None:
    turn_starts = [s for seed in range(2) for s in heuristic_turn_starts("qwirkle_v0", seed)]
    model = QwirkleModel(2)
    # endgame positions where both hold two tiles or more, the cheapest to play through first
    endgame = [
        (s, v)
        for s, v in turn_starts
        if v.bag_size == 0 and len(v.hand) >= 2 and sum(v.unseen) >= 2
    ]
    assert len(endgame) >= 4
    endgame.sort(key=lambda sv: len(sv[1].hand) + sum(sv[1].unseen))
    checked = three = 0
    for state, view in endgame[:4]:
        opponent = 1 - view.player
        rack = model.public_view(state, opponent).hand
        # what the player cannot see is the opponent's rack
        assert sorted(rack) == [t for t, n in enumerate(view.unseen) for _ in range(n)]
        for move, _ in view.scored_moves()[:3]:
            after = model.copy(state)
            points = play(model, after, move)
            expected = points
            if not model.is_over(after):
                replies = []
                for reply, _ in model.public_view(after, opponent).scored_moves():
                    seen = model.copy(after)
                    replied = play(model, seen, reply)
                    if model.is_over(seen):
                        replies.append((replied, None))
                        continue
                    nexts = [0]
                    for mine, _ in model.public_view(seen, view.player).scored_moves():
                        nexts.append(play(model, model.copy(seen), mine))
                    replies.append((replied, max(nexts)))
                if replies:
                    top = max(r for r, _ in replies)
                    best = [n for r, n in replies if r == top]
                    expected -= top
                    if None not in best:
                        expected += min(best)
                        three += 1
                else:  # the opponent must pass
                    (action,) = np.flatnonzero(model.legal_mask(after))
                    model.step(after, int(action))
                    nexts = [0]
                    for mine, _ in model.public_view(after, view.player).scored_moves():
                        nexts.append(play(model, model.copy(after), mine))
                    expected += max(nexts)
            got = view_endgame_points(view, move, points)
            assert got == expected, (move, got, expected)
            checked += 1
    assert checked >= 6 and three >= 2  # some moves go through all three plies


def test_both_engines_give_the_same_endgame_values() -> None:
    compiled, reference = feature_model("compiled"), feature_model("reference")
    checked = {"turn start": 0, "mid-turn": 0, "end now": 0, "search differs from plan": 0}
    for seed in range(2):
        for state in played_positions(compiled, seed, every=1, limit=10**6):
            player = compiled.current_player(state)
            view = compiled.public_view(state, player)
            if view.bag_size:
                continue
            got = compiled.layout.decode(compiled.observe(state, player))
            copy = state.reference()
            want = reference.layout.decode(reference.observe(copy, player))
            for field in FIELDS:
                np.testing.assert_array_equal(got[field], want[field], err_msg=field)
            checked["mid-turn" if view.laid_this_turn else "turn start"] += 1
            checked["end now"] += bool(got["turn_endgame"][0])
            checked["search differs from plan"] += bool(
                (got["place_endgame"] != got["place_plan"]).any()
            )
    assert all(n >= 3 for n in checked.values()), checked


def plan_and_endgame(model: FeatureModel, state: Any) -> tuple[np.ndarray, np.ndarray]:
    views = model.layout.decode(model.observe(state, model.current_player(state)))
    plan = np.concatenate([views["place_plan"].reshape(-1), views["turn_plan"]])
    endgame = np.concatenate([views["place_endgame"].reshape(-1), views["turn_endgame"]])
    return plan, endgame


def test_before_the_bag_empties_the_endgame_fields_are_the_plan() -> None:
    model = feature_model("compiled")
    seen = 0
    for state in played_positions(model, 3, every=7, limit=12):
        assert model.public_view(state, model.current_player(state)).bag_size > 0
        plan, endgame = plan_and_endgame(model, state)
        np.testing.assert_array_equal(endgame, plan)
        seen += bool(plan.any())
    assert seen >= 10


def test_with_three_players_the_endgame_fields_are_the_plan() -> None:
    model = feature_model("compiled", num_players=3)
    seen = 0
    for state in played_positions(model, 4, every=1, limit=10**6):
        if model.public_view(state, model.current_player(state)).bag_size:
            continue
        plan, endgame = plan_and_endgame(model, state)
        np.testing.assert_array_equal(endgame, plan)
        seen += 1
    assert seen >= 5
