"""Long fuzz run: random games with every engine invariant checked after every step.

For each environment and player count, ``--games`` games are played with
:func:`tabletop_rl.envs.core.conformance.random_playout` (uniformly random legal actions, a
random illegal action tried and refused at every step, observations checked against their
space, the engine's ``check_invariants()`` hook and never-falling scores after every step,
game length under ``info.max_game_length``). Game ``g`` uses seed ``--seed + g``, so any
violation is replayed with ``random_playout(make(name, raw=True, num_players=n),
np.random.default_rng(seed), seed=seed)``.

    python benchmarks/fuzz_invariants.py --games 1000
    python benchmarks/fuzz_invariants.py --games 50 --envs liniell_v0 --players 4

Prints one line per environment and player count (games, agent steps, games per second) and
every violation with its seed; exits with status 1 if there was any.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from tabletop_rl.envs import available_envs, make
from tabletop_rl.envs.core.aec import TabletopAECEnv
from tabletop_rl.envs.core.conformance import random_playout


@dataclass
class FuzzResult:
    """What fuzzing one environment and player count found."""

    name: str
    players: int
    games: int = 0
    steps: int = 0
    seconds: float = 0.0
    violations: list[tuple[int, str]] = field(default_factory=list)
    """``(seed, message)`` of every game that broke an invariant or a promise."""

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    def line(self) -> str:
        return (
            f"{self.name:<18} {self.players} players  {self.games:>6} games  "
            f"{self.steps:>8} steps  {self.seconds:8.1f} s  "
            f"{self.games_per_second:8.2f} games/s  {len(self.violations)} violations"
        )


def fuzz(
    env_fn: Callable[[], TabletopAECEnv], name: str, players: int, games: int, seed: int
) -> FuzzResult:
    """Play ``games`` checked random games (seeds ``seed``, ``seed + 1``, ...)."""
    env = env_fn()
    result = FuzzResult(name, players)
    start = time.perf_counter()
    for g in range(games):
        game_seed = seed + g
        try:
            trace = random_playout(env, np.random.default_rng(game_seed), seed=game_seed)
        except AssertionError as exc:  # InvariantError is one, as are the playout's checks
            result.violations.append((game_seed, f"{type(exc).__name__}: {exc}"))
            env = env_fn()  # a fresh environment after a broken one
        else:
            result.steps += len(trace)
        result.games += 1
    result.seconds = time.perf_counter() - start
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=200, help="games per env and player count")
    parser.add_argument("--envs", nargs="+", default=available_envs(), choices=available_envs())
    parser.add_argument("--players", nargs="+", type=int, default=[2, 3, 4], choices=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    results = []
    for name in args.envs:
        for players in args.players:
            result = fuzz(
                lambda name=name, players=players: make(name, raw=True, num_players=players),
                name,
                players,
                args.games,
                args.seed,
            )
            print(result.line(), flush=True)
            for game_seed, message in result.violations:
                print(f"  VIOLATION {name} {players} players seed {game_seed}: {message}")
            results.append(result)
    games = sum(r.games for r in results)
    seconds = sum(r.seconds for r in results)
    broken = sum(len(r.violations) for r in results)
    print(
        f"total: {games} games, {sum(r.steps for r in results)} agent steps in {seconds:.1f} s "
        f"({games / seconds:.2f} games/s), {broken} violations"
    )
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
