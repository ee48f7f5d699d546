"""CPU time of a search agent's decisions: one game against greedy, seat 0 searching.

    python benchmarks/mcts_decision_cpu.py liniell_v0 mcts 2
    python benchmarks/mcts_decision_cpu.py qwirkle_v0 mcts 2 --features

``--features`` plays in the environment with observation features on, as training does
(a search must simulate the rules alone, without computing the features at every step).
Prints how many decisions were searched (plan-following steps of a whole-turn plan cost no
search and are not counted) and the mean and largest CPU seconds of one searched decision.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tabletop_rl.baselines.arena import resolve_agent
from tabletop_rl.envs import make
from tabletop_rl.envs.core.simulator import select_action


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("env", help="environment name, e.g. qwirkle_v0")
    parser.add_argument("agent", help="agent spec of seat 0, e.g. mcts or mcts:simulations=50")
    parser.add_argument("seed", type=int, help="seed of the game")
    parser.add_argument(
        "--features", action="store_true", help="observation features on, as in training"
    )
    args = parser.parse_args(argv)
    env = make(args.env, raw=True, num_players=2, features=args.features)
    env.reset(seed=args.seed)
    searcher = resolve_agent(args.agent, args.env, np.random.default_rng(0))
    greedy = resolve_agent("greedy", args.env, np.random.default_rng(1))
    cpu: list[float] = []
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        agent = searcher if env.agent_selection == "player_0" else greedy
        start = time.process_time()
        action = select_action(agent, env, env_name=args.env)
        if agent is searcher and searcher.last_iterations:
            cpu.append(time.process_time() - start)
        searcher.last_iterations = 0
        env.step(action)
    print(
        f"{args.env} {args.agent}: {len(cpu)} searched decisions, CPU mean "
        f"{np.mean(cpu):.3f} s, max {max(cpu):.3f} s; final scores {env.final_scores()}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
