"""Qwirkle's compiled engine against its reference engine and PettingZoo's connect four.

Four measurements in one run, in interleaved slices of wall time (a change in machine load
hits them alike), reported as agent-steps per second and as ratios to ``connect_four_v3``:

- ``connect_four_v3`` and ``qwirkle_v0`` (reference model) through PettingZoo ``env()``, as
  ``benchmarks/bench_envs.py`` steps them (masked random play, observation and mask read
  every step);
- ``qwirkle_v0`` over :class:`QwirkleCompiledModel` through the same ``env()`` adapter;
- :class:`QwirkleBatch` with ``--num-envs`` games on 1 and 2 threads: only the time inside
  ``reset()`` and ``step()`` counts (the random legal actions are drawn outside it); every
  step writes every game's observation and mask.

    python benchmarks/bench_qwirkle_compiled.py --seconds 20
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_envs import Runner, pettingzoo_factory

from tabletop_rl.envs import qwirkle_v0
from tabletop_rl.envs.core.aec import TabletopAECEnv, wrap
from tabletop_rl.envs.qwirkle.compiled import QwirkleCompiledModel
from tabletop_rl.envs.qwirkle.compiled_batch import QwirkleBatch


class compiled_raw_env(qwirkle_v0.raw_env):
    """``qwirkle_v0`` over the compiled model (the same adapter, the same options)."""

    def __init__(self, num_players: int = 2, reward: str = "win") -> None:
        model = QwirkleCompiledModel(num_players=num_players)
        self.window = model.window
        self.max_turns = model.max_turns
        TabletopAECEnv.__init__(self, model, reward=reward)


class BatchRunner:
    """Random legal play on a :class:`QwirkleBatch`, timing only ``reset`` and ``step``."""

    def __init__(self, num_envs: int, threads: int, seed: int) -> None:
        self.batch = QwirkleBatch(num_envs, 2, seed=seed, threads=threads)
        self.rng = np.random.default_rng(seed)
        start = time.perf_counter()
        self.batch.reset()
        self.elapsed = time.perf_counter() - start
        self.steps = 0
        self.games = 0

    def run(self, seconds: float) -> None:
        batch, rng = self.batch, self.rng
        spent = 0.0
        while spent < seconds:
            actions = batch.sample_actions(rng)
            # a slot whose game ended last step starts its next game: no agent step
            restarting = int(batch.terminated.sum() + batch.truncated.sum())
            start = time.perf_counter()
            batch.step(actions)
            spent += time.perf_counter() - start
            self.steps += batch.num_envs - restarting
            self.games += int(batch.terminated.sum() + batch.truncated.sum())
        self.elapsed += spent

    def figures(self) -> dict[str, float]:
        return {
            "steps_per_s": self.steps / self.elapsed,
            "games_per_s": self.games / self.elapsed,
            "steps": self.steps,
            "games": self.games,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="wall time per entry")
    parser.add_argument("--rounds", type=int, default=10, help="interleaved slices per entry")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    runners: dict[str, Any] = {
        "connect_four_v3": Runner(pettingzoo_factory("connect_four_v3"), args.seed),
        "qwirkle_v0 reference": Runner(qwirkle_v0.env, args.seed),
        "qwirkle_v0 compiled": Runner(lambda: wrap(compiled_raw_env()), args.seed),
        f"batch {args.num_envs}, 1 thread": BatchRunner(args.num_envs, 1, args.seed),
        f"batch {args.num_envs}, 2 threads": BatchRunner(args.num_envs, 2, args.seed),
    }
    for _ in range(args.rounds):
        for runner in runners.values():
            runner.run(args.seconds / args.rounds)
    results = {name: runner.figures() for name, runner in runners.items()}
    ref = results["connect_four_v3"]["steps_per_s"]
    print(f"{'entry':<24} {'steps/s':>11} {'games/s':>9} {'x connect_four':>15}")
    for name, r in results.items():
        ratio = r["steps_per_s"] / ref
        print(f"{name:<24} {r['steps_per_s']:>11.0f} {r['games_per_s']:>9.2f} {ratio:>14.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
