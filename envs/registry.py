"""Registry of the suite's environments, and their Gymnasium ids.

Importing :mod:`tabletop_rl.envs` registers one Gymnasium id per game for the single-agent
wrapper (:class:`~tabletop_rl.envs.core.single_agent.SingleAgentEnv`), so Gymnasium's own
``make`` and ``make_vec`` build them::

    import gymnasium
    import tabletop_rl.envs  # registers the ids

    env = gymnasium.make("tabletop_rl/Liniell-v0", opponent="greedy", num_players=3)
    envs = gymnasium.make_vec("tabletop_rl/Qwirkle-v0", num_envs=4, vectorization_mode="sync")
    fast = gymnasium.make_vec("tabletop_rl/Qwirkle-v0", num_envs=64)  # the compiled batch

``make_vec`` builds the batched vector environment of :mod:`tabletop_rl.envs.gym_vector` by
default (``vectorization_mode="vector_entry_point"``): all games in one compiled batch, the
opponents' moves played inside it; ``"sync"`` and ``"async"`` step one single-agent
environment per game.

>>> available_envs() == sorted(available_envs())
True
>>> sorted(GYMNASIUM_IDS)
['tabletop_rl/Liniell-v0', 'tabletop_rl/Qwirkle-v0', 'tabletop_rl/QwirkleCards-v0']
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

import gymnasium
import numpy as np

from .core.keywords import check_keywords
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

    Keyword arguments go to the environment's constructor; one it does not take is a
    ConfigError naming the keywords it does take.
    """
    module = env_module(name)
    check_keywords(module.raw_env, kwargs, name)
    return module.raw_env(**kwargs) if raw else module.env(**kwargs)


# Gymnasium id -> environment name. The version follows the environment's.
GYMNASIUM_IDS: dict[str, str] = {
    "tabletop_rl/Qwirkle-v0": "qwirkle_v0",
    "tabletop_rl/QwirkleCards-v0": "qwirkle_cards_v0",
    "tabletop_rl/Liniell-v0": "liniell_v0",
}


AGENT_SPECS_GROUP = "tabletop_rl.agent_specs"
"""The entry-point group of agent-spec resolvers: ``resolve(spec, env_name, rng) -> agent``.
The baselines package declares the suite's own (``pyproject.toml``); the environments never
import it, so they run where it is not installed, with agent objects for opponents."""


def agent_resolver() -> Callable[[str, str, np.random.Generator], Any]:
    """The installed resolver of agent specs (the baselines' ``resolve_agent``), or a
    ConfigError saying what to pass instead."""
    found = sorted(entry_points(group=AGENT_SPECS_GROUP), key=lambda point: point.name)
    if not found:
        raise ConfigError(
            "agent specs such as 'greedy' are read by tabletop_rl.baselines, which is not "
            "installed; pass agent objects (with act(observation, view)) or callables instead"
        )
    return found[0].load()


def _opponent_agents(opponent: str | Sequence[Any], env_name: str, count: int) -> list[Any]:
    """Opponent agents from agent specs (one spec for every seat, or one per seat) or objects.

    Specs are those of the arena (``random``, ``greedy``, ``heuristic``, ``mcts:...``,
    ``ppo:PATH``), built by the installed resolver (:func:`agent_resolver`); the scripted
    agents need no torch. Their generators are replaced at every ``reset(seed=...)``.
    """
    specs = [opponent] * count if isinstance(opponent, str) else list(opponent)
    if len(specs) != count:
        raise ConfigError(f"{count + 1}-player game needs {count} opponents, got {len(specs)}")
    if not any(isinstance(spec, str) for spec in specs):
        return specs
    resolve_agent = agent_resolver()
    placeholder = np.random.default_rng(0)  # reseeded from the env's seed at every reset
    return [
        resolve_agent(spec, env_name, placeholder) if isinstance(spec, str) else spec
        for spec in specs
    ]


def make_single_agent(
    env_name: str,
    opponent: str | Sequence[Any] = "random",
    num_players: int = 2,
    learner_seat: int | None = 0,
    illegal_action: str = "terminate",
    **env_kwargs: Any,
) -> gymnasium.Env:
    """The single-agent Gymnasium env of ``env_name`` (the entry point of the Gymnasium ids).

    ``opponent`` is an agent spec for every other seat (``"random"``, ``"greedy"``,
    ``"heuristic"``, ...), a list of specs or agent objects (one per other seat). Other
    keyword arguments (``reward``, ``render_mode``, ...) go to the game's constructor.

    >>> env = make_single_agent("liniell_v0", opponent="greedy", num_players=3)
    >>> obs, info = env.reset(seed=0)
    >>> int(env.action_space.sample(env.action_masks())) in set(np.flatnonzero(info["action_mask"]))
    True
    """
    from .core.single_agent import SingleAgentEnv

    game = make(env_name, raw=True, num_players=num_players, **env_kwargs)
    opponents = _opponent_agents(opponent, env_name, num_players - 1)
    return SingleAgentEnv(game, opponents, learner_seat=learner_seat, illegal_action=illegal_action)


def register_gymnasium_ids() -> None:
    """Register :data:`GYMNASIUM_IDS` with Gymnasium (done on ``import tabletop_rl.envs``)."""
    for env_id, env_name in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="tabletop_rl.envs.registry:make_single_agent",
                vector_entry_point="tabletop_rl.envs.gym_vector:make_vector_env",
                kwargs={"env_name": env_name},
            )
