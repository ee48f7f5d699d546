"""Tianshou: the masked PPO recipe trains, saves, reloads and only ever picks legal actions.

Needs the ``tianshou`` extra; without it these tests are skipped.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tianshou")
torch = pytest.importorskip("torch")

from tianshou.data import Batch  # noqa: E402

from tabletop_rl.baselines import tianshou as ts  # noqa: E402
from tabletop_rl.envs import make  # noqa: E402

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
library_block = importlib.import_module("readme_blocks").library_block


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_masked_actor_never_samples_an_illegal_action() -> None:
    actor = ts.MaskedActor(obs_dim=5, num_actions=6, hidden=(8,))
    rng = np.random.default_rng(0)
    mask = rng.random((64, 6)) < 0.3
    mask[:, 2] = True
    obs = Batch(obs=rng.random((64, 5)).astype(np.float32), mask=mask)
    logits, _ = actor(obs)
    samples = torch.distributions.Categorical(logits=logits).sample((50,)).numpy()
    assert all(mask[row, a] for draw in samples for row, a in enumerate(draw))


def test_ppo_recipe_trains_saves_and_plays_legally(tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = ["--env", "liniell_v0", "--epochs", "1", "--steps-per-epoch", "400"]
    argv += ["--steps-per-collect", "200", "--envs", "2", "--test-episodes", "4"]
    assert ts.main([*argv, "--out", str(out)]) == 0
    summary = json.loads((out / "result.json").read_text())
    assert summary["env_steps"] >= 400 and summary["test_episodes"] == 4
    assert -1.0 <= summary["test_return"] <= 1.0
    # the observation the policy was trained on, as a PPO checkpoint names it
    assert summary["observation_version"] == make("liniell_v0", raw=True).observation_version

    env = ts.make_env("liniell_v0", opponent="greedy")
    algorithm = ts.make_ppo(env)
    state = torch.load(out / "policy.pt", weights_only=True)
    algorithm.policy.load_state_dict(state)
    algorithm.policy.eval()
    obs, _info = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        batch = Batch(obs=Batch(obs=obs["obs"][None], mask=obs["mask"][None]), info=Batch())
        action = int(algorithm.policy(batch).act[0])
        assert obs["mask"][action], f"the trained policy chose illegal action {action}"
        obs, reward, terminated, truncated, info = env.step(action)
        done, steps = terminated or truncated, steps + 1
    assert steps > 1 and "illegal_action" not in info and reward in (-1.0, 0.0, 1.0)


def test_readme_snippet(capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict = {}
    exec(compile(library_block("Tianshou"), "README: Tianshou", "exec"), namespace)
    assert namespace["result"].env_steps >= 400
    assert "mean return against random" in capsys.readouterr().out
