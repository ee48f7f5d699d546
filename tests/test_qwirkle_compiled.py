"""The compiled Qwirkle engine against the reference engine and the brute-force oracle.

Differential play: the compiled model and the reference model start from the same seed and
take the same actions; every position's masks, observations (every seat's), step results and
the final outcome and text must be equal. Random play exchanges a lot; the tile-greedy
policy lays a tile whenever it can, so boards grow large and lines reach six. The oracle
tests check the compiled masks (every complete turn reachable through them), scores and
single-tile fits against ``tests/test_qwirkle_oracle.py`` and ``Board.score``. The public
views (board, anchors, hands, unseen counts) must be equal too.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tabletop_rl.envs import qwirkle_v0
from tabletop_rl.envs.core.aec import TabletopAECEnv
from tabletop_rl.envs.core.conformance import check_env
from tabletop_rl.envs.qwirkle import Board
from tabletop_rl.envs.qwirkle.compiled import CompiledQwirkleState, QwirkleCompiledModel
from tabletop_rl.envs.qwirkle.compiled_batch import QwirkleBatch
from tabletop_rl.envs.qwirkle.model import QwirkleModel
from tabletop_rl.envs.vector import VectorGames

sys.path.insert(0, str(Path(__file__).parent))
from qwirkle_positions import random_position
from test_qwirkle_oracle import oracle_moves


def _choose(mask: np.ndarray, end: int, rng: np.random.Generator, greedy: bool) -> int:
    legal = np.flatnonzero(mask)
    if greedy:
        places = legal[legal < end]
        if places.size:
            return int(places[rng.integers(places.size)])
        if mask[end]:
            return end
    return int(legal[rng.integers(legal.size)])


def _differential_game(num_players: int, seed: int, greedy: bool, window: int = 39) -> int:
    """Play one game in both engines; returns the number of positions compared."""
    ref, comp = (
        QwirkleModel(num_players, window=window),
        QwirkleCompiledModel(num_players, window=window),
    )
    rs, cs = ref.new_state(np.random.default_rng(seed)), comp.new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1000)
    end = ref.codec.end
    obs = np.empty(comp.layout.size, dtype=np.float32)
    positions = 0
    while True:
        player = ref.current_player(rs)
        assert comp.current_player(cs) == player
        mask = ref.legal_mask(rs)
        assert np.array_equal(comp.legal_mask(cs), mask)
        # every seat's view now and then, the player to act's always
        seats = range(num_players) if positions % 8 == 0 else (player,)
        for seat in seats:
            assert np.array_equal(comp.observe(cs, seat, obs), ref.observe(rs, seat))
            assert comp.player_info(cs, seat) == ref.player_info(rs, seat)
        assert comp.scores(cs) == ref.scores(rs)
        # the compiled state's board is laid turn by turn onto a cached one
        view, ref_view = comp.public_view(cs, player), ref.public_view(rs, player)
        assert view == ref_view and view.board.anchors == ref_view.board.anchors
        if positions % 40 == 0 and not ref.is_over(rs):
            np.testing.assert_array_equal(comp.fit_planes(cs), ref.fit_planes(rs))
        positions += 1
        if ref.is_over(rs):
            break
        action = _choose(mask, end, rng, greedy)
        if positions % 50 == 0:
            assert comp.codec.to_text(cs, action) == ref.codec.to_text(rs, action)
            comp.engine_state(cs).check_invariants()  # tiles conserved, lines and anchors valid
        assert comp.step(cs, action) == ref.step(rs, action)
        assert comp.is_over(cs) == ref.is_over(rs)
    assert comp.outcome(cs) == ref.outcome(rs)
    assert comp.to_text(cs) == ref.to_text(rs)
    return positions


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("greedy", [False, True], ids=["random", "greedy"])
def test_compiled_plays_the_reference_games(num_players: int, greedy: bool) -> None:
    positions = 0
    seed = 10 * num_players + int(greedy)
    while positions < 1700:
        positions += _differential_game(num_players, seed, greedy)
        seed += 100
    assert positions >= 1700  # six cases: over 10,000 positions in all


def test_a_small_window_recentres_and_counts_lost_moves_alike() -> None:
    # a 13-cell window cannot hold a grown board with its margin: the window recentres
    # often and the compiled model counts the moves it hides as the reference does
    for seed in range(2):
        _differential_game(2, seed, greedy=True, window=13)


def test_copy_continues_identically_and_is_independent() -> None:
    model = QwirkleCompiledModel(3)
    state = model.new_state(np.random.default_rng(7))
    rng = np.random.default_rng(0)
    for _ in range(60):
        state_mask = model.legal_mask(state)
        model.step(state, _choose(state_mask, model.codec.end, rng, greedy=False))
    twin = model.copy(state)
    actions = np.random.default_rng(1)
    while not model.is_over(state):
        action = _choose(model.legal_mask(state), model.codec.end, actions, greedy=False)
        assert model.step(twin, action) == model.step(state, action)
        np.testing.assert_array_equal(model.observe(twin, 0), model.observe(state, 0))
    assert model.to_text(twin) == model.to_text(state)
    assert not model.is_over(model.copy(twin)) or model.outcome(twin) == model.outcome(state)


class _compiled_raw_env(qwirkle_v0.raw_env):
    """``qwirkle_v0``'s adapter over the compiled model."""

    def __init__(self, num_players: int = 2, **kwargs: Any) -> None:
        model = QwirkleCompiledModel(num_players=num_players)
        self.window, self.max_turns = model.window, model.max_turns
        TabletopAECEnv.__init__(self, model, **kwargs)


def test_the_compiled_model_passes_the_suite_conformance_check() -> None:
    check_env(_compiled_raw_env, games=1)


def test_text_paths_and_hidden_resampling_match_the_reference() -> None:
    ref, comp = QwirkleModel(2), QwirkleCompiledModel(2)
    rs, cs = ref.new_state(np.random.default_rng(3)), comp.new_state(np.random.default_rng(3))
    rng = np.random.default_rng(4)
    for step in range(80):
        mask = ref.legal_mask(rs)
        if step % 7 == 0:
            illegal = int(np.flatnonzero(mask == 0)[step % 50])
            assert comp.explain_illegal(cs, illegal) == ref.explain_illegal(rs, illegal)
            assert comp.describe_action(cs, illegal) == ref.describe_action(rs, illegal)
            assert comp.public_view(cs, 1) == ref.public_view(rs, 1)
            assert comp.render_ansi(cs, 0) == ref.render_ansi(rs, 0)
            text = comp.codec.to_text(cs, int(np.flatnonzero(mask)[0]))
            assert comp.codec.parse(cs, text) == ref.codec.parse(rs, text)
        action = _choose(mask, ref.codec.end, rng, greedy=step % 2 == 0)
        comp.step(cs, action)
        ref.step(rs, action)
    comp.resample_hidden(cs, 1, np.random.default_rng(9))
    ref.resample_hidden(rs, 1, np.random.default_rng(9))
    assert comp.to_text(cs) == ref.to_text(rs)
    np.testing.assert_array_equal(comp.legal_mask(cs), ref.legal_mask(rs))


@pytest.mark.parametrize("seed", [5, 6])
def test_hidden_resampling_matches_the_reference_everywhere(seed: int) -> None:
    """The redeal of a determinisation (for either player, at every kind of position: the
    start row, turn starts, tiles laid this turn) is the reference engine's for the same
    generator: the same hands, bag and game generator."""
    ref, comp = QwirkleModel(2), QwirkleCompiledModel(2)
    rs = ref.new_state(np.random.default_rng(seed))
    cs = comp.new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 10)
    for step in range(120):
        if ref.is_over(rs):
            break
        for player in (0, 1):
            r, c = ref.copy(rs), comp.copy(cs)
            ref.resample_hidden(r, player, np.random.default_rng(step))
            comp.resample_hidden(c, player, np.random.default_rng(step))
            assert comp.to_text(c) == ref.to_text(r)
            assert c.rng.integers(2**62) == r.game.rng.integers(2**62)
        action = _choose(ref.legal_mask(rs), ref.codec.end, rng, greedy=step % 3 == 0)
        comp.step(cs, action)
        ref.step(rs, action)


# ------------------------------------------------------------------ the oracle


def _reachable_turns(
    model: QwirkleCompiledModel, state: CompiledQwirkleState, board: Board
) -> set[frozenset]:
    """Every complete turn reachable through the compiled masks, each scored as the
    reference board scores it."""
    hand = state.game.hand
    end = model.codec.end
    found: set[frozenset] = set()
    seen: set[frozenset] = set()

    def dfs(st: CompiledQwirkleState) -> None:
        order = st.turn.order
        key = frozenset(((r, c), hand[s]) for r, c, s in order)
        if key in seen:
            return
        seen.add(key)
        mask = model.legal_mask(st)
        if mask[end]:
            move = [(r, c, hand[s]) for r, c, s in order]
            done = model.copy(st)
            player = model.current_player(st)
            result = model.step(done, end)
            bonus = 6 if len(move) == len(hand) and not st.game.bag else 0
            assert result.points == {player: board.score(move) + bonus}
            found.add(key)
        for action in np.flatnonzero(mask[:end]):
            child = model.copy(st)
            model.step(child, int(action))
            dfs(child)

    dfs(state)
    return found


@pytest.mark.parametrize(("seed", "turns"), [(1, 2), (2, 5), (3, 8), (4, 11), (5, 14), (6, 6)])
def test_compiled_masks_and_scores_match_the_brute_force_oracle(seed: int, turns: int) -> None:
    game = random_position(seed, turns)
    if game.finished or game.first_turn:
        pytest.skip("the position is not a mid-game turn start")
    model = QwirkleCompiledModel(2)
    state = model.state_of(game.clone())
    assert _reachable_turns(model, state, game.board) == oracle_moves(game.board, game.hand)


@pytest.mark.parametrize("seed", range(4))
def test_compiled_single_tile_fits_match_board_legality(seed: int) -> None:
    game = random_position(seed, 10)
    model = QwirkleCompiledModel(2)
    state = model.state_of(game.clone())
    r0, c0, r1, c1 = game.board.bounds()
    o0, o1 = state.origin
    for r in range(r0 - 2, r1 + 3):
        for c in range(c0 - 2, c1 + 3):
            fit = state.fit[r - o0, c - o1]  # the fit masks are kept over the window
            if (r, c) in game.board:
                assert fit == 0
                continue
            legal = sum(1 << t for t in range(36) if game.board.is_legal([(r, c, t)]))
            assert fit == legal, (r, c)


def test_first_turn_masks_give_exactly_the_start_rows() -> None:
    from tabletop_rl.envs.qwirkle import first_turn_moves

    model = QwirkleCompiledModel(2)
    for seed in range(4):
        state = model.new_state(np.random.default_rng(seed))
        hand = state.game.hand
        expected = {frozenset(((r, c), t) for r, c, t in m) for m in first_turn_moves(hand)}
        assert _reachable_turns(model, state, Board()) == expected


# ------------------------------------------------------------- batched games
def _check_batch_against_reference(
    num_players: int, steps: int, reward: str = "score", max_turns: int = 1000
) -> int:
    """Step a batch and one reference game per slot with the same seeds and actions; every
    step's arrays must equal the reference games'. Returns the number of games finished."""
    num_envs, seed = 3, 40 + num_players
    batch = QwirkleBatch(num_envs, num_players, seed=seed, reward=reward, max_turns=max_turns)
    model = QwirkleModel(num_players, max_turns=max_turns)
    rngs = [np.random.default_rng([seed, i]) for i in range(num_envs)]
    states = [model.new_state(rng) for rng in rngs]
    batch.reset()
    done = [False] * num_envs
    finished = 0
    actions_rng = np.random.default_rng(seed)
    for _ in range(steps):
        for i, st in enumerate(states):
            player = model.current_player(st)
            assert batch.current_player[i] == player
            np.testing.assert_array_equal(batch.observation[i], model.observe(st, player))
            if done[i]:  # a finished game's row is all ones: its next action is ignored
                assert batch.action_mask[i].all()
            else:
                np.testing.assert_array_equal(batch.action_mask[i], model.legal_mask(st))
        actions = batch.sample_actions(actions_rng)
        batch.step(actions)
        for i in range(num_envs):
            rewards = np.zeros(num_players, dtype=np.float32)
            if done[i]:
                states[i] = model.new_state(rngs[i])  # the same generator, continued
                done[i] = False
            else:
                result = model.step(states[i], int(actions[i]))
                done[i] = result.game_over or result.truncated
                if reward == "score":
                    for p, points in result.points.items():
                        rewards[p] = points
                elif result.game_over:
                    rewards[:] = model.outcome(states[i]).win_rewards()
                assert batch.terminated[i] == result.game_over
                assert batch.truncated[i] == result.truncated
            np.testing.assert_array_equal(batch.rewards[i], rewards)
            if done[i]:
                finished += 1
                st = states[i]
                player = model.current_player(st)
                np.testing.assert_array_equal(batch.final_observation[i], model.observe(st, player))
                assert tuple(batch.episode_scores[i]) == model.scores(st)
                assert batch.outcome(i) == model.outcome(st)
    return finished


def test_batch_replays_the_reference_games_across_resets() -> None:
    # long enough for every slot to finish a game and start the next one
    assert _check_batch_against_reference(2, steps=800) >= 3


@pytest.mark.parametrize("num_players", [3, 4])
def test_batch_truncates_and_gives_win_rewards_like_the_reference(num_players: int) -> None:
    assert _check_batch_against_reference(num_players, 150, reward="win", max_turns=12) >= 3


def test_batch_threads_give_the_same_games() -> None:
    one, two = QwirkleBatch(8, 2, seed=3), QwirkleBatch(8, 2, seed=3, threads=2)
    one.reset()
    two.reset()
    rng = np.random.default_rng(0)
    for _ in range(200):
        actions = one.sample_actions(rng)
        one.step(actions)
        two.step(actions)
        np.testing.assert_array_equal(one.observation, two.observation)
        np.testing.assert_array_equal(one.action_mask, two.action_mask)
        np.testing.assert_array_equal(one.rewards, two.rewards)


def test_batch_rejects_bad_actions_and_options_clearly() -> None:
    from tabletop_rl.envs.errors import ConfigError, IllegalActionError

    batch = QwirkleBatch(2, 2, seed=0)
    with pytest.raises(ConfigError, match="call reset"):
        batch.step(np.zeros(2, dtype=np.int64))
    batch.reset()
    actions = batch.sample_actions(np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(batch.action_mask[1] == 0)[0])
    with pytest.raises(IllegalActionError, match="game 1: action"):
        batch.step(actions)
    with pytest.raises(IllegalActionError, match="shape"):
        batch.step(actions[:1])
    with pytest.raises(ConfigError, match="num_envs=0"):
        QwirkleBatch(0)
    with pytest.raises(ConfigError, match="reward="):
        QwirkleBatch(2, reward="points")


def test_vector_games_on_the_compiled_batch_equal_the_reference_backend() -> None:
    compiled = VectorGames("qwirkle_v0", num_envs=3, num_players=3, seed=2)
    reference = VectorGames("qwirkle_v0", num_envs=3, num_players=3, seed=2, engine="reference")
    assert (compiled.backend, reference.backend) == ("compiled", "reference")
    a, b = compiled.reset(), reference.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(450):
        for name in ("observation", "action_mask", "current_player", "rewards", "terminated"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        for i in np.flatnonzero(a.terminated | a.truncated):
            ended += 1
            np.testing.assert_array_equal(a.final_observation[i], b.final_observation[i])
            np.testing.assert_array_equal(a.episode_scores[i], b.episode_scores[i])
            assert compiled.outcome(int(i)) == reference.outcome(int(i))
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in a.action_mask])
        a, b = compiled.step(actions), reference.step(actions)
    assert ended >= 2
