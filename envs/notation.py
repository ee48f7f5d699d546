"""What the games' text notations share: the check that a parser was given text at all.

>>> require_text("Ro Rx", "a Qwirkle board")
'Ro Rx'
>>> require_text(b"Ro Rx", "a Qwirkle board")
Traceback (most recent call last):
...
tabletop_rl.envs.errors.NotationError: a Qwirkle board is text (str), got bytes; decode it ...
"""

from __future__ import annotations

from .errors import NotationError


def require_text(text: object, what: str) -> str:
    """``text`` itself if it is a ``str``; else a :class:`NotationError` saying what ``what``
    (a position, a board) is written as."""
    if isinstance(text, str):
        return text
    hint = ""
    if isinstance(text, bytes | bytearray):
        hint = '; decode it first, e.g. data.decode("utf-8")'
    raise NotationError(f"{what} is text (str), got {type(text).__name__}{hint}")
