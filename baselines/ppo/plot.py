"""Learning-curve plots of PPO runs: ``python -m tabletop_rl.baselines.ppo.plot RUN_DIR OUT.png``.

The figure has two panels: the periodic evaluation's win rate against each scripted agent
with its Wilson 95% interval (``eval.csv``), and the training-time win rate of the learner's
games against each kind of opponent, smoothed (``progress.csv``), both over learner steps, with
training minutes on the top axis: wall clock (``--clock wall``) or CPU minutes of the training
process, all its threads (``--clock cpu``, the measure that does not depend on what else
ran on the machine). ``--marks 20 120`` draws vertical lines at those minutes (e.g. 10 and 60
minutes on 2 cores). The PNG is written atomically.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_rl.envs.core.files import atomic_write_bytes
from tabletop_rl.envs.errors import ConfigError

from ..arguments import CommandParser, fail


def _read(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


CLOCKS = {"wall": ("time", "training minutes (wall clock)"), "cpu": ("cpu_time", "CPU minutes")}


def _steps_label(x: float, _pos: int | None = None) -> str:
    """A step count as a short tick label.

    >>> _steps_label(150_000), _steps_label(2_500_000), _steps_label(0)
    ('150k', '2.5M', '0')
    """
    if abs(x) >= 1e6:
        return f"{x / 1e6:g}M"
    if abs(x) >= 1e3:
        return f"{x / 1e3:g}k"
    return f"{x:g}"


def plot_run(
    run_dir: str | Path,
    out: str | Path,
    title: str | None = None,
    clock: str = "wall",
    marks: tuple[float, ...] = (),
) -> list[str]:
    """Write the learning curves of ``run_dir`` to the PNG ``out``.

    Returns what the figure could not show yet (a panel without data says so in the panel
    instead of staying empty): ``"no evaluation yet"``, ``"no update logged yet"``.
    """
    if clock not in CLOCKS:
        raise ValueError(f"clock={clock!r}; allowed: {', '.join(CLOCKS)}")
    if not (Path(run_dir) / "progress.csv").exists():
        raise ConfigError(
            f"{str(run_dir)!r} holds no progress.csv; give a training run folder "
            "(the run_dir where `tabletop-rl train` writes its logs)"
        )
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    run_dir = Path(run_dir)
    progress = _read(run_dir / "progress.csv")
    evals = _read(run_dir / "eval.csv")
    column, clock_label = CLOCKS[clock]
    minutes = {int(r["global_step"]): float(r[column]) / 60 for r in progress}

    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    ax = axes[0]
    by_opp: dict[str, list[tuple[int, float, float, float]]] = defaultdict(list)
    for r in evals:
        by_opp[r["opponent"]].append(
            (int(r["global_step"]), float(r["win_rate"]), float(r["ci_low"]), float(r["ci_high"]))
        )
    for opp, rows in sorted(by_opp.items()):
        steps, rate, lo, hi = (np.array(x) for x in zip(*rows, strict=True))
        games = evals[0]["games"] if evals else "?"
        ax.plot(steps, rate, marker="o", label=f"vs {opp} ({games} games, Wilson 95% CI)")
        ax.fill_between(steps, lo, hi, alpha=0.25)
    ax.set_ylim(0, 1.02)
    ax.axhline(0.95, color="grey", lw=0.8, ls="--")
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("learner steps")
    ax.xaxis.set_major_formatter(FuncFormatter(_steps_label))
    ax.set_ylabel("win rate (draws half)")
    ax.set_title("periodic evaluation (greedy policy)")
    missing: list[str] = []
    if by_opp:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=8)
    else:
        missing.append("no evaluation yet")
        ax.set_xlim(0, max(minutes, default=1))  # the steps trained so far
        _say(
            ax, "no evaluation yet\n(one runs every eval_every updates\nand at the end of the run)"
        )
    if minutes and np.all(np.diff(list(minutes.values())) > 0):
        top = ax.secondary_xaxis(
            "top",
            functions=(
                lambda s: np.interp(s, list(minutes), list(minutes.values())),
                lambda m: np.interp(m, list(minutes.values()), list(minutes)),
            ),
        )
        top.set_xlabel(clock_label)
        last = max(minutes.values())
        ticks = MaxNLocator(nbins=7).tick_values(0, last)
        top.set_xticks(ticks[(ticks >= 0) & (ticks <= last)])
        for mark in marks:
            step = np.interp(mark, list(minutes.values()), list(minutes))
            if mark <= max(minutes.values()):
                ax.axvline(step, color="black", lw=0.8, ls="--")
                ax.annotate(f"{mark:g} min", (step, 0.02), fontsize=8, rotation=90)

    ax = axes[1]
    series: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for r in progress:
        for part in (r.get("win_rate") or "").split(";"):
            if "=" in part:
                name, rest = part.split("=", 1)
                series[name].append((int(r["global_step"]), float(rest.split("/")[0])))
    for name, rows in sorted(series.items()):
        if name == "self":
            continue
        steps, rate = (np.array(x) for x in zip(*rows, strict=True))
        k = max(1, len(rate) // 30)
        smooth = np.convolve(rate, np.ones(k) / k, mode="valid")
        ax.plot(steps[k - 1 :], smooth, label=f"vs {name}")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("learner steps")
    ax.xaxis.set_major_formatter(FuncFormatter(_steps_label))
    ax.set_ylabel("win rate in training games (smoothed)")
    ax.set_title("training games by opponent")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, fontsize=8)
    else:
        missing.append("no update logged yet")
        _say(ax, "no update logged yet\n(progress.csv gets a row per update)")
    fig.suptitle(title or run_dir.name)
    fig.tight_layout()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    atomic_write_bytes(Path(out), buf.getvalue())
    return missing


def _say(ax: Any, text: str) -> None:
    """A message in the middle of an empty panel."""
    ax.text(
        0.5,
        0.5,
        text,
        transform=ax.transAxes,
        ha="center",
        va="center",
        color="dimgrey",
        bbox={"facecolor": "white", "edgecolor": "none"},
    )


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(
        prog="python -m tabletop_rl.baselines.ppo.plot", description=__doc__.split("\n")[0]
    )
    parser.add_argument("run_dir", help="training run folder (holding progress.csv)")
    parser.add_argument("out", help="the PNG to write")
    parser.add_argument("--title", default=None, help="figure title (default: the folder name)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="top axis")
    parser.add_argument(
        "--marks", type=float, nargs="*", default=[], help="vertical lines at these minutes"
    )
    args = parser.parse_args(argv)
    try:
        missing = plot_run(args.run_dir, args.out, args.title, args.clock, tuple(args.marks))
    except ConfigError as exc:
        fail(parser.prog, str(exc))
    for what in missing:
        print(f"{args.out}: {what}")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
