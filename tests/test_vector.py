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


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize("name", ["liniell_v0", "qwirkle_cards_v0", "qwirkle_v0"])
def test_some_games_step_and_a_restart_deals_from_the_given_generator(
    name: str, engine: str
) -> None:
    games = VectorGames(name, num_envs=3, num_players=2, seed=2, engine=engine)
    model = games.model
    out = games.reset()
    rng = np.random.default_rng(0)
    active = np.array([True, False, True])
    before = {f: getattr(out, f)[1].copy() for f in ("observation", "action_mask", "rewards")}
    garbage = np.full(3, -5)  # an inactive game's action is not read
    garbage[active] = _random_actions(out.action_mask, rng)[active]
    out = games.step(garbage, active)
    for field, row in before.items():
        assert np.array_equal(getattr(out, field)[1], row), f"game 1's {field} changed"
    # game 1 starts a game dealt from a given generator, game 2 plays on
    games.restart([1], [np.random.default_rng(99)])
    assert out.action_mask[1].all()  # as after a game's end: its next action is ignored
    state = model.new_state(np.random.default_rng(99))
    out = games.step(_random_actions(out.action_mask, rng), np.array([False, True, True]))
    player = model.current_player(state)
    assert out.current_player[1] == player
    assert np.array_equal(out.observation[1], model.observe(state, player))
    assert np.array_equal(out.action_mask[1], model.legal_mask(state))
    assert np.array_equal(games.observe(1, player), out.observation[1])
    assert np.array_equal(games.observe(1, 1 - player), model.observe(state, 1 - player))
    with pytest.raises(ConfigError, match="one numpy.random.Generator per slot"):
        games.restart([0], [0])
    with pytest.raises(ConfigError, match="active must be 3 bools"):
        games.step(np.zeros(3, dtype=np.int64), np.ones(3, dtype=np.int64))


def test_random_opponents_inside_the_compiled_step_are_checked() -> None:
    from tabletop_rl.envs.core.batch_policy import GameGenerators

    compiled = VectorGames("liniell_v0", num_envs=2, seed=0)
    reference = VectorGames("liniell_v0", num_envs=2, seed=0, engine="reference")
    assert compiled.plays_random_opponents and not reference.plays_random_opponents
    opponents = GameGenerators(2, 1)
    out = compiled.reset()
    actions = np.argmax(out.action_mask, axis=1)
    with pytest.raises(ConfigError, match="reset first"):  # no generator: nothing is drawn
        compiled.step_versus_random(actions, None, np.zeros(2, dtype=np.int64), opponents)
    for game in range(2):
        opponents.set(game, [np.random.default_rng(game)])
    with pytest.raises(ConfigError, match="seats must be"):
        compiled.step_versus_random(actions, None, np.full(2, 2), opponents)
    with pytest.raises(ConfigError, match="does not play random opponents"):
        reference.reset()
        reference.step_versus_random(actions, None, np.zeros(2, dtype=np.int64), opponents)
    seats = np.array([0, 1])
    out = compiled.step_versus_random(actions, None, seats, opponents)
    ended = out.terminated | out.truncated
    assert ((out.current_player == seats) | ended).all()  # back at the learner's turn


@pytest.mark.parametrize("name", ["liniell_v0", "qwirkle_v0", "qwirkle_cards_v0"])
def test_close_stops_the_worker_threads(name: str) -> None:
    import threading

    before = threading.active_count()
    games = VectorGames(name, num_envs=4, seed=0, threads=2)
    out = games.reset()
    games.step(np.argmax(out.action_mask, axis=1))
    assert threading.active_count() > before  # the pool's threads run the blocks
    games.close()
    assert threading.active_count() == before
