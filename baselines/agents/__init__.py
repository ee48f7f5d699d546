"""Scripted agents and the registry that builds them by name.

>>> import numpy as np
>>> agent = make_agent("random", "qwirkle_v0", np.random.default_rng(0))
>>> agent.name
'random'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_rl.envs.core.keywords import check_keywords
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.games import resolve
from tabletop_rl.envs.registry import game_spec

from .base import Agent, RandomAgent


def agent_names(env_name: str) -> list[str]:
    """Names of the scripted agents available for ``env_name`` (``random`` and its game's
    :attr:`~tabletop_rl.envs.games.GameSpec.agents`)."""
    return ["random", *sorted(game_spec(env_name).agents)]


def agent_class(name: str, env_name: str) -> type[Agent]:
    """The class of scripted agent ``name`` for ``env_name`` (built as ``Class(rng, **kwargs)``)."""
    if name == "random":
        return RandomAgent
    spec = game_spec(env_name)
    if name not in spec.agents:
        raise ConfigError(
            f"no agent {name!r} for {spec.name}; available: {', '.join(agent_names(env_name))}"
        )
    return resolve(spec.agents[name], f"agent {name!r}")


def make_agent(name: str, env_name: str, rng: np.random.Generator, **kwargs: Any) -> Agent:
    """Build scripted agent ``name`` for environment ``env_name``.

    An option the agent does not take is a ConfigError that lists the options it takes.
    """
    cls = agent_class(name, env_name)
    check_keywords(cls, kwargs, f"agent {name!r}", skip=("rng",), noun="option")
    return cls(rng, **kwargs)


__all__ = ["Agent", "RandomAgent", "agent_class", "agent_names", "make_agent"]
