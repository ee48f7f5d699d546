"""The suite's baseline table: self-play PPO from each game's own observation, for a budget.

For each game, one after another, as a user runs them: ``tabletop-rl train
configs/<game>_selfplay.yaml`` for ``--minutes`` of wall clock (the environment's default
observation, no features, no teacher; periodic evaluations against ``random`` and ``greedy``
every ``--eval-every`` updates draw the learning curve and do not count as training time),
then ``tabletop-rl evaluate RUN --games N --opponents random greedy heuristic`` and the
learning curve ``python -m tabletop_rl.baselines.ppo.plot RUN curve.png``. It prints one
Markdown row per game: wall-clock and CPU minutes of training, learner steps, learner steps per
second, and the win rates with their Wilson 95% intervals::

    python benchmarks/baseline_table.py --minutes 10 --games 1000 --out runs/baselines10

Each run trains alone: give the script an otherwise idle machine, since the budget is wall
clock (``max_minutes``). The runs are kept under ``--out`` (config, progress.csv, eval.csv,
the evaluation CSV and the curve), the files the results page links.
"""

from __future__ import annotations

import argparse
import csv
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("liniell", "qwirkle_cards", "qwirkle")
OPPONENTS = ("random", "greedy", "heuristic")


def run(command: list[str]) -> None:
    """Run one command as a user would, its output shown; stop the script if it fails."""
    print("$", " ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)


def last_row(path: Path) -> dict[str, str]:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f"{path} has no rows: the run trained no update")
    return rows[-1]


def table_row(game: str, run_dir: Path, eval_file: Path) -> str:
    """The game's Markdown row, read from the run's progress.csv and its evaluation CSV."""
    progress = last_row(run_dir / "progress.csv")
    wall, cpu = float(progress["time"]), float(progress["cpu_time"])
    steps = int(float(progress["global_step"]))
    with open(eval_file, newline="") as f:
        results = {row["opponent"]: row for row in csv.DictReader(f)}
    cells = [
        f"{float(r['win_rate']):.3f} ({float(r['ci_low']):.3f}–{float(r['ci_high']):.3f})"
        if (r := results.get(name))
        else "-"
        for name in OPPONENTS
    ]
    return (
        f"| `{game}_v0` | {wall / 60:.1f} | {cpu / 60:.1f} | {steps:,} | {steps / wall:,.0f} | "
        + " | ".join(cells)
        + " |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games-list", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--minutes", type=float, default=10.0, help="wall-clock training budget")
    parser.add_argument("--games", type=int, default=1000, help="evaluation games per opponent")
    parser.add_argument("--eval-every", type=int, default=20, help="updates between curve points")
    parser.add_argument("--eval-games", type=int, default=200, help="games per curve point")
    parser.add_argument("--out", default="runs/baselines", help="folder for the runs")
    parser.add_argument("--workers", type=int, default=2, help="evaluation subprocesses")
    parser.add_argument(
        "--train-args",
        default="",
        help='more config overrides for every run, e.g. "--num_envs 8 --total_steps 256"',
    )
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.games <= 0 or args.eval_every <= 0 or args.eval_games <= 0:
        parser.error("--minutes, --games, --eval-every and --eval-games must be > 0")
    python = sys.executable
    rows = []
    for game in args.games_list:
        run_dir = Path(args.out) / f"{game}_selfplay"  # as given: the run's config records it
        if (run_dir / "checkpoint.pt").exists():
            parser.error(f"{run_dir} already holds a run: choose another --out")
        run(
            [
                python, "-m", "tabletop_rl.baselines.ppo.train",
                f"configs/{game}_selfplay.yaml",
                "--max_minutes", str(args.minutes),
                "--run_dir", str(run_dir),
                "--eval_every", str(args.eval_every),
                "--eval_games", str(args.eval_games),
                "--eval_opponents", "[random, greedy]",
                "--progress_bar", "false",
                *shlex.split(args.train_args),
            ]
        )  # fmt: skip
        eval_file = run_dir / f"eval_{args.games}.csv"
        run(
            [
                python, "-m", "tabletop_rl.baselines.ppo.evaluate", str(run_dir),
                "--games", str(args.games), "--opponents", *OPPONENTS,
                "--workers", str(args.workers), "--out", str(eval_file),
            ]
        )  # fmt: skip
        run(
            [
                python,
                "-m",
                "tabletop_rl.baselines.ppo.plot",
                str(run_dir),
                str(run_dir / "curve.png"),
            ]
        )
        rows.append(table_row(game, run_dir, eval_file))
    print()
    print("| game | training wall clock (min) | CPU-minutes | learner steps | learner steps/s | "
          + " | ".join(f"vs {name}" for name in OPPONENTS) + " |")  # fmt: skip
    print("|---|---:|---:|---:|---:|" + "---|" * len(OPPONENTS))
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
