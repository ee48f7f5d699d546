"""Checking keyword arguments against what a constructor accepts, before calling it.

A misspelt keyword (``numplayers=2``) then gets a :class:`~tabletop_rl.envs.errors.ConfigError`
that names it and lists the keywords that are allowed, instead of Python's bare
``TypeError``.

>>> def build(num_players: int = 2, render_mode: str | None = None) -> None: ...
>>> check_keywords(build, {"num_players": 3}, "liniell_v0")
>>> check_keywords(build, {"numplayers": 2}, "liniell_v0")
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ConfigError: liniell_v0 takes no keyword 'numplayers'; allowed: \
num_players, render_mode
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Mapping
from typing import Any

from ..errors import ConfigError

_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def allowed_keywords(target: Callable[..., Any], skip: Collection[str] = ()) -> list[str] | None:
    """The keywords ``target`` accepts (less ``skip``), or None if it takes ``**kwargs``."""
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: cannot tell
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return [p.name for p in params if p.kind in _NAMED and p.name not in skip]


def check_keywords(
    target: Callable[..., Any],
    kwargs: Mapping[str, Any],
    what: str,
    skip: Collection[str] = (),
    noun: str = "keyword",
) -> None:
    """Raise a ConfigError naming every key of ``kwargs`` that ``target`` does not accept.

    ``what`` names the thing being built in the message; ``skip`` lists parameters the caller
    fills in itself (they are neither allowed in ``kwargs`` nor listed); ``noun`` is what the
    message calls a keyword (``"option"`` for an agent spec).
    """
    allowed = allowed_keywords(target, skip)
    if allowed is None:
        return
    unknown = [k for k in kwargs if k not in allowed]
    if unknown:
        names = ", ".join(repr(k) for k in unknown)
        plural = "s" if len(unknown) > 1 else ""
        raise ConfigError(
            f"{what} takes no {noun}{plural} {names}; allowed: {', '.join(allowed) or 'none'}"
        )


__all__ = ["allowed_keywords", "check_keywords"]
