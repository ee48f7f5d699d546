"""SB3-contrib's MaskablePPO on the single-agent wrapper: the README's "other libraries" example.

Runs the functions of ``examples/sb3_example.py`` (the documented example itself) with a few
hundred steps. Needs the ``sb3`` extra; without it these tests are skipped.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from tabletop_rl.envs import available_envs  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sb3_example.py"


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("sb3_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example = _example()


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    """CI runs two test workers on two cores: one torch thread each avoids oversubscription."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _legal_game(model: Any, env: Any, seed: int) -> tuple[float, int]:
    """Play one game with the policy, checking every chosen action against the mask."""
    obs, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        mask = env.action_masks()
        assert mask.dtype == np.int8 and mask.any()
        assert np.array_equal(mask, info["action_mask"])
        action, _ = model.predict(obs, action_masks=mask, deterministic=False)
        assert mask[int(action)] == 1, f"MaskablePPO chose the illegal action {int(action)}"
        obs, reward, terminated, truncated, info = env.step(int(action))
        total += reward
        steps += 1
        done = terminated or truncated
    return total, steps


def test_example_trains_evaluates_and_saves(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    model = example.train("liniell_v0", total_timesteps=256, n_steps=128, seed=0)
    assert model.num_timesteps >= 256
    env = example.make_env("liniell_v0", seed=1)
    for seed in range(3):
        total, steps = _legal_game(model, env, seed)
        assert total in (-1.0, 0.0, 1.0)  # reward="win": the game's result, once
        assert steps >= 1
    assert example.play_game(model, env, seed=7) in (-1.0, 0.0, 1.0)
    rewards, lengths = evaluate_policy(
        model, env, n_eval_episodes=4, use_masking=True, warn=False, return_episode_rewards=True
    )
    assert len(rewards) == 4 and all(r in (-1.0, 0.0, 1.0) for r in rewards)
    assert all(n >= 1 for n in lengths)

    path = tmp_path / "maskable_ppo.zip"
    model.save(path)
    loaded = MaskablePPO.load(path, device="cpu")
    obs, _ = env.reset(seed=3)
    mask = env.action_masks()
    a1, _ = model.predict(obs, action_masks=mask, deterministic=True)
    a2, _ = loaded.predict(obs, action_masks=mask, deterministic=True)
    assert int(a1) == int(a2)


@pytest.mark.parametrize("env_name", available_envs())
def test_maskable_ppo_runs_on_every_environment(env_name: str) -> None:
    model = example.train(env_name, total_timesteps=64, n_steps=64, seed=1)
    assert model.num_timesteps >= 64
    total, _steps = _legal_game(model, example.make_env(env_name, seed=2), seed=0)
    assert -1.0 <= total <= 1.0


def test_self_play_trains_every_seat_with_legal_actions() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks

    from tabletop_rl.baselines.sb3 import SelfPlayVecEnv

    model = example.train_self_play("liniell_v0", total_timesteps=512, num_games=2, n_steps=64)
    assert model.num_timesteps >= 512
    # The trained policy acts in every slot of a fresh batch; movers only ever act legally.
    env = SelfPlayVecEnv("qwirkle_cards_v0", num_games=2, num_players=3, seed=5)
    sp_model = example.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=96, device="cpu")
    sp_model.learn(total_timesteps=96)
    obs = env.reset()
    for _ in range(40):
        masks = get_action_masks(env)
        actions, _ = sp_model.predict(obs, action_masks=masks)
        assert all(masks[i, a] == 1 for i, a in enumerate(actions))
        obs, _rewards, _dones, _infos = env.step(actions)
    # A self-play policy plays one seat against scripted agents like any other.
    total, _steps = _legal_game(model, example.make_env("liniell_v0", seed=3), seed=0)
    assert total in (-1.0, 0.0, 1.0)


def test_maskable_ppo_learns_on_the_compiled_batch_of_make_vec() -> None:
    """MaskablePPO on gymnasium.make_vec's batched path (the opponents' moves inside the
    compiled batch), through the SB3 adapter: it trains, and only ever picks legal moves."""
    import gymnasium
    from gymnasium.vector import AutoresetMode
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from tabletop_rl.baselines.sb3 import GymnasiumVecEnv
    from tabletop_rl.envs.errors import ConfigError
    from tabletop_rl.envs.gym_vector import SingleAgentVectorEnv

    envs = gymnasium.make_vec(
        "tabletop_rl/Liniell-v0",
        num_envs=8,
        vectorization_mode="vector_entry_point",
        opponent="random",
        learner_seat=None,
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    assert isinstance(envs, SingleAgentVectorEnv)
    env = GymnasiumVecEnv(envs)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, seed=0, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    env.seed(4)
    obs = env.reset()
    ended = 0
    for _ in range(60):
        masks = get_action_masks(env)
        actions, _ = model.predict(obs, action_masks=masks)
        assert all(masks[i, a] for i, a in enumerate(actions))
        obs, rewards, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones):
            ended += 1
            assert rewards[i] in (-1.0, 0.0, 1.0)
            assert infos[i]["terminal_observation"].shape == obs[i].shape
    assert ended > 0
    with pytest.raises(ConfigError, match="SAME_STEP"):
        GymnasiumVecEnv(gymnasium.make_vec("tabletop_rl/Liniell-v0", num_envs=2))
