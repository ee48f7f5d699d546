"""Stopping a training run: Ctrl-C (SIGINT to the whole process group) and SIGTERM.

The run is the real command in a subprocess of its own process group, on the tic-tac-toe
test game with two rollout workers, as a person runs it in a terminal.
"""

from __future__ import annotations

import importlib
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

from tabletop_rl.baselines.ppo.checkpoint import load_checkpoint
from tabletop_rl.baselines.ppo.rollout import TOY_ENV

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
runner = importlib.import_module("cli_runner")
cli_process, command_line = runner.cli_process, runner.command_line

SMOKE = str(ROOT / "configs" / "smoke.yaml")


def _updates_logged(run_dir: Path) -> int:
    path = run_dir / "progress.csv"
    return max(0, len(path.read_text().splitlines()) - 1) if path.exists() else 0


def _running_in_group(pgid: int, wait: float = 10.0) -> list[int]:
    """The processes of group ``pgid`` still running after up to ``wait`` seconds. The worker
    processes' fork server and multiprocessing's resource tracker end when the trainer has
    ended, orphaned: a defunct one (a zombie, left to the system's reaper) runs no more."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        running = [] if Path("/proc/self/stat").exists() else [pgid]  # else: no process table
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # ended meanwhile
            state, group = fields[0], int(fields[2])
            if group == pgid and state not in ("Z", "X"):
                running.append(int(stat.parent.name))
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.1)


@pytest.mark.parametrize(
    ("signum", "whole_group"), [(signal.SIGINT, True), (signal.SIGTERM, False)]
)
def test_a_signal_stops_training_with_a_checkpoint_and_the_resume_command(
    tmp_path: Path, signum: int, whole_group: bool
) -> None:
    run_dir = tmp_path / "run"
    args = ["train", SMOKE, "--env", TOY_ENV, "--total_steps", "100000000"]
    args += ["--num_workers", "2", "--run_dir", str(run_dir)]
    with cli_process(args) as proc:  # its own process group, as a terminal's foreground job
        deadline = time.monotonic() + 120
        while _updates_logged(run_dir) < 2 and proc.poll() is None:
            assert time.monotonic() < deadline, "training did not start"
            time.sleep(0.1)
        sent = time.monotonic()
        if whole_group:
            os.killpg(proc.pid, signum)  # Ctrl-C: the trainer and its rollout workers
        else:
            proc.send_signal(signum)
        _out, err = proc.communicate(timeout=30)
        stopped_after = time.monotonic() - sent
    assert proc.returncode == 128 + signum, err
    assert stopped_after < 15, f"took {stopped_after:.1f} s to stop"
    assert "Traceback" not in err
    lines = [line for line in err.strip().splitlines() if line.startswith("stopped by")]
    assert len(lines) == 1, err
    name = signal.Signals(signum).name
    state = load_checkpoint(run_dir)
    assert lines[0].startswith(f"stopped by {name} at update {state['update']}, step ")
    resume = lines[0].split("resume with: ", 1)[1]
    assert resume.startswith("tabletop-rl train ") and resume.endswith(" --resume")
    assert _running_in_group(proc.pid) == []  # no worker left behind
    # The printed command resumes the run (here with a budget that ends it soon).
    more = [*shlex.split(resume)[1:], "--total_steps", str(state["global_step"] + 200)]
    done = subprocess.run(command_line(more), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert load_checkpoint(run_dir)["update"] > state["update"]
