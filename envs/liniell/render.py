"""Pictures of a Liniell game: coloured text (``ansi``) and an RGB image (``rgb_array``).

Imported only when a render is asked for; the image needs Pillow (imported inside
:func:`render_rgb`). Lines are drawn in the colour of the player occupying them (grey when
free), diamonds as empty (white) or blue rhombi, pawns as discs in their player's colour.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.caption import add_caption, caption_lines
from .board import WINDOW
from .game import Game, Phase
from .tiles import Diamond, Group

PLAYER_NAMES = ("yellow", "green", "red", "purple")
ANSI_PLAYER = (226, 40, 196, 129)
ANSI_BLUE = 33
RGB_PLAYER = ((235, 200, 20), (40, 160, 60), (215, 50, 45), (140, 70, 200))
RGB_FREE = (70, 70, 75)
RGB_BLUE = (35, 90, 215)
RGB_TABLE = (120, 90, 60)
RGB_TILE = (238, 230, 210)
RGB_EMPTY = (140, 110, 80)
CELL = 72

_BOX = {
    (0, 2): "│",
    (1, 3): "─",
    (0, 1): "└",
    (1, 2): "┌",
    (2, 3): "┐",
    (0, 3): "┘",
    (0, 1, 2): "├",
    (1, 2, 3): "┬",
    (0, 2, 3): "┤",
    (0, 1, 3): "┴",
    (0, 1, 2, 3): "┼",
}
_LABELS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _ansi(text: str, colour: int | None, bold: bool = False) -> str:
    if colour is None:
        return text
    return f"\033[{'1;' if bold else ''}38;5;{colour}m{text}\033[0m"


def _region(game: Game) -> tuple[int, int, int, int]:
    board = game.board
    if board.num_laid == 0:
        return 2, 2, 4, 4
    return (
        max(board.rmin - 1, 0),
        max(board.cmin - 1, 0),
        min(board.rmax + 1, WINDOW - 1),
        min(board.cmax + 1, WINDOW - 1),
    )


def _centre_glyph(groups: tuple[Group, ...]) -> str:
    pieces = [g for g in groups if len(g.ports) > 1]
    if not pieces:
        return "·"
    if len(pieces) == 1:
        return _BOX[tuple(int(p) for p in pieces[0].ports)]
    ports = {tuple(int(p) for p in g.ports) for g in pieces}
    if (0, 2) in ports:
        return "╪"  # bridge: two straights crossing without joining
    return "╱" if (0, 1) in ports else "╲"  # two curves side by side


class LineLabels:
    """Letters for the lines on the board that stay the same from one picture to the next.

    A line keeps its letter while it grows; when lines join, the joined line keeps the
    letter given first (the other letter becomes free again). Pass the same object to every
    :func:`render_ansi` call of one game (lines only ever join, so a piece's line never
    splits and no two lines can claim one letter).
    """

    def __init__(self) -> None:
        self._by_piece: dict[int, str] = {}

    def pieces(self) -> dict[int, str]:
        """The letter of every piece labelled by the last :meth:`assign` (a copy)."""
        return dict(self._by_piece)

    def assign(self, roots: dict[int, list[int]]) -> dict[int, str]:
        """The letter of each line, given its root and its pieces on the board."""
        order = {label: k for k, label in enumerate(_LABELS)}
        labels: dict[int, str] = {}
        fresh = []
        for root, pieces in roots.items():
            known = [self._by_piece[p] for p in pieces if p in self._by_piece]
            if known:
                labels[root] = min(known, key=order.__getitem__)
            else:
                fresh.append(root)
        free = [x for x in _LABELS if x not in set(labels.values())]
        for k, root in enumerate(sorted(fresh, key=lambda r: min(roots[r]))):
            labels[root] = free[k % len(free)] if free else "?"
        self._by_piece = {p: labels[root] for root, pieces in roots.items() for p in pieces}
        return labels


LEGEND = (
    "legend: a-z a free line, A-Z an occupied line (in its owner's colour); ports with the\n"
    "        same letter are one line. ◇ empty diamond, ◆ blue diamond, ● pawn,\n"
    "        * the tile laid last, . an empty cell (rows and columns as numbered)"
)


def render_ansi(
    game: Game, viewer: int = 0, labels: LineLabels | None = None, you: int | None = None
) -> str:
    """The laid area (3 x 3 characters per tile), pawns, supplies, scores and a legend.

    Each port shows the letter of its line (upper case and in the owner's colour when the
    line is occupied) or its diamond (◇ empty, ◆ blue); a tile's centre shows its pieces,
    or ● in a player's colour where a pawn stands. ``labels`` keeps each line's letter from
    one call to the next (:class:`LineLabels`); without it letters follow reading order.
    ``you`` marks the seat of the person looking (terminal play) with "(you)"; Liniell hides
    nothing, so ``viewer`` changes nothing.
    """
    board = game.board
    owners = board.owners()
    pawn_at = {piece: p for p, slots in enumerate(board.pawns) for piece in slots if piece >= 0}
    r0, c0, r1, c1 = _region(game)
    roots: dict[int, list[int]] = {}
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            o = board.cell_orient[r * WINDOW + c]
            if o is not None:
                for g in range(len(o.groups)):
                    piece = (r * WINDOW + c) * 4 + g
                    roots.setdefault(board.lines.find(piece), []).append(piece)
    line_label = (labels or LineLabels()).assign(roots)
    out = ["    " + "".join(f" {c:<2}" for c in range(c0, c1 + 1))]
    for r in range(r0, r1 + 1):
        rows = [[], [], []]
        for c in range(c0, c1 + 1):
            cell = r * WINDOW + c
            o = board.cell_orient[cell]
            if o is None:
                mark = "+" if cell == game.last_cell else " "
                for i in range(3):
                    rows[i].append(" . " if i == 1 else f" {mark} " if i == 0 else "   ")
                continue
            chars = [" "] * 9
            centre = _centre_glyph(o.groups)
            for g, group in enumerate(o.groups):
                piece = cell * 4 + g
                root = board.lines.find(piece)
                owner = owners.get(root)
                colour = ANSI_PLAYER[owner % 4] if owner is not None else None
                label = line_label[root]
                for port in group.ports:
                    pos = (1, 5, 7, 3)[port]
                    if group.diamond is not None:
                        blue = group.diamond is Diamond.BLUE
                        chars[pos] = _ansi("◆" if blue else "◇", ANSI_BLUE if blue else colour)
                    else:
                        text = label.upper() if owner is not None else label
                        chars[pos] = _ansi(text, colour, bold=owner is not None)
                if piece in pawn_at:
                    centre = _ansi("●", ANSI_PLAYER[pawn_at[piece] % 4], bold=True)
            chars[4] = centre
            if cell == game.last_cell:
                chars[0] = "*"
            for i in range(3):
                rows[i].append("".join(chars[3 * i : 3 * i + 3]))
        out.append("    " + "".join(rows[0]))
        out.append(f"{r:>2}  " + "".join(rows[1]))
        out.append("    " + "".join(rows[2]))
    scores = game.scores()
    for p in range(game.num_players):
        tag = " (you)" if p == you else ""
        turn = " <- to act" if p == game.current and not game.is_over else ""
        out.append(
            _ansi(f"player_{p} ({PLAYER_NAMES[p]})", ANSI_PLAYER[p], bold=True)
            + f"{tag}: {scores[p].points} points, {scores[p].blue} blue at route ends, "
            f"{board.supply(p)} pawn(s) in supply{turn}"
        )
    kinds = board.tile_set.kinds
    if game.phase is Phase.LAY and game.drawn is not None:
        out.append(f"to lay: {kinds[game.drawn].name} ({kinds[game.drawn].describe()})")
    elif game.is_over:
        ended = "a drawn tile could not be laid" if game.ended_early else "all tiles laid"
        out.append(
            f"game over ({ended}); winners: " + ", ".join(f"player_{w}" for w in game.winners())
        )
    else:
        out.append(f"phase: {game.phase.value} (* marks the tile just laid)")
    out.append(f"stack: {len(game.stack)} tile(s)")
    out.append(LEGEND)
    return "\n".join(out)


def _port_xy(x: float, y: float, port: int) -> tuple[float, float]:
    h = CELL / 2
    return ((x + h, y), (x + CELL, y + h), (x + h, y + CELL), (x, y + h))[port]


def render_rgb(game: Game) -> np.ndarray:
    """A picture of the laid area: tiles with their lines, diamonds and pawns, and scores."""
    from PIL import Image, ImageDraw

    board = game.board
    r0, c0, r1, c1 = _region(game)
    rows, cols = r1 - r0 + 1, c1 - c0 + 1
    width, height = cols * CELL + 16, rows * CELL + 16
    image = Image.new("RGB", (width, height), RGB_TABLE)
    draw = ImageDraw.Draw(image)
    owners = board.owners()
    pawn_at = {piece: p for p, slots in enumerate(board.pawns) for piece in slots if piece >= 0}
    line_w = max(CELL // 10, 3)
    h = CELL / 2
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            cell = r * WINDOW + c
            x, y = 8 + (c - c0) * CELL, 8 + (r - r0) * CELL
            o = board.cell_orient[cell]
            if o is None:
                draw.rectangle((x + 2, y + 2, x + CELL - 2, y + CELL - 2), outline=RGB_EMPTY)
                continue
            outline = (255, 255, 255) if cell == game.last_cell else (90, 80, 60)
            draw.rectangle(
                (x, y, x + CELL - 1, y + CELL - 1), fill=RGB_TILE, outline=outline, width=2
            )
            straights = 0
            for g, group in enumerate(o.groups):
                piece = cell * 4 + g
                owner = owners.get(board.lines.find(piece))
                colour = RGB_PLAYER[owner % 4] if owner is not None else RGB_FREE
                ports = [int(p) for p in group.ports]
                anchor: tuple[float, float]
                if group.diamond is not None:
                    px, py = _port_xy(x, y, ports[0])
                    dx, dy = (x + h - px) * 0.55, (y + h - py) * 0.55
                    ax, ay = px + dx, py + dy
                    draw.line((px, py, ax, ay), fill=colour, width=line_w)
                    d = CELL * 0.13
                    fill = RGB_BLUE if group.diamond is Diamond.BLUE else (255, 255, 255)
                    draw.polygon(
                        ((ax, ay - d), (ax + d, ay), (ax, ay + d), (ax - d, ay)),
                        fill=fill,
                        outline=(20, 20, 20),
                    )
                    anchor = (px + dx * 0.5, py + dy * 0.5)
                elif len(ports) == 2 and (ports[1] - ports[0]) % 2 == 0:
                    a, b = _port_xy(x, y, ports[0]), _port_xy(x, y, ports[1])
                    if straights:  # the upper straight of a bridge: a gap under it
                        draw.line((*a, *b), fill=RGB_TILE, width=line_w * 3)
                    draw.line((*a, *b), fill=colour, width=line_w)
                    straights += 1
                    anchor = (
                        x + h + (0 if ports[0] == 0 else CELL * 0.2),
                        y + h + (CELL * 0.2 if ports[0] == 0 else 0),
                    )
                elif len(ports) == 2:
                    pair = set(ports)
                    corner = {
                        frozenset((0, 1)): (x + CELL, y, 90, 180),
                        frozenset((1, 2)): (x + CELL, y + CELL, 180, 270),
                        frozenset((2, 3)): (x, y + CELL, 270, 360),
                        frozenset((0, 3)): (x, y, 0, 90),
                    }[frozenset(pair)]
                    cx, cy, start, end = corner
                    draw.arc(
                        (cx - h, cy - h, cx + h, cy + h), start, end, fill=colour, width=line_w
                    )
                    mid = math.radians((start + end) / 2)
                    anchor = (cx + h * math.cos(mid), cy + h * math.sin(mid))
                else:
                    for p in ports:
                        draw.line((*_port_xy(x, y, p), x + h, y + h), fill=colour, width=line_w)
                    d = line_w
                    draw.ellipse((x + h - d, y + h - d, x + h + d, y + h + d), fill=colour)
                    anchor = (x + h, y + h)
                if piece in pawn_at:
                    ax, ay = anchor
                    d = CELL * 0.14
                    draw.ellipse(
                        (ax - d, ay - d, ax + d, ay + d),
                        fill=RGB_PLAYER[pawn_at[piece] % 4],
                        outline=(0, 0, 0),
                        width=2,
                    )
    return add_caption(np.asarray(image, dtype=np.uint8), caption(game))


def caption(game: Game) -> list[str]:
    """The picture's caption: turn, who acts (or who won), scores, what happens now."""
    scores = game.scores()
    players = [f"player_{p} ({PLAYER_NAMES[p]})" for p in range(game.num_players)]
    lines = caption_lines(
        "Liniell",
        game.turn,
        players,
        [scores[p].points for p in range(game.num_players)],
        to_act=None if game.is_over else game.current,
        winners=list(game.winners()) if game.is_over else None,
        score_unit="pts",
    )
    kinds = game.board.tile_set.kinds
    if game.is_over:
        lines.append("blue diamonds at route ends: " + ", ".join(str(s.blue) for s in scores))
    elif game.phase is Phase.LAY and game.drawn is not None:
        lines.append(
            f"to lay: {kinds[game.drawn].name}; pawns in supply: "
            + ", ".join(str(game.board.supply(p)) for p in range(game.num_players))
        )
    elif game.phase is Phase.OCCUPY:
        lines.append("occupy a line of the tile just laid (white outline), or skip")
    else:
        lines.append(f"{game.phase.value} (the tile just laid has a white outline)")
    return lines
