"""The registered Gymnasium ids: gymnasium.make and make_vec, opponents by spec, no torch."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest

from tabletop_rl.envs import GYMNASIUM_IDS, ConfigError, make_single_agent
from tabletop_rl.envs.core import SingleAgentEnv


@pytest.mark.parametrize("env_id", sorted(GYMNASIUM_IDS))
def test_gymnasium_make_builds_the_single_agent_env(env_id: str) -> None:
    env = gymnasium.make(env_id, opponent="greedy", num_players=3)
    assert isinstance(env.unwrapped, SingleAgentEnv)
    game = env.unwrapped.env
    assert game.info.name == GYMNASIUM_IDS[env_id] and game.num_players == 3
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space
    done, steps = False, 0
    while not done:
        mask = env.get_wrapper_attr("action_masks")()
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample(mask))
        done, steps = terminated or truncated, steps + 1
    assert steps > 1 and reward in (-1.0, 0.0, 1.0) and "illegal_action" not in info


def test_opponent_specs_build_the_named_agents() -> None:
    env = gymnasium.make("tabletop_rl/Liniell-v0", opponent=["heuristic", "random"], num_players=3)
    env.reset(seed=1)
    names = [agent.name for agent in env.unwrapped.opponents]
    assert names == ["heuristic", "random"]
    with pytest.raises(ConfigError, match="needs 2 opponents"):
        gymnasium.make("tabletop_rl/Liniell-v0", opponent=["greedy"], num_players=3)
    with pytest.raises(ConfigError, match="no agent 'nobody'"):
        gymnasium.make("tabletop_rl/Qwirkle-v0", opponent="nobody")
    with pytest.raises(ConfigError, match="unknown environment"):
        make_single_agent("chess_v6")


def test_env_kwargs_reach_the_game() -> None:
    env = gymnasium.make("tabletop_rl/QwirkleCards-v0", reward="score", render_mode="ansi")
    env.reset(seed=0)
    assert env.unwrapped.env.reward_mode == "score"
    assert isinstance(env.render(), str)


def test_a_seed_replays_through_gymnasium_make() -> None:
    def episode(env: gymnasium.Env, seed: int) -> list[int]:
        env.reset(seed=seed)
        env.action_space.seed(seed)
        seen, done = [], False
        while not done:
            action = int(env.action_space.sample(env.get_wrapper_attr("action_masks")()))
            obs, _r, terminated, truncated, _i = env.step(action)
            seen.append(hash(np.asarray(obs).tobytes()))
            done = terminated or truncated
        return seen

    env = gymnasium.make("tabletop_rl/Liniell-v0", opponent="greedy")
    first = episode(env, 3)
    episode(env, 4)
    assert episode(env, 3) == first


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_steps_with_masks(mode: str) -> None:
    envs = gymnasium.make_vec(
        "tabletop_rl/Liniell-v0", num_envs=2, vectorization_mode=mode, opponent="random"
    )
    obs, info = envs.reset(seed=0)
    assert obs.shape == (2, *envs.single_observation_space.shape)
    for _ in range(30):
        masks = info["action_mask"]
        assert masks.dtype == np.int8 and masks.shape == (2, envs.single_action_space.n)
        actions = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks])
        obs, _rewards, _terminated, _truncated, info = envs.step(actions)
        assert obs in envs.observation_space
    assert np.array_equal(np.stack(envs.call("action_masks")), info["action_mask"])
    envs.close()


def test_ids_register_on_import_without_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import gymnasium, tabletop_rl.envs\n"
        "env = gymnasium.make('tabletop_rl/Qwirkle-v0', opponent='heuristic')\n"
        "env.reset(seed=0)\n"
        "assert 'tabletop_rl/QwirkleCards-v0' in gymnasium.registry\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
