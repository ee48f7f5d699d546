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
