"""Every script in ``benchmarks/`` runs to the end with its smallest settings.

Each runs as a user runs it (``python benchmarks/SCRIPT ARGS``, in a subprocess, never
imported), so a script that no longer matches the code it measures fails here. The figures
they print are not checked: with these settings they mean nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from shlex import split

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"

TINY_PPO_CONFIG = """\
env: qwirkle_v0
env_kwargs: {num_players: 2}
num_envs: 2
rollout_steps: 8
update_epochs: 1
num_minibatches: 1
conv_channels: [4]
hidden_sizes: [16]
"""

SMOKE_ARGS: dict[str, list[str]] = {
    "baseline_table.py": [
        *split("--games-list liniell --games 2 --eval-every 1 --eval-games 2 --workers 1"),
        *["--out", "{tmp}/baselines", "--train-args"],
        "--num_envs 4 --rollout_steps 4 --total_steps 32",
    ],
    "bench_batched.py": split(
        "--games liniell_v0 --num-envs 4 --threads 1 --seconds 0.2 --rounds 1 --no-startup"
    ),
    "bench_gym_vector.py": split(
        "--games liniell_v0 --num-envs 4 --seconds 0.2 --rounds 1 --no-copy"
    ),
    "bench_envs.py": split("--envs liniell_v0 --seconds 0.2 --rounds 1"),
    "bench_liniell_features.py": split("--games 1 --repeats 1"),
    "bench_qwirkle_compiled.py": split("--seconds 0.2 --rounds 1 --num-envs 4"),
    "mcts_decision_cpu.py": split("liniell_v0 mcts:simulations=4 0"),
    "mcts_simulations.py": split(
        "--spec mcts:simulations=4 --positions 1 --warm-up 0 --envs liniell_v0"
    ),
    "ppo_network_speed.py": [
        "--config",
        "{tmp}/tiny.yaml",
        "--games",
        "1",
        "--repeats",
        "1",
        "--profile",
    ],
    "ppo_batched_throughput.py": split("--games qwirkle_cards --seconds 6"),
    "ppo_throughput.py": ["{tmp}/run"],
    "qwirkle_cards_features.py": split("--games 1 --rounds 1 --repeat 1 --envs 2 --batch-steps 2"),
    "qwirkle_cards_solver.py": split("--tables 2 --seconds 0.2"),
    "qwirkle_features_cost.py": split("--games 1 --rounds 1 --num-envs 2 --batch-steps 2"),
    "qwirkle_window_coverage.py": split("--games 1 --policies random greedy --workers 1"),
    "read_only_start.py": split("--game liniell_v0 --runs 1"),
    "rllib_env_cost.py": split("--games 2 --seconds 0.2 --rounds 1"),
    "sb3_maskable_batch.py": split(
        "--minutes 0.05 --num-envs 4 --n-steps 8 --batch-size 16 --n-epochs 1 --eval-games 2"
    ),
}
"""The smallest settings of each script (its own command-line options)."""

NEEDS_MODULE = {"rllib_env_cost.py": "ray.rllib", "sb3_maskable_batch.py": "sb3_contrib"}
"""Scripts of an optional extra: skipped where it is not installed (RLlib has its own venv)."""
NEEDS_TORCH = {
    "baseline_table.py",
    "ppo_batched_throughput.py",
    "ppo_network_speed.py",
    "ppo_throughput.py",
}  # the log's columns: the trainer's


def run(args: list[str], cwd: Path = ROOT) -> str:
    result = subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout}\n{result.stderr}"
    return result.stdout


RUN_ELSEWHERE = {"fuzz_invariants.py"}
"""Run with its smallest settings by ``tests/test_fuzz_benchmark.py``."""


def test_every_benchmark_has_smoke_settings() -> None:
    scripts = {path.name for path in BENCHMARKS.glob("*.py")}
    assert scripts == set(SMOKE_ARGS) | RUN_ELSEWHERE, "give each benchmark its smallest settings"


@pytest.mark.parametrize("script", sorted(SMOKE_ARGS))
def test_benchmark_runs(script: str, tmp_path: Path) -> None:
    if script in NEEDS_TORCH:
        pytest.importorskip("torch")
    if script in NEEDS_MODULE:
        pytest.importorskip(NEEDS_MODULE[script])
    if script == "ppo_network_speed.py":
        (tmp_path / "tiny.yaml").write_text(TINY_PPO_CONFIG)
    if script == "ppo_throughput.py":  # it reads a training run's log: two updates of one
        write_progress_log(tmp_path / "run")
    args = [arg.format(tmp=tmp_path) for arg in SMOKE_ARGS[script]]
    out = run([str(BENCHMARKS / script), *args])
    assert out.strip(), f"{script} printed nothing"
    if script == "ppo_throughput.py":
        # 200 steps in 20 s of wall and 30 s of CPU; 20 agent steps per 10 decisions; the
        # update's time split 1 : 0.5 : 2 between the games, the network and the update
        assert "| run | 200 | 0.5 | 7 | 10 | 2.00 | 29% | 14% | 57% |" in out, out
    if script == "baseline_table.py":  # the row of the run it trained, read from its files
        run_dir = tmp_path / "baselines" / "liniell_selfplay"
        assert (run_dir / "eval_2.csv").exists() and (run_dir / "curve.png").exists()
        assert "\n| `liniell_v0` | " in out, out


def write_progress_log(run_dir: Path) -> None:
    """A training run's ``progress.csv`` (the trainer's own columns) with two updates."""
    from tabletop_rl.baselines.ppo.train import PROGRESS_FIELDS

    run_dir.mkdir()
    rows = []
    for update in (1, 2):
        row = dict.fromkeys(PROGRESS_FIELDS, "0")
        row.update(
            update=str(update),
            global_step=str(100 * update),
            time=str(10 * update),
            cpu_time=str(15 * update),
            decisions_per_s="10",
            agent_steps_per_s="20",
            env_time_s="1",
            network_time_s="0.5",
            update_time_s="2",
        )
        rows.append(",".join(row[f] for f in PROGRESS_FIELDS))
    (run_dir / "progress.csv").write_text("\n".join([",".join(PROGRESS_FIELDS), *rows]) + "\n")
