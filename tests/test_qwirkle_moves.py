"""Fast move generation against the brute-force oracle, and the start rule's moves."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_rl.envs.qwirkle import (
    Board,
    first_turn_moves,
    largest_sets,
    legal_moves,
    parse_tile,
)

sys.path.insert(0, str(Path(__file__).parent))
from qwirkle_positions import random_position
from test_qwirkle_oracle import oracle_moves


def as_sets(moves: list) -> set[frozenset]:
    return {frozenset(((r, c), t) for r, c, t in m) for m in moves}


def tiles(codes: str) -> list[int]:
    return [parse_tile(c) for c in codes.split()]


def test_generator_finds_gap_bridging_and_left_upward_extensions() -> None:
    board = Board.from_text(
        """
        .. Bx Bd Bs
        Ro Rx .. Rs
        .. .. .. ..
        """
    )
    hand = tiles("Rd Ro Gx Rt Yd")
    moves = as_sets(legal_moves(board, hand))
    assert moves == oracle_moves(board, hand)
    bridge = frozenset({((1, 2), parse_tile("Rd"))})
    bridge_and_end = frozenset({((1, 2), parse_tile("Rd")), ((1, 4), parse_tile("Rt"))})
    upwards = frozenset({((-1, 1), parse_tile("Gx"))})
    left = frozenset({((1, -1), parse_tile("Rt")), ((1, -2), parse_tile("Rd"))})
    assert {bridge, bridge_and_end, upwards, left} <= moves


def test_every_prefix_of_a_generated_move_is_legal() -> None:
    board = Board.from_text("Ro Rx .. Rs\n.. Ox .. Gs\n.. Bx Bo Bs")
    for move in legal_moves(board, tiles("Rd Rt Rc Yx Oo Od")):
        for k in range(1, len(move) + 1):
            assert board.is_legal(move[:k]), move


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), turns=st.integers(1, 14))
def test_generator_matches_brute_force(seed: int, turns: int) -> None:
    game = random_position(seed, turns)
    if game.finished:
        return
    hand = game.hand
    assert as_sets(legal_moves(game.board, hand)) == oracle_moves(game.board, hand)


def test_generator_with_a_qwirkle_hand_matches_brute_force() -> None:
    board = Board.from_text("Ro Bo .. Go\n.. Bx .. Gd\n.. Bs Ys Gs")
    hand = tiles("Yo Oo Po Rx Bo Pc")
    assert as_sets(legal_moves(board, hand)) == oracle_moves(board, hand)


def test_first_turn_moves_are_the_largest_sets_through_the_centre() -> None:
    hand = tiles("Ro Rx Rd Bo Bo Gs")
    moves = first_turn_moves(hand)
    sets = largest_sets(hand)
    assert sets == [frozenset(tiles("Ro Rx Rd"))]
    # 3 positions x 2 directions x 3! orders
    assert len(as_sets(moves)) == len(moves) == 3 * 2 * 6
    for move in moves:
        assert frozenset(t for _, _, t in move) in sets
        assert (move[0][0], move[0][1]) == (0, 0)
        for k in range(1, len(move) + 1):
            assert Board().is_legal(move[:k])
