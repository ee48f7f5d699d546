"""Text on the games' pictures: a caption band saying the turn, who acts and the scores.

Every game's ``rgb_array`` picture starts with a caption (:func:`add_caption`) so that the
picture explains itself alone: in a notebook, a GIF or a report. The text is set in Pillow's
scalable font at :data:`FONT_PX` pixels, which stays readable when a notebook shrinks a
500-pixel picture to a 4-inch figure. Pillow is imported inside the functions (rendering is
optional).

>>> import numpy as np
>>> board = np.zeros((40, 300, 3), dtype=np.uint8)
>>> lines = caption_lines("Liniell", 7, ["player_0 (yellow)", "player_1 (green)"], [4, 11],
...                       to_act=1, winners=None)
>>> lines
['Liniell  turn 7  player_1 (green) to act', 'player_0 (yellow) 4  |  player_1 (green) 11']
>>> picture = add_caption(board, lines)
>>> picture.shape[1] >= 300 and picture.shape[0] > 40 + 2 * FONT_PX
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

FONT_PX = 20
"""Caption text height in pixels."""
LINE_PX = FONT_PX + 6
PAD_PX = 8
CAPTION_BG = (24, 24, 28)
CAPTION_FG = (245, 245, 245)


@lru_cache(maxsize=8)
def font(px: int = FONT_PX) -> Any:
    """Pillow's scalable default font at ``px`` pixels (a bitmap font if FreeType is absent)."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=px)
    except (TypeError, ImportError, OSError):  # Pillow without FreeType
        return ImageFont.load_default()


def text_width(text: str, px: int = FONT_PX) -> int:
    """The width in pixels of ``text`` in :func:`font`."""
    left, _top, right, _bottom = font(px).getbbox(text)
    return int(right - left)


def caption_lines(
    game: str,
    turn: int,
    players: Sequence[str],
    scores: Sequence[float],
    to_act: int | None,
    winners: Sequence[int] | None,
    score_unit: str = "",
) -> list[str]:
    """The caption of a position: the game and turn, who acts (or who won), every score.

    ``winners`` is None while the game runs; an empty list is a draw (or a truncated game).
    """
    if winners is None:
        status = f"{players[to_act]} to act" if to_act is not None else ""
        head = f"{game}  turn {turn}  {status}".rstrip()
    elif not winners:
        head = f"{game}  game over: a draw"
    else:
        names = " and ".join(players[w] for w in winners)
        head = f"{game}  game over: {names} {'win' if len(winners) > 1 else 'wins'}"
    unit = f" {score_unit}" if score_unit else ""
    score_text = "  |  ".join(f"{p} {s:g}{unit}" for p, s in zip(players, scores, strict=True))
    return [head, score_text]


def _wrapped(lines: Sequence[str], width: int) -> list[str]:
    """Lines that fit ``width`` pixels: broken at ``  |  `` first, then between words."""

    def fits(text: str) -> bool:
        return text_width(text) + 2 * PAD_PX <= width

    out: list[str] = []
    for line in lines:
        current = ""
        for part in line.split("  |  "):
            candidate = f"{current}  |  {part}" if current else part
            if fits(candidate):
                current = candidate
                continue
            if current:
                out.append(current)
            current = ""
            for word in part.split(" "):
                candidate = f"{current} {word}" if current else word
                if fits(candidate) or not current:
                    current = candidate
                else:
                    out.append(current)
                    current = word
        out.append(current)
    return out


def add_caption(image: np.ndarray, lines: Sequence[str], at_bottom: bool = False) -> np.ndarray:
    """``image`` (H x W x 3, uint8) with a band of text lines above it (or below)."""
    from PIL import Image, ImageDraw

    width = max(image.shape[1], 420)
    lines = _wrapped(lines, width)
    band = Image.new("RGB", (width, len(lines) * LINE_PX + PAD_PX), CAPTION_BG)
    draw = ImageDraw.Draw(band)
    for k, line in enumerate(lines):
        draw.text((PAD_PX, PAD_PX // 2 + k * LINE_PX), line, fill=CAPTION_FG, font=font())
    band_array = np.asarray(band, dtype=np.uint8)
    body = pad_to(image, image.shape[0], width)
    parts = [body, band_array] if at_bottom else [band_array, body]
    return np.concatenate(parts, axis=0)


def pad_to(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """``image`` grown to ``height`` x ``width`` by repeating its last column and row (its
    background), so pictures of one game can share a size (GIF frames)."""
    grow_h, grow_w = height - image.shape[0], width - image.shape[1]
    if grow_h < 0 or grow_w < 0:
        raise ValueError(f"cannot shrink a {image.shape[:2]} picture to {(height, width)}")
    if grow_h == grow_w == 0:
        return image
    return np.pad(image, ((0, grow_h), (0, grow_w), (0, 0)), mode="edge")


__all__ = [
    "FONT_PX",
    "LINE_PX",
    "add_caption",
    "caption_lines",
    "font",
    "pad_to",
    "text_width",
]
