"""How strong an agent is that plays a weighted sum of feature fields: a teacher a policy can copy.

``python docs/results/feature_value_agent.py liniell_v0 lay_turn_margin=1 lay_open_ends=1.2
lay_merge_points=-5 occupy_turn_margin=1 occupy_open_ends=1.2 occupy_merge_points=-5
skip_turn_margin=1 --opponent greedy --games 400`` plays the agent spec
``value:lay_turn_margin=1,...`` (:mod:`tabletop_rl.baselines.agents.feature_value`: at each
decision the legal action whose weighted sum of the named fields is highest, ties at random)
against an agent spec (``--opponent``), seats rotated, and prints its win rate with the
Wilson 95% interval. (``tabletop-rl arena --agents value:... heuristic`` plays the same agent
on the arena's deals.)

Each named field must score the actions of one action group (``action_group`` in the game's
observation layout); actions of a group no named field scores are never chosen while another
action is legal. A policy with ``action_features: true`` adds one learned weight per such field
to its logits, so this agent is one it can copy exactly: the weights are its own.
"""

from __future__ import annotations

import argparse

import numpy as np
from decisions import play_against, win_rate_text

from tabletop_rl.baselines.agents.feature_value import FeatureValueAgent
from tabletop_rl.envs import make
from tabletop_rl.envs.errors import ConfigError


def weights_of(items: list[str]) -> dict[str, float]:
    """``["field=weight", ...]`` into ``{field: weight}``; a clear error for another form."""
    weights = {}
    for item in items:
        name, eq, value = item.partition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = None
        if not eq or not name or weight is None:
            raise ConfigError(f"bad field weight {item!r}; write FIELD=WEIGHT, e.g. lay_gain=1")
        weights[name] = weight
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("env", help="environment name, e.g. liniell_v0")
    parser.add_argument("weights", nargs="+", help="FIELD=WEIGHT for fields that score actions")
    parser.add_argument("--opponent", default="greedy", help="agent spec of the opponent")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    model = make(args.env, raw=True, num_players=2, features=True).model
    ties = np.random.default_rng([args.seed, 4])
    agent = FeatureValueAgent(ties, args.env, weights_of(args.weights))

    def decide(state: object, obs: dict[str, np.ndarray], view: object) -> int:
        return agent.act(obs, view)

    credits = play_against(model, args.env, args.games, args.seed, decide, args.opponent)
    print(
        f"{args.env}: {' '.join(args.weights)} against {args.opponent}, {args.games} games: "
        f"{win_rate_text(credits)}"
    )


if __name__ == "__main__":
    main()
