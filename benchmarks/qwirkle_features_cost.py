"""What Qwirkle's observation features cost: ``observe`` with and without them.

Random mid-game positions (masked random play on the compiled engine, every position of each
game, mid-turn ones included, observed by the player to act) are observed by the compiled
model alone and through ``FeatureModel`` with :func:`qwirkle_features`; the rounds alternate
(a change in machine load hits both alike) and the best round counts; times are the
measuring thread's CPU time. Reported per
observation: the base ``observe``, the legal mask that the features read (the feature model
asks the model for it), the feature kernel alone and the feature model's whole ``observe``.
Then the parts of the kernel's search (:func:`~tabletop_rl.envs.qwirkle.best_turns.best_turn_points`
with its plan and endgame outputs left empty, which skips their searches): the turn walk
alone, with the follow-ups (``place_plan``), with the endgame search too (``place_endgame``).
Then the batched games (:class:`QwirkleBatch`, ``--num-envs`` games, masked random actions
drawn outside the timed ``step``): CPU time per game step, which writes every game's
observation and mask, without and with features.

    python benchmarks/qwirkle_features_cost.py --games 20 --rounds 5 --num-envs 64
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from tabletop_rl.envs.core.features import FeatureModel
from tabletop_rl.envs.qwirkle.best_turns import best_turn_points
from tabletop_rl.envs.qwirkle.compiled import QwirkleCompiledModel
from tabletop_rl.envs.qwirkle.compiled_batch import QwirkleBatch
from tabletop_rl.envs.qwirkle.features import qwirkle_features


def positions(model: QwirkleCompiledModel, games: int, seed: int) -> list[Any]:
    """Copies of every position of ``games`` masked random games."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        state = model.new_state(rng)
        while not model.is_over(state):
            out.append(model.copy(state))
            model.step(state, int(rng.choice(np.flatnonzero(model.legal_mask(state)))))
    return out


def per_call(fn: Any, states: list[Any]) -> float:
    """CPU seconds of this thread per call of ``fn(state)`` over ``states`` (CPU time: other
    processes sharing the machine do not count)."""
    start = time.thread_time()
    for st in states:
        fn(st)
    return (time.thread_time() - start) / len(states)


def batch_step(features: bool, num_envs: int, steps: int, seed: int) -> float:
    """CPU seconds per game step of a :class:`QwirkleBatch` (after 20 warm-up steps)."""
    batch = QwirkleBatch(num_envs=num_envs, seed=seed, features=features)
    batch.reset()
    rng = np.random.default_rng(seed)
    for _ in range(20):
        batch.step(batch.sample_actions(rng))
    spent = 0.0
    for _ in range(steps):
        actions = batch.sample_actions(rng)
        start = time.thread_time()
        batch.step(actions)
        spent += time.thread_time() - start
    return spent / (steps * num_envs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--batch-steps", type=int, default=300)
    args = parser.parse_args()
    base = QwirkleCompiledModel()
    feats = qwirkle_features(base.window)
    model = FeatureModel(base, feats)
    states = positions(base, args.games, args.seed)
    out_base = base.layout.zeros()
    out_full = model.layout.zeros()
    views = model.layout.views(out_full)
    base_views = {f.name: views[f.name] for f in base.layout}
    feat_views = {f.name: views[f.name] for f in feats.fields}

    def observe_base(st: Any) -> None:
        base.observe(st, base.current_player(st), out_base)

    def mask(st: Any) -> None:
        base.legal_mask(st)

    masks = {id(st): base.legal_mask(st) for st in states}

    def kernel(st: Any) -> None:
        feats.write(base, st, 0, base_views, masks[id(st)], feat_views)

    def observe_full(st: Any) -> None:
        model.observe(st, base.current_player(st), out_full)

    places = base.codec.end
    searched = [np.zeros(places, dtype=np.float32) for _ in range(4)]
    empty = np.zeros(0, dtype=np.float32)

    def search(plans: bool, endgame: bool) -> Any:
        """``best_turn_points`` with the plan and endgame searches on or off."""
        best, net, plan, end_value = searched
        plan_out, end_out = (plan if plans else empty), (end_value if endgame else empty)

        def run(st: Any) -> None:
            best_turn_points(
                st.grid, st.fit, st.meta, masks[id(st)], best, net, np.zeros(1), plan_out,
                np.zeros(1), end_out, np.zeros(1),
            )  # fmt: skip

        return run

    timings: dict[str, list[float]] = {}
    parts = (
        ("observe, base model", observe_base),
        ("legal mask", mask),
        ("feature kernel alone", kernel),
        ("observe, with features", observe_full),
        ("search: turn walk", search(False, False)),
        ("search: + follow-ups", search(True, False)),
        ("search: + endgame", search(True, True)),
    )
    for _, fn in parts:
        fn(states[0])  # compile
    for _ in range(args.rounds):
        for name, fn in parts:
            timings.setdefault(name, []).append(per_call(fn, states))
    print(f"{len(states)} positions from {args.games} games, best of {args.rounds} rounds")
    for name, values in timings.items():
        print(f"{name:28s} {1e6 * min(values):8.1f} us per observation")
    batched: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(args.rounds):
        for features in (False, True):
            batched[features].append(
                batch_step(features, args.num_envs, args.batch_steps, args.seed)
            )
    for features, values in batched.items():
        label = f"batch of {args.num_envs}, " + ("with features" if features else "base")
        print(f"{label:28s} {1e6 * min(values):8.1f} us per game step")


if __name__ == "__main__":
    main()
