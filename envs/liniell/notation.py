"""Text notation for a Liniell position: tiles with kind and rotation per cell, pawns per line.

A position is written as a grid of the laid area (at most 4 x 4), one row per line, cells
separated by spaces: ``kind:rotation`` for a tile (``kind`` alone means rotation 0) or ``.``
for an empty cell. Optional lines: ``players: N`` (default 2, or more if the pawns need it)
and ``pawns:`` followed by pawns written ``PLAYER@ROW,COL:PORT`` — player index, the grid
cell of the tile (from 0, top left), and a port of the line piece the pawn stands on.
``#`` starts a comment. The laid tiles must be connected, every tile sharing a side with
another, as the rules lay them; a grid without tiles is written ``.`` alone (the empty
table).

>>> board = from_text('''
... players: 2
... cross:0  tee:1
... .        star
... pawns: 0@0,0:N 1@1,1:E
... ''')
>>> print(to_text(board))
players: 2
cross:0 tee:1
.       star:0
pawns: 0@0,0:N 1@1,1:E
"""

from __future__ import annotations

import re

from ..core.checks import bounded_int, brief_number, brief_repr
from ..errors import NotationError
from ..notation import require_text
from .board import IN_SUPPLY, MAX_PLAYERS, MIN_PLAYERS, PAWNS_PER_PLAYER, Board
from .grid import CENTRE, WINDOW
from .position import board_problem
from .tiles import Port
from .tileset import SQUARE, TileSet, load_tile_set

_TILE_RE = re.compile(r"^([A-Za-z0-9_]+)(?::([0-3]))?$")
_PAWN_RE = re.compile(r"^([0-9]+)@([0-9]+),([0-9]+):([NESWnesw])$")


def from_text(text: str, tile_set: str | TileSet = "default") -> Board:
    """Build the position described by ``text`` (see the module docstring).

    A grid without tiles is written ``.`` alone (the empty table); the position must be
    possible (:mod:`.position`: tile counts, connected tiles, pawns on distinct
    lines). A :class:`NotationError` names what is wrong.
    """
    text = require_text(text, "a Liniell position")
    ts = load_tile_set(tile_set)
    rows: list[list[str]] = []
    pawn_tokens: list[str] = []
    players: int | None = None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        low = line.lower()
        if low.startswith("players:"):
            value = line.split(":", 1)[1].strip()
            count = (
                bounded_int(value, MAX_PLAYERS + 1) if value.isascii() and value.isdigit() else None
            )
            if count is None or count < MIN_PLAYERS:
                raise NotationError(
                    f"'players:' needs a number from {MIN_PLAYERS} to {MAX_PLAYERS}, got "
                    f"{brief_repr(value)}"
                )
            players = count
        elif low.startswith("pawns:"):
            pawn_tokens.extend(line.split(":", 1)[1].split())
        else:
            rows.append(line.split())
    if not rows:
        raise NotationError("the position has no rows of tiles")
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise NotationError(
                f"row {i} has {len(row)} cells but row 0 has {width}; every row needs the "
                "same number of cells ('.' for an empty one)"
            )
    height = len(rows)
    if height > SQUARE or width > SQUARE:
        raise NotationError(
            f"the grid is {height} x {width}; the laid area fits in {SQUARE} x {SQUARE}"
        )
    tiled = [(r, c) for r, row in enumerate(rows) for c, tok in enumerate(row) if tok != "."]
    if not tiled and height * width > 1:
        raise NotationError("the grid holds no tile; write '.' alone for an empty table")
    pawns: list[tuple[int, int, int, Port]] = []
    for tok in pawn_tokens:
        m = _PAWN_RE.match(tok)
        if m is None:
            raise NotationError(
                f"cannot read pawn {brief_repr(tok)}; write PLAYER@ROW,COL:PORT, e.g. 0@1,2:N"
            )
        player = bounded_int(m.group(1), MAX_PLAYERS)
        if player is None:
            raise NotationError(
                f"pawn {brief_repr(tok)}: player {brief_number(m.group(1))} is not allowed; "
                f"players are numbered 0 to {MAX_PLAYERS - 1} ({MIN_PLAYERS} to {MAX_PLAYERS} "
                "players)"
            )
        r, c = bounded_int(m.group(2), height), bounded_int(m.group(3), width)
        if r is None or c is None:
            raise NotationError(
                f"pawn {brief_repr(tok)} stands on no tile: the grid has rows 0 to {height - 1} "
                f"and columns 0 to {width - 1}"
            )
        if rows[r][c] == ".":
            raise NotationError(f"pawn {tok!r} stands on no tile: cell {r},{c} is empty ('.')")
        pawns.append((player, r, c, Port[m.group(4).upper()]))
    needed = max((p[0] for p in pawns), default=0) + 1
    if players is None:
        players = max(2, needed)
    elif needed > players:
        raise NotationError(
            f"a pawn of player {needed - 1} but the position has {players} players; their "
            f"pawns are numbered 0 to {players - 1}"
        )
    board = Board(ts, players)
    # the laid area's bottom-right corner goes to the middle cell, so every 4 x 4 square
    # around the laid area lies inside the window (empty rows or columns around it are fine)
    r0 = CENTRE - max((r for r, _ in tiled), default=0)
    c0 = CENTRE - max((c for _, c in tiled), default=0)
    used = [0] * len(ts.kinds)
    for r, row in enumerate(rows):
        for c, tok in enumerate(row):
            if tok == ".":
                continue
            m = _TILE_RE.match(tok)
            if m is None:
                raise NotationError(
                    f"cannot read cell {tok!r} at {r},{c}; write KIND:ROTATION (rotation 0 to "
                    "3) or '.'"
                )
            names = [k.name for k in ts.kinds]
            if m.group(1) not in names:
                raise NotationError(
                    f"unknown tile kind {m.group(1)!r} at {r},{c}; tile set {ts.name!r} has: "
                    + ", ".join(names)
                )
            kind = names.index(m.group(1))
            used[kind] += 1
            if used[kind] > ts.kinds[kind].copies:
                raise NotationError(
                    f"the position uses {used[kind]} {m.group(1)!r} tiles; tile set "
                    f"{ts.name!r} has {ts.kinds[kind].copies}"
                )
            board.put((r0 + r) * WINDOW + c0 + c, kind, int(m.group(2) or 0))
    occupied: dict[int, str] = {}
    for player, r, c, port in pawns:
        tok = f"{player}@{r},{c}:{port.name}"
        piece = board.piece((r0 + r) * WINDOW + c0 + c, port)
        root = board.line(piece)
        if root in occupied:
            raise NotationError(
                f"pawns {occupied[root]} and {tok} stand on the same line; at most one pawn "
                "stands on a line"
            )
        occupied[root] = tok
        slots = board.pawns[player]
        if IN_SUPPLY not in slots:
            raise NotationError(f"player {player} has only {PAWNS_PER_PLAYER} pawns")
        slots[slots.index(IN_SUPPLY)] = piece
    if problem := board_problem(board):
        raise NotationError(f"impossible Liniell position: {problem}")
    return board


def to_text(board: Board) -> str:
    """The position of ``board`` in the text notation (the grid of its laid area)."""
    lines = [f"players: {board.num_players}"]
    if board.num_laid == 0:
        return "\n".join([*lines, "."])
    grid = []
    for r in range(board.rmin, board.rmax + 1):
        row = []
        for c in range(board.cmin, board.cmax + 1):
            o = board.cell_orient[r * WINDOW + c]
            row.append("." if o is None else f"{o.kind.name}:{o.rotation}")
        grid.append(row)
    width = max(len(tok) for row in grid for tok in row)
    for row in grid:
        lines.append(" ".join(tok.ljust(width) for tok in row))
    pawns = []
    for player in range(len(board.pawns)):
        for piece in board.placed_pieces(player):
            cell = piece >> 2
            r, c = divmod(cell, WINDOW)
            port = board.cell_orient[cell].groups[piece & 3].ports[0]  # type: ignore[union-attr]
            pawns.append(f"{player}@{r - board.rmin},{c - board.cmin}:{port.name}")
    if pawns:
        lines.append("pawns: " + " ".join(pawns))
    return "\n".join(line.rstrip() for line in lines)
