"""Weight overrides for the heuristic agents (``heuristic:name=value`` in arena specs).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class W:
...     risk: float = 1.0
>>> with_overrides(W(), {"risk": 2.0}, "agent")
W(risk=2.0)
>>> with_overrides(W(), {"rsik": 2.0}, "agent")
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ConfigError: agent has no weight rsik; weights: risk
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any, TypeVar

from tabletop_rl.envs.errors import ConfigError

W = TypeVar("W")


def with_overrides(weights: W, overrides: Mapping[str, Any], owner: str) -> W:
    """``weights`` (a dataclass) with the named fields replaced; a clear error naming
    ``owner`` and the allowed names for an unknown one."""
    names = [f.name for f in fields(weights)]  # type: ignore[arg-type]
    unknown = sorted(set(overrides) - set(names))
    if unknown:
        raise ConfigError(
            f"{owner} has no weight {', '.join(unknown)}; weights: {', '.join(names)}"
        )
    return replace(weights, **overrides)  # type: ignore[type-var]
