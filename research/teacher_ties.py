"""How often a scripted teacher's choice is a coin flip: the agreement a perfect clone can reach.

``python research/teacher_ties.py liniell_v0 --games 15`` plays the ``heuristic`` agent
against ``random`` and records, at every decision, how many legal actions the heuristic rates
best (it breaks ties at random; in Qwirkle and Qwirkle Cards the parts of a best turn may also
come in any order). A student that learned the teacher's values
exactly would still agree with its sampled choice only ``1 / ties`` of the time, so the mean of
``1 / ties`` bounds the agreement with single sampled labels. This is why kickstarted runs are
labelled with the teacher's whole set of best actions (:func:`~tabletop_rl.baselines.agents.\
base.best_choices`), and ``teacher_agreement`` counts the learner's choice in that set. Works
for any teacher with ``best_actions`` (:class:`~tabletop_rl.baselines.agents.base.Teacher`).
"""

from __future__ import annotations

import argparse

import numpy as np

from tabletop_rl.baselines.agents import make_agent
from tabletop_rl.baselines.agents.base import Teacher
from tabletop_rl.envs import make
from tabletop_rl.envs.core.simulator import agent_view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("env", nargs="?", default="liniell_v0")
    parser.add_argument("--games", type=int, default=15)
    args = parser.parse_args()
    model = make(args.env, raw=True, num_players=2).model
    teacher = make_agent("heuristic", args.env, np.random.default_rng(0))
    if not isinstance(teacher, Teacher):
        parser.error(f"the {args.env} heuristic cannot name its tied actions (no best_actions)")
    ties: list[int] = []
    for game in range(args.games):  # the heuristic in seat 0, random in seat 1
        state = model.new_state(np.random.default_rng(game))
        opponent = make_agent("random", args.env, np.random.default_rng(game + 1))
        while not model.is_over(state):
            seat = model.current_player(state)
            mask = model.legal_mask(state)
            obs = {"observation": model.observe(state, seat), "action_mask": mask}
            if seat == 0:
                view = model.public_view(state, seat)
                ties.append(len(teacher.best_actions(obs, view)))
                model.step(state, teacher.act(obs, view))
            else:  # what an agent is handed to decide (random: no view)
                model.step(state, opponent.act(obs, agent_view(opponent, model, state, seat)))
    t = np.array(ties)
    print(
        f"{args.env}: {len(t)} decisions of the heuristic; several best actions at "
        f"{(t > 1).mean():.2f} of them (mean {t.mean():.2f} best actions); "
        f"a perfect clone agrees with the sampled choice {np.mean(1 / t):.3f} of the time"
    )


if __name__ == "__main__":
    main()
