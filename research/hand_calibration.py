"""Whether the public record tells which kinds the opponent holds, in both Qwirkle games.

The heuristics' risk (``opponent_hand.py``) rests on one estimate: the chance that the next
player's hand holds a kind is that of a hand of its size drawn at random from what the player
cannot see (``next_player_chance``, hypergeometric). Read off the actual hand, the risk is
worth +0.157 against the heuristic in Qwirkle Cards and +0.083 in Qwirkle; an estimate can
only gain if the public record says more about the hand than the counts do. This script checks
the estimate against the hidden hands of games between heuristics: at the start of each of
the subject's turns (but the first), for every kind with unseen copies, the heuristic's chance
that the opponent holds one, and whether it does. Per kind it also notes what the record could
reveal. In Qwirkle Cards (``CARD_FACTS``):

- ``on table``: cards of the kind lie on the table;
- ``playable``: one card of it added to the table the opponent faced leaves a valid table, so
  the opponent could have played it and (if it holds one) chose to keep it;
- ``passed up``: the opponent passed up a one-card Qwirkle with it (``opponent_hand.passed_up``);
- ``line of 4`` / ``line of 5``: four (five) other kinds of a line through it lie on the table;
- ``just played``: more cards of it lie on the table than on the table the opponent faced.

In Qwirkle (``TILE_FACTS``):

- ``on board``: tiles of the kind lie on the board;
- ``fits``: it may be laid alone somewhere on the board the opponent faced;
- ``passed up``: laid alone on that board it completes a line of five, a Qwirkle the opponent
  did not take (``opponent_hand.qwirkles_offered``; the heuristic takes one unless another
  move is worth more);
- ``just played``: more tiles of it lie on the board than on the board the opponent faced.

It prints, per group, the mean chance, the observed frequency and the count, then the log
loss of the chance and of a logistic model over the chance's logit and those facts, fitted on
the even games and scored on the odd ones (and the other way round): a model that does much
better than the chance has found information the estimate leaves out.

``python research/hand_calibration.py qwirkle_cards_v0 --games 300`` (and ``qwirkle_v0``;
seed 12345, the feature screens' deals).
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

import numpy as np
from decisions import play_against
from opponent_hand import (
    board_left,
    card_turn_ends,
    held_kinds,
    passed_up,
    qwirkles_offered,
    table_left,
    tile_turn_ends,
)

from tabletop_rl.baselines.agents.qwirkle_cards_heuristic import QwirkleCardsHeuristicAgent
from tabletop_rl.baselines.agents.qwirkle_heuristic import QwirkleHeuristicAgent
from tabletop_rl.baselines.agents.turns import turn_model_class
from tabletop_rl.envs import make
from tabletop_rl.envs.qwirkle.board import Board
from tabletop_rl.envs.qwirkle.tiles import NUM_KINDS as NUM_TILE_KINDS
from tabletop_rl.envs.qwirkle_cards.cards import COPIES, LINE_KINDS, NUM_KINDS, NUM_LINES
from tabletop_rl.envs.qwirkle_cards.compiled_solver import is_valid_counts

CARDS = "qwirkle_cards_v0"
QWIRKLE = "qwirkle_v0"
CARD_FACTS = ("on table", "playable", "passed up", "line of 4", "line of 5", "just played")
"""The public facts about a Qwirkle Cards kind (module docstring), in the columns' order."""
TILE_FACTS = ("on board", "fits", "passed up", "just played")
"""The public facts about a Qwirkle tile kind (module docstring), in the columns' order."""
LINES_THROUGH = tuple(
    tuple(line for line in range(NUM_LINES) if k in LINE_KINDS[line]) for k in range(NUM_KINDS)
)


def kind_facts(table: tuple[int, ...], faced: tuple[int, ...] | None) -> np.ndarray:
    """The :data:`CARD_FACTS` of every kind (rows) given the table now and the table the
    opponent faced at its last turn (None when unknown: its facts are 0)."""
    passed = passed_up(faced) if faced is not None else set()
    out = np.zeros((NUM_KINDS, len(CARD_FACTS)))
    for k in range(NUM_KINDS):
        longest = max(
            sum(1 for j in LINE_KINDS[line] if j != k and table[j]) for line in LINES_THROUGH[k]
        )
        out[k, 0] = table[k] > 0
        out[k, 3] = longest == 4
        out[k, 4] = longest == 5
        if faced is not None:
            if faced[k] < COPIES:
                after = list(faced)
                after[k] += 1
                out[k, 1] = is_valid_counts(tuple(after))
            out[k, 2] = k in passed
            out[k, 5] = table[k] > faced[k]
    return out


def tile_facts(board: Board, faced: Board | None) -> np.ndarray:
    """The :data:`TILE_FACTS` of every tile kind (rows) given the board now and the board the
    opponent faced at its last turn (None when unknown: its facts are 0)."""
    out = np.zeros((NUM_TILE_KINDS, len(TILE_FACTS)))
    now = Counter(board.tiles.values())
    for k in range(NUM_TILE_KINDS):
        out[k, 0] = now[k] > 0
    if faced is not None:
        fits = 0
        for mask in faced.anchors.values():
            fits |= mask
        before = Counter(faced.tiles.values())
        offered = qwirkles_offered(faced)
        for k in range(NUM_TILE_KINDS):
            out[k, 1] = fits >> k & 1
            out[k, 2] = k in offered
            out[k, 3] = now[k] > before[k]
    return out


def facts_of(env: str, view: Any, faced: Any) -> np.ndarray:
    """The facts of every kind in ``view``, what the opponent faced being ``faced``."""
    if env == CARDS:
        return kind_facts(tuple(view.table), faced)
    return tile_facts(view.board, faced)


def faced_after(env: str, view: Any, action: int) -> Any:
    """What the opponent faces after the turn in ``view`` ends with ``action``: the table or
    the board it leaves; None when ``action`` does not end the turn."""
    if env == CARDS:
        return table_left(view, action) if card_turn_ends(action) else None
    return board_left(view, action) if tile_turn_ends(view, action) else None


def collect(env: str, games: int, seed: int) -> np.ndarray:
    """Rows ``(game, chance, holds, *facts)``: one per kind with unseen copies at each start
    of the subject's turns (but the first) in ``games`` games of the heuristic against it."""
    model = make(env, raw=True, num_players=2).model
    ties = np.random.default_rng([seed, 4])
    rows: list[list[float]] = []
    current: dict[str, Any] = {"game": -1}
    heuristic = QwirkleCardsHeuristicAgent if env == CARDS else QwirkleHeuristicAgent
    turns = turn_model_class(env)()

    def decide(state: Any, obs: dict[str, np.ndarray], view: Any) -> int:
        if current.get("state") is not state:
            current.update(state=state, game=current["game"] + 1, faced=None)
            current["agent"] = heuristic(ties)
        agent = current["agent"]
        if not turns.turn_started(view) and not view.first_turn:
            facts = facts_of(env, view, current["faced"])
            opponent = (view.player + 1) % 2
            held = held_kinds(env, model.public_view(state, opponent).hand)
            for k, unseen in enumerate(view.unseen):
                if unseen:
                    chance = agent.next_player_chance(view, [k])
                    rows.append([current["game"], chance, k in held, *facts[k]])
        action = int(agent.act(obs, view))
        faced = faced_after(env, view, action)
        if faced is not None:
            current["faced"] = faced
        return action

    play_against(model, env, games, seed, decide, "heuristic")
    return np.array(rows, dtype=float)


def features(rows: np.ndarray) -> np.ndarray:
    """The logistic model's inputs: a constant, the chance's logit, the facts."""
    chance = np.clip(rows[:, 1], 1e-6, 1 - 1e-6)
    logit = np.log(chance / (1 - chance))
    return np.column_stack([np.ones(len(rows)), logit, rows[:, 3:]])


def fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float = 1e-3) -> np.ndarray:
    """Weights of a logistic regression of ``y`` on ``x`` (Newton's method, a small ridge).

    >>> x = np.column_stack([np.ones(4000), np.linspace(-3, 3, 4000)])
    >>> y = (np.random.default_rng(0).random(4000) < 1 / (1 + np.exp(-2 * x[:, 1]))).astype(float)
    >>> bool(np.allclose(fit_logistic(x, y), [0.0, 2.0], atol=0.2))
    True
    """
    w = np.zeros(x.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-x @ w))
        hessian = (x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(len(w))
        w -= np.linalg.solve(hessian, x.T @ (p - y) + ridge * w)
    return w


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log-likelihood of outcomes ``y`` under chances ``p``."""
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def report(rows: np.ndarray, facts: tuple[str, ...]) -> list[str]:
    """The lines the script prints for ``rows`` (:func:`collect`) whose fact columns are
    ``facts``: each fact's group, and the kinds without the first split by the second."""
    chance, holds = rows[:, 1], rows[:, 2]
    groups = [("all kinds", np.ones(len(rows), dtype=bool))]
    for i, fact in enumerate(facts):
        groups.append((fact, rows[:, 3 + i] == 1))
    absent = rows[:, 3] == 0
    groups.append((f"not {facts[0]}, {facts[1]}", absent & (rows[:, 4] == 1)))
    groups.append((f"not {facts[0]}, not {facts[1]}", absent & (rows[:, 4] == 0)))
    lines = [f"{'kinds':28} {'chance':>7} {'holds':>7} {'count':>7}"]
    for name, chosen in groups:
        if chosen.any():
            lines.append(
                f"{name:28} {chance[chosen].mean():7.3f} {holds[chosen].mean():7.3f} "
                f"{int(chosen.sum()):7d}"
            )
    even = rows[:, 0] % 2 == 0
    x = features(rows)
    scored = np.zeros(len(rows))
    for train in (even, ~even):
        w = fit_logistic(x[train], holds[train])
        scored[~train] = 1 / (1 + np.exp(-x[~train] @ w))
    lines.append(
        f"log loss on held-out games: the chance {log_loss(chance, holds):.4f}, "
        f"the logistic model over it and the facts {log_loss(scored, holds):.4f}"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("env", choices=(CARDS, QWIRKLE))
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    rows = collect(args.env, args.games, args.seed)
    facts = CARD_FACTS if args.env == CARDS else TILE_FACTS
    print(f"{args.env}: the heuristic's chance that the opponent holds a kind, {args.games} games")
    print("\n".join(report(rows, facts)))


if __name__ == "__main__":
    main()
