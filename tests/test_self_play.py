"""Self-play slots: one learner makes every seat's decisions; each seat keeps its own rewards."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.envs import available_envs, make
from tabletop_rl.envs.core.self_play import WAIT_ACTION, SelfPlayGames


def _games(name: str, players: int, num_games: int = 2, **kwargs: object) -> SelfPlayGames:
    return SelfPlayGames(lambda: make(name, raw=True, num_players=players, **kwargs), num_games)


def _waiting(mask: np.ndarray) -> bool:
    return mask.sum() == 1 and mask[WAIT_ACTION] == 1


@pytest.mark.parametrize("name", available_envs())
@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_slot_gets_exactly_its_seats_rewards(name: str, players: int) -> None:
    """Replayed on a raw env, every seat's rewards step by step equal its slot's rewards."""
    seed = 11
    games = _games(name, players, num_games=1, reward="score")
    obs, masks = games.reset(seed=seed)
    reference = make(name, raw=True, num_players=players, reward="score")
    reference.reset(seed=int(np.random.default_rng(seed).integers(2**31)))
    rng = np.random.default_rng(0)
    totals = np.zeros(players)
    done = False
    steps = 0
    while not done:
        (mover,) = games.movers()
        assert reference.possible_agents[mover] == reference.agent_selection
        views = [reference.observe(agent) for agent in reference.possible_agents]
        assert np.array_equal(masks[mover], views[mover]["action_mask"])
        for seat in range(players):
            assert np.array_equal(obs[seat], views[seat]["observation"])
            assert seat == mover or _waiting(masks[seat])
        actions = rng.integers(0, masks.shape[1], size=players)  # waiting seats send anything
        actions[mover] = rng.choice(np.flatnonzero(masks[mover]))
        obs, rewards, terminated, truncated, infos = games.step(actions)
        reference.step(int(actions[mover]))
        expected = [reference.rewards[a] for a in reference.possible_agents]
        assert rewards.tolist() == pytest.approx(expected)
        totals += rewards
        done = bool(terminated[0] or truncated[0])
        assert terminated.tolist() == [terminated[0]] * players
        masks = games.action_masks()
        steps += 1
    assert steps > players
    assert totals.tolist() == pytest.approx(list(reference.final_scores()))
    for seat in range(players):
        final = reference.observe(reference.possible_agents[seat])["observation"]
        assert np.array_equal(infos[seat]["final_obs"], final)


@pytest.mark.parametrize("name", available_envs())
def test_games_end_and_restart_together_with_win_rewards(name: str) -> None:
    games = _games(name, 3, num_games=2)
    _obs, masks = games.reset(seed=3)
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(5000):
        movers = games.movers()
        assert [m // 3 for m in movers] == [0, 1]
        assert all(_waiting(masks[s]) for s in range(6) if s not in movers)
        actions = np.zeros(6, dtype=np.int64)
        for m in movers:
            actions[m] = rng.choice(np.flatnonzero(masks[m]))
        _obs, rewards, terminated, _truncated, infos = games.step(actions)
        masks = games.action_masks()
        for g in range(2):
            block = slice(3 * g, 3 * g + 3)
            if terminated[block].any():
                assert terminated[block].all()
                assert sorted(rewards[block]) in ([-1, -1, 1], [-1, 1, 1], [0, 0, 0])
                assert all("final_obs" in infos[s] for s in range(3 * g, 3 * g + 3))
                assert masks[games.movers()[g]].any()  # the new game is under way
                finished += 1
            else:
                assert not rewards[block].any()
        if finished >= 3:
            break
    assert finished >= 3


def test_illegal_mover_action_ends_its_game() -> None:
    games = _games("liniell_v0", 2, num_games=1)
    _obs, masks = games.reset(seed=0)
    (mover,) = games.movers()
    bad = int(np.flatnonzero(masks[mover] == 0)[0])
    actions = np.zeros(2, dtype=np.int64)
    actions[mover] = bad
    _obs, rewards, terminated, _truncated, infos = games.step(actions)
    assert terminated.all() and rewards[mover] == -1.0 and rewards[1 - mover] == 0.0
    assert "illegal_action" in infos[mover]


def test_a_seed_replays_the_batch() -> None:
    def run(seed: int) -> list[float]:
        games = _games("qwirkle_cards_v0", 2)
        _obs, masks = games.reset(seed=seed)
        out = []
        for _ in range(200):
            actions = np.array([int(np.flatnonzero(m)[-1]) for m in masks])
            obs, rewards, _t, _tr, _i = games.step(actions)
            masks = games.action_masks()
            out.append(float(obs.sum()) + float(rewards.sum()))
        return out

    assert run(4) == run(4) and run(4) != run(5)


def _same(a: object, b: object, where: str) -> None:
    """Equal values: dicts key for key, arrays in dtype, shape and values."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), f"{where}: {sorted(a)}"
        for key in a:
            _same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and (a.dtype, a.shape) == (b.dtype, b.shape), where
        assert np.array_equal(a, b), f"{where}: values differ"
    else:
        assert a == b and type(a) is type(b), f"{where}: {a!r} != {b!r}"


@pytest.mark.parametrize(
    ("name", "players", "steps", "kwargs"),
    [
        ("liniell_v0", 2, 120, {}),
        ("liniell_v0", 4, 120, {"features": True}),
        ("qwirkle_cards_v0", 3, 150, {"reward": "score"}),
        ("qwirkle_v0", 2, 700, {}),
    ],
)
def test_the_compiled_batch_plays_the_same_self_play(
    name: str, players: int, steps: int, kwargs: dict
) -> None:
    """SelfPlayBatch (SB3's SelfPlayVecEnv engine) equals SelfPlayGames step for step:
    observations, masks, movers, rewards, ends and infos, illegal actions included."""
    from tabletop_rl.envs.core.self_play import SelfPlayBatch

    reference = _games(name, players, num_games=3, **kwargs)
    batch = SelfPlayBatch(name, 3, num_players=players, **kwargs)
    for a, b in zip(reference.reset(seed=5), batch.reset(seed=5), strict=True):
        _same(a, b, "reset")
    rng = np.random.default_rng(1)
    ended = 0
    for t in range(steps):
        masks = reference.action_masks()
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        if t % 29 == 28:  # an illegal move of game 0's mover
            mover = reference.movers()[0]
            actions[mover] = int(np.argmin(masks[mover]))
        assert reference.movers() == batch.movers()
        expected, got = reference.step(actions), batch.step(actions)
        for k, (a, b) in enumerate(zip(expected[:4], got[:4], strict=True)):
            _same(a, b, f"step {t} item {k}")
        for slot, (a, b) in enumerate(zip(expected[4], got[4], strict=True)):
            _same(a, b, f"step {t} info {slot}")
        _same(reference.action_masks(), batch.action_masks(), f"step {t} masks")
        ended += int(expected[2].sum())
    assert ended > steps // 29 * players  # games ended by their rules, not only by illegal moves


def test_the_gymnasium_self_play_form() -> None:
    """SelfPlayVectorEnv: SelfPlayBatch's steps with Gymnasium's vector infos (SAME_STEP)."""
    from gymnasium.vector import AutoresetMode

    from tabletop_rl.envs.core.self_play import SelfPlayBatch
    from tabletop_rl.envs.gym_vector import SelfPlayVectorEnv

    envs = SelfPlayVectorEnv("liniell_v0", num_games=2, num_players=2)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    batch = SelfPlayBatch("liniell_v0", 2, num_players=2)
    obs, info = envs.reset(seed=3)
    expected_obs, masks = batch.reset(seed=3)
    assert np.array_equal(obs, expected_obs) and np.array_equal(info["action_mask"], masks)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        obs, rewards, terminated, truncated, info = envs.step(actions)
        expected = batch.step(actions)
        masks = batch.action_masks()
        assert np.array_equal(obs, expected[0]) and np.array_equal(rewards, expected[1])
        assert np.array_equal(terminated, expected[2]) and np.array_equal(truncated, expected[3])
        assert np.array_equal(info["action_mask"], masks)
        assert obs in envs.observation_space
        for slot in np.flatnonzero(terminated):
            ended += 1
            assert info["_final_obs"][slot]
            assert np.array_equal(info["final_obs"][slot], expected[4][slot]["final_obs"])
            assert not info["final_info"]["action_mask"][slot].any()
    assert ended >= 4
    with pytest.raises(AttributeError, match="action_masks"):
        envs.call("render")
