"""Learner steps per second of the two vector paths of a Gymnasium id, in one run.

``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")`` (the compiled
batch, :mod:`tabletop_rl.envs.gym_vector`) against ``vectorization_mode="sync"`` (one
single-agent environment per game), with the same settings: a learner that picks uniformly
among its legal actions against the ``random`` opponent. The two paths alternate in rounds
of ``--seconds`` each, so a change in the machine's load touches both; the ratio of their
medians is the figure to keep on a shared machine::

    python benchmarks/bench_gym_vector.py                      # all three games, 64 envs
    python benchmarks/bench_gym_vector.py --games liniell_v0 --num-envs 64 --rounds 3
    python benchmarks/bench_gym_vector.py --no-copy   # both paths with copy=False

``--no-copy`` makes both paths return their own observation buffer rather than a new array
each step (``copy=False``: the batched env's keyword, the sync env's ``vector_kwargs``).

``--self-play`` times SB3's ``SelfPlayVecEnv`` (``pip install -e ".[sb3]"``) instead: on its
compiled engine (:class:`tabletop_rl.envs.core.self_play.SelfPlayBatch`) against the
game-by-game :class:`~tabletop_rl.envs.core.self_play.SelfPlayGames` it stepped before, in
game steps per second (each step: one decision in every game; ``--num-envs`` slots).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import gymnasium
import numpy as np

from tabletop_rl.envs import GYMNASIUM_IDS

IDS = {name: env_id for env_id, name in GYMNASIUM_IDS.items()}


class RandomActions:
    """One uniformly random legal action per row of a mask (0 for a row without any), from
    a pool of noise drawn ahead, so that the learner costs both paths little and the same."""

    def __init__(self, rng: np.random.Generator, shape: tuple[int, int], pool: int = 16) -> None:
        self.noise = rng.random((pool, *shape)).astype(np.float32)
        self.turn = 0

    def __call__(self, mask: np.ndarray) -> np.ndarray:
        self.turn = (self.turn + 1) % len(self.noise)
        return np.argmax(self.noise[self.turn] * mask, axis=1)


def learner_rate(envs: gymnasium.vector.VectorEnv, seconds: float, seed: int) -> float:
    """Learner steps per second of ``envs`` over ``seconds`` (after a short warm-up)."""
    _obs, info = envs.reset(seed=seed)
    pick = RandomActions(np.random.default_rng(seed), info["action_mask"].shape)
    for _ in range(3):
        _obs, _r, _te, _tr, info = envs.step(pick(info["action_mask"]))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _obs, _r, _te, _tr, info = envs.step(pick(info["action_mask"]))
        steps += 1
    return steps * envs.num_envs / (time.perf_counter() - start)


def self_play_rate(
    step: Callable[[np.ndarray], np.ndarray],
    masks: np.ndarray,
    games: int,
    seconds: float,
    seed: int,
) -> float:
    """Game steps per second of a self-play batch stepped by ``step`` (masks in, masks out)."""
    pick = RandomActions(np.random.default_rng(seed), masks.shape)
    for _ in range(3):
        masks = step(pick(masks))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = step(pick(masks))
        steps += 1
    return steps * games / (time.perf_counter() - start)


def bench_single_agent(name: str, args: argparse.Namespace) -> tuple[float, float]:
    paths = {}
    for mode in ("vector_entry_point", "sync"):
        copy = {"copy": False} if args.no_copy else {}
        paths[mode] = gymnasium.make_vec(
            IDS[name],
            num_envs=args.num_envs,
            vectorization_mode=mode,
            vector_kwargs=copy if mode == "sync" else None,
            opponent="random",
            num_players=args.players,
            **(copy if mode != "sync" else {}),
        )
    rates: dict[str, list[float]] = {mode: [] for mode in paths}
    for r in range(args.rounds):
        for mode, envs in paths.items():
            rates[mode].append(learner_rate(envs, args.seconds, args.seed + r))
    for envs in paths.values():
        envs.close()
    return statistics.median(rates["vector_entry_point"]), statistics.median(rates["sync"])


def bench_self_play(name: str, args: argparse.Namespace) -> tuple[float, float]:
    """Game steps per second of SB3's ``SelfPlayVecEnv`` on its compiled engine
    (``SelfPlayBatch``) and on the game-by-game one (``SelfPlayGames``, its engine before)."""
    from tabletop_rl.baselines.sb3 import SelfPlayVecEnv
    from tabletop_rl.envs import make
    from tabletop_rl.envs.core.self_play import SelfPlayGames

    games = args.num_envs // args.players
    batched = SelfPlayVecEnv(name, num_games=games, num_players=args.players, seed=args.seed)
    one_by_one = SelfPlayVecEnv(name, num_games=1, num_players=args.players, seed=args.seed)
    one_by_one.close()
    one_by_one.games = SelfPlayGames(  # type: ignore[assignment]
        lambda: make(name, raw=True, num_players=args.players), games
    )
    one_by_one.num_envs = batched.num_envs
    envs = {"batched": batched, "one_by_one": one_by_one}

    def stepper(env: SelfPlayVecEnv) -> Callable[[np.ndarray], np.ndarray]:
        def step(actions: np.ndarray) -> np.ndarray:
            env.step(actions)
            return env.action_masks()

        return step

    rates: dict[str, list[float]] = {key: [] for key in envs}
    for r in range(args.rounds):
        for key, env in envs.items():
            env.reset()
            step = stepper(env)
            rates[key].append(
                self_play_rate(step, env.action_masks(), games, args.seconds, args.seed + r)
            )
    batched.close()
    return statistics.median(rates["batched"]), statistics.median(rates["one_by_one"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=sorted(IDS), choices=sorted(IDS))
    parser.add_argument("--num-envs", type=int, default=64, help="sub-environments (slots)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=3.0, help="per path and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--self-play", action="store_true")
    parser.add_argument(
        "--no-copy", action="store_true", help="copy=False on both single-agent paths"
    )
    args = parser.parse_args(argv)
    if args.self_play:
        print(
            f"self-play, {args.num_envs // args.players} games x {args.players} seats: "
            "game steps per second (median of rounds)"
        )
        print(f"{'game':18} {'batched':>10} {'one by one':>11} {'ratio':>7}")
        for name in args.games:
            fast, slow = bench_self_play(name, args)
            print(f"{name:18} {fast:10,.0f} {slow:11,.0f} {fast / slow:6.1f}x")
        return 0
    print(
        f"{args.num_envs} envs, {args.players} players, random learner vs random opponent"
        f"{', copy=False' if args.no_copy else ''}: learner steps per second (median of rounds)"
    )
    print(f"{'game':18} {'vector_entry_point':>18} {'sync':>8} {'ratio':>7}")
    for name in args.games:
        fast, slow = bench_single_agent(name, args)
        print(f"{name:18} {fast:18,.0f} {slow:8,.0f} {fast / slow:6.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
