"""Positions built by hand (parsers and constructors) are checked fully; each refusal is a
NotationError or ConfigError naming what is wrong."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.envs.errors import ConfigError, NotationError
from tabletop_rl.envs.liniell import Game, from_text, to_text
from tabletop_rl.envs.qwirkle.board import Board
from tabletop_rl.envs.qwirkle.game import GameState
from tabletop_rl.envs.qwirkle_cards import QwirkleCardsGame, is_valid_table, parse_cards
from tabletop_rl.envs.qwirkle_cards import from_text as cards_from_text
from tabletop_rl.envs.qwirkle_cards.cards import parse_card, parse_line
from tabletop_rl.envs.qwirkle_cards.game import QwirkleCardsState


def cards_position(**overrides: str) -> str:
    """A two-player Qwirkle Cards position (a valid table, player 0 to move) with some keys
    replaced (underscores in keys stand for spaces)."""
    fields = {
        "players": "2",
        "starter": "0",
        "to_move": "0",
        "turn": "4",
        "first_turn": "no",
        "end_rule": "finish_round",
        "max_turns": "500",
        "turns_left": "-",
        "passes": "0",
        "status": "running",
        "table": "Ro Rx Rs",
        "pile": "Bo Bx",
        "hand_0": "Rd Gc Gc",
        "hand_1": "Yd Yx",
        "qwirkles_0": "-",
        "qwirkles_1": "-",
        "played": "-",
        "taken": "-",
    }
    fields.update(overrides)
    body = "\n".join(
        f"{k.replace('_', ' ', 1) if k[0] in 'hq' else k}: {v}" for k, v in fields.items()
    )
    return "qwirkle_cards v0\n" + body + "\n"


# ---------------------------------------------------------------- Qwirkle Cards
def test_cards_position_that_loads_plays_on() -> None:
    game = QwirkleCardsGame.from_text(cards_position(played="Rd"))
    assert game.hand(0) == parse_cards("Gc Gc")
    game.end_turn()
    assert game.table() == parse_cards("Ro Rx Rs Rd")
    game.check_invariants()


def test_cards_played_from_an_empty_hand_is_refused() -> None:
    # used to load with hand(0) holding -1 Ro, and end_turn() left a hand count of -1
    with pytest.raises(NotationError, match="Ro is played but player 0 holds no Ro"):
        QwirkleCardsGame.from_text(cards_position(played="Ro"))
    with pytest.raises(NotationError, match="holds no more Gc"):
        QwirkleCardsGame.from_text(cards_position(played="Gc Gc Gc"))


def test_cards_played_that_cannot_make_a_turn_is_refused() -> None:
    with pytest.raises(NotationError, match=r"played: Gc .*cannot be part of a legal turn"):
        QwirkleCardsGame.from_text(cards_position(played="Gc"))


def test_cards_invalid_table_between_turns_is_refused() -> None:
    # used to load, and then the game had no legal turn
    with pytest.raises(NotationError, match="table: Ro Rx does not split into valid rows"):
        QwirkleCardsGame.from_text(cards_position(table="Ro Rx"))


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("turn", "-3", "turn: -3 is out of range; allowed: 0 to max_turns"),
        ("turn", "500", "reaches max_turns while the game runs"),
        ("turn", "0", "the first turn is turn 0"),
        ("passes", "2", "passes: 2 is out of range"),
        ("passes", "1", "passes: 1 with cards in the pile"),
        ("turns_left", "1", "turns_left: set while the pile holds cards"),
        ("to_move", "2", r"to_move: 2 is not a seat; allowed: 0 to 1"),
        ("hand_0", "Rd Gc Gc Bs Bs Bt Bt Pd Pd Px", "hand 0: 10 cards; a hand holds at most 9"),
        ("qwirkles_1", "R R R", "4 copies of Ro"),
        ("first_turn", "yes", "first_turn: yes needs turn 0"),
    ],
)
def test_cards_counters_and_counts_out_of_range_are_refused(
    key: str, value: str, message: str
) -> None:
    with pytest.raises(NotationError, match=message):
        QwirkleCardsGame.from_text(cards_position(**{key: value}))


def test_cards_turns_left_range_once_the_pile_is_empty() -> None:
    QwirkleCardsGame.from_text(cards_position(pile="-", turns_left="1"))
    with pytest.raises(NotationError, match="turns_left: 3 is out of range; allowed: 1 to 2"):
        QwirkleCardsGame.from_text(cards_position(pile="-", turns_left="3"))


def test_cards_first_turn_needs_the_starter_with_the_largest_set() -> None:
    first = dict(turn="0", first_turn="yes", table="-")
    QwirkleCardsGame.from_text(cards_position(hand_0="Ro Rx Rs", **first))
    with pytest.raises(NotationError, match="starter: player 0's largest set has 2 cards"):
        QwirkleCardsGame.from_text(cards_position(hand_0="Ro Rx", hand_1="Yd Yx Ys", **first))


def test_cards_constructor_checks_a_state_given_directly() -> None:
    state = cards_from_text(cards_position())
    state.played[0] = 1  # Ro, which player 0 does not hold
    with pytest.raises(ConfigError, match="Ro is played but player 0 holds no Ro"):
        QwirkleCardsGame(2, state=state)
    good = cards_from_text(cards_position())
    with pytest.raises(ConfigError, match="the position has players"):
        QwirkleCardsGame(3, state=good)
    bad_shape = QwirkleCardsState(2, [[0] * 36], [0] * 36, [], [[0] * 12] * 2, 0, 0)
    with pytest.raises(ConfigError, match="hands: expected one entry per player"):
        QwirkleCardsGame(2, state=bad_shape)
    bad_type = cards_from_text(cards_position())
    bad_type.turn_count = "4"  # type: ignore[assignment]
    with pytest.raises(ConfigError, match="turn_count: '4' is not a whole number"):
        QwirkleCardsGame(2, state=bad_type)


@pytest.mark.parametrize("parse", [cards_from_text, QwirkleCardsGame.from_text])
@pytest.mark.parametrize("value", [None, b"qwirkle_cards v0\n", 42])
def test_cards_parser_wants_text(parse, value: object) -> None:
    with pytest.raises(NotationError, match=r"a Qwirkle Cards position is text \(str\)"):
        parse(value)


@pytest.mark.parametrize("parse", [parse_cards, parse_card, parse_line])
@pytest.mark.parametrize("value", [None, 3])
def test_card_parsers_want_text(parse, value: object) -> None:
    with pytest.raises(NotationError, match=r"is text \(str\), got"):
        parse(value)


def test_is_valid_table_explains_card_names() -> None:
    with pytest.raises(NotationError, match=r"not card names.*parse_cards\('Rd Od Yd'\)"):
        is_valid_table(["Rd", "Od", "Yd"])
    with pytest.raises(NotationError, match="not card names"):
        is_valid_table("Rd Od Yd")
    assert is_valid_table(parse_cards("Rd Od Yd"))
    assert is_valid_table(np.array(parse_cards("Rd Od Yd")))


# ---------------------------------------------------------------------- Qwirkle
def test_qwirkle_hands_with_four_copies_are_refused() -> None:
    # used to fail inside the bag's construction with "list.remove(x): x not in list"
    with pytest.raises(ConfigError, match=r"more than 3 copies of Ro \(4\)"):
        GameState(2, np.random.default_rng(0), hands=[["Ro", "Ro"], ["Ro", "Ro"]])
    board = Board.from_text("Ro Rx")
    with pytest.raises(ConfigError, match=r"Ro \(4\)"):
        GameState(2, np.random.default_rng(0), hands=[["Ro", "Ro"], ["Ro"]], board=board)


def test_qwirkle_hand_sizes_are_checked() -> None:
    seven = ["Ro", "Rx", "Rd", "Rs", "Rt", "Rc", "Bo"]
    with pytest.raises(ConfigError, match="hand 0 holds 7 tiles; allowed: 1 to 6"):
        GameState(2, np.random.default_rng(0), hands=[seven, ["Bx"]])
    with pytest.raises(ConfigError, match="hand 1 holds 0 tiles"):
        GameState(2, np.random.default_rng(0), hands=[["Bx"], []])
    with pytest.raises(ConfigError, match="one hand .* per player"):
        GameState(3, np.random.default_rng(0), hands=[["Bx"], ["Bo"]])
    with pytest.raises(ConfigError, match="hand 0: 'Zz' is not a tile"):
        GameState(2, np.random.default_rng(0), hands=[["Zz"], ["Bo"]])


def test_qwirkle_position_that_loads_plays_on() -> None:
    board = Board.from_text("Ro Rx")
    game = GameState(2, np.random.default_rng(0), hands=[["Rs", "Bo"], ["Gd"]], board=board)
    assert game.tile_count()["bag"] == 108 - 5
    game.check_invariants()
    while not game.finished:
        moves = game.legal_moves()
        if moves:
            game.place(moves[0])
        elif game.max_exchange():
            game.exchange(game.hand[:1])
        else:
            game.pass_turn()
        game.check_invariants()


@pytest.mark.parametrize("copies", [4, 5, 7])
def test_qwirkle_board_with_too_many_copies_is_refused(copies: int) -> None:
    text = "\n".join(["Ro", ".."] * copies)  # lone tiles, each line valid on its own
    with pytest.raises(NotationError, match=f"the board holds {copies} Ro tiles; the game has 3"):
        Board.from_text(text)


@pytest.mark.parametrize("value", [None, b"Ro Rx", 3])
def test_qwirkle_board_parser_wants_text(value: object) -> None:
    with pytest.raises(NotationError, match=r"a Qwirkle board is text \(str\)"):
        Board.from_text(value)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- Liniell
def test_liniell_disconnected_tiles_are_refused() -> None:
    with pytest.raises(NotationError, match="not connected: the tile at 0,2 .*shares no side"):
        from_text("cross:0 . tee:0")
    with pytest.raises(NotationError, match="not connected"):
        from_text("cross:0 .\n.       tee:0")


def test_liniell_empty_grid() -> None:
    assert from_text(".").num_laid == 0  # the empty table, as to_text writes it
    with pytest.raises(NotationError, match=r"the grid holds no tile; write '\.' alone"):
        from_text(". .\n. .")
    with pytest.raises(NotationError, match="no rows of tiles"):
        from_text("players: 2")


@pytest.mark.parametrize("value", [None, b"cross:0", 1.5])
def test_liniell_parser_wants_text(value: object) -> None:
    with pytest.raises(NotationError, match=r"a Liniell position is text \(str\)"):
        from_text(value)  # type: ignore[arg-type]


def test_liniell_empty_rows_around_the_tiles_keep_every_placement() -> None:
    """Empty rows or columns around the tiles used to shift the laid area towards the
    window's edge, where some legal placements fell off the window."""
    padded = from_text(".       .\ncross:0 tee:1\n.       .")
    assert to_text(padded) == to_text(from_text("cross:0 tee:1"))
    stack = ["straight_ee", "bridge", "star", "curve_ee"]
    a = Game.from_board(padded, stack)
    b = Game.from_board(from_text("cross:0 tee:1"), stack)
    for game in (a, b):
        for _ in range(2):  # grow the laid area upwards to 3 rows: one more row fits above
            game.lay(*min(game.legal_placements()))
            game.skip()
    assert to_text(a.board) == to_text(b.board)
    top = a.board.rmin - 1
    assert any(cell // 7 == top for cell, _ in a.legal_placements())
    assert len(a.legal_placements()) == len(b.legal_placements())


def test_liniell_game_checks_the_stack_against_the_board() -> None:
    board = from_text("cross:0 cross:0")
    with pytest.raises(ConfigError, match="3 'cross' tiles in the game; tile set 'default' has 2"):
        Game.from_board(board, ["cross"])
    with pytest.raises(ConfigError, match="stack: tile kind indices"):
        Game(board, ["tee"], 0)  # type: ignore[list-item]
    with pytest.raises(ConfigError, match="player '1' is not one of 0 to 1"):
        Game(board, [], "1")  # type: ignore[arg-type]


def test_liniell_hand_built_board_is_checked_by_the_game() -> None:
    board = from_text("cross:0")
    board.put(board.cell_of(0, 0) + 2, board.tile_set.index("tee"), 0)
    with pytest.raises(ConfigError, match="not connected"):
        Game.from_board(board, ["star"])
