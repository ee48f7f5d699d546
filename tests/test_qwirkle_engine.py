"""Qwirkle rules engine: the seeds' worked examples on concrete boards, and every rule."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from tabletop_rl.envs import IllegalMoveError, NotationError
from tabletop_rl.envs.qwirkle import (
    Board,
    GameState,
    TurnKind,
    largest_sets,
    parse_tile,
    start_number,
)


def tiles(codes: str) -> list[int]:
    return [parse_tile(c) for c in codes.split()]


# ------------------------------------------------------------------ seed examples
# The seeds show only the lines a move scores; a board is one connected group of tiles, so
# each example's board adds tiles that join those lines without touching any line the move
# forms (column 1 and row 5 below, for instance).
def test_seed_000_twelve_is_five_plus_three_plus_four() -> None:
    board = Board.from_text(
        """
        .. .. Bd .. ..
        .. Gx Gd .. ..
        Ro Rx .. .. ..
        .. Bx .. Bs ..
        .. Ox .. Gs ..
        .. Yx Yd Ys ..
        """
    )
    move = [(2, 2, "Rd"), (2, 3, "Rs"), (2, 4, "Rt")]
    assert board.score(move) == 5 + 3 + 4 == 12
    # the third tile alone touches nothing vertically: it scores only its row
    assert board.score([(2, 2, "Rd")]) == 3 + 3


def test_seed_001_yellow_circle_scores_two_plus_two() -> None:
    board = Board.from_text(
        """
        Bx Yx
        Bo ..
        """
    )
    assert board.score([(1, 1, "Yo")]) == 2 + 2 == 4


def test_seed_001_seventeen_is_diamonds_stars_and_a_qwirkle() -> None:
    board = Board.from_text(
        """
        .. .. .. .. Bd Bs Bc ..
        .. .. .. Gc Gd .. Pc Px
        Ro Rx Rs Rc .. .. .. Ox
        .. .. .. .. .. Yt Yo Yx
        """
    )
    assert board.score([(2, 4, "Rd"), (2, 5, "Rt")]) == 3 + 2 + 12 == 17


# ------------------------------------------------------------------ placement rules
def test_gap_between_placed_tiles_is_illegal() -> None:
    board = Board.from_text("Ro Rx")
    with pytest.raises(IllegalMoveError, match="gap between placed tiles"):
        board.score([(0, 2, "Rd"), (0, 4, "Rs")])


def test_laid_tiles_may_fill_the_gap_and_a_gap_separates_lines() -> None:
    board = Board.from_text("Ro .. Rd Rs\nBo .. Yd ..\nGo Gx Gd ..")
    assert board.score([(0, 1, "Rx")]) == 4
    assert board.score([(0, 1, "Rx"), (0, 4, "Rt")]) == 5
    # two red circles may lie in one row when a gap separates them ...
    separated = Board.from_text("Ro Rx .. Ro\nPo .. .. Yo\nOo Yo Go Bo")
    # ... but closing the gap would join them into one line
    with pytest.raises(IllegalMoveError, match="line would hold two Ro"):
        separated.score([(0, 2, "Rd")])


def test_tiles_at_both_ends_of_a_line() -> None:
    board = Board.from_text("Rx Rd")
    assert board.score([(0, -1, "Ro"), (0, 2, "Rs")]) == 4
    assert board.score([(0, 2, "Rs"), (0, -1, "Ro"), (0, 3, "Rt")]) == 5


def test_invalid_cross_line() -> None:
    board = Board.from_text(
        """
        Ro Rx ..
        .. Bx Bs
        """
    )
    assert board.explain([(0, 2, "Rd")]) == "line would mix colours and shapes: Rd Bs (column 2)"
    assert board.score([(0, 2, "Rs")]) == 3 + 2


def test_double_qwirkle_earns_both_bonuses() -> None:
    board = Board.from_text(
        """
        Ro Rx Rd Rs Rt ..
        .. .. .. .. Ot Oc
        .. .. .. .. .. Yc
        .. .. .. .. .. Gc
        .. .. .. .. .. Bc
        .. .. .. .. .. Pc
        """
    )
    assert board.score([(0, 5, "Rc")]) == 12 + 12


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        ([(0, 2, "Rd"), (1, 3, "Rs")], "tiles not in one line"),
        ([(3, 3, "Rd")], "no contact with the board"),
        ([(0, 0, "Rd")], "already occupied by Ro"),
        ([(0, 2, "Rd"), (0, 2, "Rs")], "two tiles placed on the same cell"),
        ([(0, 2, "Ro")], "line would hold two Ro"),
        ([(0, 2, "Bs")], "line would mix colours and shapes"),
        ([], "at least one tile"),
    ],
)
def test_illegal_moves_name_the_broken_rule(move: list, rule: str) -> None:
    board = Board.from_text("Ro Rx")
    assert not board.is_legal(move)
    with pytest.raises(IllegalMoveError, match=rule):
        board.score(move)


def test_no_line_longer_than_six() -> None:
    board = Board.from_text("Ro Rx Rd Rs Rt Rc")
    fits = board.anchors
    assert fits[(0, -1)] == 0 and fits[(0, 6)] == 0
    assert not board.is_legal([(0, 6, "Ro")])


def test_first_tile_of_the_game_scores_one() -> None:
    assert Board().score([(5, -3, "Ro")]) == 1
    assert Board().score([(0, 0, "Ro"), (0, 1, "Bo")]) == 2


def test_text_round_trip_and_unbounded_coordinates() -> None:
    board = Board.from_text("Ro Rx\n.. Ox")
    board.place([(-1, 1, "Bx")])
    board.place([(2, 1, "Yx")])
    again = Board.from_text(board.to_text())
    shift = {(r + 1, c): t for (r, c), t in board.items()}
    assert dict(again.items()) == shift
    assert Board.from_text("\n\n  \n") == Board()
    assert Board.from_text(board.to_text().lower()).to_text() == board.to_text()


def test_bad_notation_is_a_clear_error() -> None:
    with pytest.raises(NotationError, match="row 0, column 1: 'Xx' is not a tile"):
        Board.from_text("Ro Xx")
    with pytest.raises(NotationError, match="row 0 is invalid: line would hold two Ro"):
        Board.from_text("Ro Ro")


def test_anchor_masks_match_single_placements() -> None:
    board = Board.from_text("Ro Rx ..\n.. Ox Oo")
    for cell, fit in board.anchors.items():
        for t in range(36):
            assert bool(fit >> t & 1) == board.is_legal([(*cell, t)]), (cell, t)


# ------------------------------------------------------------------ the game
def test_start_rule_highest_start_number_starts_and_lays_a_largest_set() -> None:
    hands = [tiles("Ro Ox Yd Gs Bt Pc"), tiles("Bo Bx Bd Rs Rs Yt")]
    game = GameState(2, np.random.default_rng(0), hands=hands)
    assert game.start_numbers == [1, 3] and game.start_player == 1 == game.current
    assert largest_sets(game.hand) == [frozenset(tiles("Bo Bx Bd"))]
    with pytest.raises(IllegalMoveError, match="exactly one largest set"):
        game.place([(0, 0, "Bo"), (0, 1, "Bx")])
    with pytest.raises(IllegalMoveError, match="no exchange on the first turn"):
        game.exchange(["Bo"])
    with pytest.raises(IllegalMoveError, match="centre cell"):
        game.place([(5, 0, "Bo"), (5, 1, "Bx"), (5, 2, "Bd")])
    result = game.place([(0, -1, "Bo"), (0, 0, "Bx"), (0, 1, "Bd")])
    assert result.points == 3 and game.current == 0 and not game.first_turn
    assert len(game.hands[1]) == 6


def test_start_number_counts_identical_tiles_once() -> None:
    assert start_number(tiles("Rs Rs Rs Bo Yd Gx")) == 1
    assert start_number(tiles("Rs Rs Ro Bo Yd Gx")) == 2


def test_lone_start_tile_scores_one() -> None:
    hands = [tiles("Ro Ox Yd Gs Bt Pc"), tiles("Rx Oo Yt Gc Bd Ps")]
    game = GameState(2, np.random.default_rng(3), hands=hands)
    assert game.start_numbers == [1, 1]
    assert len(game.legal_moves()) == 6
    assert game.place([(0, 0, game.hand[2])]).points == 1


def test_start_ties_are_broken_at_random() -> None:
    hands = [tiles("Ro Rx Yd Gs Bt Pc"), tiles("Bo Bx Od Ys Gt Pt")]
    starters = {
        GameState(2, np.random.default_rng(seed), hands=hands).start_player for seed in range(20)
    }
    assert starters == {0, 1}
    again = [GameState(2, np.random.default_rng(7), hands=hands).start_player for _ in range(3)]
    assert len(set(again)) == 1


def _after_start(hands: list[list[int]], bag: list[int], board: str) -> GameState:
    return GameState(
        2, np.random.default_rng(0), hands=hands, board=Board.from_text(board), bag=bag
    )


def test_exchange_draws_before_returning() -> None:
    hand = tiles("Bo Bx Bd Bs Bt Bc")
    game = _after_start([hand, tiles("Yo Yx")], tiles("Go Gx"), "Ro Rx")
    game.current = 0
    result = game.exchange(tiles("Bo Bx"))
    assert result.kind is TurnKind.EXCHANGE and result.points == 0
    # the player drew the bag's two tiles, never their own
    assert sorted(game.hands[0]) == sorted(tiles("Bd Bs Bt Bc Go Gx"))
    assert sorted(game.bag) == sorted(tiles("Bo Bx"))
    assert game.current == 1


def test_exchange_at_most_the_bag() -> None:
    game = _after_start([tiles("Bo Bx Bd"), tiles("Yo")], tiles("Go"), "Ro Rx")
    game.current = 0
    with pytest.raises(IllegalMoveError, match="cannot exchange 2 tiles: allowed 1 to 1"):
        game.exchange(tiles("Bo Bx"))
    with pytest.raises(IllegalMoveError, match="tiles not in the hand: Pc"):
        game.exchange(tiles("Pc"))


def test_end_bonus_for_emptying_the_hand() -> None:
    game = _after_start([tiles("Rd"), tiles("Yo Yx")], [], "Ro Rx")
    game.current = 0
    result = game.place([(0, 2, "Rd")])
    assert result.game_over and result.points == 3 + 6 and result.end_bonus == 6
    assert game.scores == [9, 0] and game.winners() == [0]


def test_refill_before_the_end_check() -> None:
    game = _after_start([tiles("Rd"), tiles("Yo Yx")], tiles("Pc"), "Ro Rx")
    game.current = 0
    result = game.place([(0, 2, "Rd")])
    assert not result.game_over and game.hands[0] == tiles("Pc")


def test_all_pass_ending() -> None:
    game = _after_start([tiles("Bs"), tiles("Yt")], [], "Ro Rx")
    game.current = 0
    assert game.must_pass()
    first = game.pass_turn()
    assert first.kind is TurnKind.PASS and not first.game_over
    last = game.pass_turn()
    assert last.game_over and game.scores == [0, 0] and game.winners() == [0, 1]


def test_pass_only_when_forced() -> None:
    game = _after_start([tiles("Rd"), tiles("Yt")], tiles("Go"), "Ro Rx")
    game.current = 0
    with pytest.raises(IllegalMoveError, match="passing is allowed only when"):
        game.pass_turn()
    game.current = 1
    assert not game.can_place() and game.max_exchange() == 1
    with pytest.raises(IllegalMoveError, match="passing"):
        game.pass_turn()


def test_a_pass_streak_is_broken_by_a_placement() -> None:
    game = _after_start([tiles("Bs"), tiles("Rd Yt")], [], "Ro Rx")
    game.current = 0
    game.pass_turn()
    game.place([(0, 2, "Rd")])
    assert game.consecutive_passes == 0
    assert not game.pass_turn().game_over


def test_turn_limit_truncates() -> None:
    game = GameState(2, np.random.default_rng(1), max_turns=3)
    game.place(game.legal_moves()[0])
    game.exchange(game.hand[:1])
    result = game.exchange(game.hand[:1])
    assert result.truncated and game.truncated and not game.game_over
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.exchange(game.hand[:1])


def test_dump_shows_the_whole_state() -> None:
    game = GameState(3, np.random.default_rng(2))
    game.place(game.legal_moves()[0])
    text = game.dump()
    for p in range(3):
        assert f"player {p}: score" in text
    assert "bag (" in text and "board (top-left cell is" in text and "placed" in text


def _play_random(game: GameState, rng: np.random.Generator, turns: int | None = None) -> None:
    played = 0
    while not game.finished and (turns is None or played < turns):
        moves = game.legal_moves()
        if moves and rng.random() < 0.9:
            game.place(moves[int(rng.integers(len(moves)))])
        elif game.max_exchange():
            game.exchange(game.hand[: int(rng.integers(1, game.max_exchange() + 1))])
        elif moves:
            game.place(moves[0])
        else:
            game.pass_turn()
        played += 1
        assert sum(game.tile_count().values()) == 108


def test_clone_and_pickle_continue_identically() -> None:
    game = GameState(2, np.random.default_rng(5))
    _play_random(game, np.random.default_rng(0), turns=10)
    copies = [game.clone(), pickle.loads(pickle.dumps(game))]
    for other in [game, *copies]:
        _play_random(other, np.random.default_rng(1))
    assert all(c.dump() == game.dump() for c in copies)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_and_conserve_tiles(players: int) -> None:
    for seed in range(2):
        game = GameState(players, np.random.default_rng(seed))
        _play_random(game, np.random.default_rng(seed))
        assert game.game_over
        assert game.end_bonus_player is not None or game.consecutive_passes == players


def test_resample_hidden_keeps_what_the_player_sees() -> None:
    game = GameState(3, np.random.default_rng(4))
    _play_random(game, np.random.default_rng(4), turns=6)
    before = game.clone()
    game.resample_hidden(1, np.random.default_rng(9))
    assert game.hands[1] == before.hands[1] and game.board == before.board
    assert [len(h) for h in game.hands] == [len(h) for h in before.hands]
    assert len(game.bag) == len(before.bag)
    assert (game.unseen_counts(1) == before.unseen_counts(1)).all()
    assert game.hands[0] != before.hands[0] or game.bag != before.bag


def test_resampling_depends_only_on_what_is_hidden() -> None:
    game = GameState(2, np.random.default_rng(4))
    _play_random(game, np.random.default_rng(4), turns=6)
    other = game.clone()
    other.hands[1], other.bag = (
        other.bag[: len(other.hands[1])],
        (other.hands[1] + other.bag[len(other.hands[1]) :]),
    )
    game.resample_hidden(0, np.random.default_rng(1))
    other.resample_hidden(0, np.random.default_rng(1))
    assert game.hands == other.hands and game.bag == other.bag
