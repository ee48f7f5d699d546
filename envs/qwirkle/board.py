"""The unbounded Qwirkle board: reading and writing it as text, checking and scoring moves.

Coordinates are ``(row, col)`` in the text's frame: row 0 is the text's first line, column 0
its left cell, and every other integer pair (negative ones included) is an ordinary cell. A
*move* is a sequence of placements ``(row, col, tile)`` where a tile is written in notation
(``"Rs"``) or given as a tile id.

>>> board = Board.from_text('''
... Ro Rx ..
... .. Ox ..
... ''')
>>> board.score([(0, 2, "Rd")])
3
>>> board.score([(2, 1, "Yx"), (3, 1, "Gx")])
4
>>> board.is_legal([(1, 0, "Rs")])
False
>>> board.explain([(1, 0, "Rs")])
'line would mix colours and shapes: Rs Ox (row 1)'
>>> board.place([(0, -1, "Rs")])
3
>>> print(board.to_text())
Rs Ro Rx
.. .. Ox
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache

import numpy as np

from ..core.checks import brief_repr
from ..errors import IllegalMoveError, NotationError
from ..notation import require_text
from .tiles import (
    ALL_TILES_MASK,
    COLOUR_MASKS,
    COPIES,
    NUM_COLOURS,
    NUM_SHAPES,
    NUM_TILES,
    SHAPE_MASKS,
    Tile,
    format_tiles,
    parse_tile,
    tile_name,
)

Cell = tuple[int, int]
Placement = tuple[int, int, Tile]
Move = tuple[Placement, ...]

QWIRKLE_LENGTH = 6
QWIRKLE_BONUS = 6
HORIZONTAL: Cell = (0, 1)
VERTICAL: Cell = (1, 0)


@lru_cache(maxsize=1 << 16)
def line_fits(line: tuple[Tile, ...]) -> int:
    """Mask of the tile kinds that may join ``line`` (sorted tile ids) and keep it valid.

    The empty line accepts every kind; an invalid line accepts none.

    >>> from .tiles import parse_tile, format_tiles
    >>> fits = line_fits(tuple(sorted(parse_tile(c) for c in ("Ro", "Rx"))))
    >>> format_tiles(t for t in range(36) if fits >> t & 1)
    'Rd Rs Rt Rc'
    """
    if not line:
        return ALL_TILES_MASK
    present = 0
    for t in line:
        bit = 1 << t
        if present & bit:
            return 0
        present |= bit
    colour = line[0] // 6
    shape = line[0] % 6
    fits = 0
    if all(t // 6 == colour for t in line):
        fits |= COLOUR_MASKS[colour]
    if all(t % 6 == shape for t in line):
        fits |= SHAPE_MASKS[shape]
    return fits & ~present


def line_problem(line: Sequence[Tile]) -> str | None:
    """Why the tiles ``line`` cannot form one line, or ``None`` if they can.

    >>> line_problem([3, 3])
    'line would hold two Rs'
    >>> line_problem([0, 7])
    'line would mix colours and shapes: Ro Ox'
    """
    seen: set[Tile] = set()
    for t in line:
        if t in seen:
            return f"line would hold two {tile_name(t)}"
        seen.add(t)
    if len({t // 6 for t in line}) > 1 and len({t % 6 for t in line}) > 1:
        return f"line would mix colours and shapes: {format_tiles(line)}"
    return None


def _coordinate(value: object, what: str, where: object) -> int:
    """``value`` as a row or column number: an int (Python or numpy, not a bool)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise NotationError(
            f"{what} {brief_repr(value)} of {brief_repr(where)} is not allowed; rows and "
            "columns are whole numbers (int)"
        )
    return int(value)


def normalise_move(move: Iterable[Sequence]) -> Move:
    """A move as a tuple of ``(row, col, tile id)`` (tile codes parsed); a
    :class:`NotationError` names a placement that is not ``(int, int, tile)``.

    >>> normalise_move([(0, 2, "Rs"), (0, 3, 9)])
    ((0, 2, 3), (0, 3, 9))
    >>> normalise_move([("a", 2, "Rx")])
    Traceback (most recent call last):
    ...
    tabletop_rl.envs.errors.NotationError: row 'a' of ('a', 2, 'Rx') is not allowed; rows ...
    """
    if isinstance(move, str | bytes) or not isinstance(move, Iterable):
        raise NotationError(
            f"a move is a list of placements (row, col, tile), got {type(move).__name__}"
        )
    out = []
    for item in move:
        if isinstance(item, str | bytes) or not isinstance(item, Sequence) or len(item) != 3:
            raise NotationError(f"a placement is (row, col, tile), got {brief_repr(item)}")
        r, c, t = item
        out.append((_coordinate(r, "row", item), _coordinate(c, "column", item), parse_tile(t)))
    return tuple(out)


def run_tiles(
    tiles: Mapping[Cell, Tile], placed: Mapping[Cell, Tile], r: int, c: int, dr: int, dc: int
) -> tuple[list[Tile], Cell, Cell]:
    """The tiles of the run through ``(r, c)`` along ``(dr, dc)`` on ``tiles`` plus ``placed``.

    Returns the run's tiles ((r, c) included if occupied) and the empty cells just past its two
    ends. ``(r, c)`` itself is treated as occupied.
    """
    line: list[Tile] = []
    if (r, c) in placed:
        line.append(placed[(r, c)])
    elif (r, c) in tiles:
        line.append(tiles[(r, c)])
    rr, cc = r - dr, c - dc
    while True:
        if (rr, cc) in placed:
            line.append(placed[(rr, cc)])
        elif (rr, cc) in tiles:
            line.append(tiles[(rr, cc)])
        else:
            break
        rr -= dr
        cc -= dc
    low = (rr, cc)
    rr, cc = r + dr, c + dc
    while True:
        if (rr, cc) in placed:
            line.append(placed[(rr, cc)])
        elif (rr, cc) in tiles:
            line.append(tiles[(rr, cc)])
        else:
            break
        rr += dr
        cc += dc
    return line, low, (rr, cc)


def fits_alone(
    tiles: Mapping[Cell, Tile], placed: Mapping[Cell, Tile], cell: Cell, kind: Tile
) -> bool:
    """Whether ``kind`` may be laid alone on the empty ``cell`` of ``tiles`` plus ``placed``
    (its row and its column stay valid lines)."""
    return all(
        line_fits(tuple(sorted(run_tiles(tiles, placed, *cell, dr, dc)[0]))) >> kind & 1
        for dr, dc in ((0, 1), (1, 0))
    )


def missing_tiles(line: Sequence[Tile]) -> list[Tile]:
    """The tile kinds that complete a valid line of two or more tiles to six.

    >>> from .tiles import format_tiles, parse_tile
    >>> format_tiles(missing_tiles([parse_tile(c) for c in "Ro Rx Rd Rs Rt".split()]))
    'Rc'
    >>> format_tiles(missing_tiles([parse_tile(c) for c in "Ro Oo Yo Po".split()]))
    'Go Bo'
    """
    colours = {t // NUM_SHAPES for t in line}
    if len(colours) == 1:
        (colour,) = colours
        return [
            colour * NUM_SHAPES + s
            for s in sorted(set(range(NUM_SHAPES)) - {t % NUM_SHAPES for t in line})
        ]
    (shape,) = {t % NUM_SHAPES for t in line}
    return [c * NUM_SHAPES + shape for c in sorted(set(range(NUM_COLOURS)) - colours)]


def _connection_problem(tiles: Mapping[Cell, Tile]) -> str | None:
    """Why ``tiles`` are not one connected group (None if they are): every move touches a tile
    already laid, so the tiles of a board always are.

    >>> _connection_problem({(0, 0): 0, (0, 2): 1})
    'the tiles are not connected: the tile at (0, 2) shares no side with the tile at (0, 0)...'
    """
    if not tiles:
        return None
    first = next(iter(tiles))
    seen = {first}
    todo = [first]
    while todo:
        r, c = todo.pop()
        for cell in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if cell in tiles and cell not in seen:
                seen.add(cell)
                todo.append(cell)
    if len(seen) == len(tiles):
        return None
    away = next(cell for cell in tiles if cell not in seen)
    return (
        f"the tiles are not connected: the tile at {away} shares no side with the tile at "
        f"{first}, directly or through other tiles; a board is one connected group, as every "
        "move touches a tile already laid"
    )


class Board:
    """An unbounded board of tiles, with the mask of fitting tiles kept for every open cell.

    ``anchors`` maps every empty cell next to a tile to the mask of tile kinds that may be
    placed there alone (both lines through it stay valid); it is updated incrementally by
    :meth:`place`, which makes move generation fast.
    """

    __slots__ = ("_anchors", "_bounds", "_tiles")

    def __init__(self, tiles: Mapping[Cell, Tile | str] | None = None) -> None:
        self._tiles: dict[Cell, Tile] = {}
        self._anchors: dict[Cell, int] = {}
        self._bounds: tuple[int, int, int, int] | None = None
        if tiles is not None and not isinstance(tiles, Mapping):
            raise NotationError(
                f"tiles: a mapping {{(row, col): tile}}, got {type(tiles).__name__}; "
                "Board.from_text reads a board written as text"
            )
        if tiles:
            if len(tiles) > NUM_TILES:
                raise NotationError(
                    f"the board holds {len(tiles)} tiles; the game has {NUM_TILES} in all"
                )
            for cell, t in tiles.items():
                if not isinstance(cell, tuple) or len(cell) != 2:
                    raise NotationError(f"a board cell is (row, col), got {brief_repr(cell)}")
                r = _coordinate(cell[0], "row", cell)
                self._tiles[(r, _coordinate(cell[1], "column", cell))] = parse_tile(t)
            if problem := self._tiles_problem():
                raise NotationError(problem)
            rows = [r for r, _ in self._tiles]
            cols = [c for _, c in self._tiles]
            self._bounds = (min(rows), min(cols), max(rows), max(cols))
            for r, c in self._tiles:
                self._refresh(((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)))

    # ----------------------------------------------------------------- text
    @classmethod
    def from_text(cls, text: str) -> Board:
        """Read a board written one row per line, cells separated by spaces, ``..`` empty.

        >>> Board.from_text("").is_empty()
        True
        >>> Board.from_text("Ro .. Rs\\nRx Rd Rt")
        Board.from_text('Ro .. Rs\\nRx Rd Rt')

        The board must be possible: every row the same number of cells, every row and column
        a valid line, at most 3 tiles of a kind, the tiles one connected group (a
        :class:`NotationError` names the problem).
        """
        lines = require_text(text, "a Qwirkle board").split("\n")
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        tiles: dict[Cell, Tile] = {}
        rows = [line.split() for line in lines]
        for r, row in enumerate(rows):
            if len(row) != len(rows[0]):
                raise NotationError(
                    f"row {r} has {len(row)} cells but row 0 has {len(rows[0])}; every row has "
                    "the same number of cells ('..' for an empty one)"
                )
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                if cell == "..":
                    continue
                try:
                    tiles[(r, c)] = parse_tile(cell)
                except NotationError as exc:
                    raise NotationError(f"row {r}, column {c}: {exc}") from None
        return cls(tiles)

    def to_text(self) -> str:
        """The board's bounding box as text (reading it back gives the board up to a shift)."""
        if not self._tiles:
            return ""
        r0, c0, r1, c1 = self.bounds()
        rows = []
        for r in range(r0, r1 + 1):
            row = [
                tile_name(self._tiles[(r, c)]) if (r, c) in self._tiles else ".."
                for c in range(c0, c1 + 1)
            ]
            rows.append(" ".join(row))
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Board.from_text({self.to_text()!r})"

    # ------------------------------------------------------------ accessors
    def bounds(self) -> tuple[int, int, int, int]:
        """``(min_row, min_col, max_row, max_col)`` of the tiles (raises on an empty board)."""
        if self._bounds is None:
            raise ValueError("an empty board has no bounds")
        return self._bounds

    def is_empty(self) -> bool:
        return not self._tiles

    def __len__(self) -> int:
        return len(self._tiles)

    def __contains__(self, cell: object) -> bool:
        return cell in self._tiles

    def __getitem__(self, cell: Cell) -> Tile:
        return self._tiles[cell]

    def get(self, cell: Cell) -> Tile | None:
        return self._tiles.get(cell)

    def items(self) -> Iterator[tuple[Cell, Tile]]:
        return iter(self._tiles.items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self._tiles == other._tiles

    __hash__ = None  # type: ignore[assignment]

    @property
    def tiles(self) -> Mapping[Cell, Tile]:
        """Cell -> tile id (read-only by convention)."""
        return self._tiles

    @property
    def anchors(self) -> Mapping[Cell, int]:
        """Open cell -> mask of the tile kinds that may be placed there alone."""
        return self._anchors

    def copy(self) -> Board:
        new = Board.__new__(Board)
        new._tiles = dict(self._tiles)
        new._anchors = dict(self._anchors)
        new._bounds = self._bounds
        return new

    # ---------------------------------------------------------------- rules
    def _tiles_problem(self) -> str | None:
        """Why these tiles cannot lie on a board (None if they can): an invalid row or
        column, or more than 3 tiles of a kind. Each run of tiles is checked once."""
        tiles = self._tiles
        for (r, c), _ in tiles.items():
            for dr, dc, what in ((0, 1, "row"), (1, 0, "column")):
                if (r - dr, c - dc) in tiles:
                    continue  # not the first tile of its run
                line = []
                rr, cc = r, c
                while (t := tiles.get((rr, cc))) is not None:
                    line.append(t)
                    rr += dr
                    cc += dc
                if len(line) > 1 and (problem := line_problem(line)):
                    where = r if what == "row" else c
                    return f"the board's {what} {where} is invalid: {problem}"
        over = [(t, n) for t, n in Counter(tiles.values()).items() if n > COPIES]
        if over:
            t, n = over[0]
            return f"the board holds {n} {tile_name(t)} tiles; the game has {COPIES} of each kind"
        return _connection_problem(tiles)

    def problem(self) -> str | None:
        """What is wrong with this board (None: nothing): its tiles (see
        :meth:`_tiles_problem`) or its bookkeeping, the anchor masks of the open cells and the
        bounds, compared with a fresh computation. For invariant checks."""
        if problem := self._tiles_problem():
            return problem
        tiles = self._tiles
        frontier = {
            n
            for r, c in tiles
            for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if n not in tiles
        }
        if set(self._anchors) != frontier:
            wrong = sorted(set(self._anchors) ^ frontier)[:3]
            return f"the anchors (open cells next to a tile) are out of date at {wrong}"
        stale = [cell for cell in frontier if self._anchors[cell] != self.fits(cell)]
        if stale:
            return f"the anchor masks are out of date at {sorted(stale)[:3]}"
        if tiles:
            rows, cols = [r for r, _ in tiles], [c for _, c in tiles]
            if self._bounds != (min(rows), min(cols), max(rows), max(cols)):
                return f"the bounds {self._bounds} do not match the tiles"
        return None

    def fits(self, cell: Cell) -> int:
        """Mask of the tile kinds that may be placed alone on the empty ``cell``."""
        get = self._tiles.get
        r, c = cell
        line = []
        cc = c - 1
        while (t := get((r, cc))) is not None:
            line.append(t)
            cc -= 1
        cc = c + 1
        while (t := get((r, cc))) is not None:
            line.append(t)
            cc += 1
        fit = line_fits(tuple(sorted(line))) if line else ALL_TILES_MASK
        if fit:
            line = []
            rr = r - 1
            while (t := get((rr, c))) is not None:
                line.append(t)
                rr -= 1
            rr = r + 1
            while (t := get((rr, c))) is not None:
                line.append(t)
                rr += 1
            if line:
                fit &= line_fits(tuple(sorted(line)))
        return fit

    def _refresh(self, cells: Iterable[Cell]) -> None:
        tiles = self._tiles
        for cell in cells:
            if cell not in tiles:
                self._anchors[cell] = self.fits(cell)

    def evaluate(self, move: Iterable[Sequence]) -> int:
        """The points ``move`` scores; raises :class:`IllegalMoveError` naming a broken rule.

        On an empty board any valid line may be laid (the game's start rule is checked by
        the game, not the board), and a lone tile scores 1.
        """
        placements = normalise_move(move)
        if not placements:
            raise IllegalMoveError("a move places at least one tile")
        if len(placements) > QWIRKLE_LENGTH:
            raise IllegalMoveError(
                f"a move places at most {QWIRKLE_LENGTH} tiles (they form one line), got "
                f"{len(placements)}"
            )
        tiles = self._tiles
        placed: dict[Cell, Tile] = {}
        for r, c, t in placements:
            if (r, c) in placed:
                raise IllegalMoveError(f"two tiles placed on the same cell ({r}, {c})")
            if (r, c) in tiles:
                raise IllegalMoveError(
                    f"cell ({r}, {c}) is already occupied by {tile_name(tiles[(r, c)])}"
                )
            placed[(r, c)] = t
        rows = {r for r, _, _ in placements}
        cols = {c for _, c, _ in placements}
        if len(rows) > 1 and len(cols) > 1:
            raise IllegalMoveError(
                "tiles not in one line: all tiles of a move share a row or a column"
            )
        if len(placements) > 1:
            # walked lazily: the first empty cell ends the walk, so far-apart placements cost
            # no more than the tiles between them
            if len(rows) == 1:
                (r,) = rows
                gaps: Iterator[Cell] = ((r, c) for c in range(min(cols), max(cols) + 1))
            else:
                (c,) = cols
                gaps = ((r, c) for r in range(min(rows), max(rows) + 1))
            for cell in gaps:
                if cell not in placed and cell not in tiles:
                    raise IllegalMoveError(
                        f"gap between placed tiles: cell {cell} between them is empty"
                    )
        if tiles and not any(
            n in tiles for r, c in placed for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        ):
            raise IllegalMoveError(
                "no contact with the board: a placed tile must touch a laid tile"
            )
        return self._score_checked(placed)

    def _score_checked(self, placed: Mapping[Cell, Tile]) -> int:
        """Check every line through a placed tile and return the move's points."""
        tiles = self._tiles
        seen: set[tuple[Cell, Cell]] = set()
        points = 0
        for r, c in placed:
            for dr, dc, what in ((0, 1, "row"), (1, 0, "column")):
                line, low, high = run_tiles(tiles, placed, r, c, dr, dc)
                if len(line) < 2 or (low, high) in seen:
                    continue
                seen.add((low, high))
                problem = line_problem(line)
                if problem:
                    where = r if what == "row" else c
                    raise IllegalMoveError(f"{problem} ({what} {where})")
                points += len(line)
                if len(line) == QWIRKLE_LENGTH:
                    points += QWIRKLE_BONUS
        if not seen:
            # only possible for a lone tile on the empty board: the first tile scores 1
            points = 1
        return points

    def points(self, move: Iterable[Placement]) -> int:
        """Points of a move already known to be legal (placements as tile ids), fast.

        >>> Board.from_text("Ro Rx").points([(0, 2, 2), (0, 3, 3)])
        4
        """
        tiles = self._tiles
        placed = {(r, c): t for r, c, t in move}
        seen: set[tuple[int, int, int]] = set()
        total = 0
        for r, c in placed:
            for dr, dc in ((0, 1), (1, 0)):
                rr, cc = r - dr, c - dc
                while (rr, cc) in placed or (rr, cc) in tiles:
                    rr -= dr
                    cc -= dc
                key = (dr, rr, cc)
                if key in seen:
                    continue
                seen.add(key)
                n = 0
                rr += dr
                cc += dc
                while (rr, cc) in placed or (rr, cc) in tiles:
                    n += 1
                    rr += dr
                    cc += dc
                if n >= 2:
                    total += n + (QWIRKLE_BONUS if n == QWIRKLE_LENGTH else 0)
        return total if total else 1

    def explain(self, move: Iterable[Sequence]) -> str | None:
        """The broken rule's message, or ``None`` if ``move`` is legal."""
        try:
            self.evaluate(move)
        except IllegalMoveError as exc:
            return str(exc)
        return None

    def is_legal(self, move: Iterable[Sequence]) -> bool:
        """Whether ``move`` may be placed on this board."""
        return self.explain(move) is None

    def score(self, move: Iterable[Sequence]) -> int:
        """Points ``move`` would score (Qwirkle bonuses included); raises if it is illegal."""
        return self.evaluate(move)

    def place(self, move: Iterable[Sequence]) -> int:
        """Check, score and lay ``move``; return its points."""
        placements = normalise_move(move)
        points = self.evaluate(placements)
        self.lay(placements)
        return points

    def lay(self, placements: Iterable[Placement]) -> set[Cell]:
        """Put already-checked placements on the board and update the anchors.

        Returns the cells whose anchor entry changed (the placed cells and the open cells
        at the ends of the lines through them).
        """
        tiles = self._tiles
        anchors = self._anchors
        placed = [(r, c) for r, c, _ in placements]
        r0, c0, r1, c1 = self._bounds or (placed[0][0], placed[0][1], placed[0][0], placed[0][1])
        for r, c, t in placements:
            tiles[(r, c)] = t
            anchors.pop((r, c), None)
            r0, c0, r1, c1 = min(r0, r), min(c0, c), max(r1, r), max(c1, c)
        self._bounds = (r0, c0, r1, c1)
        touched: set[Cell] = set()
        for r, c in placed:
            for dr, dc in (HORIZONTAL, VERTICAL):
                _, low, high = run_tiles(tiles, {}, r, c, dr, dc)
                touched.add(low)
                touched.add(high)
        self._refresh(touched)
        touched.update(placed)
        return touched
