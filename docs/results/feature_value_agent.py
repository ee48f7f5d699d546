"""How strong an agent is that plays a weighted sum of feature fields: a teacher a policy can copy.

``python docs/results/feature_value_agent.py liniell_v0 lay_turn_margin=1 lay_open_ends=1.2
lay_merge_points=-5 occupy_turn_margin=1 occupy_open_ends=1.2 occupy_merge_points=-5
skip_turn_margin=1 --opponent greedy --games 400`` plays an agent that, at each decision,
takes the legal action whose weighted sum of the named fields is highest (ties at random)
against an agent spec (``--opponent``), seats rotated, and prints its win rate with the
Wilson 95% interval.

Each named field must score the actions of one action group (``action_group`` in the game's
observation layout); actions of a group no named field scores are never chosen while another
action is legal. A policy with ``action_features: true`` adds one learned weight per such field
to its logits, so this agent is one it can copy exactly: the weights are its own.
"""

from __future__ import annotations

import argparse

import numpy as np
from decisions import play_against
from feature_choice import value_reader

from tabletop_rl.baselines.stats import wilson_interval
from tabletop_rl.envs import make
from tabletop_rl.envs.errors import ConfigError


def weights_of(items: list[str]) -> tuple[list[str], list[float]]:
    """``["field=weight", ...]`` into names and weights; a clear error for another form."""
    names, weights = [], []
    for item in items:
        name, eq, value = item.partition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = None
        if not eq or not name or weight is None:
            raise ConfigError(f"bad field weight {item!r}; write FIELD=WEIGHT, e.g. lay_gain=1")
        names.append(name)
        weights.append(weight)
    return names, weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("env", help="environment name, e.g. liniell_v0")
    parser.add_argument("weights", nargs="+", help="FIELD=WEIGHT for fields that score actions")
    parser.add_argument("--opponent", default="greedy", help="agent spec of the opponent")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    names, weights = weights_of(args.weights)
    model = make(args.env, raw=True, num_players=2, features=True).model
    parts = value_reader(model.layout, model.action_layout(), names)
    ties = np.random.default_rng([args.seed, 4])

    def decide(state: object, obs: dict[str, np.ndarray], view: object) -> int:
        mask = obs["action_mask"].astype(bool)
        values = np.full(len(mask), -np.inf)
        for (field, acts), weight in zip(parts, weights, strict=True):
            values[acts] = np.where(np.isinf(values[acts]), 0.0, values[acts])
            values[acts] += weight * obs["observation"][field]
        values[~mask] = -np.inf
        if not np.isfinite(values.max()):
            values[mask] = 0.0  # no named field scores the legal actions
        return int(ties.choice(np.flatnonzero(values >= values.max() - 1e-9)))

    credits = play_against(model, args.env, args.games, args.seed, decide, args.opponent)
    low, high = wilson_interval(float(credits.sum()), args.games)
    print(
        f"{args.env}: {' '.join(args.weights)} against {args.opponent}, {args.games} games: "
        f"{credits.mean():.3f} ({low:.3f}-{high:.3f})"
    )


if __name__ == "__main__":
    main()
