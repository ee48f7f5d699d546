"""How sure a policy is of its choices, by kind of decision: is there anything left for PPO?

``python docs/results/policy_confidence.py pretrained/qwirkle_v0 --games 20`` plays the policy
(its most probable action, as ``evaluate`` does) against ``greedy``, seats rotated, and at
every decision of the policy reads its masked action distribution. It prints, per group of
the game's action layout (grouped by the action played), how many decisions there were, how
many had a choice at all (more than one legal action), the mean entropy of those, and how
often the most probable action had probability above 0.99 and 0.999.

Why it matters: PPO changes a decision through the gradient of the log-probability of the
sampled action, which for the action a policy already plays with probability p scales with
1 - p (and the other actions are almost never sampled). A policy whose choices nearly all sit
above 0.99 gets almost no policy gradient, whatever its advantages say.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import torch
from decisions import arguments, play_against, policy_game

from tabletop_rl.baselines.arena.agent_specs import resolve_agent
from tabletop_rl.baselines.ppo.distributions import MaskedCategorical

THRESHOLDS = (0.99, 0.999)


def main() -> None:
    args = arguments(__doc__.split("\n")[0], games=20)
    env_name, model = policy_game(args.policy)
    groups = model.action_layout()
    policy = resolve_agent(f"ppo:{args.policy}", env_name, np.random.default_rng(args.seed))
    # per group: decisions, with a choice, entropy sum, above each threshold
    counts: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0, *(0 for _ in THRESHOLDS)])

    def decide(state: object, obs: dict[str, np.ndarray], view: object) -> int:
        mask = obs["action_mask"]
        with torch.no_grad():
            logits, _ = policy.net(torch.as_tensor(obs["observation"][: policy.obs_size])[None])
        dist = MaskedCategorical(logits, torch.as_tensor(mask).bool()[None])
        action = int(dist.mode()[0])
        c = counts[groups.field_at(action).name]
        c[0] += 1
        if mask.sum() > 1:
            top = float(dist.probs[0].max())
            c[1] += 1
            c[2] += float(dist.entropy()[0])
            for k, threshold in enumerate(THRESHOLDS):
                c[3 + k] += top > threshold
        return action

    play_against(model, env_name, args.games, args.seed, decide)
    print(f"{args.policy}: its own decisions in {args.games} games against greedy")
    for name, (n, chosen, entropy, *above) in counts.items():
        if not chosen:
            print(f"  {name}: {n} decisions, none with a choice")
            continue
        sure = ", ".join(
            f"p > {t}: {a / chosen:.3f}" for t, a in zip(THRESHOLDS, above, strict=True)
        )
        print(
            f"  {name}: {n} decisions, {chosen} with a choice, mean entropy "
            f"{entropy / chosen:.3f} nats, most probable action {sure}"
        )


if __name__ == "__main__":
    main()
