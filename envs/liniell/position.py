"""What makes a Liniell position possible: the checks behind every way of building one.

:func:`board_problem` names the first thing wrong with a :class:`~.board.Board` and
:func:`material_problem` with the tiles of a game (board, stack and drawn tile together), or
return None. The text notation refuses such a board with a ``NotationError``, the game's
constructor with a ``ConfigError``, and the engine's invariant check
(:meth:`~.game.Game.check_invariants`) with an ``InvariantError``.

A board is possible when:

- it holds at most as many tiles of a kind as the tile set has;
- its laid tiles are connected, each sharing a side with another (every tile but the first
  is laid against one), and fit in a 4 x 4 square;
- the laid area sits in the 7 x 7 window so that any 4 x 4 square around it does too (the
  first tile went to the middle cell), so no legal placement falls off the window;
- each player has two pawns, each in supply or on a line piece of a laid tile;
- no two pawns stand on one line, except on the lines a compulsory move is about to resolve
  (``joined``).

>>> from .notation import from_text
>>> board = from_text("cross:0 tee:1")
>>> board_problem(board) is None
True
>>> board.put(board.cell_of(0, 0) + 2 * 7 + 2, 0, 0)  # a tile touching no other
>>> board_problem(board)
'the laid tiles are not connected: ... shares no side with the tile at ...'
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from .board import IN_SUPPLY, PAWNS_PER_PLAYER, Board
from .grid import NEIGHBOUR, NUM_CELLS, WINDOW
from .tileset import SQUARE


def _laid_cells(board: Board) -> list[int]:
    return [cell for cell in range(NUM_CELLS) if board.cell_kind[cell] >= 0]


def board_problem(board: Board, joined: Collection[int] = ()) -> str | None:
    """The first problem of ``board`` (see the module docstring), or None.

    ``joined``: root pieces of lines that may hold several pawns (a compulsory move is due).
    """
    laid = _laid_cells(board)
    if len(laid) != board.num_laid:
        return f"{len(laid)} tiles on the table but num_laid is {board.num_laid}"
    if problem := material_problem(board, (board.cell_kind[c] for c in laid)):
        return problem
    if laid:
        rows = [c // WINDOW for c in laid]
        cols = [c % WINDOW for c in laid]
        if (min(rows), max(rows), min(cols), max(cols)) != (
            board.rmin,
            board.rmax,
            board.cmin,
            board.cmax,
        ):
            return "the laid area's recorded bounds do not match its tiles"
        height, width = max(rows) - min(rows) + 1, max(cols) - min(cols) + 1
        if height > SQUARE or width > SQUARE:
            return f"the laid area is {height} x {width}; it fits in {SQUARE} x {SQUARE}"
        reach = SQUARE - 1
        if max(rows) - reach < 0 or min(rows) + reach >= WINDOW:
            return "the laid area sits too close to the window's top or bottom edge"
        if max(cols) - reach < 0 or min(cols) + reach >= WINDOW:
            return "the laid area sits too close to the window's left or right edge"
        if problem := _connection_problem(board, laid):
            return problem
    return _pawn_problem(board, joined)


def material_problem(board: Board, kinds: Iterable[int]) -> str | None:
    """Whether ``kinds`` (tile kind indices) use more tiles of a kind than the set has."""
    ts = board.tile_set
    used = [0] * len(ts.kinds)
    for k in kinds:
        if not 0 <= k < len(ts.kinds):
            return f"tile kind {k} is not in tile set {ts.name!r} (0 to {len(ts.kinds) - 1})"
        used[k] += 1
    for k, n in enumerate(used):
        if n > ts.kinds[k].copies:
            return (
                f"{n} {ts.kinds[k].name!r} tiles in the game; tile set {ts.name!r} has "
                f"{ts.kinds[k].copies}"
            )
    return None


def _grid(board: Board, cell: int) -> str:
    r, c = divmod(cell, WINDOW)
    return f"{r - board.rmin},{c - board.cmin}"


def _connection_problem(board: Board, laid: list[int]) -> str | None:
    seen = {laid[0]}
    todo = [laid[0]]
    while todo:
        cell = todo.pop()
        for nc in NEIGHBOUR[cell]:
            if nc >= 0 and board.cell_kind[nc] >= 0 and nc not in seen:
                seen.add(nc)
                todo.append(nc)
    if len(seen) == len(laid):
        return None
    away = next(c for c in laid if c not in seen)
    return (
        f"the laid tiles are not connected: the tile at {_grid(board, away)} (grid row,col) "
        f"shares no side with the tile at {_grid(board, laid[0])}; every tile is laid against "
        "one already on the table"
    )


def _pawn_problem(board: Board, joined: Collection[int]) -> str | None:
    if len(board.pawns) != board.num_players:
        return f"{len(board.pawns)} pawn lists for {board.num_players} players"
    seen: dict[int, int] = {}
    for player, slots in enumerate(board.pawns):
        if len(slots) != PAWNS_PER_PLAYER:
            return f"player {player} has {len(slots)} pawns; each player has {PAWNS_PER_PLAYER}"
        for piece in slots:
            if piece == IN_SUPPLY:
                continue
            cell, group = divmod(piece, 4)
            orient = board.cell_orient[cell] if 0 <= cell < NUM_CELLS else None
            if orient is None or group >= len(orient.groups):
                return f"a pawn of player {player} stands on piece {piece}, not on a laid line"
            root = board.lines.find(piece)
            if root in seen and root not in joined:
                return (
                    f"pawns of players {seen[root]} and {player} stand on one line; at most one "
                    "pawn stands on a line outside a compulsory move"
                )
            seen[root] = player
    return None
