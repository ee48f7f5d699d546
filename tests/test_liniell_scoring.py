"""Liniell scoring: the seed's worked example, each scoring rule alone, and a brute-force oracle."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tabletop_rl.envs.liniell import (
    WINDOW,
    Board,
    Diamond,
    Game,
    Phase,
    PlayerScore,
    RouteKind,
    RouteScore,
    from_text,
    load_tile_set,
    score_position,
    winners,
)
from tabletop_rl.envs.liniell.board import NEIGHBOUR

# ---------------------------------------------------------------------------------------
# The seed's worked example ("Beispielwertung") on a full 4 x 4 board of the default set.
#
# All 16 tiles of the default set, each used once (its 2 crosses, 3 double curves, ...).
# Rotation k turns a tile k quarter-turns clockwise, so e.g. curve_bb:1 at (1,1) holds the
# piece E-S and two stubs, N(blue) and W(blue); straight_ee:3 at (1,2) holds the straight
# E-W and the stubs N(empty) and S(empty). Grid cells are (row, col) from the top left.
#
# Yellow (player 0):
#   line 1: (2,3) star's W(blue) - (2,2) double curve E-S - (3,2) double curve N-W -
#           (3,1) cross - (2,1) tee_blue's S(blue): 5 tiles + 2 blue + 1 closed = 8
#           (the line also holds (3,0)'s curve E-S, a dead end: only two diamonds).
#   line 2: (1,1) curve_bb's N(blue) - (0,1) curve_ee E-S - (0,2) curve_eb S-W -
#           (1,2) straight_ee's N(empty): 4 tiles + 1 blue + 1 closed = 6.
#   Total 14, 3 blue diamonds at route ends.
# Green (player 1):
#   line 3: (0,2) curve_eb's E(blue) - (0,3) tee E-S-W - (1,3) tee N-S-W -
#           (1,2) straight_ee E-W - (1,1) curve_bb E-S - (2,1) tee_blue N-E-W -
#           (2,2) double curve N-W - (1,2) straight_ee's S(empty): 8 pieces on 7 tiles,
#           (1,2) is passed twice and counted once: 7 + 1 blue + 1 closed = 9. Its third
#           diamond, (2,3) star's N(empty), gives only shorter routes.
#   line 4: (1,1) curve_bb's W(blue) - (1,0) cross - (2,0) bridge N-S - (3,0) double
#           curve N-W, running off the square at (3,0)'s W side: the line's only diamond,
#           so diamond to edge: 4 tiles + 1 blue = 5 (not closed). Its other edge routes,
#           via (0,0) to the top or out of (1,0)'s W side, are shorter.
#   Total 14, 2 blue diamonds.
# 14 : 14, and Yellow wins the tie on blue diamonds.
WORKED_EXAMPLE = """
players: 2
straight_eb:2  curve_ee:1     curve_eb:2     tee:1
cross:1        curve_bb:1     straight_ee:3  tee:2
bridge:3       tee_blue:3     double_curve:1 star:1
double_curve:3 cross:0        double_curve:3 bridge:3
pawns: 0@2,3:W 0@1,1:N 1@1,2:S 1@1,1:W
"""


def test_worked_example_uses_the_default_set_once_each() -> None:
    board = from_text(WORKED_EXAMPLE)
    ts = board.tile_set
    used = [board.cell_kind.count(k) for k in range(len(ts.kinds))]
    assert used == [k.copies for k in ts.kinds] and board.num_laid == 16


def test_worked_example_scores_14_to_14_and_yellow_wins_on_blue() -> None:
    board = from_text(WORKED_EXAMPLE)
    yellow, green = score_position(WORKED_EXAMPLE)
    assert [r.points for r in yellow.routes] == [8, 6]
    assert [(r.tiles, r.blue, r.closed) for r in yellow.routes] == [(5, 2, True), (4, 1, True)]
    assert [r.points for r in green.routes] == [9, 5]
    assert [(r.tiles, r.blue, r.closed) for r in green.routes] == [(7, 1, True), (4, 1, False)]
    assert [r.kind for r in green.routes] == [RouteKind.TWO_DIAMONDS, RouteKind.ONE_DIAMOND]
    assert (yellow.points, yellow.blue, green.points, green.blue) == (14, 3, 14, 2)
    assert winners([yellow, green]) == [0]
    line3 = green.routes[0]
    cells = [piece >> 2 for piece in line3.path]
    assert len(cells) == 8 and len(set(cells)) == 7
    twice = next(c for c in cells if cells.count(c) == 2)
    assert twice == board.cell_of(1, 2)


def test_worked_example_as_a_finished_game_decides_the_winner() -> None:
    game = Game.from_board(from_text(WORKED_EXAMPLE), [])
    assert game.phase is Phase.OVER and not game.ended_early
    assert game.winners() == [0]


# ---------------------------------------------------------------------------------------
# Each rule on a small board. A port facing an empty cell is an edge of the laid area.


def _route(text: str, player: int = 0) -> RouteScore:
    (route,) = score_position(text)[player].routes
    return route


def test_two_diamonds_take_precedence_over_a_longer_edge_route() -> None:
    # star E(empty) - cross - straight_eb W(blue) is 3 tiles; from the star's diamond down
    # through the cross, the bridge and the second cross to the edge would be 4 tiles.
    route = _route("""
    .      bridge:0 .
    star:0 cross:0  straight_eb:0
    .      bridge:0 .
    .      cross:0  .
    pawns: 0@1,1:N
    """)
    assert route.kind is RouteKind.TWO_DIAMONDS
    assert (route.tiles, route.closed, route.blue, route.points) == (3, True, 1, 5)


def test_one_diamond_scores_the_longest_route_to_the_edge() -> None:
    # star E(empty) - cross - bridge E-W, off the edge at the bridge's E side: 3 tiles.
    route = _route("star:0 cross:0 bridge:0\npawns: 0@0,1:N")
    assert route.kind is RouteKind.ONE_DIAMOND
    assert (route.tiles, route.closed, route.blue, route.points) == (3, False, 0, 3)


def test_a_blue_diamond_at_the_end_of_an_open_route_scores_one() -> None:
    # tee_blue:2 has its stub E(blue) facing the cross; the route ends at the cross's edge.
    route = _route("tee_blue:2 cross:0\npawns: 0@0,1:N")
    assert (route.kind, route.tiles, route.blue, route.points) == (RouteKind.ONE_DIAMOND, 2, 1, 3)


def test_no_diamond_scores_the_longest_edge_to_edge_route() -> None:
    route = _route("cross:0 bridge:0 cross:0\npawns: 0@0,0:N")
    assert route.kind is RouteKind.NO_DIAMOND
    assert (route.tiles, route.closed, route.blue, route.points) == (3, False, 0, 3)


def test_a_lone_piece_is_a_route_between_two_different_points() -> None:
    assert _route("cross:0\npawns: 0@0,0:N").points == 1  # edge to edge on one tile
    assert _route("tee_blue:0\npawns: 0@0,0:W").points == 2  # its diamond to its edge


def test_among_equal_lengths_the_route_worth_most_counts() -> None:
    # Three diamonds around a cross: star E(empty), tee_blue W(blue), curve_bb S(blue).
    # Every diamond-to-diamond route has 3 tiles; the blue-blue one is worth 3 + 1 + 2.
    route = _route("""
    .      curve_bb:0 .
    star:0 cross:0    tee_blue:0
    pawns: 0@1,1:N
    """)
    assert (route.tiles, route.blue, route.points) == (3, 2, 6)
    ends = {route.path[0] >> 2, route.path[-1] >> 2}
    board = from_text(".      curve_bb:0 .\nstar:0 cross:0    tee_blue:0")
    assert ends == {board.cell_of(0, 1), board.cell_of(1, 2)}


def test_a_tile_passed_twice_counts_once() -> None:
    # From the bridge's E side (an edge) along its E-W piece, round the three curves, back
    # into the bridge's N-S piece and out at its N side: 5 pieces on 4 tiles, 4 points.
    route = _route("""
    double_curve:1 bridge:0
    double_curve:0 curve_ee:3
    pawns: 0@0,1:E
    """)
    cells = [piece >> 2 for piece in route.path]
    assert route.kind is RouteKind.NO_DIAMOND
    assert len(cells) == 5 and len(set(cells)) == 4
    assert (route.tiles, route.points) == (4, 4)


def test_lines_without_a_route_of_their_kind_score_zero() -> None:
    # A closed loop of four curves: no diamond, no edge.
    loop = "double_curve:1 double_curve:0\ndouble_curve:0 curve_ee:3\npawns: 0@0,0:E"
    assert _route(loop).points == 0 and not _route(loop).found
    # The same loop opened at one point by a tee: no diamond and a single edge point.
    one_edge = "tee:1 double_curve:0\ndouble_curve:0 curve_ee:3\npawns: 0@0,0:E"
    assert _route(one_edge).kind is RouteKind.NO_DIAMOND and _route(one_edge).points == 0
    # The tee's open side meets the star's E(empty) stub: one diamond and no edge point.
    one_diamond = """
    star:0 tee:1          double_curve:0
    .      double_curve:0 curve_ee:3
    pawns: 0@0,1:E
    """
    assert _route(one_diamond).kind is RouteKind.ONE_DIAMOND
    assert _route(one_diamond).points == 0


def test_the_side_of_a_missing_tile_is_an_edge() -> None:
    # With (1,1) missing, the cross at (1,0) runs off the laid area at its E side.
    text = "cross:0 bridge:0\ncross:1 .\npawns: 0@1,0:E"
    assert _route(text).kind is RouteKind.NO_DIAMOND and _route(text).tiles == 3
    # Filling the hole with a star turns that edge into an empty diamond.
    filled = "cross:0 bridge:0\ncross:1 star:0\npawns: 0@1,0:E"
    assert _route(filled).kind is RouteKind.ONE_DIAMOND


def test_tie_break_on_blue_then_shared_win() -> None:
    def player(points: int, blue: int) -> PlayerScore:
        return PlayerScore(
            (RouteScore(RouteKind.TWO_DIAMONDS, points - blue - 1, True, blue, (0, 1)),)
        )

    assert winners([player(14, 3), player(14, 2)]) == [0]
    assert winners([player(14, 2), player(15, 0)]) == [1]
    assert winners([player(9, 1), player(9, 1), player(3, 0)]) == [0, 1]


# ---------------------------------------------------------------------------------------
# A brute-force oracle: every simple path of pieces of every line, scored by the rules'
# text, built from the tiles' geometry (flood fill, not the engine's union-find).


def _oracle(board: Board) -> dict[int, tuple[int, int, int]]:
    pieces = [
        (cell, g)
        for cell in range(WINDOW * WINDOW)
        if board.cell_orient[cell] is not None
        for g in range(len(board.cell_orient[cell].groups))
    ]

    def group(piece):
        return board.cell_orient[piece[0]].groups[piece[1]]

    def neighbours(piece):
        out, n_open = [], 0
        for p in group(piece).ports:
            nc = NEIGHBOUR[piece[0]][p]
            if nc < 0 or board.cell_orient[nc] is None:
                n_open += 1
            else:
                out.append((nc, board.cell_orient[nc].port_group[(p + 2) % 4]))
        return out, n_open

    info = {p: neighbours(p) for p in pieces}
    seen: set = set()
    result = {}
    for start in pieces:
        if start in seen:
            continue
        comp, todo = {start}, [start]
        while todo:
            for q in info[todo.pop()][0]:
                if q not in comp:
                    comp.add(q)
                    todo.append(q)
        seen |= comp
        diamonds = {p: group(p).diamond for p in comp if group(p).diamond is not None}
        paths = [(p,) for p in comp]
        frontier = list(paths)
        while frontier:
            new = []
            for path in frontier:
                for q in info[path[-1]][0]:
                    if q not in path:
                        new.append((*path, q))
            paths.extend(new)
            frontier = new
        best = (0, 0, 0)  # tiles, points, blue
        for path in paths:
            a, b = path[0], path[-1]
            tiles = len({p[0] for p in path})
            if len(diamonds) >= 2:
                if a == b or a not in diamonds or b not in diamonds:
                    continue
                blue = (diamonds[a] is Diamond.BLUE) + (diamonds[b] is Diamond.BLUE)
                value = (tiles, tiles + 1 + blue, blue)
            elif len(diamonds) == 1:
                if a not in diamonds or info[b][1] == 0:
                    continue
                blue = int(diamonds[a] is Diamond.BLUE)
                value = (tiles, tiles + blue, blue)
            else:
                if info[a][1] == 0 or info[b][1] == 0 or (a == b and info[a][1] < 2):
                    continue
                value = (tiles, tiles, 0)
            best = max(best, value)
        result[board.line(start[0] * 4 + start[1])] = best
    return result


def _random_full_board(rng: np.random.Generator) -> Board:
    ts = load_tile_set("default")
    board = Board(ts)
    for cell, kind in zip(
        itertools.product(range(4), range(4)), rng.permutation(ts.stack()), strict=True
    ):
        board.put(cell[0] * WINDOW + cell[1], int(kind), int(rng.integers(4)))
    return board


def _random_partial_board(rng: np.random.Generator) -> Board:
    game = Game.new(rng)
    stop = int(rng.integers(1, 16))
    while not game.is_over and game.board.num_laid < stop:
        if game.phase is Phase.LAY:
            placements = game.legal_placements()
            game.lay(*placements[int(rng.integers(len(placements)))])
        else:
            game.skip()
    return game.board


@pytest.mark.parametrize("seed", range(6))
def test_route_scores_match_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for i in range(40):
        board = _random_full_board(rng) if i % 2 == 0 else _random_partial_board(rng)
        expected = _oracle(board)
        assert set(expected) == set(board.lines.roots())
        for root, (tiles, points, blue) in expected.items():
            route = board.line_score(root)
            assert (route.tiles, route.points, route.blue) == (tiles, points, blue), (
                root,
                route,
            )
