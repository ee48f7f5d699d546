"""How much of a policy's play one score of each action explains, next to its teacher's.

``python research/feature_choice.py pretrained/qwirkle_v0 place_net turn_net --games 20``
plays the game's ``heuristic`` against ``greedy`` (seats rotated)
and, at every decision of the heuristic, compares three choices:

- the heuristic's best actions (:meth:`~tabletop_rl.baselines.agents.base.Teacher.best_actions`);
- the policy's most probable action (and its whole masked distribution);
- the *value* choice: the legal actions whose entry in the named feature fields is highest.
  Each named field must score the actions of one action group (``action_group`` in the
  game's observation layout, e.g. Qwirkle's ``place_net`` every placement, ``turn_net``
  ending the turn); actions of a group no named field scores are never chosen.

It prints, per group of the game's action layout (grouped by the heuristic's choice), how
often the policy's choice is one of the heuristic's best (``teacher``), is one of the value
choice's (``value``), how often the value choice holds one of the heuristic's best
(``value meets teacher``) or only such actions (``value within teacher``), and, among the
decisions where the policy's choice is not one of the heuristic's best, how often the
heuristic's best actions together hold more of the policy's probability than its choice
(``split``: the policy prefers the teacher's move but spreads it over several actions, e.g.
the orders in which one Qwirkle turn's tiles can be laid).

A policy that plays the value choice at nearly every decision plays as the agent that
maximises that field would; whether the teacher gains anything over that agent is then a
question for the arena (the Qwirkle heuristic's weights take ``heuristic:name=value``).
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np
import torch
from decisions import play_against, policy_game

from tabletop_rl.baselines.agents import make_agent
from tabletop_rl.baselines.agents.feature_value import scoring_fields
from tabletop_rl.baselines.arena.agent_specs import resolve_agent
from tabletop_rl.baselines.ppo.distributions import MaskedCategorical

COLUMNS = ("teacher", "value", "value meets teacher", "value within teacher")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("policy", help="a training run, checkpoint file or pretrained/<env>")
    parser.add_argument("fields", nargs="+", help="feature fields that score actions")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env_name, model = policy_game(args.policy)
    groups = model.action_layout()
    parts = scoring_fields(env_name, args.fields)
    policy = resolve_agent(f"ppo:{args.policy}", env_name, np.random.default_rng(args.seed))
    teacher = make_agent("heuristic", env_name, np.random.default_rng([args.seed, 1]))
    # per group: decisions, the four COLUMNS, disagreements, splits among them
    counts: dict[str, list[int]] = defaultdict(lambda: [0] * (len(COLUMNS) + 3))

    def decide(state: object, obs: dict[str, np.ndarray], view: object) -> int:
        best = set(teacher.best_actions(obs, view))
        action = int(teacher.act(obs, view))
        mask = obs["action_mask"].astype(bool)
        values = np.full(len(mask), -np.inf)
        for field, acts in parts:
            values[acts] = obs["observation"][field]
        values[~mask] = -np.inf
        top = values.max()
        chosen = set(np.flatnonzero(values == top).tolist()) if np.isfinite(top) else set()
        with torch.no_grad():
            logits, _ = policy.net(torch.as_tensor(obs["observation"][: policy.obs_size])[None])
        probs = MaskedCategorical(logits, torch.as_tensor(mask)[None]).probs[0].numpy()
        mine = int(probs.argmax())
        c = counts[groups.field_at(action).name]
        c[0] += 1
        c[1] += mine in best
        c[2] += mine in chosen
        c[3] += bool(chosen & best)
        c[4] += bool(chosen) and chosen <= best
        if mine not in best:
            c[5] += 1
            c[6] += float(probs[sorted(best)].sum()) > float(probs[mine])
        return action

    play_against(model, env_name, args.games, args.seed, decide)
    print(
        f"{args.policy} against the {env_name} heuristic's best actions and the best by "
        f"{' + '.join(args.fields)}, {args.games} games:"
    )
    for name, (n, *shares, disagree, split) in counts.items():
        cells = ", ".join(f"{col} {k / n:.3f}" for col, k in zip(COLUMNS, shares, strict=True))
        print(f"  {name}: {n} decisions: {cells}; split {split} of {disagree} disagreements")


if __name__ == "__main__":
    main()
