"""docs/results/qwirkle_teachers.py: the endgame search's values are the three plies played
through the game model, its variants act as their base agents before the bag is empty, and
the script runs."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tabletop_rl.baselines.agents.qwirkle_heuristic import QwirkleHeuristicAgent
from tabletop_rl.envs.qwirkle.actions import Place
from tabletop_rl.envs.qwirkle.model import QwirkleModel

SCRIPT = "qwirkle_teachers.py"


@pytest.fixture(scope="module")
def script(results_script: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    return results_script(SCRIPT)


@pytest.fixture(scope="module")
def turn_starts(
    heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]],
) -> list[tuple[Any, Any]]:
    """(state copy, view of the player to act) at the turn starts of two heuristic games."""
    return [start for seed in range(2) for start in heuristic_turn_starts("qwirkle_v0", seed)]


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
    script: dict[str, Any], turn_starts: list[tuple[Any, Any]]
) -> None:
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
            got = script["endgame_value"](view.board, view.hand, rack, move)
            assert got == expected, (move, got, expected)
            checked += 1
    assert checked >= 6 and three >= 2  # some moves go through all three plies


def test_before_the_bag_empties_the_variants_value_as_the_heuristic(
    script: dict[str, Any], turn_starts: list[tuple[Any, Any]]
) -> None:
    early = [v for _, v in turn_starts if v.bag_size > 0][::5]
    search = script["EndgameSearch"](np.random.default_rng(0))
    follow = script["FollowUpHeuristic"](np.random.default_rng(0))
    heuristic = QwirkleHeuristicAgent(np.random.default_rng(0))
    raised = 0
    for view in early:
        base = heuristic.move_candidates(view)
        assert search.move_candidates(view) == base
        followed = follow.move_candidates(view)
        assert [m for _, m in followed] == [m for _, m in base]
        gains = [f - b for (f, _), (b, _) in zip(followed, base, strict=True)]
        assert min(gains) >= 0 and sum(g > 0 for g in gains) <= script["FOLLOWED"]
        raised += any(gains)
    assert raised > 0  # some kept tiles score next


def test_the_script_prints_a_win_rate(run_results_script: Callable[..., str]) -> None:
    for variant in ("plan", "plan+endgame", "heuristic+follow-up"):
        out = run_results_script(SCRIPT, variant, "--games", "2")
        assert re.search(rf"^qwirkle_v0: {re.escape(variant)} against heuristic, 2 games: ", out)


def test_paired_games_compare_a_variant_with_the_plan_teacher(
    run_results_script: Callable[..., str],
) -> None:
    out = run_results_script(SCRIPT, "plan+endgame", "--games", "2", "--paired")
    found = re.search(
        r"^qwirkle_v0: plan\+endgame against heuristic, 2 games \(paired\): [\d.]+ \(.*\); "
        r"the plan teacher on the same games: [\d.]+ \(.*\); results differ in (\d) games",
        out,
    )
    assert found, out
    assert int(found[1]) <= 2
