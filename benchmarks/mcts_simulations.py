"""MCTS search speed: simulations per CPU-second at fixed positions, per game and engine.

Each game is played greedily for six steps from fixed seeds; from there the ``mcts`` agent of
the given spec chooses every move, and the simulations of its searches are divided by their
CPU time (steps that follow a whole turn already searched run no search and are not
counted). The searches of ``--warm-up`` positions (from other seeds) run first and are not
counted: a process's first calls load the compiled kernels from numba's cache (or compile
them), a one-time cost as large as many Liniell searches. The same script runs on any
checkout of the project (``--engine`` is passed only when given), so two versions can be
compared on one machine.

    python benchmarks/mcts_simulations.py --spec mcts:simulations=100 --engine compiled
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from tabletop_rl.baselines.arena import resolve_agent
from tabletop_rl.envs import make
from tabletop_rl.envs.core.simulator import select_action

GAMES = ("liniell_v0", "qwirkle_v0", "qwirkle_cards_v0")


def measure(
    name: str, spec: str, engine: str | None, positions: int, warm_up: int = 0
) -> dict[str, float]:
    """Simulations per CPU-second of ``spec``'s searches at ``positions`` positions of
    ``name``, after ``warm_up`` searched positions that are not counted."""
    kwargs = {"engine": engine} if engine else {}
    env = make(name, raw=True, num_players=2, **kwargs)
    greedy = resolve_agent("greedy", name, np.random.default_rng(1))
    searcher = resolve_agent(spec, name, np.random.default_rng(0))
    if warm_up:
        _search(env, name, greedy, searcher, warm_up, first_seed=10_000)
    sims, cpu, searched = _search(env, name, greedy, searcher, positions, first_seed=0)
    rate = sims / cpu
    return {"positions": searched, "simulations": sims, "cpu_s": cpu, "sims_per_cpu_s": rate}


def _search(
    env: Any, name: str, greedy: Any, searcher: Any, positions: int, first_seed: int
) -> tuple[int, float, int]:
    """Play games from ``first_seed`` on until ``positions`` searched decisions; their
    simulations, CPU seconds and number."""
    sims = 0
    cpu = 0.0
    seed = first_seed
    searched = 0
    while searched < positions:
        env.reset(seed=seed)
        seed += 1
        for _ in range(6):  # six greedy steps into the game, then a search at each step
            if any(env.terminations.values()) or any(env.truncations.values()):
                break
            env.step(select_action(greedy, env, env_name=name))
        while searched < positions and not any(env.terminations.values()):
            if any(env.truncations.values()):
                break
            searcher.last_iterations = 0
            start = time.process_time()
            action = select_action(searcher, env, env_name=name)
            spent = time.process_time() - start
            if searcher.last_iterations:  # a whole-turn plan's later steps search nothing
                cpu += spent
                sims += searcher.last_iterations
                searched += 1
            env.step(action)
    return sims, cpu, searched


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", default="mcts:simulations=100", help="agent spec searched")
    parser.add_argument("--engine", default=None, help="engine option of the envs (if any)")
    parser.add_argument("--positions", type=int, default=20, help="searched positions per game")
    parser.add_argument(
        "--warm-up", type=int, default=3, help="searched positions run first and not counted"
    )
    parser.add_argument("--envs", nargs="*", default=list(GAMES))
    args = parser.parse_args(argv)
    out = {}
    for name in args.envs:
        out[name] = measure(name, args.spec, args.engine, args.positions, args.warm_up)
        row = out[name]
        print(
            f"{name:18s} {row['positions']:4d} positions {row['simulations']:7d} simulations "
            f"{row['cpu_s']:8.2f} CPU-s  {row['sims_per_cpu_s']:8.1f} simulations/CPU-s",
            flush=True,
        )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
