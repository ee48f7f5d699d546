"""Batched stepping throughput and start-up times, as ratios to PettingZoo's connect four.

A batch of games is stepped the way a vectorised learner drives it: after every step the
whole batch's observations and action masks are written, and a uniformly random legal action
per game is drawn *outside* the timed ``reset()``/``step()`` calls. The figure is agent-steps
per second (a slot that restarts after a finished game makes no agent step on that call), in
interleaved slices of wall time with PettingZoo's ``connect_four_v3`` driven through
``env()`` (as ``bench_envs.py`` runs it) and, where it installs, OpenSpiel's C++ connect
four driven from Python with its observation tensor and legal actions read every step, so the
ratios do not depend on the machine or its load.

Start-up: the time to import the batch, build it, reset it and make the first step, in a
fresh Python process, with an empty numba cache (cold: every kernel compiles) and with the
cache the cold run left behind (warm); wall-clock and CPU seconds (on a busy machine the CPU
figure is the one to compare).

    python benchmarks/bench_batched.py                        # 256 games, 1 and 2 threads
    python benchmarks/bench_batched.py --seconds 5 --threads 1 --check

``--check`` exits with status 1 when a batch misses its target ratio. New games register a
factory in ``BATCHES`` and a target in ``TARGETS``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_rl.envs.core.files import atomic_write_text

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_envs import REFERENCE, Runner, pettingzoo_factory

TARGETS = {"liniell_v0": 40.0, "qwirkle_v0": 25.0, "qwirkle_cards_v0": 8.0}
"""Batched agent-steps per second (one thread) as a multiple of connect_four_v3's."""


class _Games:
    """The public :class:`~tabletop_rl.envs.vector.VectorGames` with the arrays the runner
    reads as attributes."""

    def __init__(self, name: str, num_envs: int, num_players: int, seed: int, threads: int):
        from tabletop_rl.envs.vector import VectorGames

        self.games = VectorGames(name, num_envs, num_players, seed=seed, threads=threads)
        self.out = None

    def reset(self) -> None:
        self.out = self.games.reset()

    def step(self, actions: np.ndarray) -> None:
        self.out = self.games.step(actions)

    @property
    def action_mask(self) -> np.ndarray:
        return self.out.action_mask

    @property
    def terminated(self) -> np.ndarray:
        return self.out.terminated | self.out.truncated


def _factory(name: str) -> Callable[[int, int, int, int], Any]:
    return lambda n, players, seed, threads: _Games(name, n, players, seed, threads)


BATCHES: dict[str, Callable[[int, int, int, int], Any]] = {name: _factory(name) for name in TARGETS}
"""Game name -> ``factory(num_envs, num_players, seed, threads)`` of an object with
``reset()``, ``step(actions)`` and the arrays ``action_mask`` and ``terminated``, over
:class:`~tabletop_rl.envs.vector.VectorGames` (each game's compiled backend where it has
one)."""

STARTUP = """
import sys, time
t0, c0 = time.perf_counter(), time.process_time()
sys.path.insert(0, {here!r})
from bench_batched import BATCHES
batch = BATCHES[{name!r}](4, 2, 0, 1)
batch.reset()
batch.step(batch.action_mask.argmax(axis=1))
print(time.perf_counter() - t0, time.process_time() - c0)
"""


class BatchRunner:
    """Random legal play on a batch, resumable in slices of wall time; only the batch's own
    ``reset()`` and ``step()`` calls are timed."""

    def __init__(self, batch: Any, seed: int) -> None:
        self.batch = batch
        self.rng = np.random.default_rng(seed)
        self.steps = 0
        self.elapsed = 0.0
        # untimed warm-up: compiled code loads (or compiles) on first use, which is start-up
        # time (measured below in fresh processes), not stepping speed
        batch.reset()
        for _ in range(3):
            batch.step((self.rng.random(batch.action_mask.shape) * batch.action_mask).argmax(1))
        start = time.perf_counter()
        batch.reset()
        self.elapsed += time.perf_counter() - start
        self.steps += batch.action_mask.shape[0]  # every slot's first agent step awaits

    def run(self, seconds: float) -> None:
        batch, rng = self.batch, self.rng
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            scores = rng.random(batch.action_mask.shape, dtype=np.float32)
            actions = (scores * batch.action_mask).argmax(axis=1)
            restarting = int(batch.terminated.sum())  # these slots make no agent step
            start = time.perf_counter()
            batch.step(actions)
            self.elapsed += time.perf_counter() - start
            self.steps += actions.size - restarting

    def figures(self) -> dict[str, float]:
        return {"steps_per_s": self.steps / self.elapsed, "steps": self.steps}


class SpielRunner:
    """OpenSpiel's C++ connect four from Python: observation tensor and legal actions read
    every step, a random legal action taken."""

    def __init__(self, seed: int) -> None:
        import pyspiel

        self.game = pyspiel.load_game("connect_four")
        self.rng = np.random.default_rng(seed)
        self.steps = 0
        self.elapsed = 0.0

    def run(self, seconds: float) -> None:
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            state = self.game.new_initial_state()
            while not state.is_terminal():
                state.observation_tensor()
                legal = state.legal_actions()
                state.apply_action(legal[self.rng.integers(len(legal))])
                self.steps += 1
        self.elapsed += time.perf_counter() - start

    def figures(self) -> dict[str, float]:
        return {"steps_per_s": self.steps / self.elapsed, "steps": self.steps}


def startup_seconds(name: str) -> dict[str, float]:
    """Cold (empty numba cache) and warm import + build + reset + first step, each in a new
    Python process."""
    here = str(Path(__file__).resolve().parent)
    code = STARTUP.format(here=here, name=name)
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        # the child's own numba cache folder, empty at first: the cold run fills it
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("cold", "warm"):
            result = subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
            )
            wall, cpu = result.stdout.split()[-2:]
            out[f"{label}_start_s"] = float(wall)
            out[f"{label}_start_cpu_s"] = float(cpu)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", default=sorted(BATCHES), help="batched games")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=10.0, help="wall time per runner")
    parser.add_argument("--rounds", type=int, default=10, help="interleaved slices per runner")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-startup", action="store_true", help="skip the start-up times")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.games) - set(BATCHES))
    if unknown:
        parser.error(f"unknown batched game(s) {unknown}; available: {sorted(BATCHES)}")

    runners: dict[str, Any] = {REFERENCE: Runner(pettingzoo_factory(REFERENCE), args.seed)}
    try:
        runners["open_spiel connect_four"] = SpielRunner(args.seed)
    except ImportError:
        print("OpenSpiel (pyspiel) is not installed: its connect four is left out")
    for name in args.games:
        for threads in args.threads:
            batch = BATCHES[name](args.num_envs, args.players, args.seed, threads)
            runners[f"{name} x{args.num_envs} t{threads}"] = BatchRunner(batch, args.seed)
    for _ in range(args.rounds):
        for runner in runners.values():
            runner.run(args.seconds / args.rounds)
    results: dict[str, Any] = {key: runner.figures() for key, runner in runners.items()}
    ref_steps = results[REFERENCE]["steps_per_s"]
    print(f"{'runner':<32} {'steps/s':>12} {'x connect_four':>15} {'target':>8}")
    failed = []
    for key, r in results.items():
        ratio = r["steps_per_s"] / ref_steps
        r["ratio_to_connect_four"] = ratio
        game, _, rest = key.partition(" x")
        target = TARGETS.get(game) if rest.endswith(" t1") else None
        mark = f"{target:.0f}x" if target is not None else ""
        if target is not None and ratio < target:
            failed.append(key)
            mark += " MISS"
        print(f"{key:<32} {r['steps_per_s']:>12.0f} {ratio:>14.2f}x {mark:>8}")
    if not args.no_startup:
        for name in args.games:
            times = startup_seconds(name)
            results[f"{name} startup"] = times
            print(
                f"{name}: import + build + reset + first step: cold "
                f"{times['cold_start_s']:.2f} s ({times['cold_start_cpu_s']:.2f} s CPU; empty "
                f"numba cache), warm {times['warm_start_s']:.2f} s "
                f"({times['warm_start_cpu_s']:.2f} s CPU)"
            )
    if args.json:
        atomic_write_text(args.json, json.dumps(results, indent=2))
    if args.check and failed:
        print(f"missed targets: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
