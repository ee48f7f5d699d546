"""Behaviour cloning: ``tabletop-rl clone CONFIG.yaml --teacher heuristic [--key value ...]``.

Trains the config's network to copy a scripted teacher, and writes a checkpoint that PPO
starts from with ``tabletop-rl train CONFIG.yaml --init_from RUN_DIR``. It is a training run
(same config, logs, checkpoints, ``--resume``, budgets and evaluations) with these settings
fixed: the teacher plays every learner decision (``teacher_plays: 1``), the loss is the
cross-entropy on the teacher's action (``teacher_coef``, kept constant) plus the value loss
on the returns of the teacher's games (so the critic PPO starts from already knows the
teacher's games); no policy gradient, no entropy bonus. The run folder is ``--run_dir`` if given,
else the config's ``run_dir`` followed by ``_clone``.

>>> from tabletop_rl.baselines.ppo.config import config_from_dict
>>> cfg = clone_settings(config_from_dict({"teacher": "greedy", "run_dir": "runs/x"}))
>>> cfg["teacher_plays"], cfg["pg_coef"], cfg["run_dir"]
(1.0, 0.0, 'runs/x_clone')
>>> clone_settings(config_from_dict({}))
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ConfigError: clone needs a teacher: --teacher NAME (a scripted agent ...
"""

from __future__ import annotations

import sys
from typing import Any

from tabletop_rl.envs.errors import ConfigError

from ..agents import agent_names
from .config import PPOConfig
from .train import main as train_main

CLONE_SUFFIX = "_clone"


def clone_settings(cfg: PPOConfig, own_run_dir: bool = False) -> dict[str, Any]:
    """The settings ``clone`` fixes over the config ``cfg`` (see the module docstring);
    ``own_run_dir``: the user chose the run folder, keep it."""
    if not cfg.teacher:
        raise ConfigError(
            "clone needs a teacher: --teacher NAME (a scripted agent of "
            f"{cfg.env}: {', '.join(agent_names(cfg.env))}; or mcts)"
        )
    keep = own_run_dir or cfg.run_dir.endswith(CLONE_SUFFIX)
    run_dir = cfg.run_dir if keep else cfg.run_dir + CLONE_SUFFIX
    return {
        "teacher_plays": 1.0,
        "pg_coef": 0.0,
        "ent_coef": 0.0,
        "teacher_decay_steps": 0,
        "run_dir": run_dir,
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    own_run_dir = any(a == "--run_dir" or a.startswith("--run_dir=") for a in argv)
    return train_main(
        argv,
        command="clone",
        preset=lambda cfg: clone_settings(cfg, own_run_dir),
        intro="Behaviour cloning: train the config's network to copy a scripted teacher "
        "(--teacher NAME); start PPO from it with `tabletop-rl train CONFIG --init_from RUN_DIR`.",
    )


if __name__ == "__main__":
    sys.exit(main())
