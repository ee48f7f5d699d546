"""The batched API: a batch of N games equals N single games of the game model stepped with
the same seeds and actions, through finished games and autoresets."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.envs.core.conformance import check_batch
from tabletop_rl.envs.errors import ConfigError, IllegalActionError
from tabletop_rl.envs.vector import VectorGames


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask``."""
    noise = rng.random(mask.shape) * mask
    return np.argmax(noise, axis=1)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("name", ["liniell_v0", "qwirkle_cards_v0", "qwirkle_v0"])
def test_batch_equals_single_games(name: str, players: int) -> None:
    steps = 25 if name == "qwirkle_v0" else 60
    finished = check_batch(name, num_envs=3, num_players=players, steps=steps, seed=5)
    if name == "liniell_v0":
        assert finished > 0  # Liniell games are short: the autoreset path was exercised


def test_check_batch_catches_a_batch_that_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop_rl.envs import vector

    original = vector.VectorGames.step

    def off_by_one(self, actions):  # every game's seat to act reported wrongly
        out = original(self, actions)
        out.current_player[:] = (out.current_player + 1) % self.num_players
        return out

    monkeypatch.setattr(vector.VectorGames, "step", off_by_one)
    with pytest.raises(AssertionError, match="player to act differs"):
        check_batch("liniell_v0", num_envs=2, steps=5)


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
