"""Engine invariants: each game's check_invariants() names a broken invariant, and the public
conformance check's random playouts catch an engine that breaks one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tabletop_rl.envs import available_envs, env_module, make
from tabletop_rl.envs.core.conformance import (
    check_invariants,
    game_of,
    random_continuation,
    random_playout,
)
from tabletop_rl.envs.errors import InvariantError
from tabletop_rl.envs.liniell.game import Phase


def _mid_game(name: str, players: int = 2, steps: int = 12, seed: int = 1) -> Any:
    env = make(name, raw=True, engine="reference", num_players=players)
    env.reset(seed=seed)
    random_continuation(env, seed=seed, steps=steps)
    assert env.agents
    return env


@pytest.mark.parametrize("name", available_envs())
def test_every_game_declares_its_invariants(name: str) -> None:
    """The conformance check finds the hooks (a game without them would go unchecked)."""
    env = make(name, raw=True, engine="reference")
    env.reset(seed=0)
    game = game_of(env)
    assert callable(getattr(game, "check_invariants", None)), type(game)
    assert callable(getattr(game, "monotone_scores", None)), type(game)


@pytest.mark.parametrize("name", available_envs())
@pytest.mark.parametrize("players", [2, 3, 4])
def test_invariants_hold_through_random_games(name: str, players: int) -> None:
    env = make(name, raw=True, engine="reference", num_players=players)
    random_playout(env, np.random.default_rng(players), seed=players)  # checks every step
    assert len(check_invariants(env)) == (0 if name == "liniell_v0" else players)


# ------------------------------------------------------------- each invariant, broken
def _cards_lose_a_card(game: Any) -> None:
    game.state.pile.pop()


def _cards_invalid_table(game: Any) -> None:
    table, pile = game.state.table, game.state.pile
    while sum(table) > 2:  # two cards make no row; the rest go to the pile (none is lost)
        k = next(k for k in range(36) if table[k])
        table[k] -= 1
        pile.append(k)


def _cards_fifth_copy(game: Any) -> None:
    game.state.pile.extend([0, 0, 0, 0])


def _cards_score_falls(game: Any) -> None:
    game.state.qwirkles[0][0] -= 1


def _qwirkle_extra_tile(game: Any) -> None:
    game.bag.append(game.bag[0])


def _qwirkle_lose_a_tile(game: Any) -> None:
    game.bag.pop()


def _qwirkle_big_hand(game: Any) -> None:
    game.hand.extend(game.bag[-3:])
    del game.bag[-3:]


def _qwirkle_stale_anchor(game: Any) -> None:
    cell = next(iter(game.board.anchors))
    game.board._anchors[cell] ^= 1


def _liniell_two_pawns_on_a_line(game: Any) -> None:
    board = game.board
    cell = next(c for c in range(49) if board.cell_kind[c] >= 0)
    board.pawns[0][0] = board.pawns[1][0] = board.piece(cell, 0)


def _liniell_lose_a_tile(game: Any) -> None:
    game.stack.pop()


def _liniell_pawn_off_the_table(game: Any) -> None:
    empty = next(c for c in range(49) if game.board.cell_kind[c] < 0)
    game.board.pawns[0][1] = empty * 4


BREAKS: list[tuple[str, Callable[[Any], None], str]] = [
    ("qwirkle_cards_v0", _cards_lose_a_card, "card conservation broken"),
    ("qwirkle_cards_v0", _cards_invalid_table, "does not split into valid rows"),
    ("qwirkle_cards_v0", _cards_fifth_copy, "copies of Ro"),
    ("qwirkle_v0", _qwirkle_extra_tile, "tile conservation broken|more than 3 copies"),
    ("qwirkle_v0", _qwirkle_lose_a_tile, "tile conservation broken"),
    ("qwirkle_v0", _qwirkle_big_hand, "holds 9 tiles; allowed: 1 to 6"),
    ("qwirkle_v0", _qwirkle_stale_anchor, "anchor masks are out of date"),
    ("liniell_v0", _liniell_two_pawns_on_a_line, "stand on one line"),
    ("liniell_v0", _liniell_lose_a_tile, "tile conservation broken"),
    ("liniell_v0", _liniell_pawn_off_the_table, "not on a laid line"),
]


@pytest.mark.parametrize(("name", "corrupt", "message"), BREAKS)
def test_a_broken_invariant_is_named(name: str, corrupt: Callable, message: str) -> None:
    env = _mid_game(name)
    scores = check_invariants(env)
    corrupt(game_of(env))
    with pytest.raises(InvariantError, match=message):
        check_invariants(env, scores)


def test_falling_scores_are_caught() -> None:
    env = _mid_game("qwirkle_v0", steps=20)
    scores = check_invariants(env)
    assert any(scores)
    game_of(env).scores[int(np.argmax(scores))] -= 1
    with pytest.raises(InvariantError, match="a score fell"):
        check_invariants(env, scores)


def test_liniell_two_pawns_on_a_line_are_allowed_during_a_compulsory_move() -> None:
    env = make("liniell_v0", raw=True, engine="reference")
    for seed in range(200):  # find a game that reaches a compulsory move
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.agents and game_of(env).phase is not Phase.MOVE:
            a = env.agent_selection
            if env.terminations[a] or env.truncations[a]:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        if env.agents and game_of(env).phase is Phase.MOVE:
            break
    game = game_of(env)
    assert game.phase is Phase.MOVE
    check_invariants(env)  # the joined line holds two pawns: allowed now
    game.phase = Phase.OCCUPY  # ...but not outside the compulsory move
    with pytest.raises(InvariantError, match="stand on one line"):
        check_invariants(env)


# -------------------------------------------------- the conformance playout catches it
@pytest.mark.parametrize(
    ("name", "corrupt", "message"),
    [
        ("qwirkle_cards_v0", _cards_lose_a_card, "card conservation broken"),
        ("qwirkle_v0", _qwirkle_lose_a_tile, "tile conservation broken"),
        ("liniell_v0", _liniell_lose_a_tile, "tile conservation broken"),
    ],
)
def test_conformance_playout_catches_an_engine_that_breaks_an_invariant(
    name: str, corrupt: Callable, message: str
) -> None:
    base = env_module(name).raw_env

    class Leaky(base):  # type: ignore[misc, valid-type]
        """Loses material on its fifth step, as a buggy engine might."""

        def step(self, action: int | None) -> None:
            super().step(action)
            self.steps_taken = getattr(self, "steps_taken", 0) + 1
            if self.steps_taken == 5:
                corrupt(game_of(self))

    with pytest.raises(InvariantError, match=rf"seed 3, after 5 steps: .*{message}"):
        random_playout(Leaky(engine="reference"), np.random.default_rng(0), seed=3)
