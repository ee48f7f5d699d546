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
from tabletop_rl.baselines.ppo.rollout import Decision, GameSetup, GameSlot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("env", nargs="?", default="liniell_v0")
    parser.add_argument("--games", type=int, default=15)
    args = parser.parse_args()
    slot = GameSlot(args.env, {"num_players": 2})
    teacher = make_agent("heuristic", args.env, np.random.default_rng(0))
    if not isinstance(teacher, Teacher):
        parser.error(f"the {args.env} heuristic cannot name its tied actions (no best_actions)")
    ties: list[int] = []
    for game in range(args.games):
        report = slot.reset(GameSetup(game, game + 1, ("learner", "random")))
        while isinstance(report, Decision):
            obs = {"observation": report.obs, "action_mask": report.mask}
            view = slot.model.public_view(slot.state, report.seat)
            ties.append(len(teacher.best_actions(obs, view)))
            report = slot.act(teacher.act(obs, view))
    t = np.array(ties)
    print(
        f"{args.env}: {len(t)} decisions of the heuristic; several best actions at "
        f"{(t > 1).mean():.2f} of them (mean {t.mean():.2f} best actions); "
        f"a perfect clone agrees with the sampled choice {np.mean(1 / t):.3f} of the time"
    )


if __name__ == "__main__":
    main()
