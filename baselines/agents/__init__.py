"""Scripted agents and the registry that builds them by name.

>>> import numpy as np
>>> agent = make_agent("random", "qwirkle_v0", np.random.default_rng(0))
>>> agent.name
'random'
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from tabletop_rl.envs.core.keywords import check_keywords
from tabletop_rl.envs.errors import ConfigError

from .base import Agent, RandomAgent

# (environment name, agent name) -> "module:Class" relative to this package. Every class is
# built as Class(rng, **kwargs). "random" is generic and needs no entry.
_AGENTS: dict[tuple[str, str], str] = {
    ("qwirkle_v0", "greedy"): "qwirkle:QwirkleGreedyAgent",
    ("liniell_v0", "greedy"): "liniell:LiniellGreedyAgent",
    ("liniell_v0", "heuristic"): "liniell_heuristic:LiniellHeuristicAgent",
    ("qwirkle_cards_v0", "greedy"): "qwirkle_cards:QwirkleCardsGreedyAgent",
    ("qwirkle_cards_v0", "heuristic"): "qwirkle_cards_heuristic:QwirkleCardsHeuristicAgent",
    ("qwirkle_v0", "heuristic"): "qwirkle_heuristic:QwirkleHeuristicAgent",
    ("tictactoe", "tactics"): "tictactoe:TicTacToeTacticsAgent",
}


def _game(env_name: str) -> str:
    """The name agents are registered under (a ``module:factory`` environment: its game's)."""
    if ":" not in env_name:
        return env_name
    from ..env_factory import game_name

    return game_name(env_name)


def agent_names(env_name: str) -> list[str]:
    """Names of the scripted agents available for ``env_name``."""
    game = _game(env_name)
    return ["random", *sorted(name for env, name in _AGENTS if env == game)]


def agent_class(name: str, env_name: str) -> type[Agent]:
    """The class of scripted agent ``name`` for ``env_name`` (built as ``Class(rng, **kwargs)``)."""
    if name == "random":
        return RandomAgent
    key = (_game(env_name), name)
    if key not in _AGENTS:
        raise ConfigError(
            f"no agent {name!r} for {env_name}; available: {', '.join(agent_names(env_name))}"
        )
    module_name, cls_name = _AGENTS[key].split(":")
    module = importlib.import_module(f"{__name__}.{module_name}")
    return getattr(module, cls_name)


def make_agent(name: str, env_name: str, rng: np.random.Generator, **kwargs: Any) -> Agent:
    """Build scripted agent ``name`` for environment ``env_name``.

    An option the agent does not take is a ConfigError that lists the options it takes.
    """
    cls = agent_class(name, env_name)
    check_keywords(cls, kwargs, f"agent {name!r}", skip=("rng",), noun="option")
    return cls(rng, **kwargs)


__all__ = ["Agent", "RandomAgent", "agent_class", "agent_names", "make_agent"]
