"""Qwirkle Cards timings: the validity solver alone, and the environment against connect_four.

    python benchmarks/qwirkle_cards_solver.py                  # solver + env, ~1 minute
    python benchmarks/qwirkle_cards_solver.py --tables 300 --seconds 10

Solver: random tables of 20, 40 and 60 cards drawn from the 108 (so with duplicates), each
decided once by the exact search (cache bypassed), and once through the public
``is_valid_table`` with a cold cache (quick one-sided splits and local search first, as the
masks use it). Environment: masked random play through ``env()`` with observation and mask
every step, agent-steps per second side by side with PettingZoo's ``connect_four_v3`` in the
same process (the ratio is what the target, 0.5x, refers to).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_rl.envs.qwirkle_cards import solver
from tabletop_rl.envs.qwirkle_cards.cards import COPIES, NUM_KINDS

NO_OPTIONAL = (0,) * NUM_KINDS


def random_tables(size: int, count: int, seed: int) -> list[tuple[int, ...]]:
    """``count`` random multisets of ``size`` cards drawn from the 108."""
    rng = np.random.default_rng(seed)
    deck = np.repeat(np.arange(NUM_KINDS), COPIES)
    return [
        tuple(int(x) for x in np.bincount(rng.choice(deck, size, replace=False), minlength=36))
        for _ in range(count)
    ]


def time_solver(sizes: tuple[int, ...] = (20, 40, 60), count: int = 200, seed: int = 0) -> dict:
    """Mean and worst microseconds per table for the exact search and for ``is_valid_table``
    (cold cache), and the share of valid tables, per table size."""
    out: dict[str, dict[str, float]] = {}
    for size in sizes:
        tables = random_tables(size, count, seed + size)
        times = []
        valid = 0
        for t in tables:
            start = time.perf_counter()
            valid += solver._search(t, NO_OPTIONAL) is not None
            times.append(time.perf_counter() - start)
        solver._CACHE.clear()
        start = time.perf_counter()
        for t in tables:
            solver.is_valid_table(t)
        public = (time.perf_counter() - start) / count
        out[str(size)] = {
            "search_mean_us": 1e6 * float(np.mean(times)),
            "search_max_us": 1e6 * float(np.max(times)),
            "is_valid_table_mean_us": 1e6 * public,
            "valid_share": valid / count,
        }
    return out


def steps_per_second(env_fn: Callable[[], Any], seconds: float, seed: int = 0) -> float:
    """Masked random play through ``env_fn()`` for ``seconds``; agent-steps per second."""
    env = env_fn()
    rng = np.random.default_rng(seed)
    steps = 0
    game = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + game)
        game += 1
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps / (time.perf_counter() - start)


def compare_with_connect_four(seconds: float = 10.0) -> dict[str, float]:
    """Agent-steps per second of qwirkle_cards_v0 and connect_four_v3, and their ratio."""
    from pettingzoo.classic import connect_four_v3

    from tabletop_rl.envs import qwirkle_cards_v0

    c4 = steps_per_second(connect_four_v3.env, seconds)
    qc = steps_per_second(qwirkle_cards_v0.env, seconds)
    c4_again = steps_per_second(connect_four_v3.env, seconds)  # load drifts: average both
    ref = (c4 + c4_again) / 2
    return {"connect_four_v3": ref, "qwirkle_cards_v0": qc, "ratio": qc / ref}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="tables per size")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per env run")
    parser.add_argument("--no-env", action="store_true", help="time the solver only")
    args = parser.parse_args()
    result: dict[str, Any] = {"solver": time_solver(count=args.tables)}
    for size, row in result["solver"].items():
        mean, worst = row["search_mean_us"], row["search_max_us"]
        public, share = row["is_valid_table_mean_us"], 100 * row["valid_share"]
        print(
            f"{size} cards: exact search {mean:.0f} us mean, {worst:.0f} us worst; "
            f"is_valid_table {public:.0f} us mean; {share:.0f}% valid"
        )
    if not args.no_env:
        env = compare_with_connect_four(args.seconds)
        result["env"] = env
        print(
            f"qwirkle_cards_v0 {env['qwirkle_cards_v0']:.0f} steps/s, connect_four_v3 "
            f"{env['connect_four_v3']:.0f} steps/s: {env['ratio']:.2f}x (target 0.5x)"
        )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
