"""Learning-curve plots from a run's CSV logs."""

from __future__ import annotations

import csv
import warnings
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from tabletop_rl.baselines.ppo.plot import main, plot_run


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    progress = [
        {"global_step": 100 * u, "time": 30.0 * u, "cpu_time": 50.0 * u,
         "win_rate": f"random={u / 10:.2f}/4;greedy=0.1/2"}
        for u in range(1, 11)
    ]  # fmt: skip
    evals = [
        {"global_step": 500 * k, "opponent": opp, "games": 20, "win_rate": 0.5,
         "ci_low": 0.3, "ci_high": 0.7}
        for k in (1, 2) for opp in ("random", "greedy")
    ]  # fmt: skip
    _write(tmp_path / "progress.csv", progress)
    _write(tmp_path / "eval.csv", evals)
    return tmp_path


@pytest.mark.parametrize("clock", ["wall", "cpu"])
def test_plot_writes_a_png(run_dir: Path, clock: str) -> None:
    out = run_dir / "plots" / "curve.png"
    assert main([str(run_dir), str(out), "--clock", clock, "--marks", "2", "60"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(out.parent.glob(".*.tmp"))  # no temporary file left behind


def test_unknown_clock_is_an_error(run_dir: Path) -> None:
    with pytest.raises(ValueError, match="allowed: wall, cpu"):
        plot_run(run_dir, run_dir / "x.png", clock="steps")


def test_a_run_without_evaluations_says_so_without_warnings(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (run_dir / "eval.csv").unlink()
    out = run_dir / "curve.png"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's "No artists with labels" included
        assert plot_run(run_dir, out) == ["no evaluation yet"]
        assert main([str(run_dir), str(out)]) == 0
    assert f"{out}: no evaluation yet" in capsys.readouterr().out
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_folder_that_is_not_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path), str(tmp_path / "x.png")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "holds no progress.csv" in err
