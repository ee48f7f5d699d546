"""What Qwirkle Cards' observation features cost on the compiled engine.

Plays the same random games (uniform sub-actions, and greedy-ish ones: a Qwirkle when one
can be taken, else a card) through the compiled model with and without
``features=True``, interleaved, and reports per agent step:

- ``observe``: the acting player's observation alone (positions collected first, each
  observed ``--repeat`` times);
- ``step loop``: legal mask + observation + step, what an environment does per agent step;
- ``batched``: one game step of ``VectorGames`` (``--envs`` games, random legal actions) on
  the compiled batch, which writes the features in its compiled step too.

Run: ``python benchmarks/qwirkle_cards_features.py --games 20`` (numba compiles first; the
figures exclude it). The figures are medians over ``--rounds`` rounds, so a busy machine
disturbs them less.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from tabletop_rl.envs.core.features import with_features
from tabletop_rl.envs.core.model import GameModel
from tabletop_rl.envs.qwirkle_cards.actions import END_TURN, TAKE
from tabletop_rl.envs.qwirkle_cards.compiled_model import QwirkleCardsCompiledModel
from tabletop_rl.envs.qwirkle_cards.features import QWIRKLE_CARDS_FEATURES
from tabletop_rl.envs.vector import VectorGames


def _pick(mask: np.ndarray, rng: np.random.Generator, greedy: bool) -> int:
    legal = np.flatnonzero(mask)
    options = legal
    if greedy:
        options = legal[(legal < END_TURN) & (legal >= TAKE)]
        if not options.size:
            options = legal[legal < TAKE]
        if not options.size:
            options = legal
    return int(options[int(rng.integers(options.size))])


def play(model: GameModel, games: int, seed: int) -> tuple[float, int, list]:
    """Seconds spent in mask + observe + step over ``games`` games, the agent steps, and a
    copy of every position (for the observe timing)."""
    seconds = 0.0
    steps = 0
    states = []
    for g in range(games):
        state = model.new_state(np.random.default_rng([seed, g]))
        rng = np.random.default_rng([seed, g, 1])
        while not model.is_over(state):
            t = time.perf_counter()
            mask = model.legal_mask(state)
            model.observe(state, model.current_player(state))
            seconds += time.perf_counter() - t
            states.append(model.copy(state))
            action = _pick(mask, rng, g % 2 == 1)
            t = time.perf_counter()
            model.step(state, action)
            seconds += time.perf_counter() - t
            steps += 1
    return seconds, steps, states


def observe_seconds(model: GameModel, states: list, repeat: int) -> float:
    """Seconds per observation of the acting player, over ``states``."""
    for s in states:  # warm every builder's mask cache, as an environment step has
        model.legal_mask(s)
    out = np.empty(model.layout.size, dtype=np.float32)
    t = time.perf_counter()
    for _ in range(repeat):
        for s in states:
            model.observe(s, model.current_player(s), out)
    return (time.perf_counter() - t) / (repeat * len(states))


def batched_seconds(features: bool, envs: int, players: int, seed: int, steps: int) -> float:
    """Seconds per game step of a compiled batch of ``envs`` games (actions drawn outside)."""
    games = VectorGames(
        "qwirkle_cards_v0", num_envs=envs, num_players=players, seed=seed, features=features
    )
    assert games.backend == "compiled"
    out = games.reset()
    rng = np.random.default_rng(seed)
    seconds = 0.0
    for _ in range(steps):
        actions = np.argmax(rng.random(out.action_mask.shape) * out.action_mask, axis=1)
        t = time.perf_counter()
        out = games.step(actions)
        seconds += time.perf_counter() - t
    return seconds / (steps * envs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--batch-steps", type=int, default=100)
    args = parser.parse_args()
    base = QwirkleCardsCompiledModel(args.players)
    feat = with_features(QwirkleCardsCompiledModel(args.players), QWIRKLE_CARDS_FEATURES)
    play(base, 1, 99), play(feat, 1, 99)  # numba compiles (or loads its cache)
    batched_seconds(True, 2, args.players, 0, 2)  # compile
    keys = ("obs0", "obs1", "loop0", "loop1", "batch0", "batch1")
    rows: dict[str, list[float]] = {k: [] for k in keys}
    steps = 0
    for r in range(args.rounds):
        s0, steps, states = play(base, args.games, args.seed + r)
        s1, steps1, _ = play(feat, args.games, args.seed + r)
        assert steps1 == steps, "the feature model played a different game"
        rows["loop0"].append(s0 / steps)
        rows["loop1"].append(s1 / steps)
        rows["obs0"].append(observe_seconds(base, states, args.repeat))
        rows["obs1"].append(observe_seconds(feat, states, args.repeat))
        for on in (False, True):
            rows[f"batch{int(on)}"].append(
                batched_seconds(on, args.envs, args.players, args.seed + r, args.batch_steps)
            )
    med = {k: statistics.median(v) * 1e6 for k, v in rows.items()}
    print(f"{args.games} games x {args.rounds} rounds, {args.players} players, {steps} steps/round")
    print(
        f"observe   without {med['obs0']:7.1f} us  with {med['obs1']:7.1f} us  "
        f"features +{med['obs1'] - med['obs0']:.1f} us"
    )
    print(
        f"batched   without {med['batch0']:7.1f} us  with {med['batch1']:7.1f} us  "
        f"per game step, {args.envs} games"
    )
    print(
        f"step loop without {med['loop0']:7.1f} us  with {med['loop1']:7.1f} us  "
        f"x{med['loop1'] / med['loop0']:.2f}"
    )


if __name__ == "__main__":
    main()
