"""Mid-game Qwirkle positions for the tests: the reference engine after random whole turns.

Tests import this module after putting ``tests/`` on ``sys.path`` (as they do ``toy_games``).
"""

from __future__ import annotations

import numpy as np

from tabletop_rl.envs.qwirkle.game import GameState


def random_position(seed: int, turns: int) -> GameState:
    """A two-player game after ``turns`` random whole turns (placements, else exchanges,
    else passes) drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    game = GameState(2, rng)
    for _ in range(turns):
        moves = game.legal_moves()
        if game.finished:
            break
        if moves:
            game.place(moves[int(rng.integers(len(moves)))])
        elif game.max_exchange():
            game.exchange(game.hand[: game.max_exchange()])
        else:
            game.pass_turn()
    return game
