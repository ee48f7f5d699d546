"""Learner steps per second of the two vector paths of a Gymnasium id, in one run.

``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")`` (the compiled
batch, :mod:`tabletop_rl.envs.gym_vector`) against ``vectorization_mode="sync"`` (one
single-agent environment per game), with the same settings: a learner that picks uniformly
among its legal actions against the ``random`` opponent. The two paths alternate in rounds
of ``--seconds`` each, so a change in the machine's load touches both; the ratio of their
medians is the figure to keep on a shared machine::

    python benchmarks/bench_gym_vector.py                      # all three games, 64 envs
    python benchmarks/bench_gym_vector.py --games liniell_v0 --num-envs 64 --rounds 3

``--self-play`` times self-play instead: the batched Gymnasium form
(:class:`tabletop_rl.envs.gym_vector.SelfPlayVectorEnv`) against the game-by-game
:class:`tabletop_rl.envs.core.self_play.SelfPlayGames` (what SB3's ``SelfPlayVecEnv``
stepped before), in game steps per second (each step: one decision in every game).
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


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row (0 for a row without any)."""
    noise = rng.random(mask.shape) * mask
    return np.argmax(noise, axis=1)


def learner_rate(envs: gymnasium.vector.VectorEnv, seconds: float, seed: int) -> float:
    """Learner steps per second of ``envs`` over ``seconds`` (after a short warm-up)."""
    rng = np.random.default_rng(seed)
    _obs, info = envs.reset(seed=seed)
    for _ in range(3):
        _obs, _r, _te, _tr, info = envs.step(random_actions(info["action_mask"], rng))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _obs, _r, _te, _tr, info = envs.step(random_actions(info["action_mask"], rng))
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
    rng = np.random.default_rng(seed)
    for _ in range(3):
        masks = step(random_actions(masks, rng))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = step(random_actions(masks, rng))
        steps += 1
    return steps * games / (time.perf_counter() - start)


def bench_single_agent(name: str, args: argparse.Namespace) -> tuple[float, float]:
    paths = {}
    for mode in ("vector_entry_point", "sync"):
        paths[mode] = gymnasium.make_vec(
            IDS[name],
            num_envs=args.num_envs,
            vectorization_mode=mode,
            opponent="random",
            num_players=args.players,
        )
    rates: dict[str, list[float]] = {mode: [] for mode in paths}
    for r in range(args.rounds):
        for mode, envs in paths.items():
            rates[mode].append(learner_rate(envs, args.seconds, args.seed + r))
    for envs in paths.values():
        envs.close()
    return statistics.median(rates["vector_entry_point"]), statistics.median(rates["sync"])


def bench_self_play(name: str, args: argparse.Namespace) -> tuple[float, float]:
    from tabletop_rl.envs import make
    from tabletop_rl.envs.core.self_play import SelfPlayGames
    from tabletop_rl.envs.gym_vector import SelfPlayVectorEnv

    games = args.num_envs // args.players
    batched = SelfPlayVectorEnv(name, num_games=games, num_players=args.players)
    _obs, info = batched.reset(seed=args.seed)
    one_by_one = SelfPlayGames(lambda: make(name, raw=True, num_players=args.players), games)
    _obs, masks = one_by_one.reset(seed=args.seed)

    def step_batched(actions: np.ndarray) -> np.ndarray:
        return batched.step(actions)[-1]["action_mask"]

    def step_one_by_one(actions: np.ndarray) -> np.ndarray:
        one_by_one.step(actions)
        return one_by_one.action_masks()

    rates: dict[str, list[float]] = {"batched": [], "one_by_one": []}
    state = {"batched": info["action_mask"], "one_by_one": masks}
    for r in range(args.rounds):
        rates["batched"].append(
            self_play_rate(step_batched, state["batched"], games, args.seconds, args.seed + r)
        )
        rates["one_by_one"].append(
            self_play_rate(step_one_by_one, state["one_by_one"], games, args.seconds, args.seed + r)
        )
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
        f"{args.num_envs} envs, {args.players} players, random learner vs random opponent: "
        "learner steps per second (median of rounds)"
    )
    print(f"{'game':18} {'vector_entry_point':>18} {'sync':>8} {'ratio':>7}")
    for name in args.games:
        fast, slow = bench_single_agent(name, args)
        print(f"{name:18} {fast:18,.0f} {slow:8,.0f} {fast / slow:6.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
