"""Worker processes started with torch loaded in the parent (a ``ppo:`` agent, the trainer).

A worker forked from a process where torch has run waits forever inside torch; every pool of
the baselines starts its workers from a fork server instead (``tabletop_rl.baselines.workers``).
The commands run as a user runs them, in a subprocess with a time limit: a hang is a failure.
"""

from __future__ import annotations

import csv
import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

import numpy as np

from tabletop_rl.baselines import workers

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
cli_process = importlib.import_module("cli_runner").cli_process

POLICY = "ppo:pretrained/liniell_v0"
LIMIT = 300
"""Seconds a command may take: these finish in well under a minute, a hang never does."""


def run_cli(args: list[str]) -> subprocess.CompletedProcess[str]:
    """``tabletop-rl ARGS`` in a process group of its own; a run past :data:`LIMIT` fails the
    test, and its workers are killed with it (hung workers would outlive their parent)."""
    with cli_process(args) as proc:
        try:
            out, err = proc.communicate(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"tabletop-rl {' '.join(args)} did not finish in {LIMIT} s")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_the_arena_plays_a_ppo_agent_on_two_workers(tmp_path: Path) -> None:
    # the README's arena command with a shipped policy; the policy is loaded in the parent
    # (checking the agents) before the workers start
    argv = ["arena", "--env", "liniell_v0", "--agents", POLICY, "greedy", "--games", "2"]
    argv += ["--workers", "2", "--out", str(tmp_path), "--no-progress", "--seed", "3"]
    done = run_cli(argv)
    assert done.returncode == 0, done.stderr
    assert "2 games played now, 2 in all" in done.stdout
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert sorted(r["game_id"] for r in records) == [0, 1]
    assert all(POLICY in r["agents"] and r["error"] is None for r in records)
    with open(tmp_path / "summary.csv", newline="") as f:
        rows = {row["agent"]: row for row in csv.DictReader(f)}
    assert rows[POLICY]["games"] == rows["greedy"]["games"] == "2"


def test_evaluate_plays_a_ppo_opponent_on_two_workers(tmp_path: Path) -> None:
    # the policy plays in the parent; each game worker loads the opponent's network
    out = tmp_path / "evaluation.csv"
    argv = ["evaluate", "pretrained/liniell_v0", "--games", "2", "--opponents", POLICY]
    argv += ["--workers", "2", "--out", str(out)]
    done = run_cli(argv)
    assert done.returncode == 0, done.stderr
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["opponent"], r["games"]) for r in rows] == [(POLICY, "2")]


def _worker_torch_threads(spec: str) -> int:
    """In a worker: build the agent ``spec``; the threads its torch runs on."""
    from tabletop_rl.baselines.arena.agent_specs import resolve_agent

    resolve_agent(spec, "liniell_v0", np.random.default_rng(0))
    import torch

    return torch.get_num_threads()


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: torch's default is one thread")
def test_a_worker_that_loads_a_policy_runs_torch_on_one_thread() -> None:
    import torch

    torch.zeros(64, 64).sum()  # the parent has run torch
    with workers.worker_context().Pool(1, initializer=workers.init_worker) as pool:
        threads = pool.apply(_worker_torch_threads, (POLICY,))
    assert threads == workers.WORKER_TORCH_THREADS == 1


def test_the_fork_server_never_imports_torch() -> None:
    # every module a fork server may preload, imported in a fresh interpreter
    names = list(workers.PRELOAD)
    for prefix in workers.TORCH_FREE:
        package = importlib.import_module(prefix.rstrip("."))
        names += [m.name for m in pkgutil.walk_packages(package.__path__, prefix)]
    code = f"import importlib, sys\nfor name in {names!r}:\n    importlib.import_module(name)\n"
    code += "print('torch' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=LIMIT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
    added = [name for name in workers.preload_modules() if name not in workers.PRELOAD]
    assert all(name.startswith(workers.TORCH_FREE) for name in added)
