"""The compiled Qwirkle Cards engine against the reference engine and brute force.

The compiled solver and turn builder face the reference's brute-force oracles in
``test_qwirkle_cards_solver.py`` and ``test_qwirkle_cards_game.py``; here whole games are
played through both models from the same seeds and compared position by position, and the
batched stepper is compared with single games.
"""

from __future__ import annotations

import copy
import itertools
import pickle

import numpy as np
import pytest

from tabletop_rl.envs.core.model import Ending
from tabletop_rl.envs.errors import ConfigError, IllegalActionError
from tabletop_rl.envs.qwirkle_cards import compiled_solver, solver
from tabletop_rl.envs.qwirkle_cards.actions import CANNOT_PLAY, END_TURN, TAKE
from tabletop_rl.envs.qwirkle_cards.cards import LINE_KINDS, NUM_KINDS, NUM_LINES
from tabletop_rl.envs.qwirkle_cards.compiled_batch import QwirkleCardsBatch, env_generators
from tabletop_rl.envs.qwirkle_cards.compiled_model import QwirkleCardsCompiledModel
from tabletop_rl.envs.qwirkle_cards.compiled_turns import CompiledQwirkleCardsGame
from tabletop_rl.envs.qwirkle_cards.game import QwirkleCardsGame
from tabletop_rl.envs.qwirkle_cards.model import QwirkleCardsModel


def _pick(options: list[int], rng: np.random.Generator, greedy: bool) -> int:
    """Uniformly random, or greedy-ish: a Qwirkle when one can be taken, else a card (the turn
    ends only when nothing more can be played), so that tables grow and Qwirkles are taken."""
    if greedy:
        takes = [a for a in options if TAKE <= a < END_TURN]
        plays = [a for a in options if a < TAKE]
        if takes:
            return takes[int(rng.integers(len(takes)))]
        if plays:
            return plays[int(rng.integers(len(plays)))]
    return options[int(rng.integers(len(options)))]


def _engine_choices(game: QwirkleCardsGame) -> list[int]:
    plays, takes, end = game.builder().legal()
    return plays + [TAKE + L for L in takes] + ([END_TURN] if end else [])


def _engine_apply(game: QwirkleCardsGame, action: int) -> None:
    if action < TAKE:
        game.play_card(action)
    elif action < END_TURN:
        game.take_qwirkle(action - TAKE)
    elif action == END_TURN:
        game.end_turn()
    else:
        game.cannot_play()


def play_both(
    seed: int, players: int, greedy: bool, end_rule: str = "finish_round"
) -> tuple[int, int]:
    """One game through both models from ``seed``, compared at every position (masks, the
    observations of the player to act and of another seat, text) and every step (points,
    end, outcome, scores); returns the positions compared and the Qwirkles taken."""
    ref_model = QwirkleCardsModel(players, end_rule)
    fast_model = QwirkleCardsCompiledModel(players, end_rule)
    ref = ref_model.new_state(np.random.default_rng(seed))
    fast = fast_model.new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 10_000)
    out_ref, out_fast = ref_model.layout.zeros(), fast_model.layout.zeros()
    positions = 0
    while not ref_model.is_over(ref):
        assert fast_model.to_text(fast) == ref_model.to_text(ref)
        mask = ref_model.legal_mask(ref)
        assert (fast_model.legal_mask(fast) == mask).all(), ref_model.to_text(ref)
        assert fast.must_redraw() == ref.must_redraw()
        player = ref_model.current_player(ref)
        assert fast_model.current_player(fast) == player
        # the player to act and, in turn, each other seat
        for p in {player, (player + 1 + positions % (players - 1)) % players}:
            ref_model.observe(ref, p, out_ref)
            assert (fast_model.observe(fast, p, out_fast) == out_ref).all()
        positions += 1
        options = [int(a) for a in np.flatnonzero(mask)]
        action = _pick(options, rng, greedy)
        assert fast_model.step(fast, action) == ref_model.step(ref, action)
        assert fast_model.scores(fast) == ref_model.scores(ref)
    assert fast_model.is_over(fast)
    assert fast_model.outcome(fast) == ref_model.outcome(ref)
    assert fast_model.to_text(fast) == ref_model.to_text(ref)
    assert (fast_model.legal_mask(fast) == ref_model.legal_mask(ref)).all()
    return positions, sum(ref.qwirkle_counts())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_model_plays_the_reference_games(players: int) -> None:
    """Random and greedy-ish games through both models: the same masks, observations,
    points, ends, outcomes and text at every step; over 10,000 positions in all."""
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
        options = _engine_choices(game)
        _engine_apply(game, _pick(options, rng, greedy=True) if options else CANNOT_PLAY)
    clones = [game.copy(), copy.deepcopy(game), pickle.loads(pickle.dumps(game))]
    for _ in range(40):
        if game.over:
            break
        options = _engine_choices(game)
        for clone in clones:
            assert _engine_choices(clone) == options
            assert clone.to_text() == game.to_text()
        action = _pick(options, rng, greedy=False) if options else CANNOT_PLAY
        for g in [game, *clones]:
            _engine_apply(g, action)


def test_resampling_hidden_cards_matches_the_reference() -> None:
    """Redealing what a player cannot see, mid-turn of another player, gives the same hands
    and pile in both engines from the same generator."""
    ref = QwirkleCardsGame(2, np.random.default_rng(8))
    fast = CompiledQwirkleCardsGame(2, np.random.default_rng(8))
    rng = np.random.default_rng(9)
    for _ in range(30):
        options = _engine_choices(ref)
        action = _pick(options, rng, greedy=True) if options else CANNOT_PLAY
        _engine_apply(ref, action)
        _engine_apply(fast, action)
    viewer = 1 - ref.to_move
    ref.resample_hidden(viewer, np.random.default_rng(10))
    fast.resample_hidden(viewer, np.random.default_rng(10))
    assert fast.to_text() == ref.to_text()
    assert _engine_choices(fast) == _engine_choices(ref)


# ------------------------------------------------------------------ the batched stepper
def _batch_against_models(
    num_envs: int, players: int, steps: int, reward: str, threads: int, max_turns: int
) -> int:
    """Step a batch and ``num_envs`` single games (same generators, same random legal
    actions) side by side; returns the games ended."""
    batch = QwirkleCardsBatch(
        num_envs, players, seed=7, threads=threads, reward=reward, max_turns=max_turns
    )
    model = QwirkleCardsModel(players, max_turns=max_turns)
    rngs = env_generators(7, num_envs)
    games = [model.new_state(r) for r in rngs]
    batch.reset()
    rng = np.random.default_rng(0)
    ended = np.zeros(num_envs, dtype=bool)
    ends = 0
    obs = model.layout.zeros()
    for _ in range(steps):
        for g, state in enumerate(games):
            if ended[g]:
                outcome = model.outcome(state)
                assert outcome is not None
                assert bool(batch.terminated[g]) == (outcome.ending is Ending.FINISHED)
                assert bool(batch.truncated[g]) == (outcome.ending is Ending.TRUNCATED)
                model.observe(state, model.current_player(state), obs)
                assert (batch.final_observation[g] == obs).all()
                assert tuple(batch.episode_scores[g]) == outcome.scores
                assert batch.outcome(g) == outcome
                assert batch.action_mask[g].all()  # any action: the game restarts
                continue
            assert not batch.terminated[g] and not batch.truncated[g]
            player = model.current_player(state)
            assert batch.current_player[g] == player
            assert (batch.action_mask[g] == model.legal_mask(state)).all()
            assert (batch.observation[g] == model.observe(state, player, obs)).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in batch.action_mask])
        expected = np.zeros((num_envs, players), dtype=np.float32)
        for g in range(num_envs):
            if ended[g]:
                games[g] = model.new_state(rngs[g])
                ended[g] = False
                continue
            result = model.step(games[g], int(actions[g]))
            for p, points in result.points.items():
                expected[g, p] += points if reward == "score" else 0.0
            if result.game_over or result.truncated:
                ended[g] = True
                ends += 1
                if reward == "win":
                    outcome = model.outcome(games[g])
                    assert outcome is not None
                    expected[g] = outcome.win_rewards()
        batch.step(actions)
        assert (batch.rewards == expected).all()
    batch.close()
    return ends


@pytest.mark.parametrize(
    ("players", "reward", "threads", "max_turns"),
    [(2, "win", 1, 500), (3, "score", 2, 40), (4, "win", 1, 30)],
)
def test_batch_equals_single_games(players: int, reward: str, threads: int, max_turns: int) -> None:
    """A batch of N games equals N single games stepped with the same generators and
    actions: observations, masks, players, rewards, ends, final observations and scores,
    through automatic restarts (short turn limits make truncations happen too)."""
    assert _batch_against_models(5, players, 260, reward, threads, max_turns) >= 3


def test_batch_refuses_illegal_actions() -> None:
    batch = QwirkleCardsBatch(3, 2, seed=1)
    with pytest.raises(ConfigError, match="reset"):
        batch.step(np.zeros(3, dtype=np.int64))
    batch.reset()
    actions = np.array([int(np.flatnonzero(m)[0]) for m in batch.action_mask])
    illegal = actions.copy()
    illegal[1] = int(np.flatnonzero(batch.action_mask[1] == 0)[0])
    before = batch.observation.copy()
    with pytest.raises(IllegalActionError, match="game 1: action .* is illegal"):
        batch.step(illegal)
    assert (batch.observation == before).all()  # nothing was applied
    with pytest.raises(IllegalActionError, match="3 integers"):
        batch.step(actions[:2])
    with pytest.raises(IllegalActionError, match="out of range"):
        batch.step(np.array([0, 50, 0]))
    with pytest.raises(ConfigError, match="num_envs"):
        QwirkleCardsBatch(0)
