"""The batched API: a batch of N games equals N single games of the game model stepped with
the same seeds and actions, through finished games and autoresets."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.envs import make
from tabletop_rl.envs.errors import ConfigError, IllegalActionError
from tabletop_rl.envs.vector import VectorGames


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask``."""
    noise = rng.random(mask.shape) * mask
    return np.argmax(noise, axis=1)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("name", ["liniell_v0", "qwirkle_cards_v0", "qwirkle_v0"])
def test_batch_equals_single_games(name: str, players: int) -> None:
    num_envs, steps = 3, 60 if name != "qwirkle_v0" else 25
    games = VectorGames(name, num_envs=num_envs, num_players=players, seed=5, reward="score")
    model = make(name, raw=True, num_players=players).model
    rngs = [np.random.default_rng([5, i]) for i in range(num_envs)]
    states = [model.new_state(r) for r in rngs]
    done = [False] * num_envs
    out = games.reset()
    pick = np.random.default_rng(players)
    finished = 0
    for _ in range(steps):
        for i, state in enumerate(states):
            player = model.current_player(state)
            assert out.current_player[i] == player
            np.testing.assert_array_equal(out.observation[i], model.observe(state, player))
            if not done[i]:
                np.testing.assert_array_equal(out.action_mask[i], model.legal_mask(state))
        actions = _random_actions(out.action_mask, pick)
        out = games.step(actions)
        for i in range(num_envs):
            if done[i]:  # the slot starts its next game on this step
                states[i], done[i] = model.new_state(rngs[i]), False
                assert not out.terminated[i] and not out.rewards[i].any()
                continue
            result = model.step(states[i], int(actions[i]))
            expected = np.zeros(players, dtype=np.float32)
            for p, points in result.points.items():
                expected[p] += points
            np.testing.assert_array_equal(out.rewards[i], expected)
            assert out.terminated[i] == result.game_over
            assert out.truncated[i] == result.truncated
            if result.game_over or result.truncated:
                done[i] = True
                finished += 1
                assert out.action_mask[i].all()
                assert games.outcome(i) == model.outcome(states[i])
                np.testing.assert_array_equal(out.episode_scores[i], model.scores(states[i]))
    if name == "liniell_v0":
        assert finished > 0  # Liniell games are short: the autoreset path was exercised


def test_win_rewards_sum_per_game() -> None:
    games = VectorGames("liniell_v0", num_envs=4, num_players=2, seed=1)
    out = games.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        out = games.step(_random_actions(out.action_mask, rng))
        for i in np.flatnonzero(out.terminated):
            ended += 1
            outcome = games.outcome(int(i))
            assert tuple(out.rewards[i]) == outcome.win_rewards()
        assert not out.rewards[~out.terminated].any()
    assert ended >= 4


def test_bad_input_is_refused_clearly() -> None:
    games = VectorGames("qwirkle_cards_v0", num_envs=2, seed=0)
    with pytest.raises(ConfigError, match="reset"):
        games.step(np.zeros(2, dtype=np.int64))
    out = games.reset()
    with pytest.raises(IllegalActionError, match="2 integers"):
        games.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(IllegalActionError, match="out of range"):
        games.step(np.array([0, 50]))
    illegal = np.argmin(out.action_mask, axis=1)
    with pytest.raises(IllegalActionError, match="game 0"):
        games.step(illegal)
    with pytest.raises(ConfigError, match="num_envs"):
        VectorGames("liniell_v0", num_envs=0)
    with pytest.raises(ConfigError, match="engine"):
        VectorGames("liniell_v0", num_envs=1, engine="fast")
