"""Train a masked PPO policy by self-play: ``tabletop-rl train CONFIG.yaml [--key value ...]``.

``main(["configs/liniell_ppo.yaml", "--total_steps", "100000", "--resume"])``: the first
argument is a YAML config (see :mod:`.config`; ``--help`` lists every key), the rest override
its keys; ``--resume`` continues the run in ``run_dir`` from its last checkpoint.

Each update collects ``rollout_steps`` decision rounds over ``num_envs`` games (stepped by
``num_workers`` subprocesses), runs the PPO update on the learner's finalised transitions,
then logs to TensorBoard (``run_dir/tb``) and CSV (``run_dir/progress.csv``; evaluations in
``run_dir/eval.csv``), adds pool snapshots, evaluates and checkpoints on schedule.

Resuming
--------
A checkpoint is written at an update boundary and holds everything the run's future depends
on: network, optimizer, the torch generator (action sampling, minibatch order), the numpy
generator (game seeds, opponent draws), the opponent pool, and every running game as its
setup plus the network's actions so far (replayed on resume) with the learner's pending
transitions. Games are seeded individually and all network decisions are taken in the
training process, so neither the number of workers nor process scheduling changes the
results: a run killed and resumed from its checkpoint continues exactly as the uninterrupted
run (same parameters), given the same torch build and thread count. What remains
nondeterministic: wall-clock timings (steps per second) and, if ``torch_threads`` differs
between runs, floating-point summation order; periodic evaluations use their own seeds and do
not disturb training. TensorBoard events after the checkpoint are appended again on resume
(the CSV logs are truncated to the checkpoint's update).

Time budgets
------------
``max_minutes`` (wall clock) and ``max_cpu_minutes`` (CPU time of the training process and
its rollout workers) end a run early, after the update that reaches them, with a final
evaluation and checkpoint. Evaluations are not counted: the ``time`` and ``cpu_time`` columns
of ``progress.csv`` are training time, ``eval_time`` the wall time spent evaluating. Both
budgets may change on ``--resume``: ``--max_minutes 10`` and then ``--resume --max_minutes
60`` give the 10-minute and the 60-minute policy of one run. So may ``num_workers`` and the
checkpoint and evaluation schedule (``checkpoint_every``, ``eval_every``, ``eval_games``), which
do not change the trained parameters: a long continuation can evaluate less often.
"""

from __future__ import annotations

import csv
import math
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tabletop_rl.envs.errors import ConfigError

from ..agents import agent_names
from .checkpoint import CHECKPOINT_NAME, load_checkpoint, make_network, save_checkpoint
from .config import (
    PPOConfig,
    apply_overrides,
    config_from_dict,
    config_to_dict,
    help_text,
    load_config,
    save_config,
)
from .evaluate import agent_available, evaluate_against, format_results
from .ppo import ppo_update
from .rollout import VecGames
from .selfplay import RolloutStats, SelfPlayCollector

USAGE = "usage: tabletop-rl train CONFIG.yaml [--resume] [--key value ...]"

PROGRESS_FIELDS = [
    "update",
    "global_step",
    "time",
    "cpu_time",
    "eval_time",
    "lr",
    "episodic_return",
    "episode_length",
    "games",
    "policy_loss",
    "value_loss",
    "entropy",
    "old_approx_kl",
    "approx_kl",
    "clipfrac",
    "explained_variance",
    "decisions_per_s",
    "agent_steps_per_s",
    "env_time_s",
    "network_time_s",
    "update_time_s",
    "win_rate",
]
RESUME_MAY_CHANGE = (
    "total_steps",
    "max_minutes",
    "max_cpu_minutes",
    "progress_bar",
    "run_dir",
    "num_workers",
    "checkpoint_every",
    "eval_every",
    "eval_games",
)
"""Config keys that may differ from the checkpoint's when resuming: the budgets, where the run
lives, and what does not change the trained parameters (worker count, checkpoint and
evaluation schedule; evaluations have seeds of their own)."""
EVAL_FIELDS = ["update", "global_step", "opponent", "games", "win_rate", "ci_low", "ci_high"]


def _seed(cfg: PPOConfig, stream: int) -> int:
    return int(np.random.SeedSequence([cfg.seed, stream]).generate_state(1)[0])


class _CsvLog:
    """A CSV file of dict rows; on resume, rows after the checkpoint's update are dropped."""

    def __init__(self, path: Path, fields: list[str], keep_until: int | None) -> None:
        self.path, self.fields = path, fields
        rows = []
        if keep_until is not None and path.exists():
            with open(path, newline="") as f:
                rows = [r for r in csv.DictReader(f) if int(r["update"]) <= keep_until]
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)

    def write(self, row: dict[str, Any]) -> None:
        with open(self.path, "a", newline="") as f:
            csv.DictWriter(f, fieldnames=self.fields, extrasaction="ignore").writerow(row)


def _check_opponents(cfg: PPOConfig) -> None:
    scripted = set(cfg.opponents) - {"self", "pool"}
    available = agent_names(cfg.env)
    missing = sorted(name for name in scripted if not agent_available(name, cfg.env))
    if missing:
        raise ConfigError(
            f"config key 'opponents' names {missing}, not agents of {cfg.env}; "
            f"allowed: 'self', 'pool', {', '.join(repr(a) for a in available)}"
        )


def _rollout_log(stats: RolloutStats, elapsed: float) -> dict[str, Any]:
    row: dict[str, Any] = {
        "decisions_per_s": stats.decisions / max(elapsed, 1e-9),
        "agent_steps_per_s": stats.agent_steps / max(elapsed, 1e-9),
        "env_time_s": stats.env_time,
        "network_time_s": stats.net_time,
        "games": len(stats.games),
    }
    if stats.games:
        row["episodic_return"] = float(np.mean([g[2] for g in stats.games]))
        row["episode_length"] = float(np.mean([g[3] for g in stats.games]))
    return row


def train(
    cfg: PPOConfig, resume: bool = False, on_update: Callable[[int], None] | None = None
) -> dict[str, Any]:
    """Run (or resume) training as configured; the last update's log row.

    ``on_update(update)`` is called after every update (and its checkpoint, if any).
    """
    _check_opponents(cfg)
    run_dir = Path(cfg.run_dir)
    ckpt_file = run_dir / CHECKPOINT_NAME
    state: dict[str, Any] | None = None
    if resume:
        if not ckpt_file.exists():
            raise ConfigError(f"--resume: no checkpoint in {str(run_dir)!r}")
        state = load_checkpoint(ckpt_file)
        saved = config_from_dict(state["config"])
        changed = [
            k
            for k, v in config_to_dict(cfg).items()
            if k not in RESUME_MAY_CHANGE and config_to_dict(saved)[k] != v
        ]
        if changed:
            raise ConfigError(
                f"--resume with a config that differs from the run's in {changed}; "
                f"only {', '.join(RESUME_MAY_CHANGE)} may change"
            )
    elif ckpt_file.exists():
        raise ConfigError(
            f"{str(run_dir)!r} already holds a run; pass --resume to continue it "
            "or choose another run_dir"
        )
    run_dir.mkdir(parents=True, exist_ok=True)
    save_config(cfg, run_dir / "config.yaml")

    torch.set_num_threads(cfg.torch_threads)
    net = make_network(cfg)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5)
    gen = torch.Generator().manual_seed(_seed(cfg, 2))
    update, global_step = 0, 0
    # Training time (wall and CPU) excludes periodic evaluations; carried over on resume.
    cpu_before = time_before = eval_before = 0.0

    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    vec = VecGames(cfg.env, cfg.env_kwargs, cfg.num_envs, cfg.num_workers)
    collector = SelfPlayCollector(cfg, vec, net, gen, lambda: make_network(cfg))
    if state is not None:
        net.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        gen.set_state(state["torch_rng"])
        update, global_step = int(state["update"]), int(state["global_step"])
        cpu_before = float(state.get("cpu_time", 0.0))
        time_before = float(state.get("time", 0.0))
        eval_before = float(state.get("eval_time", 0.0))
        collector.load_state_dict(state["collector"])
    keep = update if state is not None else None
    progress = _CsvLog(run_dir / "progress.csv", PROGRESS_FIELDS, keep)
    eval_log = _CsvLog(run_dir / "eval.csv", EVAL_FIELDS, keep)
    writer = SummaryWriter(str(run_dir / "tb"), purge_step=global_step if state else None)
    bar = tqdm(
        total=cfg.total_steps,
        initial=min(global_step, cfg.total_steps),
        disable=not cfg.progress_bar,
        unit="step",
        dynamic_ncols=True,
    )
    start = time.perf_counter()
    cpu_start = vec.cpu_time()
    eval_wall = eval_cpu = 0.0  # spent on evaluations since this process started

    def train_time() -> float:
        return time_before + time.perf_counter() - start - eval_wall

    def train_cpu() -> float:
        return cpu_before + vec.cpu_time() - cpu_start - eval_cpu

    def budget_spent() -> bool:
        return (0 < cfg.max_minutes * 60 <= train_time()) or (
            0 < cfg.max_cpu_minutes * 60 <= train_cpu()
        )

    row: dict[str, Any] = {}
    spent_already = state is not None and budget_spent()
    if spent_already:
        tqdm.write(f"the run has already used its time budget at update {update}; nothing to do")
    try:
        while global_step < cfg.total_steps and not spent_already:
            lr = cfg.lr * (1.0 - global_step / cfg.total_steps) if cfg.anneal_lr else cfg.lr
            for group in optimizer.param_groups:
                group["lr"] = lr

            t0 = time.perf_counter()
            batch, stats = collector.collect(cfg.rollout_steps)
            t1 = time.perf_counter()
            if len(batch) == 0:
                continue
            losses = ppo_update(net, optimizer, batch, cfg, gen)
            t2 = time.perf_counter()
            update += 1
            global_step += len(batch)
            if update % cfg.snapshot_every == 0:
                collector.add_snapshot()

            row = {
                "update": update,
                "global_step": global_step,
                "time": train_time(),
                "cpu_time": train_cpu(),
                "eval_time": eval_before + eval_wall,
                "lr": lr,
                **losses,
                **_rollout_log(stats, t1 - t0),
                "update_time_s": t2 - t1,
            }
            by_opponent: dict[str, list[float]] = defaultdict(list)
            for key, credit, _ret, _len in stats.games:
                by_opponent[key].append(credit)
            for key, credits in sorted(by_opponent.items()):
                writer.add_scalar(f"win_rate/{key}", float(np.mean(credits)), global_step)
                row[f"win_rate_{key}"] = float(np.mean(credits))
            row["win_rate"] = ";".join(
                f"{k}={np.mean(v):.3f}/{len(v)}" for k, v in sorted(by_opponent.items())
            )
            for key, value in row.items():
                numeric = isinstance(value, int | float) and key not in ("update", "global_step")
                if numeric and math.isfinite(value):
                    writer.add_scalar(f"train/{key}", value, global_step)
            progress.write(row)
            bar.update(len(batch))
            bar.set_postfix(upd=update, kl=f"{losses['approx_kl']:.3f}", wr=row["win_rate"][:40])

            last = global_step >= cfg.total_steps or budget_spent()
            if (cfg.eval_every and update % cfg.eval_every == 0) or last:
                eval_start, eval_cpu_start = time.perf_counter(), time.process_time()
                results = evaluate_against(
                    net,
                    cfg.env,
                    cfg.env_kwargs,
                    cfg.eval_opponents,
                    cfg.eval_games,
                    seed=_seed(cfg, 1000 + update),
                    deterministic=cfg.eval_deterministic,
                    num_workers=cfg.num_workers,
                )
                for r in results:
                    writer.add_scalar(f"eval/win_rate_{r.opponent}", r.win_rate, global_step)
                    eval_log.write(
                        {
                            "update": update,
                            "global_step": global_step,
                            "opponent": r.opponent,
                            "games": r.games,
                            "win_rate": r.win_rate,
                            "ci_low": r.ci_low,
                            "ci_high": r.ci_high,
                        }
                    )
                    row[f"eval_{r.opponent}"] = r.win_rate
                eval_wall += time.perf_counter() - eval_start
                eval_cpu += time.process_time() - eval_cpu_start
                if results:
                    tqdm.write(f"update {update}, step {global_step}:\n{format_results(results)}")
            if update % cfg.checkpoint_every == 0 or last:
                save_checkpoint(
                    {
                        "config": config_to_dict(cfg),
                        "model": net.state_dict(),
                        "optimizer": optimizer.state_dict(),
                        "torch_rng": gen.get_state(),
                        "update": update,
                        "global_step": global_step,
                        "time": row["time"],
                        "cpu_time": row["cpu_time"],
                        "eval_time": eval_before + eval_wall,
                        "collector": collector.state_dict(),
                    },
                    ckpt_file,
                )
            if on_update is not None:
                on_update(update)
            if last:
                break
    finally:
        bar.close()
        writer.close()
        vec.close()
    return row


def parse_args(argv: list[str]) -> tuple[PPOConfig, bool] | None:
    """The config and the resume flag from ``argv``; None when help was asked for."""
    if not argv or argv[0] in ("-h", "--help"):
        return None
    path, rest = argv[0], list(argv[1:])
    if path.startswith("--"):
        raise ConfigError(f"the first argument must be a config file; {USAGE}")
    if "-h" in rest or "--help" in rest:
        return None
    resume = "--resume" in rest
    rest = [a for a in rest if a != "--resume"]
    return apply_overrides(load_config(path), rest), resume


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parsed = parse_args(argv)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if parsed is None:
        print(f"{USAGE}\n\n{__doc__.split(chr(10))[0]}\n\nconfig keys:\n{help_text()}")
        return 0
    cfg, resume = parsed
    try:
        train(cfg, resume=resume)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
