"""The Gymnasium single-agent wrapper: mask dtype, seeded replays, masks across autoresets."""

from __future__ import annotations

import hashlib
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from tabletop_rl.baselines.agents import make_agent
from tabletop_rl.envs import available_envs, make, make_single_agent
from tabletop_rl.envs.core import SingleAgentEnv

ENVS = available_envs()
PLAYERS = [2, 3, 4]


def _wrapped(
    name: str, players: int, opponent: str = "random", agent_seed: int = 12345, **kwargs: Any
) -> SingleAgentEnv:
    rng = np.random.default_rng(agent_seed)  # deliberately shared and never reset by the test
    opponents = [make_agent(opponent, name, rng) for _ in range(players - 1)]
    return SingleAgentEnv(make(name, raw=True, num_players=players), opponents, **kwargs)


@pytest.mark.parametrize("name", ENVS)
@pytest.mark.parametrize("players", PLAYERS)
def test_action_space_samples_with_the_wrappers_mask(name: str, players: int) -> None:
    env = _wrapped(name, players)
    _obs, info = env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(20):
        mask = env.action_masks()
        assert mask.dtype == np.int8 and set(np.unique(mask)) <= {0, 1}
        assert np.array_equal(mask, info["action_mask"])
        action = env.action_space.sample(mask)
        assert mask[action] == 1
        _obs, _reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            assert not env.action_masks().any() and not info["action_mask"].any()
            break


def _episode(env: SingleAgentEnv, seed: int) -> tuple[int, str, list[float]]:
    """Play one game with a learner whose choices depend on ``seed`` only.

    Returns the learner's seat, a digest of every observation and action, and the rewards.
    """
    learner = np.random.default_rng(seed)
    digest = hashlib.sha256()
    obs, _info = env.reset(seed=seed)
    rewards: list[float] = []
    done = False
    while not done:
        digest.update(np.ascontiguousarray(obs).tobytes())
        action = int(learner.choice(np.flatnonzero(env.action_masks())))
        digest.update(action.to_bytes(4, "little"))
        obs, reward, terminated, truncated, _info = env.step(action)
        rewards.append(reward)
        done = terminated or truncated
    digest.update(np.ascontiguousarray(obs).tobytes())
    return env.learner_seat, digest.hexdigest(), rewards


@pytest.mark.parametrize("name", ENVS)
@pytest.mark.parametrize("players", PLAYERS)
def test_a_seed_replays_the_episode_with_scripted_opponents(name: str, players: int) -> None:
    env = _wrapped(name, players, learner_seat=None)
    seeds = range(10)
    first = [_episode(env, seed) for seed in seeds]
    _episode(env, 999)  # the opponents' generators move on in between
    again = [_episode(env, seed) for seed in reversed(seeds)][::-1]
    assert first == again
    assert len({digest for _seat, digest, _ in first}) == len(first), "seeds must differ"


@pytest.mark.parametrize("name", ENVS)
def test_a_seed_replays_the_episode_with_planning_opponents(name: str) -> None:
    """Greedy agents keep a planned turn; reseeding makes them forget it too."""
    env = _wrapped(name, 3, opponent="greedy")
    first = [_episode(env, seed) for seed in range(2)]
    assert [_episode(env, seed) for seed in range(2)] == first


def test_reseeding_is_derived_from_the_env_seed_and_not_from_the_agents() -> None:
    env = _wrapped("liniell_v0", 2)
    before = _episode(env, 4)
    other = _wrapped("liniell_v0", 2, agent_seed=777)  # brand-new opponents, another generator
    assert _episode(other, 4) == before


def _vector(name: str, mode: AutoresetMode) -> SyncVectorEnv:
    fns = [lambda: SingleAgentEnv(make(name, raw=True), learner_seat=0) for _ in range(2)]
    return SyncVectorEnv(fns, autoreset_mode=mode)


def _illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


@pytest.mark.parametrize("name", ENVS)
def test_mask_after_next_step_autoreset(name: str) -> None:
    envs = _vector(name, AutoresetMode.NEXT_STEP)
    _obs, info = envs.reset(seed=0)
    masks = np.stack(envs.call("action_masks"))
    assert np.array_equal(masks, info["action_mask"]) and masks.all(axis=0).sum() < masks.shape[1]
    # Sub-env 0 plays an illegal action (its episode ends at once); sub-env 1 plays on.
    actions = np.array([_illegal(masks[0]), int(np.flatnonzero(masks[1])[0])])
    _obs, rewards, terminated, _trunc, info = envs.step(actions)
    assert terminated.tolist() == [True, False] and rewards[0] == -1.0
    masks = np.stack(envs.call("action_masks"))
    assert not masks[0].any(), "for one step after the end, the finished sub-env has no mask"
    assert np.array_equal(masks, info["action_mask"]) and masks[1].any()
    # The next step resets sub-env 0 and ignores its action (0 is a placeholder).
    actions = np.array([0, int(np.flatnonzero(masks[1])[0])])
    _obs, rewards, terminated, _trunc, info = envs.step(actions)
    assert rewards[0] == 0.0 and not terminated[0]
    masks = np.stack(envs.call("action_masks"))
    assert masks[0].any() and np.array_equal(masks, info["action_mask"])
    envs.close()


@pytest.mark.parametrize("name", ENVS)
def test_mask_after_same_step_autoreset(name: str) -> None:
    envs = _vector(name, AutoresetMode.SAME_STEP)
    obs, info = envs.reset(seed=0)
    masks = np.stack(envs.call("action_masks"))
    actions = np.array([_illegal(masks[0]), int(np.flatnonzero(masks[1])[0])])
    obs, rewards, terminated, _trunc, info = envs.step(actions)
    assert terminated.tolist() == [True, False] and rewards[0] == -1.0
    masks = np.stack(envs.call("action_masks"))
    # Sub-env 0 was reset in the same step: its mask is the new episode's, and so is info's.
    assert masks[0].any() and np.array_equal(masks, info["action_mask"])
    assert not info["final_info"]["action_mask"][0].any()
    assert "illegal_action" in info["final_info"]
    fresh, fresh_info = SingleAgentEnv(make(name, raw=True), learner_seat=0).reset(seed=0)
    assert fresh_info["action_mask"].any() and obs[0].shape == fresh.shape
    envs.close()


def test_gymnasium_checker_accepts_the_wrapper_in_every_game() -> None:
    from gymnasium.utils.env_checker import check_env

    for name in ENVS:
        check_env(SingleAgentEnv(make(name, raw=True)), skip_render_check=True)
    assert isinstance(SingleAgentEnv(make("liniell_v0", raw=True)), gymnasium.Env)


def test_a_seed_replays_the_episode_with_a_search_opponent() -> None:
    """MCTS keeps a planned turn and rollout agents; reseeding renews both."""
    env = make_single_agent("liniell_v0", opponent="mcts:simulations=20", learner_seat=None)
    first = [_episode(env, seed) for seed in range(2)]
    assert [_episode(env, seed) for seed in range(2)] == first
