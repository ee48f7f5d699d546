"""The one place that builds a raw environment from its name.

An environment is named by its registry name (``liniell_v0``, ...; see
:func:`tabletop_rl.envs.available_envs`) or, for a game of your own, by ``"module:factory"``
where ``factory(**kwargs)`` returns a :class:`~tabletop_rl.envs.core.aec.TabletopAECEnv`.
The arena, replays, terminal play and PPO training all build their environments here.

>>> env = make_env("liniell_v0", num_players=2)
>>> env.num_players
2
>>> make_env("chess_v0")
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ConfigError: unknown environment 'chess_v0'; available: liniell_v0, \
qwirkle_cards_v0, qwirkle_v0 (or 'module:factory' for a game of your own)
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from tabletop_rl.envs.core.aec import TabletopAECEnv
from tabletop_rl.envs.core.keywords import check_keywords
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.registry import available_envs, make


@functools.lru_cache(maxsize=64)
def game_name(env_name: str) -> str:
    """The registry name agents are looked up by: ``env_name``, or for a ``module:factory``
    environment the name its ``info`` declares (a variant of a registered game gets its
    agents)."""
    if ":" not in env_name:
        return env_name
    return str(make_env(env_name).info.name)


def make_env(env_name: str, **kwargs: Any) -> TabletopAECEnv:
    """A raw environment: a registry name, or ``"module:factory"`` for a game of your own.

    Keyword arguments go to the environment's constructor.
    """
    if ":" in env_name:
        module_name, attr = env_name.rsplit(":", 1)
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigError(f"cannot import environment module {module_name!r}: {exc}") from None
        factory = getattr(module, attr, None)
        if factory is None:
            raise ConfigError(f"module {module_name!r} has no environment factory {attr!r}")
        check_keywords(factory, kwargs, env_name)
        env = factory(**kwargs)
    else:
        if env_name not in available_envs():
            raise ConfigError(
                f"unknown environment {env_name!r}; available: {', '.join(available_envs())} "
                "(or 'module:factory' for a game of your own)"
            )
        env = make(env_name, raw=True, **kwargs)
    if not isinstance(env, TabletopAECEnv):
        raise ConfigError(f"{env_name!r} did not build a TabletopAECEnv (got {type(env).__name__})")
    return env


__all__ = ["game_name", "make_env"]
