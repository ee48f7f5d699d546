"""docs/results/hand_calibration.py: its facts agree with the rules engine, its held-out
model finds information the chance leaves out when there is some, and the script runs."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tabletop_rl.envs.qwirkle.moves import legal_moves
from tabletop_rl.envs.qwirkle_cards.cards import LINE_KINDS, NUM_KINDS
from tabletop_rl.envs.qwirkle_cards.turns import legal_turns

SCRIPT = "hand_calibration.py"


@pytest.fixture(scope="module")
def script(results_script: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    return results_script(SCRIPT)


def test_the_card_facts_agree_with_the_rules_engine(
    script: dict[str, Any], heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]]
) -> None:
    tables = [tuple(view.table) for _, view in heuristic_turn_starts("qwirkle_cards_v0", 0)]
    facts = script["CARD_FACTS"]
    playable, on_table, five = (facts.index(f) for f in ("playable", "on table", "line of 5"))
    checked = 0
    for table in tables[::3]:
        got = script["kind_facts"](table, table)
        for k in range(NUM_KINDS):
            one = tuple(int(j == k) for j in range(NUM_KINDS))
            rules = table[k] < 3 and bool(legal_turns(table, one, first_turn=False))
            assert got[k, playable] == rules, (table, k)
            assert got[k, on_table] == (table[k] > 0)
            lines = [line for line in LINE_KINDS if k in line]
            longest = max(sum(1 for j in line if j != k and table[j]) for line in lines)
            assert got[k, five] == (longest == 5)
            checked += rules
    assert checked > 0  # some kinds could be played
    # without the opponent's table the facts about its choice are unknown: 0
    assert not script["kind_facts"](table, None)[:, playable].any()


def test_the_tile_facts_agree_with_the_rules_engine(
    script: dict[str, Any], heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]]
) -> None:
    boards = [view.board for _, view in heuristic_turn_starts("qwirkle_v0", 0)]
    facts = script["TILE_FACTS"]
    fits, passed, played = (facts.index(f) for f in ("fits", "passed up", "just played"))
    offered = 0
    for board, later in zip(boards[::4], boards[1::4], strict=False):
        got = script["tile_facts"](later, board)
        for k in range(36):
            moves = legal_moves(board, [k])
            assert got[k, fits] == bool(moves), k
            # one tile scores 12 or more only by completing a line of six: a Qwirkle
            qwirkle = any(board.points(m) >= 12 for m in moves)
            assert got[k, passed] == qwirkle, k
            offered += qwirkle
            more = sum(t == k for t in later.tiles.values()) > sum(
                t == k for t in board.tiles.values()
            )
            assert got[k, played] == more
    assert offered > 0  # some boards offered a Qwirkle


def test_the_held_out_model_finds_information_the_chance_leaves_out(
    script: dict[str, Any],
) -> None:
    rng = np.random.default_rng(0)
    n = 6000
    names = script["CARD_FACTS"]
    facts = rng.integers(0, 2, (n, len(names))).astype(float)
    chance = rng.uniform(0.1, 0.6, n)
    games = rng.integers(0, 100, n).astype(float)
    # calibrated chances: the model cannot beat them by much
    holds = (rng.random(n) < chance).astype(float)
    rows = np.column_stack([games, chance, holds, facts])
    loss = _losses(script["report"](rows, names)[-1])
    assert loss[1] == pytest.approx(loss[0], abs=0.01)
    # a kind "passed up" is never held: the model finds it, the chance does not
    passed = names.index("passed up")
    rows[:, 2] = np.where(facts[:, passed] == 1, 0.0, holds)
    loss = _losses(script["report"](rows, names)[-1])
    assert loss[1] < loss[0] - 0.05


def _losses(line: str) -> tuple[float, float]:
    found = re.findall(r"\d+\.\d{4}", line)
    assert len(found) == 2, line
    return float(found[0]), float(found[1])


def test_the_script_prints_its_table(run_results_script: Callable[..., str]) -> None:
    for env in ("qwirkle_cards_v0", "qwirkle_v0"):
        out = run_results_script(SCRIPT, env, "--games", "2")
        assert out.startswith(f"{env}: the heuristic's chance")
        assert re.search(r"^all kinds +0\.\d{3} +0\.\d{3} +\d+$", out, re.M)
        assert "log loss on held-out games" in out
