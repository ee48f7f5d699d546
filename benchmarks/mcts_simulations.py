"""MCTS search speed: simulations per CPU-second at fixed positions, per game and engine.

Each game is played greedily for six steps from fixed seeds; from there the ``mcts`` agent of
the given spec chooses every move, and the simulations of its searches are divided by their
CPU time (steps that follow a whole turn already searched run no search and are not
counted). The same script runs on any checkout of the project (``--engine`` is passed only
when given), so two versions can be compared on one machine.

    python benchmarks/mcts_simulations.py --spec mcts:simulations=100 --engine compiled
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from tabletop_rl.baselines.arena import make_env, resolve_agent
from tabletop_rl.baselines.simulator import select_action

GAMES = ("liniell_v0", "qwirkle_v0", "qwirkle_cards_v0")


def measure(name: str, spec: str, engine: str | None, positions: int) -> dict[str, float]:
    kwargs = {"engine": engine} if engine else {}
    env = make_env(name, num_players=2, **kwargs)
    greedy = resolve_agent("greedy", name, np.random.default_rng(1))
    searcher = resolve_agent(spec, name, np.random.default_rng(0))
    sims = 0
    cpu = 0.0
    seed = 0
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
    rate = sims / cpu
    return {"positions": searched, "simulations": sims, "cpu_s": cpu, "sims_per_cpu_s": rate}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", default="mcts:simulations=100", help="agent spec searched")
    parser.add_argument("--engine", default=None, help="engine option of the envs (if any)")
    parser.add_argument("--positions", type=int, default=20, help="searched positions per game")
    parser.add_argument("--envs", nargs="*", default=list(GAMES))
    args = parser.parse_args(argv)
    out = {}
    for name in args.envs:
        out[name] = measure(name, args.spec, args.engine, args.positions)
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
