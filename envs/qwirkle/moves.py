"""Complete, fast legal-move generation, and the start rule's largest sets.

Every legal move can be laid one tile at a time so that each prefix is itself a legal move
(start with a placed tile that touches the board, then grow the run it lies in; a part of a
valid line is valid and the cross lines do not change). :func:`legal_moves` walks exactly
these prefixes from every open cell, so it finds every move: moves that bridge a gap
between laid tiles, extensions to the left or upwards, tiles at both ends of a line. The
environment's action masks use the same step, :func:`extensions`.

>>> from .board import Board
>>> board = Board.from_text("Ro .. Rd\\nRc Rt Ro")
>>> moves = legal_moves(board, [parse_tile(c) for c in ("Rx", "Rs", "Bo")])
>>> len(moves)
81
>>> for m in sorted(format_move(m) for m in moves if len(m) == 2 and all(r == 0 for r, _, _ in m)):
...     print(m)
(0, -1, Rs) (0, 1, Rx)
(0, -1, Rx) (0, 1, Rs)
(0, -2, Rs) (0, -1, Rx)
(0, -2, Rx) (0, -1, Rs)
(0, 1, Rs) (0, 3, Rx)
(0, 1, Rx) (0, 3, Rs)
(0, 3, Rs) (0, 4, Rx)
(0, 3, Rx) (0, 4, Rs)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .board import Board, Cell, Move, Placement, line_fits, run_tiles
from .tiles import COLOUR_MASKS, SHAPE_MASKS, Tile, parse_tile, tile_name

__all__ = [
    "extensions",
    "first_turn_moves",
    "format_move",
    "largest_sets",
    "legal_moves",
    "parse_tile",
    "start_number",
]


def format_move(move: Iterable[Placement]) -> str:
    """A move in notation, placements sorted by cell.

    >>> format_move([(0, 1, 3), (0, 0, 0)])
    '(0, 0, Ro) (0, 1, Rs)'
    """
    return " ".join(f"({r}, {c}, {tile_name(t)})" for r, c, t in sorted(move))


def extensions(tiles: Mapping[Cell, Tile], placed: Mapping[Cell, Tile]) -> list[tuple[Cell, int]]:
    """Where one more tile may extend the legal partial move ``placed`` (non-empty).

    Returns ``(cell, mask)`` pairs: the tile kinds in ``mask`` may be placed on ``cell`` so that
    ``placed`` plus that tile is again a legal move. The cells are the ends of the run that
    holds the placed tiles (both directions while only one tile is placed); the mask keeps
    the run and the cell's cross line valid. A cell may appear twice (once per direction)
    only when a single tile is placed and it is the same cell, which cannot happen.
    """
    (r0, c0), *rest = placed
    if not rest:
        directions = ((0, 1), (1, 0))
    elif rest[0][0] == r0:
        directions = ((0, 1),)
    else:
        directions = ((1, 0),)
    out: list[tuple[Cell, int]] = []
    for dr, dc in directions:
        _, low, high = run_tiles(tiles, placed, r0, c0, dr, dc)
        for end in (low, high):
            # the end cell joins the run and whatever laid run lies beyond it
            main, _, _ = run_tiles(tiles, placed, end[0], end[1], dr, dc)
            fit = line_fits(tuple(sorted(main)))
            if fit:
                cross, _, _ = run_tiles(tiles, placed, end[0], end[1], dc, dr)
                fit &= line_fits(tuple(sorted(cross)))
            if fit:
                out.append((end, fit))
    return out


def _kinds(hand: Iterable[Tile]) -> dict[Tile, int]:
    counts: dict[Tile, int] = {}
    for t in hand:
        counts[t] = counts.get(t, 0) + 1
    return counts


def legal_moves(board: Board, hand: Sequence[Tile]) -> list[Move]:
    """Every legal move of ``hand`` on the non-empty ``board``, once each.

    Each move is a tuple of placements in an order in which every prefix is a legal move.
    Moves are distinct as sets of (cell, tile kind); two copies of a kind give one move.
    """
    if board.is_empty():
        raise ValueError("legal_moves needs a non-empty board; use first_turn_moves")
    tiles = board.tiles
    counts = _kinds(hand)
    hand_mask = 0
    for t in counts:
        hand_mask |= 1 << t
    found: dict[frozenset, Move] = {}

    def grow(placed: dict[Cell, Tile], order: list[Placement], left: dict[Tile, int]) -> None:
        for cell, fit in extensions(tiles, placed):
            fit &= hand_mask
            while fit:
                low_bit = fit & -fit
                t = low_bit.bit_length() - 1
                fit ^= low_bit
                if not left.get(t):
                    continue
                key = frozenset((*placed.items(), (cell, t)))
                if key in found:
                    continue
                step = (cell[0], cell[1], t)
                new_order = [*order, step]
                found[key] = tuple(new_order)
                placed[cell] = t
                left[t] -= 1
                grow(placed, new_order, left)
                left[t] += 1
                del placed[cell]

    for cell, fit in board.anchors.items():
        fit &= hand_mask
        while fit:
            low_bit = fit & -fit
            t = low_bit.bit_length() - 1
            fit ^= low_bit
            key = frozenset(((cell, t),))
            step = (cell[0], cell[1], t)
            found[key] = (step,)
            left = dict(counts)
            left[t] -= 1
            grow({cell: t}, [step], left)
    return list(found.values())


def start_number(hand: Iterable[Tile]) -> int:
    """Size of the largest set of distinct tiles in ``hand`` sharing a colour or a shape.

    >>> start_number(parse_tile(c) for c in "Ro Rx Rx Bo Yd Gs".split())
    2
    """
    kinds = set(hand)
    best = 0
    for group in (*COLOUR_MASKS, *SHAPE_MASKS):
        best = max(best, sum(1 for t in kinds if group >> t & 1))
    return best


def largest_sets(hand: Iterable[Tile]) -> list[frozenset[Tile]]:
    """The largest sets of distinct tiles sharing a colour or a shape (the start rule).

    >>> sorted(sorted(tile_name(t) for t in s) for s in largest_sets(
    ...     parse_tile(c) for c in "Ro Rx Bo Yd Gs Gs".split()))
    [['Bo', 'Ro'], ['Ro', 'Rx']]
    """
    kinds = set(hand)
    k = start_number(kinds)
    sets: set[frozenset[Tile]] = set()
    for group in (*COLOUR_MASKS, *SHAPE_MASKS):
        members = frozenset(t for t in kinds if group >> t & 1)
        if len(members) == k:
            sets.add(members)
    return sorted(sets, key=sorted)


def first_turn_moves(hand: Sequence[Tile], centre: Cell = (0, 0)) -> list[Move]:
    """Every start row: a largest set laid as one line through ``centre``.

    Each move starts on ``centre`` and grows outwards, so every prefix is a line of tiles
    of one largest set (the environment's masks lay it this way).

    >>> moves = first_turn_moves([parse_tile(c) for c in "Ro Rx Bs Yd Gt Pc".split()])
    >>> len(moves)  # one set of 2, 2 positions x 2 directions x 2 orders
    8
    """
    found: dict[frozenset, Move] = {}
    for tile_set in largest_sets(hand):
        k = len(tile_set)
        for dr, dc in ((0, 1), (1, 0)):
            for shift in range(k):
                cells = [
                    (centre[0] + (i - shift) * dr, centre[1] + (i - shift) * dc) for i in range(k)
                ]
                for perm in _permutations(sorted(tile_set)):
                    key = frozenset(zip(cells, perm, strict=True))
                    if key in found:
                        continue
                    # lay the centre first, then outwards to the right/down, then left/up
                    order = [shift, *range(shift + 1, k), *range(shift - 1, -1, -1)]
                    found[key] = tuple((cells[i][0], cells[i][1], perm[i]) for i in order)
    return list(found.values())


def _permutations(items: list[Tile]) -> Iterable[tuple[Tile, ...]]:
    from itertools import permutations

    return permutations(items)
