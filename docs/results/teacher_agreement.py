"""How often a policy plays one of its teacher's best actions, by kind of decision.

``python docs/results/teacher_agreement.py pretrained/liniell_v0 --games 40`` plays the game's
``heuristic`` against ``greedy`` (seats rotated) and, at every decision of the heuristic, asks
the policy (its most probable action) and the heuristic (its best actions,
:meth:`~tabletop_rl.baselines.agents.base.Teacher.best_actions`). It prints, per group of the
game's action layout (Liniell: ``lay``, ``occupy``, ``skip``; Qwirkle: ``place``,
``end_turn``, ``exchange``, ...; grouped by the heuristic's choice), how many decisions there
were, how often the heuristic had more than one best action, and how often the policy's choice
was one of them. These are positions of the teacher's own games, not the student's: what a
perfect copy of the teacher would have to get right.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from decisions import arguments, play_against, policy_game

from tabletop_rl.baselines.agents import make_agent
from tabletop_rl.baselines.arena.agent_specs import resolve_agent


def main() -> None:
    args = arguments(__doc__.split("\n")[0], games=40)
    env_name, model = policy_game(args.policy)
    groups = model.action_layout()
    student = resolve_agent(f"ppo:{args.policy}", env_name, np.random.default_rng(args.seed))
    teacher = make_agent("heuristic", env_name, np.random.default_rng([args.seed, 1]))
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])

    def decide(state: object, obs: dict[str, np.ndarray], view: object) -> int:
        best = teacher.best_actions(obs, view)
        action = int(teacher.act(obs, view))
        c = counts[groups.field_at(action).name]
        c[0] += 1
        c[1] += len(best) > 1
        c[2] += int(student.act(obs, view)) in best
        return action

    play_against(model, env_name, args.games, args.seed, decide)
    print(f"{args.policy} against the {env_name} heuristic's best actions, {args.games} games:")
    for name, (n, several, agree) in counts.items():
        print(
            f"  {name}: {n} decisions, several best actions at {several / n:.2f}, "
            f"the policy's choice among them at {agree / n:.3f}"
        )


if __name__ == "__main__":
    main()
