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

import argparse
from collections import defaultdict

import numpy as np

from tabletop_rl.baselines.agents import make_agent
from tabletop_rl.baselines.arena.agent_specs import resolve_agent
from tabletop_rl.baselines.ppo.checkpoint import load_checkpoint
from tabletop_rl.envs import make


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("policy", help="a training run, checkpoint file or pretrained/<env>")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env_name = str(load_checkpoint(args.policy)["config"]["env"])
    env = make(env_name, raw=True, num_players=2, features=True)
    model = env.model
    groups = model.action_layout()
    student = resolve_agent(f"ppo:{args.policy}", env_name, np.random.default_rng(args.seed))
    teacher = make_agent("heuristic", env_name, np.random.default_rng([args.seed, 1]))
    opponent = make_agent("greedy", env_name, np.random.default_rng([args.seed, 2]))
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    rng = np.random.default_rng([args.seed, 3])
    for game in range(args.games):
        state = model.new_state(rng)
        teacher_seat = game % 2
        while not model.is_over(state):
            seat = model.current_player(state)
            mask = model.legal_mask(state)
            obs = {"observation": model.observe(state, seat), "action_mask": mask}
            view = model.public_view(state, seat)
            if seat != teacher_seat:
                model.step(state, int(opponent.act(obs, view)))
                continue
            best = teacher.best_actions(obs, view)
            action = int(teacher.act(obs, view))
            c = counts[groups.field_at(action).name]
            c[0] += 1
            c[1] += len(best) > 1
            c[2] += int(student.act(obs, view)) in best
            model.step(state, action)
    print(f"{args.policy} against the {env_name} heuristic's best actions, {args.games} games:")
    for name, (n, several, agree) in counts.items():
        print(
            f"  {name}: {n} decisions, several best actions at {several / n:.2f}, "
            f"the policy's choice among them at {agree / n:.3f}"
        )


if __name__ == "__main__":
    main()
