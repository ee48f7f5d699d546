"""tabletop-rl environments: PettingZoo AEC environments for Qwirkle, Qwirkle Cards and Liniell.

Use :func:`make` with a name from :func:`available_envs`, or import an environment module
PettingZoo-style::

    from tabletop_rl.envs import qwirkle_v0
    env = qwirkle_v0.env(num_players=2)

Importing this package also registers the Gymnasium ids ``tabletop_rl/Qwirkle-v0``,
``tabletop_rl/QwirkleCards-v0`` and ``tabletop_rl/Liniell-v0`` (single-agent, see
:func:`make_single_agent`). Environment modules are imported lazily, so importing this package
is cheap. It also checks that the compiled kernels cached on disk were built from the source
as it is, and drops them otherwise (:mod:`.core.kernel_cache`).
"""

from __future__ import annotations

import importlib
from typing import Any

from .core.kernel_cache import drop_stale_kernels
from .errors import (
    ActionOutOfRangeError,
    ArgumentError,
    ConfigError,
    GameOverError,
    IllegalActionError,
    IllegalMoveError,
    InvariantError,
    NotationError,
    TabletopError,
)
from .registry import (
    GYMNASIUM_IDS,
    available_envs,
    env_module,
    make,
    make_single_agent,
    register_gymnasium_ids,
)

register_gymnasium_ids()
drop_stale_kernels()

__all__ = [
    "GYMNASIUM_IDS",
    "ActionOutOfRangeError",
    "ArgumentError",
    "ConfigError",
    "GameOverError",
    "IllegalActionError",
    "IllegalMoveError",
    "InvariantError",
    "NotationError",
    "TabletopError",
    "available_envs",
    "env_module",
    "make",
    "make_single_agent",
]


def __getattr__(name: str) -> Any:
    if name in available_envs():
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
