"""The cost of Liniell's features: ``observe`` with and without them, and a game step.

Positions come from random play (seeded); every timing is the best of ``--repeats`` passes
over the same positions with ``time.perf_counter``, on the compiled engine. Printed per
player count: microseconds per ``step`` (the model's, with a random legal action),
per ``observe`` without and with features over all positions, over the lay positions and
over the occupy positions (occupations and compulsory moves; the per-action features are
computed at these two kinds of step, elsewhere they are zeros), and per whole decision through
``raw_env`` (``step`` + ``observe`` of the next agent, as a learner's loop does); then per
game step of the compiled batch (``LiniellBatch``, 64 games, the ``step`` call only).

    python benchmarks/bench_liniell_features.py --games 60 --repeats 5
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from tabletop_rl.envs import liniell_v0
from tabletop_rl.envs.core.features import with_features
from tabletop_rl.envs.liniell.actions import NUM_LAY, SKIP
from tabletop_rl.envs.liniell.batch import LiniellBatch
from tabletop_rl.envs.liniell.compiled_model import LiniellCompiledModel
from tabletop_rl.envs.liniell.features import LINIELL_FEATURES


def best_time(fn: Callable[[Any], Any], items: Sequence[Any], repeats: int) -> float:
    """Microseconds per item of the fastest of ``repeats`` passes."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, (time.perf_counter() - start) / len(items))
    return best * 1e6


def step_time(model: Any, states: Sequence[Any], actions: Sequence[int]) -> float:
    """Microseconds per ``model.step`` of ``actions[i]`` on a copy of ``states[i]``."""
    copies = [model.copy(s) for s in states]
    start = time.perf_counter()
    for state, action in zip(copies, actions, strict=True):
        model.step(state, action)
    return (time.perf_counter() - start) / len(copies) * 1e6


def observe(model: Any, out: np.ndarray, state: Any) -> None:
    """The observation of the player to act, into ``out``."""
    model.observe(state, model.current_player(state), out)


def env_decisions(features: bool, num_players: int, games: int, seed: int) -> float:
    """Microseconds per agent step through ``raw_env`` (step, then the next observation)."""
    env = liniell_v0.raw_env(num_players=num_players, features=features)
    rng = np.random.default_rng(seed)
    steps = 0
    elapsed = 0.0
    for g in range(games):
        env.reset(seed=seed + g)
        obs = env.observe(env.agent_selection)
        while not all(env.terminations.values()):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            start = time.perf_counter()
            env.step(action)
            obs = env.observe(env.agent_selection)
            elapsed += time.perf_counter() - start
            steps += 1
    return elapsed / steps * 1e6


def batch_step_time(features: bool, num_players: int, steps: int, seed: int) -> float:
    """Microseconds per game step of a 64-game :class:`LiniellBatch` (``step`` calls only)."""
    batch = LiniellBatch(64, num_players, seed=seed, features=features)
    batch.reset()
    rng = np.random.default_rng(seed)
    elapsed = 0.0
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in batch.action_mask])
        start = time.perf_counter()
        batch.step(actions)
        elapsed += time.perf_counter() - start
    return elapsed / steps / batch.num_envs * 1e6


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for n in (2, 3, 4):
        base = LiniellCompiledModel(n)
        feat = with_features(base, LINIELL_FEATURES)
        rng = np.random.default_rng(args.seed)
        states, actions = [], []
        for _ in range(args.games):
            state = base.new_state(rng)
            while not base.is_over(state):
                action = int(rng.choice(np.flatnonzero(base.legal_mask(state))))
                states.append(base.copy(state))
                actions.append(action)
                base.step(state, action)
        lays = [s for s in states if base.legal_mask(s)[:NUM_LAY].any()]
        occupations = [s for s in states if base.legal_mask(s)[NUM_LAY:SKIP].any()]
        out_base = np.empty(base.layout.size, dtype=np.float32)
        out_feat = np.empty(feat.layout.size, dtype=np.float32)
        # warm the kernels
        feat.observe(lays[0], feat.current_player(lays[0]), out_feat)

        step_us = min(step_time(base, states, actions) for _ in range(args.repeats))
        observe_base = partial(observe, base, out_base)
        observe_feat = partial(observe, feat, out_feat)
        legal = np.mean([base.legal_mask(s)[:NUM_LAY].sum() for s in lays])
        print(
            f"{n} players: {len(states)} positions ({len(lays)} lay steps, "
            f"{legal:.1f} legal lays each); step {step_us:.1f} us; "
            f"observe all positions {best_time(observe_base, states, args.repeats):.1f} us -> "
            f"{best_time(observe_feat, states, args.repeats):.1f} us with features; "
            f"lay positions {best_time(observe_base, lays, args.repeats):.1f} us -> "
            f"{best_time(observe_feat, lays, args.repeats):.1f} us; occupy positions "
            f"{best_time(observe_base, occupations, args.repeats):.1f} us -> "
            f"{best_time(observe_feat, occupations, args.repeats):.1f} us; raw_env step+observe "
            f"{env_decisions(False, n, max(1, args.games // 3), args.seed):.1f} us -> "
            f"{env_decisions(True, n, max(1, args.games // 3), args.seed):.1f} us; batch "
            f"{batch_step_time(False, n, 5 * args.games, args.seed):.1f} us -> "
            f"{batch_step_time(True, n, 5 * args.games, args.seed):.1f} us per game step"
        )


if __name__ == "__main__":
    main()
