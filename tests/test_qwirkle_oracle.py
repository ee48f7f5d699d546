"""Brute-force Qwirkle move oracle for the tests (deliberately slow and simple).

It enumerates every set of empty cells in one row or column within reach of the laid tiles
that satisfies the two geometric rules (no gap, touches the board), every set of distinct hand
tiles that share a colour or a shape, every assignment of those tiles to those cells, and asks
``Board.is_legal`` (checked on its own by the seed examples) about each.
"""

from __future__ import annotations

from itertools import combinations, permutations

from tabletop_rl.envs.qwirkle import Board

REACH = 6


def _shares_attribute(kinds: tuple[int, ...]) -> bool:
    return len({t // 6 for t in kinds}) == 1 or len({t % 6 for t in kinds}) == 1


def _cell_sets(board: Board) -> set[frozenset[tuple[int, int]]]:
    tiles = board.tiles
    r0, c0, r1, c1 = board.bounds()
    found: set[frozenset[tuple[int, int]]] = set()
    lines = [[(r, c) for c in range(c0 - REACH, c1 + REACH + 1)] for r in range(r0 - 1, r1 + 2)]
    lines += [[(r, c) for r in range(r0 - REACH, r1 + REACH + 1)] for c in range(c0 - 1, c1 + 2)]
    for line in lines:
        for start in range(len(line)):
            window = line[start : start + REACH]
            for k in range(1, len(window) + 1):
                for cells in combinations(window, k):
                    if cells[0] != window[0] or any(cell in tiles for cell in cells):
                        continue
                    span = line[line.index(cells[0]) : line.index(cells[-1]) + 1]
                    if any(cell not in tiles and cell not in cells for cell in span):
                        continue
                    if not any(
                        n in tiles
                        for r, c in cells
                        for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                    ):
                        continue
                    found.add(frozenset(cells))
    return found


def oracle_moves(board: Board, hand: list[int]) -> set[frozenset]:
    """Every legal move of ``hand`` on the non-empty ``board``, as sets of (cell, tile)."""
    kinds = sorted(set(hand))
    tile_sets: dict[int, list[tuple[int, ...]]] = {}
    for k in range(1, len(kinds) + 1):
        tile_sets[k] = [ts for ts in combinations(kinds, k) if _shares_attribute(ts)]
    moves: set[frozenset] = set()
    for cells in _cell_sets(board):
        ordered = sorted(cells)
        for ts in tile_sets.get(len(ordered), []):
            for perm in permutations(ts):
                move = [(r, c, t) for (r, c), t in zip(ordered, perm, strict=True)]
                if board.is_legal(move):
                    moves.add(frozenset(((r, c), t) for r, c, t in move))
    return moves


def test_oracle_on_a_hand_checked_position() -> None:
    from tabletop_rl.envs.qwirkle import parse_tile

    board = Board.from_text("Ro Rx")
    hand = [parse_tile("Rd"), parse_tile("Bx")]
    rd, bx = hand
    # Rd extends the red row at both ends or stands above/below either tile; Bx only
    # joins the crosses above or below Rx
    red_cells = [(0, 2), (0, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]
    expected = {frozenset({(cell, rd)}) for cell in red_cells}
    expected |= {frozenset({(cell, bx)}) for cell in [(-1, 1), (1, 1)]}
    assert oracle_moves(board, hand) == expected
