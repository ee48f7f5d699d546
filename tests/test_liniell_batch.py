"""A batch of N Liniell games equals N single reference games with the same seeds and actions.

Each slot ``i`` of a :class:`LiniellBatch` deals its games from
``np.random.default_rng([seed, i])``; the reference :class:`LiniellModel` dealt from the same
generator and stepped with the same actions must give the same observations, masks, seats to
act, rewards and ends, through several autoresets.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.envs.errors import ConfigError, IllegalActionError
from tabletop_rl.envs.liniell.batch import LiniellBatch
from tabletop_rl.envs.liniell.model import LiniellModel


def check_against_reference(
    num_players: int, num_envs: int, steps: int, threads: int, reward: str
) -> int:
    """Step a batch and one reference game per slot side by side; return the games ended."""
    seed = 3
    batch = LiniellBatch(num_envs, num_players, seed=seed, threads=threads, reward=reward)
    ref = LiniellModel(num_players)
    rngs = [np.random.default_rng([seed, i]) for i in range(num_envs)]
    games = [ref.new_state(rng) for rng in rngs]
    batch.reset()
    pick = np.random.default_rng(1)
    ended = 0
    for _ in range(steps):
        for i, game in enumerate(games):
            if batch.terminated[i]:
                continue
            player = ref.current_player(game)
            assert batch.current_player[i] == player
            assert np.array_equal(batch.observation[i], ref.observe(game, player))
            assert np.array_equal(batch.action_mask[i], ref.legal_mask(game))
        scores = pick.random(batch.action_mask.shape) * batch.action_mask
        actions = scores.argmax(axis=1)
        batch.step(actions)
        for i in range(num_envs):
            expected = np.zeros(num_players, dtype=np.float32)
            if ref.is_over(games[i]):  # the batch started this slot's next game
                games[i] = ref.new_state(rngs[i])
                assert not batch.terminated[i]
            else:
                result = ref.step(games[i], int(actions[i]))
                if reward == "score":
                    for p, points in result.points.items():
                        expected[p] = points
                outcome = ref.outcome(games[i])
                assert batch.terminated[i] == (outcome is not None)
                if outcome is not None:
                    ended += 1
                    if reward == "win":
                        expected[:] = outcome.win_rewards()
                    assert batch.outcome(i) == outcome
                    assert np.array_equal(batch.episode_scores[i], outcome.scores)
                    player = ref.current_player(games[i])
                    final = ref.observe(games[i], player)
                    assert np.array_equal(batch.final_observation[i], final)
                    assert batch.action_mask[i].all()
            assert np.array_equal(batch.rewards[i], expected)
    assert not batch.truncated.any()
    return ended


@pytest.mark.parametrize(("num_players", "reward"), [(2, "win"), (3, "score"), (4, "win")])
def test_batch_equals_single_games(num_players: int, reward: str) -> None:
    assert check_against_reference(num_players, 6, 110, threads=1, reward=reward) >= 12


def test_two_threads_equal_one() -> None:
    assert check_against_reference(2, 5, 40, threads=2, reward="win") >= 5


def test_bad_input_is_refused_with_reasons() -> None:
    with pytest.raises(ConfigError, match="num_envs"):
        LiniellBatch(0)
    with pytest.raises(ConfigError, match="reward"):
        LiniellBatch(2, reward="points")
    with pytest.raises(ConfigError, match="threads"):
        LiniellBatch(2, threads=10_000)
    batch = LiniellBatch(2)
    with pytest.raises(ConfigError, match="reset"):
        batch.step(np.zeros(2, dtype=np.int64))
    batch.reset()
    with pytest.raises(IllegalActionError, match="2 integers"):
        batch.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(IllegalActionError, match="out of range"):
        batch.step(np.array([209, 0]))
    with pytest.raises(IllegalActionError, match="game 0: action 0 .* illegal"):
        batch.step(np.zeros(2, dtype=np.int64))
