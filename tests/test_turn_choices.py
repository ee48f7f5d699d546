"""docs/results/turn_choices.py: a hand is consistent with a turn exactly when the turn is
one of the heuristic's best from it (checked against the rules engine's list of legal turns
valued by the heuristic itself), and ``opponent_hand.py``'s choice reader reads the turn the
opponent played."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tabletop_rl.baselines.agents.qwirkle_cards_heuristic import QwirkleCardsHeuristicAgent
from tabletop_rl.envs.qwirkle_cards.actions import END_TURN, TAKE
from tabletop_rl.envs.qwirkle_cards.cards import NUM_KINDS, NUM_LINES
from tabletop_rl.envs.qwirkle_cards.model import QwirkleCardsModel

WORSE = 1e-6
"""A turn this much below the best value is not one of the best."""


@pytest.fixture(scope="module")
def choices(results_script: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    return results_script("turn_choices.py")


def counts(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def test_the_heuristics_turn_is_consistent_and_every_worse_turn_is_not(
    choices: dict[str, Any], heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]]
) -> None:
    could_choose = choices["could_choose"]
    rng = np.random.default_rng(0)
    rejected = 0
    starts = [s for seed in range(2) for s in heuristic_turn_starts("qwirkle_cards_v0", seed)]
    for _, view in starts[::3]:
        heuristic = QwirkleCardsHeuristicAgent(np.random.default_rng(1))
        hand = view.hand
        position = (counts(hand), counts(view.table), counts(view.unseen))
        next_hand = view.hand_sizes[1 - view.player]

        def consistent(turn: Any, position: Any = position, next_hand: int = next_hand) -> bool:
            return could_choose(*position, counts(turn.played), counts(turn.taken), next_hand)

        assert consistent(heuristic.plan(view))
        turns = view.legal_turns()
        most = max(t.num_qwirkles for t in turns)
        best = max(heuristic.turn_value(view, hand, t) for t in turns if t.num_qwirkles == most)
        for i in rng.permutation(len(turns))[:15]:
            turn = turns[i]
            value = heuristic.turn_value(view, hand, turn)
            if turn.num_qwirkles < most or (most == 0 and value < best - WORSE):
                assert not consistent(turn), (view.table, hand, turn)
                rejected += 1
            elif most == 0:
                assert consistent(turn)  # a tie with the best
    assert rejected > 20


def test_the_hands_kept_hold_the_rest_of_a_consistent_hand(
    choices: dict[str, Any], heuristic_turn_starts: Callable[[str, int], list[tuple[Any, Any]]]
) -> None:
    hands_kept, could_choose = choices["hands_kept"], choices["could_choose"]
    state, view = heuristic_turn_starts("qwirkle_cards_v0", 0)[10]
    plan = QwirkleCardsHeuristicAgent(np.random.default_rng(1)).plan(view)
    observer = 1 - view.player
    own = counts(state.hand(observer))
    hidden = counts(view.unseen) - own + counts(view.hand)  # what the observer cannot see
    played, taken = counts(plan.played), counts(plan.taken)
    size = sum(view.hand)
    kept = hands_kept(
        counts(view.table), hidden, own, size, played, taken, 100, np.random.default_rng(2)
    )
    assert kept  # the true hand's turn is there to be found
    for rest in kept:
        assert rest.sum() == size - played.sum()
        assert (rest + played <= hidden).all()
        unseen = hidden + own - rest - played
        assert could_choose(
            rest + played, counts(view.table), unseen, played, taken, int(own.sum())
        )


def test_the_choice_reader_reads_the_turn_the_opponent_played(
    results_script: Callable[[str], dict[str, Any]],
) -> None:
    script = results_script("opponent_hand.py")
    model = QwirkleCardsModel(2)
    state = model.new_state(np.random.default_rng(4))
    reader = script["ChoiceReading"](np.random.default_rng(0))
    opponent = QwirkleCardsHeuristicAgent(np.random.default_rng(0))
    read = 0
    played = np.zeros(NUM_KINDS, dtype=np.int64)
    taken = np.zeros(NUM_LINES, dtype=np.int64)
    while not model.is_over(state) and read < 6:
        player = model.current_player(state)
        view = model.public_view(state, player)
        obs = {"observation": model.observe(state, player), "action_mask": model.legal_mask(state)}
        if player == 1:
            action = opponent.act(obs, view)
            if action < TAKE:
                played[action] += 1
            elif action < END_TURN:
                taken[action - TAKE] += 1
            model.step(state, action)
            continue
        if reader.unread:  # our turn starts: read the opponent's since our last
            if reader.left is not None:
                table, qwirkles, _ = reader.left
                cards, took = script["turn_since"](view, table, qwirkles)
                assert cards == tuple(played) and took == tuple(taken)
                read += bool(cards)
            played[:] = 0
            taken[:] = 0
        model.step(state, reader.act(obs, view))
        if reader.kept is not None:
            assert all(0.0 <= reader.next_player_chance(view, [k]) <= 1.0 for k in range(6))
    assert read >= 5
