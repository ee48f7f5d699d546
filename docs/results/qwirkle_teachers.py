"""What else a Qwirkle teacher could add, measured against the heuristic.

The shipped Qwirkle policy copies the plan teacher (``value:place_plan=1,turn_plan=1``: the
turn of most points less what its lines of five hand on, plus 0.4 per point its kept tiles
could score next), a little past the heuristic (0.533 over 2,000 games). This script plays a
candidate for a stronger teacher against ``--opponent`` (two players, seats rotated) and prints
its win rate with the Wilson 95% interval:

- ``plan``: the plan teacher itself (for a comparison on the same deals).
- ``plan+endgame``: the plan teacher until the bag is empty. From then on the opponent's rack
  is exactly the tiles the player cannot see (two players), and the player searches three
  plies: each legal move is worth its points, less the most points of the opponent's reply,
  plus the most points of the player's next move with the tiles it keeps (the end bonus in
  each when it empties a hand; a move that empties a hand ends the game, and with it the
  search). Among the opponent's replies of equal points the search assumes the one that leaves
  the player's next move the fewest.
- ``heuristic+follow-up``: the heuristic with 0.4 times the follow-up (what its kept tiles
  score next, :mod:`tabletop_rl.envs.qwirkle.follow_ups`) added to the value of its eight best
  moves: the plan's look-ahead on the heuristic's own valuation.

``python docs/results/qwirkle_teachers.py plan+endgame --games 1000`` (seed 12345, the feature
screens' deals, by default). With ``--paired`` every game is seeded on its own
(``decisions.play_paired``) and a variant other than ``plan`` is played against the plan
teacher's results on the same games: the two play the same game up to the variant's first
different choice, and the script prints both win rates, the games whose result differs and
the variant's net gain in them.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np
from decisions import Decide, paired_text, play_against, play_paired, win_rate_text

from tabletop_rl.baselines.agents.feature_value import FeatureValueAgent
from tabletop_rl.baselines.agents.qwirkle_heuristic import Move, QwirkleHeuristicAgent
from tabletop_rl.envs import make
from tabletop_rl.envs.qwirkle.board import Board
from tabletop_rl.envs.qwirkle.follow_ups import FOLLOW_UP_WEIGHT, view_follow_up_points
from tabletop_rl.envs.qwirkle.game import END_BONUS
from tabletop_rl.envs.qwirkle.moves import legal_moves
from tabletop_rl.envs.qwirkle.tiles import Tile

ENV = "qwirkle_v0"
PLAN = {"place_plan": 1.0, "turn_plan": 1.0}
"""The plan teacher's weights (the shipped Qwirkle config's ``teacher``)."""
FOLLOWED = 8
"""How many of the heuristic's best moves ``heuristic+follow-up`` looks one move further."""


def move_points(board: Board, move: Move, hand_size: int) -> int:
    """Points of ``move`` on ``board``, the end bonus included when it lays the whole hand
    (the bag being empty)."""
    return board.points(move) + (END_BONUS if len(move) == hand_size else 0)


def kept_tiles(hand: Sequence[Tile], move: Move) -> list[Tile]:
    """The tiles of ``hand`` that ``move`` does not lay."""
    kept = list(hand)
    for _, _, tile in move:
        kept.remove(tile)
    return kept


def best_points(board: Board, hand: Sequence[Tile]) -> int:
    """The most points (end bonus included) of a legal move of ``hand`` on ``board``; 0 when
    none is legal."""
    return max((move_points(board, m, len(hand)) for m in legal_moves(board, hand)), default=0)


def endgame_value(board: Board, hand: Sequence[Tile], rack: Sequence[Tile], move: Move) -> int:
    """The three-ply value (module docstring) of playing ``move`` from ``hand`` on ``board``
    with the bag empty, the opponent holding ``rack``."""
    points = move_points(board, move, len(hand))
    kept = kept_tiles(hand, move)
    if not kept:
        return points  # the game ends
    after = board.copy()
    after.lay(move)
    replies = [(move_points(after, r, len(rack)), r) for r in legal_moves(after, rack)]
    if not replies:
        return points + best_points(after, kept)
    top = max(p for p, _ in replies)
    if any(len(r) == len(rack) for p, r in replies if p == top):
        return points - top  # its best reply ends the game
    nexts = []
    for p, reply in replies:
        if p == top:
            board_next = after.copy()
            board_next.lay(reply)
            nexts.append(best_points(board_next, kept))
    return points - top + min(nexts)


class EndgameSearch(QwirkleHeuristicAgent):
    """The heuristic's moves and sub-actions, valued by :func:`endgame_value` once the bag is
    empty (the heuristic's own values before)."""

    def move_candidates(self, view: Any) -> list[tuple[float, Move]]:
        if view.first_turn or view.bag_size or len(view.hand_sizes) != 2:
            return super().move_candidates(view)
        rack = [t for t, copies in enumerate(view.unseen) for _ in range(copies)]
        board = view.board
        return [
            (float(endgame_value(board, view.hand, rack, m)), m) for m, _ in view.scored_moves()
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
    endgame = EndgameSearch(ties)
    heuristic = FollowUpHeuristic(ties)

    def decide(state: Any, obs: dict[str, np.ndarray], view: Any) -> int:
        if variant == "heuristic+follow-up":
            return int(heuristic.act(obs, view))
        if variant == "plan+endgame" and not view.bag_size and not view.first_turn:
            return int(endgame.act(obs, view))
        return int(plan.act(obs, view))

    return decide


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("variant", choices=("plan", "plan+endgame", "heuristic+follow-up"))
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
