"""Registry of the suite's environments.

>>> available_envs() == sorted(available_envs())
True
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from .errors import ConfigError

# Environment name -> module (relative to tabletop_rl.envs) that defines env() and raw_env.
_ENV_MODULES: dict[str, str] = {
    "qwirkle_v0": "qwirkle_v0",
    "liniell_v0": "liniell_v0",
    "qwirkle_cards_v0": "qwirkle_cards_v0",
}


def available_envs() -> list[str]:
    """Names accepted by :func:`make`, sorted."""
    return sorted(_ENV_MODULES)


def env_module(name: str) -> ModuleType:
    """The module of environment ``name`` (its docstring is the documentation page)."""
    if name not in _ENV_MODULES:
        raise ConfigError(
            f"unknown environment {name!r}; available environments: {', '.join(available_envs())}"
        )
    return importlib.import_module(f"tabletop_rl.envs.{_ENV_MODULES[name]}")


def make(name: str, *, raw: bool = False, **kwargs: Any) -> Any:
    """Build environment ``name`` with PettingZoo's standard wrappers (``raw=True``: without).

    Keyword arguments go to the environment's constructor.
    """
    module = env_module(name)
    return module.raw_env(**kwargs) if raw else module.env(**kwargs)
