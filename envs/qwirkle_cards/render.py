"""Pictures of a Qwirkle Cards position: coloured text and an RGB image (Pillow, lazily).

Both show the table arranged into rows (one concrete arrangement of the table multiset),
the selection of the turn under way, the viewer's hand, every player's Qwirkles and the pile.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..core.caption import LINE_PX, add_caption, caption_lines, font
from .cards import NUM_KINDS, NUM_LINES, card_name, line_name
from .solver import arrange_rows

if TYPE_CHECKING:
    from .game import QwirkleCardsGame

_ANSI = {
    0: "\x1b[31m",  # red
    1: "\x1b[38;5;208m",  # orange
    2: "\x1b[33m",  # yellow
    3: "\x1b[32m",  # green
    4: "\x1b[34m",  # blue
    5: "\x1b[35m",  # purple
}
_RESET = "\x1b[0m"
RGB_COLOURS = (
    (220, 40, 40),
    (245, 140, 30),
    (240, 210, 40),
    (50, 170, 70),
    (40, 100, 220),
    (140, 60, 180),
)


def _card(kind: int) -> str:
    return f"{_ANSI[kind // 6]}{card_name(kind)}{_RESET}"


def _cards(counts: list[int] | tuple[int, ...]) -> str:
    return " ".join(_card(k) for k in range(NUM_KINDS) for _ in range(counts[k])) or "-"


def render_ansi(game: QwirkleCardsGame, viewer: int) -> str:
    """The position as coloured text, showing ``viewer``'s hand.

    >>> import numpy as np
    >>> from .game import QwirkleCardsGame
    >>> game = QwirkleCardsGame(2, np.random.default_rng(0))
    >>> game.apply_turn(game.legal_turns()[0])
    >>> "table" in render_ansi(game, 0)
    True
    """
    s = game.state
    lines = [f"turn {s.turn_count}  player_{s.to_move} to act  pile {len(s.pile)}"]
    if s.turns_left is not None:
        lines[0] += f"  end triggered: {s.turns_left} turn(s) left"
    rows = arrange_rows(s.table)
    lines.append(f"table ({sum(s.table)} cards, {len(rows)} rows):")
    lines += ["  " + " ".join(_card(k) for k in row) for row in rows] or ["  (empty)"]
    if any(s.played) or any(s.taken):
        taken = " ".join(line_name(L) for L in range(NUM_LINES) for _ in range(s.taken[L]))
        lines.append(f"this turn: played {_cards(s.played)}  taken {taken or '-'}")
    lines.append(f"player_{viewer}'s hand: {_cards(game.hand(viewer))}")
    for p in range(s.num_players):
        q = s.qwirkles[p]
        names = " ".join(line_name(L) for L in range(NUM_LINES) for _ in range(q[L]))
        lines.append(f"player_{p}: {sum(q)} Qwirkle(s) {names}  hand {sum(game.hand(p))} cards")
    return "\n".join(lines)


# ---------------------------------------------------------------- RGB
CARD_W, CARD_H, GAP = 36, 48, 6


def _symbol_polygon(symbol: int, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    if symbol == 2:  # diamond
        return [(cx, cy - r), (cx + r * 0.75, cy), (cx, cy + r), (cx - r * 0.75, cy)]
    if symbol == 4:  # 8-point star
        pts = []
        for i in range(16):
            a = -math.pi / 2 + i * math.pi / 8
            rr = r if i % 2 == 0 else r * 0.5
            pts.append((cx + math.cos(a) * rr, cy + math.sin(a) * rr))
        return pts
    raise ValueError(f"symbol {symbol} is not drawn as a polygon")


def _draw_card(draw: object, x: int, y: int, kind: int) -> None:
    d = draw  # PIL.ImageDraw.ImageDraw
    colour = RGB_COLOURS[kind // 6]
    symbol = kind % 6
    d.rounded_rectangle(  # type: ignore[attr-defined]
        [x, y, x + CARD_W, y + CARD_H], radius=5, fill=(250, 248, 240), outline=(60, 60, 60)
    )
    cx, cy, r = x + CARD_W / 2, y + CARD_H / 2, CARD_W * 0.36
    if symbol == 0:  # circle
        d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=colour)  # type: ignore[attr-defined]
    elif symbol == 3:  # square
        s = r * 0.8
        d.rectangle([cx - s, cy - s, cx + s, cy + s], fill=colour)  # type: ignore[attr-defined]
    elif symbol == 5:  # clover: four leaves and a centre
        lr = r * 0.45
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            ex, ey = cx + dx * r * 0.5, cy + dy * r * 0.5
            d.ellipse([ex - lr, ey - lr, ex + lr, ey + lr], fill=colour)  # type: ignore[attr-defined]
        d.ellipse([cx - lr, cy - lr, cx + lr, cy + lr], fill=colour)  # type: ignore[attr-defined]
    elif symbol == 1:  # cross: two thick diagonal bars
        w = max(3, int(r * 0.55))
        d.line([cx - r, cy - r, cx + r, cy + r], fill=colour, width=w)  # type: ignore[attr-defined]
        d.line([cx - r, cy + r, cx + r, cy - r], fill=colour, width=w)  # type: ignore[attr-defined]
    else:
        d.polygon(_symbol_polygon(symbol, cx, cy, r), fill=colour)  # type: ignore[attr-defined]


TABLE_SLOTS = 13
"""Card widths per line of the table picture; short rows share a line (a half-card gap
between them), so a table of many rows stays wide rather than tall."""


def _pack_rows(rows: list[list[int]], slots: int) -> list[list[list[int]]]:
    """Rows side by side, in order, as many per picture line as fit in ``slots`` card widths.

    >>> _pack_rows([[0, 1, 2], [3, 4, 5, 6, 7, 8], [9, 10, 11], [12, 13, 14]], 13)
    [[[0, 1, 2], [3, 4, 5, 6, 7, 8], [9, 10, 11]], [[12, 13, 14]]]
    """
    lines: list[list[list[int]]] = []
    used = 0.0
    for row in rows:
        need = len(row) + (0.5 if lines and lines[-1] else 0)
        if lines and used + need <= slots:
            lines[-1].append(row)
            used += need
        else:
            lines.append([row])
            used = len(row)
    return lines


def render_rgb(game: QwirkleCardsGame, viewer: int) -> np.ndarray:
    """The position as an RGB picture (H x W x 3, uint8), showing ``viewer``'s hand, with a
    caption: turn, player to act (or the winner) and every player's Qwirkles."""
    from PIL import Image, ImageDraw

    s = game.state
    rows = arrange_rows(s.table)
    selection = [k for k in range(NUM_KINDS) for _ in range(s.played[k])]
    hand = [k for k in range(NUM_KINDS) for _ in range(game.hand(viewer)[k])]
    lines = _pack_rows(rows, TABLE_SLOTS)
    slots = max(9, TABLE_SLOTS if len(lines) > 1 else 0, *(len(r) for r in rows), len(selection))
    width = slots * (CARD_W + GAP) + 2 * GAP
    label = LINE_PX
    height = (max(len(lines), 1) + 2) * (CARD_H + GAP) + 3 * label + 2 * GAP
    image = Image.new("RGB", (width, height), (30, 100, 60))
    draw = ImageDraw.Draw(image)
    y = GAP

    def heading(text: str) -> None:
        nonlocal y
        draw.text((GAP, y), text, fill=(255, 255, 180), font=font())
        y += label

    heading(f"table ({sum(s.table)} cards, {len(rows)} rows; pile {len(s.pile)})")
    for line in lines:
        x = GAP
        for row in line:
            for k in row:
                _draw_card(draw, x, y, k)
                x += CARD_W + GAP
            x += CARD_W // 2  # a gap between rows
        y += CARD_H + GAP
    if not rows:
        y += CARD_H + GAP
    heading("played this turn:" if selection else "played this turn: nothing yet")
    for i, k in enumerate(selection):
        _draw_card(draw, GAP + i * (CARD_W + GAP), y, k)
    y += CARD_H + GAP
    heading(f"player_{viewer}'s hand ({len(hand)} cards):")
    for i, k in enumerate(hand):
        _draw_card(draw, GAP + i * (CARD_W + GAP), y, k)
    return add_caption(np.asarray(image, dtype=np.uint8), caption(game))


def caption(game: QwirkleCardsGame) -> list[str]:
    """The picture's caption: turn, who acts (or who won) and every player's Qwirkles."""
    s = game.state
    players = [f"player_{p}" for p in range(s.num_players)]
    over = game.over
    lines = caption_lines(
        "Qwirkle Cards",
        s.turn_count,
        players,
        [sum(q) for q in s.qwirkles],
        to_act=None if over else s.to_move,
        winners=list(game.winners()) if over else None,
        score_unit="Qwirkles",
    )
    taken = [
        f"{p}: " + " ".join(line_name(L) for L in range(NUM_LINES) for _ in range(q[L]))
        for p, q in zip(players, s.qwirkles, strict=True)
        if sum(q)
    ]
    if taken:
        lines.append("taken  |  " + "  |  ".join(taken))
    return lines
