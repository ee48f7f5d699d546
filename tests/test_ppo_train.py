"""End to end: a smoke training run, evaluation, the agent, and resuming after a kill."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.ppo import evaluate, train  # noqa: E402
from tabletop_rl.baselines.ppo.agent import load_ppo_agent  # noqa: E402
from tabletop_rl.baselines.ppo.checkpoint import load_checkpoint  # noqa: E402
from tabletop_rl.baselines.ppo.config import apply_overrides, load_config  # noqa: E402
from tabletop_rl.baselines.ppo.rollout import TOY_ENV  # noqa: E402
from tabletop_rl.envs import make  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SMOKE = str(ROOT / "configs" / "smoke.yaml")
TOY = ["--env", TOY_ENV, "--opponents", "{self: 0.5, pool: 0.2, random: 0.3}"]
"""Overrides that run the smoke config on the tic-tac-toe test game (fast, self-contained)."""


def _updates(run_dir: Path) -> list[int]:
    with open(run_dir / "progress.csv", newline="") as f:
        return [int(row["update"]) for row in csv.DictReader(f)]


def test_smoke_run_trains_evaluates_and_yields_an_agent(tmp_path: Path) -> None:
    from tabletop_rl.envs import available_envs

    if load_config(SMOKE).env not in available_envs():
        pytest.skip("the smoke config's game is not registered")
    run_dir = tmp_path / "smoke"
    assert train.main([SMOKE, "--run_dir", str(run_dir)]) == 0
    for name in ("config.yaml", "checkpoint.pt", "progress.csv", "eval.csv"):
        assert (run_dir / name).is_file(), name
    assert any((run_dir / "tb").iterdir())
    with open(run_dir / "progress.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    # the PPO diagnostics of every update, the gradient norm before clipping among them
    assert rows and all(
        float(r["grad_norm"]) > 0 and r["approx_kl"] and r["clipfrac"] for r in rows
    )
    state = load_checkpoint(run_dir)  # weights_only=True
    cfg = load_config(run_dir / "config.yaml")
    assert state["global_step"] >= cfg.total_steps and state["update"] == _updates(run_dir)[-1]
    # A second run into the same directory must not overwrite it silently.
    assert train.main([SMOKE, "--run_dir", str(run_dir)]) == 2

    assert (
        evaluate.main([str(run_dir), "--games", "20", "--opponents", "random", "--workers", "0"])
        == 0
    )
    assert (run_dir / "evaluation.csv").is_file()
    out = tmp_path / "results" / "ten_minutes.csv"
    assert evaluate.main([str(run_dir), "--games", "4", "--workers", "0", "--out", str(out)]) == 0
    with open(out, newline="") as f:
        assert [r["opponent"] for r in csv.DictReader(f)] == ["random", "greedy"]

    agent = load_ppo_agent(str(run_dir), cfg.env, np.random.default_rng(0), greedy=False)
    env = make(cfg.env, raw=True, **cfg.env_kwargs)
    env.reset(seed=0)
    while not any(env.terminations.values()):
        obs = env.observe(env.agent_selection)
        action = agent.act(obs)
        assert obs["action_mask"][action] == 1
        env.step(action)


class _Killed(Exception):
    pass


@pytest.mark.parametrize(("workers", "augment"), [(1, False), (0, True)])
def test_resume_after_a_kill_matches_an_uninterrupted_run(
    tmp_path: Path, workers: int, augment: bool
) -> None:
    args = [
        "--symmetry_augmentation",
        str(augment).lower(),
        *TOY,
        "--total_steps",
        "1600",
        "--checkpoint_every",
        "1",
        "--eval_every",
        "0",
        "--eval_games",
        "10",
        "--num_workers",
        str(workers),
        "--snapshot_every",
        "1",
    ]
    straight = tmp_path / "straight"
    cfg = apply_overrides(load_config(SMOKE), [*args, "--run_dir", str(straight)])
    train.train(cfg)

    killed = tmp_path / "killed"
    cfg = apply_overrides(load_config(SMOKE), [*args, "--run_dir", str(killed)])

    def kill_after_second_update(update: int) -> None:
        if update == 2:
            raise _Killed

    with pytest.raises(_Killed):
        train.train(cfg, on_update=kill_after_second_update)
    assert load_checkpoint(killed)["update"] == 2
    assert train.main([SMOKE, *args, "--run_dir", str(killed), "--resume"]) == 0

    a, b = load_checkpoint(straight), load_checkpoint(killed)
    assert a["update"] == b["update"] > 2 and a["global_step"] == b["global_step"]
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), key
    assert _updates(killed) == list(range(1, b["update"] + 1))
    with open(straight / "eval.csv") as fa, open(killed / "eval.csv") as fb:
        assert fa.read() == fb.read()


@pytest.mark.parametrize("env_name", __import__("tabletop_rl.envs").envs.available_envs())
def test_training_runs_on_every_registered_game(tmp_path: Path, env_name: str) -> None:
    args = [
        "--env",
        env_name,
        "--env_kwargs",
        "{}",
        "--total_steps",
        "60",
        "--num_envs",
        "4",
        "--num_workers",
        "0",
        "--rollout_steps",
        "8",
        "--opponents",
        "{self: 1, random: 1}",
        "--eval_games",
        "2",
        "--eval_opponents",
        "[random]",
        "--conv_channels",
        "[4]",
        "--hidden_sizes",
        "[16]",
        "--snapshot_every",
        "1",
        "--run_dir",
        str(tmp_path),
    ]
    assert train.main([SMOKE, *args]) == 0
    state = load_checkpoint(tmp_path)
    assert state["global_step"] >= 60
    agent = load_ppo_agent(str(tmp_path), env_name, np.random.default_rng(0))
    env = make(env_name, raw=True)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs)] == 1


def test_a_time_budget_stops_at_an_update_and_resume_extends_it(tmp_path: Path) -> None:
    args = [*TOY, "--total_steps", "800", "--eval_every", "0", "--eval_games", "4"]
    args += ["--num_workers", "0", "--snapshot_every", "1"]
    straight = tmp_path / "straight"
    train.train(apply_overrides(load_config(SMOKE), [*args, "--run_dir", str(straight)]))

    budget = tmp_path / "budget"
    tiny = ["--max_cpu_minutes", "1e-9", "--run_dir", str(budget)]
    assert train.main([SMOKE, *args, *tiny]) == 0
    # checked inside collection: the first update is dropped, the run ends at update 0
    assert load_checkpoint(budget)["update"] == 0 and not _updates(budget)
    # The same budget again: nothing left to do, the checkpoint stays.
    assert train.main([SMOKE, *args, *tiny, "--resume"]) == 0
    assert load_checkpoint(budget)["update"] == 0
    # A larger budget continues the run to the end, exactly as the uninterrupted run, also
    # with another evaluation schedule (evaluations do not touch training).
    more = ["--max_cpu_minutes", "0", "--run_dir", str(budget), "--resume", "--eval_every", "2"]
    assert train.main([SMOKE, *args, *more]) == 0
    a, b = load_checkpoint(straight), load_checkpoint(budget)
    assert a["update"] == b["update"] > 1
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), key
    with open(budget / "progress.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert float(rows[-1]["eval_time"]) > 0  # the evaluations' time, not training time
