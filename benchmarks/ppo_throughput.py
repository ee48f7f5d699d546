"""Training throughput of PPO runs, from their ``progress.csv``.

    python benchmarks/ppo_throughput.py runs/liniell_ppo runs/qwirkle_cards_ppo ...

For each run: learner steps (decisions trained on) per CPU-second of the training process and
its rollout workers, per wall-second of training, and agent steps (every seat's moves,
scripted opponents included) per wall-second; and how an update's wall time splits between
stepping the games (environments and scripted opponents, in the workers), the network's
rollout decisions, and the PPO update (medians over updates). CPU-seconds are the measure
that does not depend on what else ran on the machine; on a dedicated machine with
``num_workers`` = cores the wall figures apply.
"""

from __future__ import annotations

import argparse
import csv
import statistics
from pathlib import Path


def summarise(run_dir: Path) -> dict[str, float]:
    """Throughput figures of one run (see the module docstring)."""
    path = run_dir / "progress.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist; expected a training run directory")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError(f"{path} holds no updates yet")
    last = rows[-1]
    steps = float(last["global_step"])

    def median(key: str) -> float:
        return statistics.median(float(r[key]) for r in rows)

    env, net, upd = median("env_time_s"), median("network_time_s"), median("update_time_s")
    total = env + net + upd
    return {
        "updates": float(last["update"]),
        "learner_steps": steps,
        "cpu_minutes": float(last["cpu_time"]) / 60,
        "steps_per_cpu_s": steps / float(last["cpu_time"]),
        "steps_per_wall_s": steps / float(last["time"]),
        "agent_steps_per_wall_s": median("agent_steps_per_s"),
        "agent_steps_per_learner_step": statistics.median(
            float(r["agent_steps_per_s"]) / float(r["decisions_per_s"]) for r in rows
        ),
        "env_share": env / total,
        "network_share": net / total,
        "update_share": upd / total,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", help="training run directories")
    args = parser.parse_args(argv)
    print(
        "| run | learner steps | CPU-min | steps / CPU-s | steps / wall-s "
        "| agent steps / learner step | games (env + opponents) | network (rollout) | PPO update |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for run in args.runs:
        s = summarise(Path(run))
        print(
            f"| {Path(run).name} | {s['learner_steps']:,.0f} | {s['cpu_minutes']:.1f} "
            f"| {s['steps_per_cpu_s']:.0f} | {s['steps_per_wall_s']:.0f} "
            f"| {s['agent_steps_per_learner_step']:.2f} "
            f"| {s['env_share']:.0%} | {s['network_share']:.0%} | {s['update_share']:.0%} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
