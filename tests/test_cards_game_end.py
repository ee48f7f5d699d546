"""docs/results/cards_game_end.py: the heuristic's variants that know the end of the game,
charge lines missing three kinds, or pace and risk by the score, checked against the rules
engine's list of legal turns and the heuristic's own values."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tabletop_rl.baselines.agents.qwirkle_cards_heuristic import (
    QwirkleCardsHeuristicAgent,
    hand_holds_all,
)
from tabletop_rl.envs.qwirkle_cards.cards import HAND_SIZE, LINE_KINDS
from tabletop_rl.envs.qwirkle_cards.model import QwirkleCardsModel

SCRIPT = "cards_game_end.py"
ENV = "qwirkle_cards_v0"


def ends_game(view: Any, turn: Any) -> bool:
    """Whether ``turn``'s draw empties the pile (the view's pile, before the end is fixed)."""
    return view.pile_size <= HAND_SIZE - (sum(view.hand) - turn.num_played)


def with_scores(view: Any, mine: int, theirs: int, pile: int) -> Any:
    """``view`` with the viewer at ``mine`` Qwirkles, the opponent at ``theirs`` and ``pile``
    cards left to draw."""
    scores = [(theirs,) + (0,) * 11] * 2
    scores[view.player] = (mine,) + (0,) * 11
    return dataclasses.replace(view, qwirkles=tuple(scores), pile_size=pile, turns_left=None)


@pytest.fixture
def last_of_round(results_script: Callable[[str], dict[str, Any]]) -> Any:
    """The ``ending`` variant, seated as the last player of the round."""
    agent = results_script(SCRIPT)["EndingAware"](np.random.default_rng(0), lambda obs, view: 0)
    agent.last_of_round = True
    return agent


def test_the_last_of_the_round_ends_a_game_it_leads_and_not_one_it_trails(
    last_of_round: Any, heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]]
) -> None:
    agent = last_of_round
    checked = {"lead": 0, "trail": 0}
    for _, start in heuristic_turn_starts(ENV, 5)[::3]:
        for case, mine, theirs in (("lead", 10, 0), ("trail", 0, 10)):
            view = with_scores(start, mine, theirs, pile=2)
            turns = view.legal_turns()
            most = max(sum(t.taken) for t in turns)
            best = [t for t in turns if sum(t.taken) == most]
            wanted = case == "lead"
            planned = agent.plan(view)
            assert sum(planned.taken) == most
            if any(ends_game(view, t) == wanted for t in best):
                assert ends_game(view, planned) == wanted, case
                checked[case] += any(ends_game(view, t) != wanted for t in best)
    assert checked["lead"] > 0 and checked["trail"] > 0  # a real choice in both cases


def test_the_variant_plays_as_the_heuristic_where_the_game_cannot_end(
    last_of_round: Any, heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]]
) -> None:
    agent = last_of_round
    plain = QwirkleCardsHeuristicAgent(np.random.default_rng(0))
    for _, start in heuristic_turn_starts(ENV, 5)[::4]:
        view = with_scores(start, 10, 0, pile=HAND_SIZE + 1)  # no draw empties the pile
        for turn in view.legal_turns()[:20]:
            hand = start.hand
            assert agent.turn_value(view, hand, turn) == plain.turn_value(view, hand, turn)


def test_three_missing_charges_the_next_players_chance_of_all_three(
    results_script: Callable[[str], dict[str, Any]],
    heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]],
) -> None:
    three = results_script(SCRIPT)["ThreeMissing"](np.random.default_rng(0))
    plain = QwirkleCardsHeuristicAgent(np.random.default_rng(0))
    charged = 0
    for _, view in heuristic_turn_starts(ENV, 5):
        opponent_hand = view.hand_sizes[1 - view.player]
        lines = [[k for k in kinds if not view.table[k]] for kinds in LINE_KINDS]
        expected = sum(
            hand_holds_all(missing, view.unseen, sum(view.unseen), opponent_hand)
            for missing in lines
            if len(missing) == 3
        )
        difference = plain.position_value(view, view.table, view.hand) - three.position_value(
            view, view.table, view.hand
        )
        assert difference == pytest.approx(expected)
        charged += expected > 0
    assert charged > 0


@pytest.mark.parametrize(("mine", "theirs", "sign"), [(10, 0, 1), (0, 10, -1), (3, 3, 0)])
def test_the_lead_variants_pace_and_charge_by_the_sign_of_the_lead(
    results_script: Callable[[str], dict[str, Any]],
    heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]],
    mine: int,
    theirs: int,
    sign: int,
) -> None:
    lead_aware = results_script(SCRIPT)["LeadAware"]
    pace = lead_aware(np.random.default_rng(0), pace=0.3)
    safe = lead_aware(np.random.default_rng(0), safe=0.5)
    plain = QwirkleCardsHeuristicAgent(np.random.default_rng(0))
    # a leader charges 1.5 times the risk, a trailer half of it
    scaled = QwirkleCardsHeuristicAgent(np.random.default_rng(0), risk=1.0 + 0.5 * sign)
    turns = 0
    for _, start in heuristic_turn_starts(ENV, 5)[::4]:
        view = with_scores(start, mine, theirs, pile=30)
        for turn in [t for t in view.legal_turns() if not any(t.taken)][:10]:
            base = plain.turn_value(view, start.hand, turn)
            paced = base + sign * 0.3 * turn.num_played
            assert pace.turn_value(view, start.hand, turn) == pytest.approx(paced)
            risked = scaled.turn_value(view, start.hand, turn)
            assert safe.turn_value(view, start.hand, turn) == pytest.approx(risked)
            turns += 1
    assert turns > 20


def test_unknown_variants_are_refused_with_the_allowed_ones(
    results_script: Callable[[str], dict[str, Any]],
) -> None:
    maker = results_script(SCRIPT)["variant_maker"]
    for spec in ("pace", "pace:x", "ending:1", "fast:1"):
        with pytest.raises(SystemExit, match="ending, three, pace:W, safe:W|must be a number"):
            maker(spec, lambda obs, view: 0)


def test_the_starter_is_read_off_the_observation(
    results_script: Callable[[str], dict[str, Any]],
) -> None:
    starter_reader = results_script(SCRIPT)["starter_reader"]
    model = QwirkleCardsModel(num_players=2)
    starter_of = starter_reader(model)
    for seed in range(4):
        state = model.new_state(np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        for _ in range(12):
            for player in range(2):
                obs = {"observation": model.observe(state, player)}
                assert starter_of(obs, model.public_view(state, player)) == state.state.starter
            model.step(state, int(rng.choice(np.flatnonzero(model.legal_mask(state)))))


def test_the_script_prints_both_win_rates(run_results_script: Callable[..., str]) -> None:
    out = run_results_script(SCRIPT, "ending", "three", "pace:0.1", "--games", "2")
    for variant in ("ending", "three", "pace:0.1"):
        assert f"{variant!r} against the heuristic, 2 games:" in out
    assert out.count("the heuristic itself on the same games:") == 3
