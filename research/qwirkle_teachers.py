"""What else a Qwirkle teacher could add, measured against the heuristic.

The shipped Qwirkle policy copies the plan teacher (``value:place_plan=1,turn_plan=1``: the
turn of most points less what its lines of five hand on, plus 0.4 per point its kept tiles
could score next), a little past the heuristic (0.533 over 2,000 games). This script plays a
candidate for a stronger teacher against ``--opponent`` (two players, seats rotated) and prints
its win rate with the Wilson 95% interval:

- ``plan``: the plan teacher itself (for a comparison on the same deals).
- ``plan+endgame``: the plan teacher until the bag is empty. From then on the opponent's rack
  is exactly the tiles the player cannot see (two players), and the player searches three
  plies (:mod:`tabletop_rl.envs.qwirkle.endgame`): each legal move is worth its points, less
  the most points of the opponent's reply, plus the most points of the player's next move
  with the tiles it keeps (the end bonus in each when it empties a hand; a move that empties a
  hand ends the game, and with it the search). Among the opponent's replies of equal points
  the search assumes the one that leaves the player's next move the fewest. The heuristic's
  list of moves, each valued by the search, chooses the whole move.
- ``endgame``: the same search read off the observation, as a policy could copy it: the
  feature value agent on ``place_endgame`` and ``turn_endgame`` (features revision 5; the plan
  teacher's fields until the bag is empty).
- ``heuristic+follow-up``: the heuristic with 0.4 times the follow-up (what its kept tiles
  score next, :mod:`tabletop_rl.envs.qwirkle.follow_ups`) added to the value of its eight best
  moves: the plan's look-ahead on the heuristic's own valuation.

``python research/qwirkle_teachers.py plan+endgame --games 1000`` (seed 12345, the feature
screens' deals, by default). With ``--paired`` every game is seeded on its own
(``decisions.play_paired``) and a variant other than ``plan`` is played against the plan
teacher's results on the same games: the two play the same game up to the variant's first
different choice, and the script prints both win rates, the games whose result differs and
the variant's net gain in them.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
from decisions import Decide, paired_text, play_against, play_paired, win_rate_text

from tabletop_rl.baselines.agents.feature_value import FeatureValueAgent
from tabletop_rl.baselines.agents.qwirkle_heuristic import Move, QwirkleHeuristicAgent
from tabletop_rl.envs import make
from tabletop_rl.envs.qwirkle.endgame import view_endgame_points
from tabletop_rl.envs.qwirkle.follow_ups import FOLLOW_UP_WEIGHT, view_follow_up_points
from tabletop_rl.envs.qwirkle.game import END_BONUS

ENV = "qwirkle_v0"
PLAN = {"place_plan": 1.0, "turn_plan": 1.0}
"""The plan teacher's weights."""
ENDGAME = {"place_endgame": 1.0, "turn_endgame": 1.0}
"""The endgame teacher's weights."""
FOLLOWED = 8
"""How many of the heuristic's best moves ``heuristic+follow-up`` looks one move further."""


class EndgameSearch(QwirkleHeuristicAgent):
    """The heuristic's moves and sub-actions, valued by the endgame search
    (:func:`~tabletop_rl.envs.qwirkle.endgame.view_endgame_points`) once the bag is empty
    (the heuristic's own values before)."""

    def move_candidates(self, view: Any) -> list[tuple[float, Move]]:
        if view.first_turn or view.bag_size or len(view.hand_sizes) != 2:
            return super().move_candidates(view)
        size = len(view.hand)
        return [  # the scored moves' points, the end bonus added for a whole hand
            (float(view_endgame_points(view, m, p + (END_BONUS if len(m) == size else 0))), m)
            for m, p in view.scored_moves()
        ]


class FollowUpHeuristic(QwirkleHeuristicAgent):
    """The heuristic with :data:`FOLLOW_UP_WEIGHT` times the follow-up added to the value of
    its :data:`FOLLOWED` best moves."""

    def move_candidates(self, view: Any) -> list[tuple[float, Move]]:
        out = super().move_candidates(view)
        if view.first_turn:
            return out
        best = sorted(range(len(out)), key=lambda i: -out[i][0])[:FOLLOWED]
        for i in best:
            value, move = out[i]
            out[i] = (value + FOLLOW_UP_WEIGHT * view_follow_up_points(view, move), move)
        return out


def make_decide(variant: str, ties: np.random.Generator) -> Decide:
    """``variant``'s decisions over one game (fresh scripted agents), its ties drawn from
    ``ties``."""
    plan = FeatureValueAgent(ties, ENV, PLAN)
    searched = FeatureValueAgent(ties, ENV, ENDGAME)
    endgame = EndgameSearch(ties)
    heuristic = FollowUpHeuristic(ties)

    def decide(state: Any, obs: dict[str, np.ndarray], view: Any) -> int:
        if variant == "heuristic+follow-up":
            return int(heuristic.act(obs, view))
        if variant == "endgame":
            return int(searched.act(obs, view))
        if variant == "plan+endgame" and not view.bag_size and not view.first_turn:
            return int(endgame.act(obs, view))
        return int(plan.act(obs, view))

    return decide


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "variant", choices=("plan", "plan+endgame", "endgame", "heuristic+follow-up")
    )
    parser.add_argument("--opponent", default="heuristic", help="agent spec of the opponent")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument(
        "--paired",
        action="store_true",
        help="seed every game on its own and play the plan teacher on the same games too",
    )
    args = parser.parse_args()
    model = make(ENV, raw=True, num_players=2, features=True).model
    head = f"{ENV}: {args.variant} against {args.opponent}, {args.games} games"
    if args.paired:

        def paired_credits(variant: str) -> np.ndarray:
            return play_paired(
                model,
                ENV,
                args.games,
                args.seed,
                lambda ties: make_decide(variant, ties),
                args.opponent,
            )

        variant = paired_credits(args.variant)
        if args.variant == "plan":
            print(f"{head} (paired): {win_rate_text(variant)}")
            return
        plan = paired_credits("plan")
        print(
            f"{head} (paired): {win_rate_text(variant)}; the plan teacher on the same games: "
            f"{win_rate_text(plan)}; {paired_text(variant, plan)}"
        )
        return
    ties = np.random.default_rng([args.seed, 4])
    current: dict[str, Any] = {}

    def decide(state: Any, obs: dict[str, np.ndarray], view: Any) -> int:
        if current.get("state") is not state:  # a new game: fresh scripted agents
            current["state"] = state
            current["decide"] = make_decide(args.variant, ties)
        return int(current["decide"](state, obs, view))

    credits = play_against(model, ENV, args.games, args.seed, decide, args.opponent)
    print(f"{head}: {win_rate_text(credits)}")


if __name__ == "__main__":
    main()
