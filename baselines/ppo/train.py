"""Train a masked PPO policy by self-play: ``tabletop-rl train CONFIG.yaml [--key value ...]``.

``main(["configs/liniell_ppo.yaml", "--total_steps", "100000", "--resume"])``: the first
argument is a YAML config (see :mod:`.config`; ``--help`` lists every key), the rest override
its keys; ``--resume`` continues the run in ``run_dir`` from its last checkpoint.

Each update collects ``rollout_steps`` decision rounds over ``num_envs`` games, runs the
PPO update on the learner's finalised transitions, then logs to TensorBoard (``run_dir/tb``)
and CSV (``run_dir/progress.csv``; evaluations in ``run_dir/eval.csv``), adds pool
snapshots, evaluates and checkpoints on schedule.

Every config collects on the batch in the training process (:mod:`.batched`): the compiled
batch of Liniell, Qwirkle and Qwirkle Cards, scripted opponents and teachers included, and a
game of one's own (``module:factory``) on its game model. A finished run prints where its
outputs are and how to use them.

Resuming
--------
A checkpoint is written at an update boundary and holds everything the run's future depends
on: network, optimizer, the torch generator (action sampling, minibatch order), the numpy
generator (game seeds, opponent draws), the opponent pool, every running game (the compiled
games' state itself; for a game stepped on its game model, or one with Python agents, its
actions since its deal, replayed on resume) and the learner's pending transitions. Games are
seeded individually and all decisions are taken in the training process, so process
scheduling does not change the results: a run killed and resumed from its checkpoint
continues exactly as the uninterrupted run (same parameters), given the same torch build and
thread count. What remains nondeterministic: wall-clock timings (steps per
second) and, if ``torch_threads`` differs between runs, floating-point summation order;
periodic evaluations use their own seeds and do not disturb training. TensorBoard events
after the checkpoint are appended again on resume (the CSV logs are truncated to the
checkpoint's update).

Time budgets
------------
``max_minutes`` (wall clock) and ``max_cpu_minutes`` (CPU time of the training process) end
a run early, with a final evaluation and checkpoint, within seconds (they are checked at
every collection round and minibatch step), the update in progress dropped, so the run ends
at its last update boundary. Evaluations are not counted: the ``time`` and ``cpu_time`` columns
of ``progress.csv`` are training time, ``eval_time`` the wall time spent evaluating. Both
budgets may change on ``--resume``: ``--max_minutes 10`` and then ``--resume --max_minutes
60`` give the 10-minute and the 60-minute policy of one run. So may ``num_workers`` (the
evaluation's worker processes) and the checkpoint and evaluation schedule (``checkpoint_every``,
``eval_every``, ``eval_games``), which
do not change the trained parameters: a long continuation can evaluate less often.
"""

from __future__ import annotations

import copy
import csv
import math
import shlex
import signal
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.registry import make

from ..agents import agent_names
from ..arena.agent_specs import check_agent_specs, observation_kwargs, parse_agent_spec
from .batched import BatchedCollector, is_batched_state
from .checkpoint import (
    CHECKPOINT_NAME,
    VERSION_KEY,
    check_observation_version,
    load_checkpoint,
    load_weights,
    make_network,
    save_checkpoint,
)
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
from .kickstart import teacher_weight
from .ppo import ppo_update
from .progress_bar import Budget, BudgetBar
from .selfplay import RolloutStats
from .stopping import BudgetSpent, StopRequest, TrainingStopped

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
    "grad_norm",
    "explained_variance",
    "teacher_coef",
    "teacher_loss",
    "teacher_agreement",
    "teacher_labelled",
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
    if cfg.teacher:
        teachers = [*available, "mcts", "value"]
        if parse_agent_spec(cfg.teacher)[0] not in teachers:
            raise ConfigError(
                f"config key 'teacher' names {cfg.teacher!r}, not a scripted agent of "
                f"{cfg.env}, mcts or value; allowed: {', '.join(repr(a) for a in teachers)}, "
                "with options after a colon (e.g. 'mcts:simulations=60', "
                "'value:FIELD=WEIGHT,...')"
            )
        needs = observation_kwargs([cfg.teacher], cfg.env)
        if any(cfg.env_kwargs.get(key) != value for key, value in needs.items()):
            wanted = ", ".join(f"{key}: {yaml.safe_dump(v).split()[0]}" for key, v in needs.items())
            raise ConfigError(
                f"config key 'teacher' is {cfg.teacher!r}, which reads observations the "
                f"environment makes only with {wanted}; set env_kwargs: {{{wanted}}}"
            )
        try:
            check_agent_specs([cfg.teacher], cfg.env)
        except ConfigError as exc:
            raise ConfigError(f"config key 'teacher': {exc}") from None


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


@dataclass
class TrainResult:
    """How :func:`train` ended: the last update's log row, and the signal that stopped the
    run early (``"SIGINT"``, ``"SIGTERM"``), if one did."""

    row: dict[str, Any]
    update: int
    global_step: int
    stopped_by: str | None = None


def train(
    cfg: PPOConfig, resume: bool = False, on_update: Callable[[int], None] | None = None
) -> TrainResult:
    """Run (or resume) training as configured.

    ``on_update(update)`` is called after every update (and its checkpoint, if any). SIGINT
    (Ctrl-C) and SIGTERM stop the run within seconds with a checkpoint of the last update
    boundary (see :mod:`.stopping`); the result then names the signal.
    """
    _check_opponents(cfg)
    run_dir = Path(cfg.run_dir)
    ckpt_file = run_dir / CHECKPOINT_NAME
    state: dict[str, Any] | None = None
    if resume:
        if not ckpt_file.exists():
            raise ConfigError(f"--resume: no checkpoint in {str(run_dir)!r}")
        state = load_checkpoint(ckpt_file)
        if not is_batched_state(state["collector"]):
            raise ConfigError(
                f"--resume: the checkpoint in {str(run_dir)!r} was collected on the slot path, "
                "which training no longer has; start a new run (its policy still evaluates "
                "and exports)"
            )
        saved = config_from_dict(state["config"])
        check_observation_version(state, saved, f"--resume: the checkpoint in {str(run_dir)!r}")
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
    with StopRequest() as stop:
        return _train(cfg, state, stop, on_update)


def _train(
    cfg: PPOConfig,
    state: dict[str, Any] | None,
    stop: StopRequest,
    on_update: Callable[[int], None] | None,
) -> TrainResult:
    run_dir = Path(cfg.run_dir)
    ckpt_file = run_dir / CHECKPOINT_NAME
    run_dir.mkdir(parents=True, exist_ok=True)
    save_config(cfg, run_dir / "config.yaml")

    torch.set_num_threads(cfg.torch_threads)
    env = make(cfg.env, raw=True, **cfg.env_kwargs)
    version = env.observation_version
    net = make_network(cfg, env)
    if cfg.init_from and state is None:
        load_weights(net, cfg.init_from, cfg)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5, fused=True)
    gen = torch.Generator().manual_seed(_seed(cfg, 2))
    update, global_step = 0, 0
    # Training time (wall and CPU) excludes periodic evaluations; carried over on resume.
    cpu_before = time_before = eval_before = 0.0

    from torch.utils.tensorboard import SummaryWriter

    collector = BatchedCollector(cfg, net, gen, lambda: make_network(cfg))
    cpu_time = time.process_time
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
    start = time.perf_counter()
    cpu_start = cpu_time()
    eval_wall = eval_cpu = 0.0  # spent on evaluations since this process started

    def train_time() -> float:
        return time_before + time.perf_counter() - start - eval_wall

    def train_cpu() -> float:
        return cpu_before + cpu_time() - cpu_start - eval_cpu

    def budget_spent() -> bool:
        return (0 < cfg.max_minutes * 60 <= train_time()) or (
            0 < cfg.max_cpu_minutes * 60 <= train_cpu()
        )

    def boundary(time_s: float, cpu_s: float) -> dict[str, Any]:
        """Everything the run's future depends on, now (a copy: training goes on)."""
        return copy.deepcopy(
            {
                "config": config_to_dict(cfg),
                VERSION_KEY: version,
                "model": net.state_dict(),
                "optimizer": optimizer.state_dict(),
                "torch_rng": gen.get_state(),
                "update": update,
                "global_step": global_step,
                "time": time_s,
                "cpu_time": cpu_s,
                "eval_time": eval_before + eval_wall,
                "collector": collector.state_dict(),
            }
        )

    budget = Budget.of(cfg)
    bar = BudgetBar(
        cfg.env.rsplit(":", 1)[-1],
        budget,
        cfg.progress_bar,
        budget.spent(global_step, time_before, cpu_before)[0],
    )
    row: dict[str, Any] = {}
    spent_already = state is not None and budget_spent()
    if spent_already:
        bar.write(f"the run has already used its time budget at update {update}; nothing to do")
    last_boundary = state if state is not None else boundary(0.0, 0.0)
    saved_update = update if state is not None else -1
    within = budget_spent  # checked inside collection and the update too

    evaluated = -1  # the update last evaluated

    def evaluate_now() -> None:
        nonlocal eval_wall, eval_cpu, evaluated
        evaluated = update
        eval_start, eval_cpu_start = time.perf_counter(), time.process_time()
        with stop.interruptible():
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
        last_boundary["eval_time"] = eval_before + eval_wall
        if results:
            bar.write(f"update {update}, step {global_step}:\n{format_results(results)}")

    try:
        while global_step < cfg.total_steps and not spent_already:
            lr = cfg.lr * (1.0 - global_step / cfg.total_steps) if cfg.anneal_lr else cfg.lr
            teacher_coef = teacher_weight(cfg, global_step)
            collector.teacher_active = teacher_coef > 0
            try:
                with stop.interruptible():
                    for group in optimizer.param_groups:
                        group["lr"] = lr
                    t0 = time.perf_counter()
                    batch, stats = collector.collect(cfg.rollout_steps, within)
                    t1 = time.perf_counter()
                    if len(batch) == 0:
                        continue
                    losses = ppo_update(net, optimizer, batch, cfg, gen, teacher_coef, within)
                    t2 = time.perf_counter()
            except BudgetSpent:  # drop the update in progress: end at the last boundary
                net.load_state_dict(last_boundary["model"])
                bar.write(f"time budget spent; the run ends at update {update}")
                if 0 < update != evaluated:
                    evaluate_now()  # the final evaluation
                save_checkpoint(last_boundary, ckpt_file)
                saved_update = update
                break
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
            win_rates = {key: float(np.mean(c)) for key, c in by_opponent.items()}
            for key, value in sorted(win_rates.items()):
                writer.add_scalar(f"win_rate/{key}", value, global_step)
                row[f"win_rate_{key}"] = value
            row["win_rate"] = ";".join(
                f"{k}={np.mean(v):.3f}/{len(v)}" for k, v in sorted(by_opponent.items())
            )
            for key, value in row.items():
                numeric = isinstance(value, int | float) and key not in ("update", "global_step")
                if numeric and math.isfinite(value):
                    writer.add_scalar(f"train/{key}", value, global_step)
            progress.write(row)
            bar.show(update, global_step, row["time"], row["cpu_time"], win_rates)
            last_boundary = boundary(row["time"], row["cpu_time"])

            last = global_step >= cfg.total_steps or budget_spent()
            if (cfg.eval_every and update % cfg.eval_every == 0) or last:
                evaluate_now()
            if update % cfg.checkpoint_every == 0 or last or stop.requested:
                save_checkpoint(last_boundary, ckpt_file)
                saved_update = update
            if on_update is not None:
                on_update(update)
            if last or stop.requested:
                break
    except TrainingStopped:
        pass
    finally:
        bar.close()
        writer.close()
    if stop.requested is not None and saved_update != int(last_boundary["update"]):
        save_checkpoint(last_boundary, ckpt_file)
    return TrainResult(
        row=row,
        update=int(last_boundary["update"]),
        global_step=int(last_boundary["global_step"]),
        stopped_by=stop.requested,
    )


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


def _help(argv: list[str], usage: str = USAGE, intro_text: str | None = None) -> str:
    """The help text; after a config file, with that config's values as the defaults."""
    intro = (
        f"{usage}\n\n{intro_text or __doc__.split(chr(10))[0]}\n\n--resume continues the run in "
        "run_dir from its last checkpoint. Ctrl-C (or SIGTERM) stops a run within seconds, writes "
        "a checkpoint and prints the command that resumes it.\n\n"
    )
    if argv and not argv[0].startswith("-"):
        try:
            cfg = load_config(argv[0])
        except ConfigError as exc:
            return f"{intro}({exc})\n\nconfig keys:\n{help_text()}"
        return f"{intro}config keys, with the values of {argv[0]}:\n{help_text(cfg, argv[0])}"
    return (
        f"{intro}config keys, with their built-in defaults (a config file sets its own: "
        f"`tabletop-rl train CONFIG.yaml --help` shows them):\n{help_text()}"
    )


def main(
    argv: list[str] | None = None,
    command: str = "train",
    preset: Callable[[PPOConfig], dict[str, Any]] | None = None,
    intro: str | None = None,
) -> int:
    """Command-line entry point; returns the exit status.

    ``command`` names the subcommand in messages; ``preset(config)`` gives the settings a
    subcommand fixes (``clone``), applied over the config file and the overrides."""
    argv = list(sys.argv[1:] if argv is None else argv)
    usage = USAGE.replace(" train ", f" {command} ")
    try:
        parsed = parse_args(argv)
        if parsed is not None and preset is not None:  # the command's settings, applied last
            cfg, resume = parsed
            parsed = config_from_dict({**config_to_dict(cfg), **preset(cfg)}), resume
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if parsed is None:
        print(_help(argv, usage, intro))
        return 0
    cfg, resume = parsed
    try:
        result = train(cfg, resume=resume)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if result.stopped_by is not None:
        again = shlex.join(["tabletop-rl", command, *[a for a in argv if a != "--resume"]])
        print(
            f"stopped by {result.stopped_by} at update {result.update}, step "
            f"{result.global_step:,}; checkpoint in {cfg.run_dir}; resume with: {again} --resume",
            file=sys.stderr,
        )
        return 128 + int(getattr(signal, result.stopped_by))
    print(finished_message(cfg, result), file=sys.stderr)
    return 0


def finished_message(cfg: PPOConfig, result: TrainResult) -> str:
    """Where a finished run's outputs are and how to use them."""
    run = Path(cfg.run_dir)
    env = cfg.env
    return "\n".join(
        [
            f"finished at update {result.update}, step {result.global_step:,}; outputs in {run}:",
            f"  checkpoint: {run / CHECKPOINT_NAME} (continue with --resume and a larger "
            "total_steps or budget)",
            f"  logs: {run / 'progress.csv'}, {run / 'eval.csv'}, TensorBoard {run / 'tb'}",
            f"  evaluate: tabletop-rl evaluate {run} --games 1000",
            f"  play it: tabletop-rl arena --env {env} --agents ppo:{run} greedy; "
            f"tabletop-rl play --env {env} --opponents ppo:{run}",
            f"  learning curve: python -m tabletop_rl.baselines.ppo.plot {run} curve.png",
            f"  export a small policy file: tabletop-rl export {run} policy.pt",
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
