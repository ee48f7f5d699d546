"""docs/results/qwirkle_teachers.py: its variants act as their base agents before the bag is
empty, and the script runs (the endgame search itself: ``test_qwirkle_endgame.py``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tabletop_rl.baselines.agents.qwirkle_heuristic import QwirkleHeuristicAgent

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
    for variant in ("plan", "plan+endgame", "endgame", "heuristic+follow-up"):
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
