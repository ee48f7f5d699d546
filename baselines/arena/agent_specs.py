"""Agent specs: the text that names an agent on the command line and in game records.

A spec is a name from ``agent_names(env)`` (``random``, ``greedy``, ...), ``mcts``, or
``ppo:PATH``; options follow a colon, e.g. ``mcts:simulations=100,rollout=greedy``.

>>> parse_agent_spec("mcts:simulations=50,rollout=greedy")
('mcts', {'simulations': 50, 'rollout': 'greedy'})
>>> parse_agent_spec("ppo:runs/liniell/model.pt")
('ppo', {'path': 'runs/liniell/model.pt'})
>>> parse_value("0.5"), parse_value("none"), parse_value("greedy")
(0.5, None, 'greedy')
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tabletop_rl.envs.errors import ConfigError

from ..env_factory import make_env


def parse_value(text: str) -> Any:
    """A command-line value: a bool, ``None``, an int, a float, or else the text itself."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name:key=value,...`` (or ``ppo:PATH``) into a name and keyword arguments."""
    name, _, rest = spec.partition(":")
    if not name:
        raise ConfigError(f"empty agent name in spec {spec!r}")
    if name == "ppo":
        if not rest:
            raise ConfigError("a PPO agent needs a model path: ppo:PATH")
        return name, {"path": rest}
    kwargs: dict[str, Any] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise ConfigError(
                    f"bad option {item!r} in agent spec {spec!r}; write name:key=value,key=value"
                )
            kwargs[key.strip()] = parse_value(value.strip())
    return name, kwargs


def available_agents(env_name: str) -> list[str]:
    """Agent names usable for ``env_name``: the scripted ones, ``mcts`` and ``ppo:PATH``."""
    from ..agents import agent_names

    return [*agent_names(game_name(env_name)), "mcts", "ppo:PATH"]


@functools.lru_cache(maxsize=64)
def game_name(env_name: str) -> str:
    """The registry name agents are looked up by: ``env_name``, or for a ``module:factory``
    environment the name its ``info`` declares (a variant of a registered game gets its
    agents)."""
    if ":" not in env_name:
        return env_name
    return str(make_env(env_name).info.name)


def resolve_agent(spec: str, env_name: str, rng: np.random.Generator) -> Any:
    """Build the agent named by ``spec`` for ``env_name`` (see the module docstring)."""
    name, kwargs = parse_agent_spec(spec)
    env_name = game_name(env_name)
    if name == "mcts":
        from ..agents.mcts import make_mcts

        try:
            return make_mcts(rng, env_name, **kwargs)
        except TypeError as exc:
            raise ConfigError(f"bad option for mcts in {spec!r}: {exc}") from exc
    if name == "ppo":
        try:
            from ..ppo.agent import load_ppo_agent
        except ImportError as exc:
            raise ConfigError(f"PPO agents need the baselines extra (torch): {exc}") from exc
        return load_ppo_agent(kwargs["path"], env_name, rng)
    from ..agents import agent_names, make_agent

    if name not in agent_names(env_name):
        raise ConfigError(
            f"no agent {name!r} for {env_name}; available: " + ", ".join(available_agents(env_name))
        )
    try:
        return make_agent(name, env_name, rng, **kwargs)
    except TypeError as exc:
        raise ConfigError(f"bad option for {name} in {spec!r}: {exc}") from exc


__all__ = ["available_agents", "game_name", "parse_agent_spec", "parse_value", "resolve_agent"]
