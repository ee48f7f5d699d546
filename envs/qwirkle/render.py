"""Pictures of a Qwirkle game: coloured text (``ansi``) and an RGB image (``rgb_array``).

Imported only when a render is asked for; the image needs Pillow.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.caption import add_caption, caption_lines
from .tiles import tile_name

if TYPE_CHECKING:
    from .game import GameState
    from .model import QwirkleState

ANSI_COLOURS = (196, 208, 226, 46, 33, 129)
"""256-colour terminal codes of red, orange, yellow, green, blue, purple."""
RGB_COLOURS = (
    (225, 45, 45),
    (245, 140, 30),
    (240, 215, 40),
    (60, 190, 75),
    (45, 125, 235),
    (160, 75, 210),
)
CELL = 40
BACKGROUND = (95, 95, 100)
TILE = (25, 25, 28)
LAID_OUTLINE = (255, 255, 255)


def _region(st: QwirkleState) -> tuple[int, int, int, int]:
    """Window rows/cols ``(r0, c0, r1, c1)`` to draw: the laid area plus one cell."""
    w = st.planes.shape[-1]
    occupied = np.argwhere(st.planes[-2] > 0)
    if occupied.size == 0:
        centre = w // 2
        return centre - 2, centre - 2, centre + 2, centre + 2
    (r0, c0), (r1, c1) = occupied.min(axis=0), occupied.max(axis=0)
    return max(r0 - 1, 0), max(c0 - 1, 0), min(r1 + 1, w - 1), min(c1 + 1, w - 1)


def _cell_tile(st: QwirkleState, wr: int, wc: int) -> int | None:
    cell = (st.origin[0] + wr, st.origin[1] + wc)
    tile = st.turn.pending.get(cell)
    if tile is None:
        tile = st.game.board.get(cell)
    return tile


def render_ansi(st: QwirkleState, viewer: int) -> str:
    """The laid area with window coordinates, the viewer's hand and the scores."""
    state = st.game
    r0, c0, r1, c1 = _region(st)
    header = "     " + " ".join(f"{c:>2}" for c in range(c0, c1 + 1))
    lines = [header]
    for wr in range(r0, r1 + 1):
        row = []
        for wc in range(c0, c1 + 1):
            tile = _cell_tile(st, wr, wc)
            if tile is None:
                row.append("\x1b[90m··\x1b[0m")
                continue
            style = "1;4;" if st.planes[-1, wr, wc] else ""
            row.append(f"\x1b[{style}38;5;{ANSI_COLOURS[tile // 6]}m{tile_name(tile)}\x1b[0m")
        lines.append(f"{wr:>4} " + " ".join(row))
    hand = state.hands[viewer]
    used = st.turn.used if viewer == state.current else 0
    slots = []
    for s, t in enumerate(hand):
        name = "--" if used >> s & 1 else tile_name(t)
        colour = ANSI_COLOURS[t // 6]
        slots.append(f"{s}:\x1b[38;5;{colour}m{name}\x1b[0m")
    lines.append(f"hand of player_{viewer}: " + " ".join(slots))
    scores = ", ".join(
        f"player_{p}{'*' if p == state.current else ''} {s}" for p, s in enumerate(state.scores)
    )
    lines.append(f"scores: {scores} | bag {len(state.bag)} | turn {state.turns}")
    if state.game_over:
        lines.append("game over: winners " + ", ".join(f"player_{p}" for p in state.winners()))
    elif state.truncated:
        lines.append(f"game truncated after {state.turns} turns")
    return "\n".join(lines)


def _shape_polygon(shape: int, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    if shape == 1:  # criss-cross: an X
        pts = []
        for k in range(4):
            a = math.pi / 4 + k * math.pi / 2
            for da, rad in ((-0.28, r), (0.28, r), (math.pi / 4, r * 0.35)):
                pts.append((cx + rad * math.cos(a + da), cy + rad * math.sin(a + da)))
        return pts
    if shape == 2:  # diamond
        return [(cx, cy - r), (cx + r * 0.75, cy), (cx, cy + r), (cx - r * 0.75, cy)]
    if shape == 4:  # 8-point starburst
        return [
            (
                cx + (r if k % 2 == 0 else r * 0.45) * math.cos(k * math.pi / 8 - math.pi / 2),
                cy + (r if k % 2 == 0 else r * 0.45) * math.sin(k * math.pi / 8 - math.pi / 2),
            )
            for k in range(16)
        ]
    raise ValueError(f"shape {shape} is not drawn as a polygon")


def _draw_tile(draw: Any, x: int, y: int, tile: int, laid: bool) -> None:
    pad = 2
    draw.rounded_rectangle(
        (x + pad, y + pad, x + CELL - pad, y + CELL - pad),
        radius=5,
        fill=TILE,
        outline=LAID_OUTLINE if laid else None,
        width=2,
    )
    colour = RGB_COLOURS[tile // 6]
    shape = tile % 6
    cx, cy, r = x + CELL / 2, y + CELL / 2, CELL * 0.32
    if shape == 0:
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)
    elif shape == 3:
        q = r * 0.8
        draw.rectangle((cx - q, cy - q, cx + q, cy + q), fill=colour)
    elif shape == 5:  # clover: four round leaves around a small centre
        q = r * 0.42
        d = r * 0.58
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            lx, ly = cx + dx * d, cy + dy * d
            draw.ellipse((lx - q, ly - q, lx + q, ly + q), fill=colour)
        c = r * 0.3
        draw.ellipse((cx - c, cy - c, cx + c, cy + c), fill=colour)
    else:
        draw.polygon(_shape_polygon(shape, cx, cy, r), fill=colour)


def render_rgb(st: QwirkleState) -> np.ndarray:
    """The laid area as an RGB picture, the acting player's hand in a strip below."""
    from PIL import Image, ImageDraw

    state = st.game
    r0, c0, r1, c1 = _region(st)
    rows, cols = r1 - r0 + 1, c1 - c0 + 1
    width = max(cols, 7) * CELL
    height = (rows + 1) * CELL + CELL // 2
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for wr in range(r0, r1 + 1):
        for wc in range(c0, c1 + 1):
            tile = _cell_tile(st, wr, wc)
            if tile is not None:
                laid = bool(st.planes[-1, wr, wc])
                _draw_tile(draw, (wc - c0) * CELL, (wr - r0) * CELL, tile, laid)
    y = rows * CELL + CELL // 2
    draw.rectangle((0, y - CELL // 4, width, height), fill=(50, 50, 55))
    for s, t in enumerate(state.hand):
        if not st.turn.used >> s & 1:
            _draw_tile(draw, s * CELL, y, t, False)
    return add_caption(np.asarray(image, dtype=np.uint8), caption(state))


def caption(state: GameState) -> list[str]:
    """The picture's caption: turn, who acts (or who won), every score, the bag; the hand in
    the strip below the board is the player's to act."""
    over = state.finished
    lines = caption_lines(
        "Qwirkle",
        state.turns,
        [f"player_{p}" for p in range(state.num_players)],
        state.scores,
        to_act=None if over else state.current,
        winners=[] if state.truncated else state.winners() if over else None,
        score_unit="pts",
    )
    if not over:
        lines.append(f"bag {len(state.bag)} tiles; below: the hand of player_{state.current}")
    return lines
