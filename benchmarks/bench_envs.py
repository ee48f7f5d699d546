"""Environment throughput: masked random play through ``env()``, side by side with PettingZoo.

Every environment is stepped the way a learner sees it: after each step the acting agent's
observation and action mask are built, and a uniformly random legal action is taken. The
figures are agent-steps per second and full games per second; the suite's environments are
reported as ratios to ``connect_four_v3`` measured in the same run (in interleaved slices of
wall time, so that a change in machine load hits every environment alike), so the ratio does not
depend on the machine.

    python benchmarks/bench_envs.py                 # all registered envs, 10 s each
    python benchmarks/bench_envs.py --seconds 3 --envs liniell_v0 --check

``--check`` exits with status 1 when an environment misses its target ratio.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_rl.envs import available_envs, make
from tabletop_rl.envs.core.files import atomic_write_text

# Target: agent-steps per second as a multiple of connect_four_v3's in the same run.
TARGETS = {"qwirkle_v0": 1.8, "liniell_v0": 1.8, "qwirkle_cards_v0": 1.5}
REFERENCE = "connect_four_v3"


def pettingzoo_factory(name: str) -> Callable[[], Any]:
    if name == "connect_four_v3":
        from pettingzoo.classic import connect_four_v3

        return connect_four_v3.env
    if name == "chess_v6":
        from pettingzoo.classic import chess_v6

        return chess_v6.env
    raise ValueError(f"unknown PettingZoo reference {name!r}; allowed: connect_four_v3, chess_v6")


class Runner:
    """Masked random play on one environment, resumable in slices of wall time."""

    def __init__(self, env_fn: Callable[[], Any], seed: int) -> None:
        self.env = env_fn()
        self.rng = np.random.default_rng(seed)
        self.game_seed = seed
        self.steps = self.games = 0
        self.elapsed = 0.0
        # one untimed game first: compiled engines load (or compile) their code on first use,
        # which is start-up time (reported by bench_batched.py), not stepping speed
        self.run(0.0)
        self.steps = self.games = 0
        self.elapsed = 0.0

    def run(self, seconds: float) -> None:
        env, rng = self.env, self.rng
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            env.reset(seed=self.game_seed)
            self.game_seed += 1
            for _agent in env.agent_iter():
                obs, _reward, terminated, truncated, _info = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
                self.steps += 1
            self.games += 1
            if time.perf_counter() >= deadline:
                break
        self.elapsed += time.perf_counter() - start

    def figures(self) -> dict[str, float]:
        return {
            "steps_per_s": self.steps / self.elapsed,
            "games_per_s": self.games / self.elapsed,
            "steps": self.steps,
            "games": self.games,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="wall time per environment")
    parser.add_argument("--envs", nargs="*", default=None, help="suite envs (default: all)")
    parser.add_argument("--rounds", type=int, default=10, help="interleaved slices per env")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    names = args.envs if args.envs else available_envs()
    unknown = sorted(set(names) - set(available_envs()))
    if unknown:
        parser.error(f"unknown env(s) {unknown}; available: {available_envs()}")

    runners = {ref: Runner(pettingzoo_factory(ref), args.seed) for ref in (REFERENCE, "chess_v6")}
    for name in names:
        runners[name] = Runner(lambda n=name: make(n), args.seed)
    # Interleave short slices so that a change in machine load hits every environment alike.
    for _ in range(args.rounds):
        for runner in runners.values():
            runner.run(args.seconds / args.rounds)
    results = {name: runner.figures() for name, runner in runners.items()}
    ref_steps = results[REFERENCE]["steps_per_s"]
    print(
        f"{'environment':<18} {'steps/s':>10} {'games/s':>9} {'x connect_four':>15} {'target':>7}"
    )
    failed = []
    for name, r in results.items():
        ratio = r["steps_per_s"] / ref_steps
        r["ratio_to_connect_four"] = ratio
        target = TARGETS.get(name)
        mark = f"{target:.1f}x" if target is not None else ""
        if target is not None and ratio < target:
            failed.append(name)
            mark += " MISS"
        sps, gps = r["steps_per_s"], r["games_per_s"]
        print(f"{name:<18} {sps:>10.0f} {gps:>9.2f} {ratio:>14.2f}x {mark:>7}")
    if args.json:
        atomic_write_text(args.json, json.dumps(results, indent=2))
    if args.check and failed:
        print(f"missed targets: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
