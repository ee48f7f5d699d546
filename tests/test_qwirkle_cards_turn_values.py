"""Qwirkle Cards' turn-value features against brute force over the engine's legal turns.

For every legal sub-action, ``action_turn_qwirkles`` and ``action_turn_value`` must be the
most Qwirkles of a legal turn that continues the selection with it and the best value of the
heuristic agent (its default weights) among those turns. Brute force: the engine's complete
list of legal turns from the start of the turn (``view.legal_turns()``), filtered to those
that continue the selection with the action, each valued by the heuristic's own
``turn_value``. Positions come from games of random sub-actions and of a player who takes a
Qwirkle whenever one is legal (so Qwirkles are taken, and turns continue after takes).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from tabletop_rl.baselines.agents.qwirkle_cards_heuristic import QwirkleCardsHeuristicAgent
from tabletop_rl.envs.core.features import FeatureModel, with_features
from tabletop_rl.envs.qwirkle_cards.actions import CANNOT_PLAY, END_TURN, NUM_ACTIONS, TAKE
from tabletop_rl.envs.qwirkle_cards.cards import NUM_KINDS, NUM_LINES
from tabletop_rl.envs.qwirkle_cards.compiled_model import QwirkleCardsCompiledModel
from tabletop_rl.envs.qwirkle_cards.features import QWIRKLE_CARDS_FEATURES
from tabletop_rl.envs.qwirkle_cards.model import QwirkleCardsModel, QwirkleCardsView
from tabletop_rl.envs.qwirkle_cards.turns import Turn


def _pick(mask: np.ndarray, rng: np.random.Generator, takes_first: bool) -> int:
    legal = np.flatnonzero(mask)
    takes = [a for a in legal if TAKE <= a < END_TURN]
    if takes_first and takes:
        return int(takes[int(rng.integers(len(takes)))])
    return int(legal[int(rng.integers(len(legal)))])


def acting_positions(
    model: FeatureModel, games: int, seed: int, steps: int = 40
) -> Iterator[tuple[object, int, np.ndarray]]:
    """``(state, player to act, mask)`` at the first ``steps`` decisions of ``games`` games
    (the redraws left out: their only action has no turn). Random play piles cards on the
    table, and the brute force's list of legal turns grows with it: the first decisions keep
    it small."""
    for g in range(games):
        state = model.new_state(np.random.default_rng([seed, g]))
        rng = np.random.default_rng([seed, g, 1])
        for _ in range(steps):
            if model.is_over(state):
                break
            mask = model.legal_mask(state)
            if not mask[CANNOT_PLAY]:
                yield state, model.current_player(state), mask
            model.step(state, _pick(mask, rng, takes_first=g % 2 == 1))


def _continues(turn: Turn, view: QwirkleCardsView, action: int) -> bool:
    """Whether ``turn`` continues the selection so far with ``action`` (Qwirkles are taken
    before any card is played)."""
    if any(t < v for t, v in zip(turn.taken, view.taken, strict=True)):
        return False
    if any(t < v for t, v in zip(turn.played, view.played, strict=True)):
        return False
    more_taken = turn.taken != view.taken
    if any(view.played) and more_taken:
        return False
    if TAKE <= action < END_TURN:
        return turn.taken[action - TAKE] > view.taken[action - TAKE]
    if action < TAKE:
        return not more_taken and turn.played[action] > view.played[action]
    return not more_taken and turn.played == view.played


def brute_force(
    view: QwirkleCardsView, mask: np.ndarray, known: dict
) -> tuple[np.ndarray, np.ndarray]:
    """The two fields recomputed from the engine's legal turns and the heuristic's value
    (``known``: the valued turns of each turn start seen so far)."""
    hand = tuple(h + p for h, p in zip(view.hand, view.played, strict=True))
    key = (view.table, hand, view.first_turn, view.unseen, view.hand_sizes)
    if key not in known:
        heuristic = QwirkleCardsHeuristicAgent(np.random.default_rng(0))
        known[key] = [
            (sum(t.taken), heuristic.turn_value(view, hand, t), t) for t in view.legal_turns()
        ]
    turns = known[key]
    most = np.zeros(NUM_ACTIONS)
    value = np.zeros(NUM_ACTIONS)
    for action in np.flatnonzero(mask):
        options = [(q, v) for q, v, t in turns if _continues(t, view, int(action))]
        assert options, f"the mask allows {action} but no legal turn continues with it"
        q = max(q for q, _ in options)
        most[action] = q
        value[action] = max(v for qq, v in options if qq == q)
    return most, value


@pytest.mark.parametrize(("num_players", "seed"), [(2, 0), (3, 1)])
def test_turn_values_match_brute_force_over_the_legal_turns(num_players: int, seed: int) -> None:
    model = with_features(QwirkleCardsCompiledModel(num_players), QWIRKLE_CARDS_FEATURES)
    checked = with_takes = mid_turn = first = 0
    known: dict = {}
    for state, player, mask in acting_positions(model, games=6, seed=seed):
        views = model.layout.decode(model.observe(state, player))
        view = model.public_view(state, player)
        most, value = brute_force(view, mask, known)
        np.testing.assert_array_equal(views["action_turn_qwirkles"], most.astype(np.float32))
        np.testing.assert_allclose(views["action_turn_value"], value, atol=2e-5)
        checked += 1
        with_takes += bool(mask[TAKE:END_TURN].any())
        mid_turn += bool(any(view.played))
        first += bool(view.first_turn)
    assert checked >= 200 and with_takes >= 8 and mid_turn >= 150 and first >= 10


def test_both_engines_and_the_batch_write_the_same_turn_values() -> None:
    ref = with_features(QwirkleCardsModel(2), QWIRKLE_CARDS_FEATURES)
    fast = with_features(QwirkleCardsCompiledModel(2), QWIRKLE_CARDS_FEATURES)
    rng = np.random.default_rng(4)
    a = ref.new_state(np.random.default_rng(9))
    b = fast.new_state(np.random.default_rng(9))
    nonzero = 0
    while not ref.is_over(a):
        player = ref.current_player(a)
        got = ref.observe(a, player)
        assert (fast.observe(b, player) == got).all()
        nonzero += bool(ref.layout.decode(got)["action_turn_value"].any())
        action = _pick(ref.legal_mask(a), rng, takes_first=True)
        ref.step(a, action)
        fast.step(b, action)
    assert nonzero > 50


def test_a_player_not_to_act_sees_no_turn_values() -> None:
    model = with_features(QwirkleCardsCompiledModel(2), QWIRKLE_CARDS_FEATURES)
    for state, player, _ in acting_positions(model, games=1, seed=5):
        views = model.layout.decode(model.observe(state, 1 - player))
        assert not views["action_turn_qwirkles"].any()
        assert not views["action_turn_value"].any()


def test_kinds_and_lines_of_the_fields_are_in_action_order() -> None:
    layout = with_features(QwirkleCardsModel(2), QWIRKLE_CARDS_FEATURES).layout
    for name in ("action_turn_qwirkles", "action_turn_value"):
        field = next(f for f in layout if f.name == name)
        assert field.shape == (NUM_ACTIONS,) and field.action_group == "action"
    assert NUM_ACTIONS == NUM_KINDS + NUM_LINES + 2
