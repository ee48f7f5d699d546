"""Liniell rules engine: tile sets, rotation, placement rules, occupation, joins, the end."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

from tabletop_rl.envs.errors import IllegalMoveError, NotationError
from tabletop_rl.envs.liniell import (
    CENTRE_CELL,
    IN_SUPPLY,
    WINDOW,
    Diamond,
    Game,
    Occupation,
    PawnSource,
    Phase,
    Port,
    TileSetError,
    from_text,
    load_tile_set,
    parse_tile_set,
    to_text,
)

# ------------------------------------------------------------------------------ tile sets


def test_default_set_matches_the_rules_reference() -> None:
    ts = load_tile_set("default")
    table = {k.name: (k.describe(), k.copies) for k in ts.kinds}
    assert table == {
        "cross": ("NESW", 2),
        "tee": ("NES + W(empty)", 2),
        "tee_blue": ("NES + W(blue)", 1),
        "double_curve": ("NE + SW", 3),
        "bridge": ("NS + EW", 2),
        "curve_ee": ("NE + S(empty) + W(empty)", 1),
        "curve_eb": ("NE + S(empty) + W(blue)", 1),
        "curve_bb": ("NE + S(blue) + W(blue)", 1),
        "straight_ee": ("NS + E(empty) + W(empty)", 1),
        "straight_eb": ("NS + E(empty) + W(blue)", 1),
        "star": ("N(blue) + E(empty) + S(blue) + W(empty)", 1),
    }
    assert (ts.num_tiles, ts.num_diamonds, ts.num_blue) == (16, 17, 7)


def _set(*tiles: dict) -> dict:
    return {"name": "mine", "tiles": list(tiles)}


@pytest.mark.parametrize(
    ("tiles", "message"),
    [
        ([{"name": "a", "groups": ["NQ", "ES", "W(blue)"], "copies": 16}], "unknown port 'Q'"),
        ([{"name": "a", "groups": ["NE", "ES", "W(blue)"], "copies": 16}], "port E is used twice"),
        ([{"name": "a", "groups": ["NES", "W"], "copies": 16}], "stub 'W' has no diamond colour"),
        ([{"name": "a", "groups": ["NES"], "copies": 16}], "W belong to no group"),
        ([{"name": "a", "groups": ["NESW"], "copies": 15}], "has 15 tiles; a 4 x 4 square"),
        ([{"name": "a", "groups": ["NE(blue)", "SW"], "copies": 16}], "cannot end in a diamond"),
        ([{"name": "a", "groups": ["NES", "W(red)"], "copies": 16}], "unknown diamond colour"),
    ],
)
def test_tile_set_validation_names_the_problem(tiles: list, message: str) -> None:
    with pytest.raises(TileSetError, match=message):
        parse_tile_set(_set(*tiles))


def test_tile_set_by_path_and_unknown_name(tmp_path) -> None:
    path = tmp_path / "crosses.json"
    path.write_text(json.dumps(_set({"name": "x", "groups": ["NESW"], "copies": 16})))
    ts = load_tile_set(str(path))
    assert [k.name for k in ts.kinds] == ["x"]
    game = Game.new(np.random.default_rng(0), tile_set=str(path))
    assert game.board.tile_set.kinds[game.drawn].name == "x"
    with pytest.raises(TileSetError, match="neither a shipped tile set nor a file"):
        load_tile_set("no_such_set")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(TileSetError, match="not valid JSON"):
        load_tile_set(str(bad))


def test_rotation_turns_ports_clockwise() -> None:
    tee = load_tile_set("default").kinds[1]  # NES + W(empty)
    for k in range(4):
        o = tee.orient(k)
        stub = next(g for g in o.groups if g.is_stub)
        assert stub.ports == (Port((Port.W + k) % 4),) and stub.diamond is Diamond.EMPTY
        for p in Port:
            assert o.port_group[p.rotated(k)] == tee.orient(0).port_group[p]
    assert Port.N.rotated(1) is Port.E


# ----------------------------------------------------------------------------- placement


def _game(text: str, stack: list[str], current: int = 0) -> Game:
    return Game.from_board(from_text(text), stack, current)


def test_first_tile_goes_to_the_middle() -> None:
    game = Game.new(np.random.default_rng(3))
    assert {cell for cell, _ in game.legal_placements()} == {CENTRE_CELL}
    with pytest.raises(IllegalMoveError, match="first tile goes to the middle"):
        game.lay(CENTRE_CELL + 1, 0)


def test_later_tiles_share_a_side() -> None:
    game = _game("cross:0", ["tee"])
    cells = {cell for cell, _ in game.legal_placements()}
    c = game.board.cell_of(0, 0)
    assert cells == {c - WINDOW, c + 1, c + WINDOW, c - 1}
    with pytest.raises(IllegalMoveError, match="share no side"):
        game.lay(c + 2, 0)


def test_laid_area_stays_within_a_4x4_square() -> None:
    game = _game("cross:0 bridge:0 cross:0 bridge:0", ["tee"])
    cells = {cell for cell, _ in game.legal_placements()}
    left, right = game.board.cell_of(0, 0) - 1, game.board.cell_of(0, 3) + 1
    assert left not in cells and right not in cells
    assert game.board.cell_of(0, 0) + WINDOW in cells
    with pytest.raises(IllegalMoveError, match="larger than 4 x 4"):
        game.lay(right, 0)


# Lines next to the hole at (0,1): the bridge's E-W piece at (0,0) touches its W side, and
# the bridge's N-S piece at (1,1) touches its S side. The cross at (1,0) joins the other two
# pieces of the bridges into a third line.
HOLE = """
bridge:0 .
cross:0  bridge:0
pawns: {a}@0,0:E {b}@1,1:N
"""


def test_joining_lines_of_one_colour_is_forbidden() -> None:
    game = _game(HOLE.format(a=0, b=0), ["double_curve"])
    hole = game.board.cell_of(0, 1)
    rotations = sorted(k for cell, k in game.legal_placements() if cell == hole)
    # Rotations 1 and 3 (pieces E-S and N-W) keep S and W apart; 0 and 2 (N-E, S-W) join them.
    kind = game.board.tile_set.kinds[game.drawn]
    expected = [
        k
        for k in range(4)
        if kind.orient(k).port_group[Port.S] != kind.orient(k).port_group[Port.W]
    ]
    assert rotations == expected == [1, 3]
    with pytest.raises(IllegalMoveError, match="player_0's pawns"):
        game.lay(hole, 0)


def test_joining_lines_of_different_colours_forces_a_pawn_move() -> None:
    game = _game(HOLE.format(a=0, b=1), ["tee", "cross"])
    hole = game.board.cell_of(0, 1)
    assert {k for cell, k in game.legal_placements() if cell == hole} == {0, 1, 2, 3}
    game.lay(hole, 0)
    assert game.phase is Phase.MOVE
    with pytest.raises(IllegalMoveError, match="cannot be skipped"):
        game.skip()
    # The player's own pawn already on the joined line cannot be the one that moves.
    assert game.occupations() == [Occupation(Port.N, PawnSource.SUPPLY)]
    game.occupy(Occupation(Port.N, PawnSource.SUPPLY))
    board = game.board
    assert board.pawns[0].count(IN_SUPPLY) == 1  # the old pawn went back to supply
    assert board.pawns[1] == [IN_SUPPLY, IN_SUPPLY]
    (piece,) = [p for p in board.pawns[0] if p >= 0]
    assert piece >> 2 == hole
    assert game.phase is Phase.LAY and game.current == 1  # no further occupation


def test_moved_pawn_frees_its_old_line() -> None:
    text = HOLE.format(a=0, b=1).replace("pawns:", "pawns: 0@1,0:N")
    game = _game(text, ["tee", "cross"])
    hole = game.board.cell_of(0, 1)
    game.lay(hole, 0)
    # Player 0 has no pawn in supply; placed pawn 1 (on (0,0), window order) stands on the
    # joined line, so placed pawn 2, on the cross's line, must move.
    moves = game.occupations()
    assert [o.source for o in moves] == [PawnSource.PLACED_2]
    other = game.board.pawns[0][game.board.placed_slots(0)[1]]
    assert other >> 2 == game.board.cell_of(1, 0)
    old_line = game.board.line(other)
    game.occupy(moves[0])
    owners = game.board.owners()
    assert old_line not in owners  # freed
    assert owners == {game.board.line(game.board.piece(hole, Port.N)): 0}
    assert game.board.supply(0) == 1 and game.board.supply(1) == 2


def test_occupying_from_supply_or_by_moving_a_pawn() -> None:
    game = _game("cross:0 .\npawns: 0@0,0:N", ["bridge"])
    cell = game.board.cell_of(0, 0) + 1
    game.lay(cell, 0)  # bridge N-S + E-W: its W side joins the cross's (occupied) line
    options = game.occupations()
    # the N-S piece is a free line; the E-W piece belongs to the occupied cross line
    assert {o.port for o in options} == {Port.N}
    assert {o.source for o in options} == {PawnSource.SUPPLY, PawnSource.PLACED_1}
    old = game.board.line(game.board.pawns[0][0])
    game.occupy(Occupation(Port.N, PawnSource.PLACED_1))
    assert game.board.supply(0) == 2 - 1
    assert old not in game.board.owners()


def test_occupy_rejects_an_occupied_line_and_skip_ends_the_turn() -> None:
    game = _game("cross:0\npawns: 1@0,0:N", ["cross"], current=0)
    game.lay(game.board.cell_of(0, 0) + 1, 0)
    assert game.occupations() == []
    with pytest.raises(IllegalMoveError, match="not allowed now"):
        game.occupy(Occupation(Port.N, PawnSource.SUPPLY))
    game.skip()
    assert game.current == 1


# Four players around a hole: N tile's N-S piece (player 1), E tile's E-W piece (player 2),
# S tile's cross (player 3), W tile's cross (player 0). Three corner tiles connect them (as
# every laid tile shares a side with another); each meets its two neighbours with separate
# pieces, so the corners join none of the lines around the hole.
FOUR = """
players: 4
star:0  bridge:0 double_curve:1
cross:0 .        bridge:0
.       cross:0  double_curve:0
pawns: 1@0,1:N 2@1,2:E 3@2,1:N 0@1,0:W
"""


def test_two_joins_run_one_after_the_other_in_port_order() -> None:
    game = _game(FOUR, ["tee", "double_curve"])
    hole = game.board.cell_of(1, 1)
    game.lay(hole, 0)  # N-E joins players 1 and 2; S-W joins players 3 and 0
    assert [j.port for j in game.pending] == [Port.N, Port.S]
    assert game.phase is Phase.MOVE
    first = game.occupations()
    assert {o.port for o in first} == {Port.N}
    assert {o.source for o in first} == {PawnSource.SUPPLY, PawnSource.PLACED_1}
    game.occupy(Occupation(Port.N, PawnSource.SUPPLY))
    # Pawns of players 1 and 2 went home; the S-W line still holds players 3 and 0.
    assert game.board.supply(1) == 2 and game.board.supply(2) == 2
    assert game.phase is Phase.MOVE and game.current == 0
    second = game.occupations()
    assert {o.port for o in second} == {Port.S}
    # Player 0's placed pawns in window order: 1 on the W cross (on the S-W line, may not
    # move), 2 on the laid tile's N-E piece (may move).
    assert [o.source for o in second] == [PawnSource.PLACED_2]
    game.occupy(second[0])
    owners = game.board.owners()
    assert owners == {game.board.line(game.board.piece(hole, Port.S)): 0}
    assert game.board.supply(3) == 2 and game.board.supply(0) == 1
    assert game.phase is Phase.LAY or game.is_over


def test_a_later_join_with_fewer_than_two_pawns_is_skipped() -> None:
    game = _game(FOUR, ["tee", "double_curve"])
    hole = game.board.cell_of(1, 1)
    game.lay(hole, 0)
    # Move the pawn from the S-W line: that line then holds only player 3's pawn.
    game.occupy(Occupation(Port.N, PawnSource.PLACED_1))
    assert game.pending == [] and game.current == 1
    assert game.board.owners() == {
        game.board.line(game.board.piece(hole, Port.N)): 0,
        game.board.line(game.board.piece(hole, Port.S)): 3,
    }


def test_the_game_ends_at_once_when_the_drawn_tile_cannot_be_laid() -> None:
    # The worked example's board without the cross at (3,1), Yellow on two lines next to
    # the hole: a cross there would join them in every rotation.
    text = """
    straight_eb:2  curve_ee:1     curve_eb:2     tee:1
    cross:1        curve_bb:1     straight_ee:3  tee:2
    bridge:3       tee_blue:3     double_curve:1 star:1
    double_curve:3 .              double_curve:3 bridge:3
    pawns: 0@2,1:S 0@3,0:E 1@1,1:W
    """
    game = _game(text, ["cross"], current=0)
    assert game.is_over and game.ended_early
    assert game.drawn is not None and game.board.num_laid == 15
    # The hole's sides are edges now: Yellow's (3,0) line runs off at its E side.
    scores = game.scores()
    assert all(route.found for route in scores[0].routes)


def test_game_ends_after_the_sixteenth_tile_and_its_occupation() -> None:
    rng = np.random.default_rng(5)
    game = Game.new(rng)
    while game.board.num_laid < 16 and not game.is_over:
        if game.phase is Phase.LAY:
            game.lay(*game.legal_placements()[0])
        else:
            game.skip()
    if game.ended_early:
        pytest.skip("this seed ended early")
    assert game.phase is Phase.OCCUPY  # the last turn is played out
    game.skip()
    assert game.is_over and not game.ended_early and game.turn == 16


# ---------------------------------------------------------------------- notation, copies


def test_notation_round_trip_and_errors() -> None:
    text = "players: 3\ncross:1 tee:2\n.       star:0\npawns: 0@0,0:N 2@1,1:E"
    board = from_text(text)
    assert to_text(board) == text
    assert to_text(from_text(to_text(board))) == text
    with pytest.raises(NotationError, match="unknown tile kind 'crux'"):
        from_text("crux:0")
    with pytest.raises(NotationError, match="same line"):
        from_text("cross:0\npawns: 0@0,0:N 1@0,0:E")
    with pytest.raises(NotationError, match="uses 3 'cross' tiles"):
        from_text("cross cross cross")
    with pytest.raises(NotationError, match="fits in 4 x 4"):
        from_text("cross . . . cross")
    with pytest.raises(NotationError, match="stands on no tile"):
        from_text("cross .\npawns: 0@0,1:N")


def test_game_copy_and_pickle_continue_identically() -> None:
    rng = np.random.default_rng(11)
    game = Game.new(rng)
    for _ in range(9):
        if game.phase is Phase.LAY:
            game.lay(*game.legal_placements()[-1])
        else:
            options = game.occupations()
            game.occupy(options[0]) if options else game.skip()
    copies = [game.copy(), copy.deepcopy(game), pickle.loads(pickle.dumps(game))]
    for g in [game, *copies]:
        while not g.is_over:
            if g.phase is Phase.LAY:
                g.lay(*g.legal_placements()[len(g.legal_placements()) // 2])
            else:
                options = g.occupations()
                g.occupy(options[-1]) if options else g.skip()
    texts = {g.to_text() for g in [game, *copies]}
    assert len(texts) == 1
