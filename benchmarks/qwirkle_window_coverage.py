"""Does qwirkle_v0's board window ever hide a legal move? Measured over many games.

Plays games of masked random play and of greedy self-play (``QwirkleGreedyAgent`` in every
seat) on the compiled game model (the environment's default engine) and sums each player's
``lost_moves`` (``infos[agent]["lost_moves"]`` in the environment): the legal moves the
window could not show. The environment counts them exactly: whenever the laid area comes
within 5 cells of the window's edge it generates every legal move and counts those outside.
The script also reports the largest laid area (longest side of its bounding box) and how
many turn starts needed that exact check.

    python benchmarks/qwirkle_window_coverage.py                       # 10,000 games each
    python benchmarks/qwirkle_window_coverage.py --games 200 --minutes 2 --policies greedy

Games run on ``--workers`` processes (default: all cores). ``--minutes`` caps the wall time
per policy; the report states how many games were actually played.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

import numpy as np

from tabletop_rl.baselines.agents.qwirkle import QwirkleGreedyAgent
from tabletop_rl.baselines.workers import init_worker, worker_context
from tabletop_rl.envs.qwirkle.compiled import QwirkleCompiledModel
from tabletop_rl.envs.qwirkle.model import DEFAULT_WINDOW, MARGIN


def play_game(policy: str, seed: int, window: int, players: int) -> dict[str, int]:
    """One game on the compiled game model; its lost moves, largest laid side and the number
    of turn starts at which the window did not hold the laid area with a ``MARGIN``-cell
    border (where the model generates every legal move to count those it cannot show)."""
    model = QwirkleCompiledModel(players, window=window)
    state = model.new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    greedy = [QwirkleGreedyAgent(np.random.default_rng([seed, p])) for p in range(players)]
    side = checks = 0
    last_player = -1
    while not model.is_over(state):
        player = model.current_player(state)
        if player != last_player:  # a turn starts (the seat to act changes after each turn)
            last_player = player
            board = state.game.board
            if not board.is_empty():
                r0, c0, r1, c1 = board.bounds()
                side = max(side, r1 - r0 + 1, c1 - c0 + 1)
                o0, o1 = state.origin
                inside = (
                    r0 - MARGIN >= o0
                    and c0 - MARGIN >= o1
                    and r1 + MARGIN < o0 + window
                    and c1 + MARGIN < o1 + window
                )
                checks += not inside
        mask = model.legal_mask(state)
        if policy == "random":
            legal = np.flatnonzero(mask)
            action = int(legal[rng.integers(legal.size)])
        else:
            view = model.public_view(state, player)
            action = greedy[player].act({"action_mask": mask}, view)
        model.step(state, action)
    lost = sum(model.player_info(state, p)["lost_moves"] for p in range(players))
    game = state.game
    return {
        "lost_moves": lost,
        "max_side": side,
        "exact_checks": checks,
        "turns": game.turns,
        "truncated": int(game.truncated),
    }


def _worker(args: tuple[str, int, int, int, int, int, float]) -> list[dict[str, int]]:
    policy, start, step, games, window, players, deadline = args
    results = []
    for seed in range(start, games, step):
        if time.time() > deadline:
            break
        results.append(play_game(policy, seed, window, players))
    return results


def measure(
    policy: str, games: int, window: int, players: int, workers: int, minutes: float
) -> dict[str, Any]:
    deadline = time.time() + 60 * minutes
    start = time.perf_counter()
    jobs = [(policy, w, workers, games, window, players, deadline) for w in range(workers)]
    with worker_context().Pool(workers, initializer=init_worker) as pool:
        results = [r for chunk in pool.map(_worker, jobs) for r in chunk]
    sides = np.array([r["max_side"] for r in results])
    return {
        "policy": policy,
        "games_requested": games,
        "games_played": len(results),
        "window": window,
        "players": players,
        "lost_moves": int(sum(r["lost_moves"] for r in results)),
        "games_with_lost_moves": int(sum(r["lost_moves"] > 0 for r in results)),
        "max_laid_side": int(sides.max()) if len(sides) else 0,
        "laid_side_p99": float(np.percentile(sides, 99)) if len(sides) else 0.0,
        "turn_starts_with_exact_check": int(sum(r["exact_checks"] for r in results)),
        "mean_turns": float(np.mean([r["turns"] for r in results])) if results else 0.0,
        "truncated_games": int(sum(r["truncated"] for r in results)),
        "seconds": round(time.perf_counter() - start, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per policy")
    parser.add_argument("--policies", nargs="+", default=["random", "greedy"])
    parser.add_argument("--window", type=int, default=DEFAULT_WINDOW)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--minutes", type=float, default=60.0, help="wall-time cap per policy")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    report = []
    for policy in args.policies:
        if policy not in ("random", "greedy"):
            parser.error(f"unknown policy {policy!r}; allowed: random, greedy")
        r = measure(policy, args.games, args.window, args.players, args.workers, args.minutes)
        report.append(r)
        print(
            f"{policy}: {r['games_played']} of {r['games_requested']} games, window "
            f"{r['window']}: {r['lost_moves']} lost moves ({r['games_with_lost_moves']} games); "
            f"laid area longest side max {r['max_laid_side']} (p99 {r['laid_side_p99']:.0f}); "
            f"{r['turn_starts_with_exact_check']} turn starts needed the exact check; "
            f"mean {r['mean_turns']:.0f} turns, {r['truncated_games']} truncated; "
            f"{r['seconds']} s",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
