"""How often a scripted teacher's choice is a coin flip: the agreement a perfect clone can reach.

``python docs/results/teacher_ties.py liniell_v0 --games 15`` plays the ``heuristic`` agent
against ``random`` and records, at every decision, how many legal actions tie for the
heuristic's best value (it breaks ties at random). A student that learned the teacher's values
exactly would still agree with its sampled choice only ``1 / ties`` of the time, so the mean of
``1 / ties`` bounds the ``teacher_agreement`` a kickstarted run can log. Only for teachers with
a ``_choose(scored)`` step (the Liniell heuristic).
"""

from __future__ import annotations

import argparse

import numpy as np

from tabletop_rl.baselines.agents import make_agent
from tabletop_rl.baselines.ppo.rollout import Decision, GameSetup, GameSlot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("env", nargs="?", default="liniell_v0")
    parser.add_argument("--games", type=int, default=15)
    args = parser.parse_args()
    slot = GameSlot(args.env, {"num_players": 2})
    teacher = make_agent("heuristic", args.env, np.random.default_rng(0))
    ties: list[int] = []
    choose = teacher._choose

    def counting(scored: list[tuple[float, int]]) -> int:
        best = max(v for v, _ in scored)
        ties.append(sum(v >= best - 1e-9 for v, _ in scored))
        return choose(scored)

    teacher._choose = counting  # type: ignore[method-assign]
    for game in range(args.games):
        report = slot.reset(GameSetup(game, game + 1, ("learner", "random")))
        while isinstance(report, Decision):
            obs = {"observation": report.obs, "action_mask": report.mask}
            report = slot.act(teacher.act(obs, slot.model.public_view(slot.state, report.seat)))
    t = np.array(ties)
    print(
        f"{args.env}: {len(t)} decisions of the heuristic; ties for the best value at "
        f"{(t > 1).mean():.2f} of them (mean {t.mean():.2f} tied actions); "
        f"a perfect clone agrees with the sampled choice {np.mean(1 / t):.3f} of the time"
    )


if __name__ == "__main__":
    main()
