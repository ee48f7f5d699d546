"""tabletop-rl environments: PettingZoo AEC environments for Qwirkle, Qwirkle Cards and Liniell.

Use :func:`make` with a name from :func:`available_envs` (or ``"module:factory"`` for a game
of your own), or import an environment module PettingZoo-style::

    from tabletop_rl.envs import qwirkle_v0
    env = qwirkle_v0.env(num_players=2)

Importing this package also registers the Gymnasium ids ``tabletop_rl/Qwirkle-v0``,
``tabletop_rl/QwirkleCards-v0`` and ``tabletop_rl/Liniell-v0`` (single-agent, see
:func:`make_single_agent`). Environment modules are imported lazily, so importing this package
is cheap. It also tells numba where to cache the compiled kernels, and to take a cached kernel
only if it was built from the package's source as it is (:mod:`.core.kernel_cache`; nothing is
deleted: ``python -m tabletop_rl.envs.kernels --clean`` removes stale files).
"""

from __future__ import annotations

from typing import Any

from .core.kernel_cache import register_cache_locator
from .errors import (
    ActionOutOfRangeError,
    ArgumentError,
    ConfigError,
    GameOverError,
    IllegalActionError,
    IllegalMoveError,
    InvariantError,
    NotationError,
    ObservationVersionError,
    TabletopError,
)
from .registry import (
    GYMNASIUM_IDS,
    available_envs,
    env_module,
    game_name,
    game_spec,
    make,
    make_single_agent,
    register_gymnasium_ids,
)

register_gymnasium_ids()
register_cache_locator()

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
    "ObservationVersionError",
    "TabletopError",
    "available_envs",
    "env_module",
    "game_name",
    "game_spec",
    "make",
    "make_single_agent",
]


def __getattr__(name: str) -> Any:
    if name in available_envs():
        return env_module(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
