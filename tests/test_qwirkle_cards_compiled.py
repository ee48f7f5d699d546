"""The compiled Qwirkle Cards engine against the reference engine and brute force.

The compiled solver and turn builder face the reference's brute-force oracles in
``test_qwirkle_cards_solver.py`` and ``test_qwirkle_cards_game.py``; here whole games are
played in both engines from the same seeds and compared position by position.
"""

from __future__ import annotations

import copy
import itertools
import pickle

import numpy as np
import pytest

from tabletop_rl.envs.qwirkle_cards import compiled_solver, solver
from tabletop_rl.envs.qwirkle_cards.cards import LINE_KINDS, NUM_KINDS, NUM_LINES
from tabletop_rl.envs.qwirkle_cards.compiled_turns import CompiledQwirkleCardsGame
from tabletop_rl.envs.qwirkle_cards.game import QwirkleCardsGame

Choice = tuple[str, int]


def _choices(game: QwirkleCardsGame) -> tuple[list[Choice], tuple[list[int], list[int], bool]]:
    plays, takes, end = legal = game.builder().legal()
    options = [("play", k) for k in plays] + [("take", L) for L in takes]
    return options + ([("end", 0)] if end else []), legal


def _pick(options: list[Choice], rng: np.random.Generator, greedy: bool) -> Choice:
    """Uniformly random, or greedy-ish: a Qwirkle when one can be taken, else a card (the turn
    ends only when nothing more can be played), so that tables grow and Qwirkles are taken."""
    if greedy:
        takes = [o for o in options if o[0] == "take"]
        plays = [o for o in options if o[0] == "play"]
        if takes:
            return takes[int(rng.integers(len(takes)))]
        if plays:
            return plays[int(rng.integers(len(plays)))]
    return options[int(rng.integers(len(options)))]


def _apply(game: QwirkleCardsGame, choice: Choice) -> None:
    kind, value = choice
    if kind == "play":
        game.play_card(value)
    elif kind == "take":
        game.take_qwirkle(value)
    else:
        game.end_turn()


def play_both(
    seed: int, players: int, greedy: bool, end_rule: str = "finish_round"
) -> tuple[int, int]:
    """One game in both engines from ``seed``, compared at every position; returns the
    positions compared and the Qwirkles taken."""
    ref = QwirkleCardsGame(players, np.random.default_rng(seed), end_rule)
    fast = CompiledQwirkleCardsGame(players, np.random.default_rng(seed), end_rule)
    rng = np.random.default_rng(seed + 10_000)
    positions = 0
    while not ref.over:
        assert fast.to_text() == ref.to_text()
        options, legal = _choices(ref)
        _, fast_legal = _choices(fast)
        assert fast_legal == legal, ref.to_text()
        assert fast.must_redraw() == ref.must_redraw()
        positions += 1
        if not options:
            assert ref.cannot_play() == fast.cannot_play()
            continue
        choice = _pick(options, rng, greedy)
        _apply(ref, choice)
        _apply(fast, choice)
    assert fast.over and fast.status == ref.status
    assert fast.to_text() == ref.to_text()
    assert fast.winners() == ref.winners()
    return positions, sum(ref.qwirkle_counts())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_engine_plays_the_reference_games(players: int) -> None:
    """Random and greedy-ish games: the same legal sub-actions, redraws and positions (text
    notation) at every step, the same end, in both engines; over 10,000 positions in all."""
    positions = qwirkles = 0
    seed = 100 * players
    while positions < 3_400:
        greedy = seed % 2 == 1
        end_rule = "final_turn_each" if seed % 5 == 0 else "finish_round"
        n, q = play_both(seed, players, greedy, end_rule)
        positions += n
        qwirkles += q
        seed += 1
    assert qwirkles >= 5  # Qwirkles, and so the take masks, were exercised


def test_need_extra_matches_brute_force() -> None:
    """``need_extra`` (at least one optional card used) against trying every non-empty choice
    of extras with the reference solver."""
    rng = np.random.default_rng(17)
    deck = np.repeat(np.arange(NUM_KINDS), 3)
    outcomes = set()
    for size in (6, 12, 24):
        for _ in range(60):
            counts = np.bincount(rng.choice(deck, size, replace=False), minlength=NUM_KINDS)
            optional = np.zeros(NUM_KINDS, dtype=np.int64)
            for k in rng.choice(NUM_KINDS, size=3, replace=False):
                optional[k] = rng.integers(0, counts[k] + 1)
            fixed = counts - optional
            ranges = [range(int(o) + 1) for o in optional]
            expected = any(
                any(extra) and solver.is_valid_table(tuple(fixed + np.array(extra)))
                for extra in itertools.product(*ranges)
            )
            found = compiled_solver.find_split_arrays(fixed, optional, need_extra=True)
            assert (found is not None) == expected
            if found is not None:
                assert (found[0] >= fixed).all() and (found[0] > fixed).any()
                assert (found[0] <= fixed + optional).all()
            outcomes.add(expected)
    assert outcomes == {True, False}


def test_compiled_splits_are_real_splits() -> None:
    """Every line of a compiled split receives no cards or at least 3 x its multiplicity."""
    rng = np.random.default_rng(23)
    deck = np.repeat(np.arange(NUM_KINDS), 3)
    found_some = 0
    for size in (9, 18, 36, 60):
        for _ in range(50):
            counts = np.bincount(rng.choice(deck, size, replace=False), minlength=NUM_KINDS)
            found = compiled_solver.find_split_arrays(counts)
            assert (found is None) == (solver.find_split(tuple(counts)) is None)
            if found is None:
                continue
            found_some += 1
            total, to_colour = found
            assert (total == counts).all() and (to_colour >= 0).all()
            assert (to_colour <= total).all()
            for line in range(NUM_LINES):
                got = [
                    to_colour[k] if line < 6 else total[k] - to_colour[k] for k in LINE_KINDS[line]
                ]
                assert sum(got) == 0 or sum(got) >= 3 * max(got)
    assert found_some > 50


def test_copies_and_pickles_continue_identically_mid_turn() -> None:
    """A compiled game copied, deep-copied or pickled in the middle of a turn goes on exactly
    like the original (the turn builder's arrays travel with it)."""
    game = CompiledQwirkleCardsGame(3, np.random.default_rng(4))
    rng = np.random.default_rng(5)
    while game.turn_count < 6 or not any(game.state.played):
        options, _ = _choices(game)
        if not options:
            game.cannot_play()
            continue
        _apply(game, _pick(options, rng, greedy=True))
    clones = [game.copy(), copy.deepcopy(game), pickle.loads(pickle.dumps(game))]
    for _ in range(40):
        if game.over:
            break
        options, legal = _choices(game)
        for clone in clones:
            assert _choices(clone)[1] == legal
            assert clone.to_text() == game.to_text()
        if not options:
            for g in [game, *clones]:
                g.cannot_play()
            continue
        choice = _pick(options, rng, greedy=False)
        for g in [game, *clones]:
            _apply(g, choice)


def test_resampling_hidden_cards_matches_the_reference() -> None:
    """Redealing what a player cannot see, mid-turn of another player, gives the same hands
    and pile in both engines from the same generator."""
    ref = QwirkleCardsGame(2, np.random.default_rng(8))
    fast = CompiledQwirkleCardsGame(2, np.random.default_rng(8))
    rng = np.random.default_rng(9)
    for _ in range(30):
        options, _ = _choices(ref)
        if not options:
            ref.cannot_play()
            fast.cannot_play()
            continue
        choice = _pick(options, rng, greedy=True)
        _apply(ref, choice)
        _apply(fast, choice)
    viewer = 1 - ref.to_move
    ref.resample_hidden(viewer, np.random.default_rng(10))
    fast.resample_hidden(viewer, np.random.default_rng(10))
    assert fast.to_text() == ref.to_text()
    assert _choices(fast)[1] == _choices(ref)[1]
