"""docs/results/opponent_hand.py: its variants change only the heuristics' risk chance, the
passed-up kinds are the rules engine's one-card Qwirkles, and the script runs."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tabletop_rl.baselines.agents.qwirkle_cards_heuristic import (
    QwirkleCardsHeuristicAgent,
    hand_holds_all,
)
from tabletop_rl.envs.qwirkle_cards.cards import LINE_KINDS, NUM_KINDS, NUM_LINES
from tabletop_rl.envs.qwirkle_cards.turns import legal_turns

SCRIPT = "opponent_hand.py"


@pytest.fixture(scope="module")
def script(results_script: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    return results_script(SCRIPT)


@pytest.fixture(scope="module")
def turn_starts(
    heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]],
) -> list[tuple[Any, Any]]:
    """(state copy, view of the player to act) at the turn starts of two heuristic games."""
    return [start for seed in range(2) for start in heuristic_turn_starts("qwirkle_cards_v0", seed)]


def test_passed_up_kinds_are_the_one_card_qwirkles_of_the_rules(
    script: dict[str, Any], turn_starts: list[tuple[Any, Any]]
) -> None:
    passed_up = script["passed_up"]
    checked = 0
    for _, view in turn_starts:
        expected = set()
        for line in range(NUM_LINES):
            missing = [k for k in LINE_KINDS[line] if not view.table[k]]
            if len(missing) != 1:
                continue
            (k,) = missing
            one = tuple(int(j == k) for j in range(NUM_KINDS))
            if any(t.taken[line] for t in legal_turns(view.table, one, first_turn=False)):
                expected.add(k)
        assert passed_up(view.table) == expected, view.table
        checked += bool(expected)
    assert checked > 0  # some tables offered a one-card Qwirkle


def test_with_nothing_learnt_the_chance_is_the_heuristics(script: dict[str, Any]) -> None:
    holds_all = script["holds_all"]
    rng = np.random.default_rng(0)
    for _ in range(200):
        unseen = rng.integers(0, 4, NUM_KINDS).tolist()
        size = int(rng.integers(1, 10))
        missing = sorted(rng.choice(NUM_KINDS, int(rng.integers(1, 3)), replace=False).tolist())
        expected = hand_holds_all(missing, unseen, sum(unseen), size)
        assert holds_all(missing, unseen, [size] * NUM_KINDS) == pytest.approx(expected)
        # fewer cards that may be a kind: a smaller chance, none when no card may be it
        fewer = [size] * NUM_KINDS
        fewer[missing[0]] = 0
        assert holds_all(missing, unseen, fewer) == pytest.approx(0.0)
        fewer[missing[0]] = size // 2
        assert holds_all(missing, unseen, fewer) <= expected + 1e-12


def test_the_variants_plan_the_heuristics_turns_when_their_chance_agrees(
    script: dict[str, Any], turn_starts: list[tuple[Any, Any]]
) -> None:
    passes, seeing = script["PassReading"], script["CardsHandSeeing"]
    for state, view in turn_starts[::4]:
        heuristic = QwirkleCardsHeuristicAgent(np.random.default_rng(1)).plan(view)
        # a pass reader that has seen no turn of the opponent estimates as the heuristic does
        assert passes(np.random.default_rng(1)).plan(view) == heuristic
        opponent = state.hand(1 - view.player)
        agent = seeing(np.random.default_rng(1))
        agent.opponent_kinds = script["held_kinds"]("qwirkle_cards_v0", opponent)
        for line in range(NUM_LINES):
            missing = [k for k in LINE_KINDS[line] if not view.table[k]][:2]
            truth = float(all(opponent[k] for k in missing))
            assert agent.next_player_chance(view, missing) == truth


def test_the_script_prints_a_win_rate(run_results_script: Callable[..., str]) -> None:
    runs = [(env, v) for env in ("qwirkle_cards_v0", "qwirkle_v0") for v in ("hand", "passes")]
    for env, variant in [*runs, ("qwirkle_cards_v0", "choices")]:
        out = run_results_script(SCRIPT, env, variant, "--games", "2")
        assert re.search(rf"^{env}: .* from '{variant}' against heuristic, 2 games: [\d.]+ \(", out)


def test_the_choices_variant_is_refused_for_qwirkle(
    run_results_script: Callable[..., str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        run_results_script(SCRIPT, "qwirkle_v0", "choices", "--games", "2")
    assert "reads Qwirkle Cards turns only" in capsys.readouterr().err


def test_qwirkles_pass_reader_notes_the_board_it_leaves_and_starts_as_the_heuristic(
    script: dict[str, Any],
) -> None:
    from tabletop_rl.baselines.agents.qwirkle_heuristic import QwirkleHeuristicAgent
    from tabletop_rl.envs.qwirkle.model import QwirkleModel

    model = QwirkleModel(2)
    state = model.new_state(np.random.default_rng(3))
    reader = script["TilePassReading"](np.random.default_rng(0))
    heuristic = QwirkleHeuristicAgent(np.random.default_rng(0))
    turns = 0
    while not model.is_over(state) and turns < 12:
        player = model.current_player(state)
        view = model.public_view(state, player)
        obs = {"observation": model.observe(state, player), "action_mask": model.legal_mask(state)}
        if player == 1 or view.first_turn:
            model.step(state, heuristic.act(obs, view))
            continue
        if reader.may is None and not view.laid_this_turn:
            # nothing learnt yet: the heuristic's values
            assert reader.move_candidates(view) == heuristic.move_candidates(view)
        action = reader.act(obs, view)
        model.step(state, action)
        if action >= view.codec.end:  # the turn ended: the board it noted is the game's
            turns += 1
            board = model.public_view(state, 1).board
            assert reader.left is not None and dict(reader.left.tiles) == dict(board.tiles)
    assert turns >= 5


def test_qwirkles_variant_reads_the_opponents_tiles(script: dict[str, Any]) -> None:
    from tabletop_rl.baselines.agents.qwirkle_heuristic import QwirkleHeuristicAgent, holds_all
    from tabletop_rl.envs.qwirkle.model import QwirkleModel

    model = QwirkleModel(2)
    state = model.new_state(np.random.default_rng(5))
    view = model.public_view(state, 0)
    opponent = model.public_view(state, 1).hand
    agent = script["QwirkleHandSeeing"](np.random.default_rng(0))
    agent.opponent_kinds = script["held_kinds"]("qwirkle_v0", opponent)
    heuristic = QwirkleHeuristicAgent(np.random.default_rng(0))
    for missing in ([opponent[0]], [opponent[0], opponent[1]], [0, 1]):
        truth = float(all(t in opponent for t in missing))
        assert agent.next_player_chance(view, missing) == truth
        estimate = holds_all(tuple(view.unseen[t] for t in missing), sum(view.unseen), 6)
        assert heuristic.next_player_chance(view, missing) == pytest.approx(estimate)
