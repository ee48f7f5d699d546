"""The registry: every environment by name, one lookup, and the Gymnasium ids.

Each game is described once, by a :class:`~tabletop_rl.envs.games.GameSpec` in
:data:`~tabletop_rl.envs.games.GAMES` (its environment, game model, compiled batch, Gymnasium
id, and the baselines' agents, move notation and defaults); the names and ids below are read
from it. :func:`make` builds an environment by its registry name or, for a game of your own,
by ``"module:factory"`` where ``factory(**kwargs)`` returns a
:class:`~tabletop_rl.envs.core.aec.TabletopAECEnv`; the arena, replays, terminal play and PPO
training all build theirs with it::

    from tabletop_rl.envs import make

    env = make("liniell_v0", num_players=3)  # with PettingZoo's standard wrappers
    raw = make("liniell_v0", raw=True)  # without (what agents, trainers and the arena use)
    own = make("my_games.dice:raw_env", raw=True)  # a game of your own

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

>>> available_envs()
['liniell_v0', 'qwirkle_cards_v0', 'qwirkle_v0']
>>> sorted(GYMNASIUM_IDS)
['tabletop_rl/Liniell-v0', 'tabletop_rl/Qwirkle-v0', 'tabletop_rl/QwirkleCards-v0']
>>> make("liniell_v0", raw=True, num_players=3).num_players
3
>>> make("chess_v0")
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ConfigError: unknown environment 'chess_v0'; available: liniell_v0, \
qwirkle_cards_v0, qwirkle_v0 (or 'module:factory' for a game of your own)
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

import gymnasium
import numpy as np

from .core.aec import TabletopAECEnv, wrap
from .core.keywords import check_keywords
from .errors import ConfigError
from .games import GAMES, GAMES_BY_NAME, GameSpec, resolve


def available_envs() -> list[str]:
    """Names accepted by :func:`make`, sorted."""
    return sorted(GAMES_BY_NAME)


GYMNASIUM_IDS: dict[str, str] = {
    spec.gymnasium_id: spec.name for spec in GAMES if spec.gymnasium_id is not None
}
"""Gymnasium id -> environment name (read from :data:`~tabletop_rl.envs.games.GAMES`)."""


def _registered(name: str) -> GameSpec:
    """The spec of registered environment ``name``, or the ConfigError listing them."""
    if name not in GAMES_BY_NAME:
        raise ConfigError(
            f"unknown environment {name!r}; available: {', '.join(available_envs())} "
            "(or 'module:factory' for a game of your own)"
        )
    return GAMES_BY_NAME[name]


def _factory(name: str) -> Callable[..., Any]:
    """The factory of environment ``name``: a registered name or ``"module:factory"``."""
    return resolve(name if ":" in name else _registered(name).env, "environment factory")


def env_module(name: str) -> ModuleType:
    """The module of environment ``name`` (its docstring is the documentation page)."""
    module = name.rpartition(":")[0] if ":" in name else _registered(name).module
    return importlib.import_module(module)


def make(name: str, *, raw: bool = False, **kwargs: Any) -> Any:
    """Build environment ``name`` with PettingZoo's standard wrappers (``raw=True``: without).

    ``name`` is a registry name (:func:`available_envs`) or, for a game of your own,
    ``"module:factory"`` where ``factory(**kwargs)`` returns a
    :class:`~tabletop_rl.envs.core.aec.TabletopAECEnv`. Keyword arguments go to the
    environment's constructor; one it does not take is a ConfigError naming the keywords it
    does take.
    """
    factory = _factory(name)
    check_keywords(factory, kwargs, name)
    env = factory(**kwargs)
    if not isinstance(env, TabletopAECEnv):
        raise ConfigError(f"{name!r} did not build a TabletopAECEnv (got {type(env).__name__})")
    return env if raw else wrap(env)


@functools.lru_cache(maxsize=64)
def game_name(env_name: str) -> str:
    """The registry name a game is known by: ``env_name``, or for a ``module:factory``
    environment the name its ``info`` declares (a variant of a registered game is that game).

    >>> game_name("liniell_v0"), game_name("tabletop_rl.envs.liniell_v0:raw_env")
    ('liniell_v0', 'liniell_v0')
    """
    if ":" not in env_name:
        return env_name
    return str(make(env_name, raw=True).info.name)


@functools.lru_cache(maxsize=64)
def game_spec(env_name: str) -> GameSpec:
    """The :class:`~tabletop_rl.envs.games.GameSpec` of environment ``env_name``.

    A registry name gives its entry. A ``module:factory`` name gives the entry of the game its
    ``info`` names when that game is registered (a variant of it); else the ``GAME_SPEC`` of
    the factory's module, a :class:`~tabletop_rl.envs.games.GameSpec` of the same name, when
    the module describes its game (its agents, notation, ...); else a spec of the name and
    the factory only.

    >>> game_spec("tabletop_rl.envs.qwirkle_v0:raw_env").name
    'qwirkle_v0'
    """
    if ":" not in env_name:
        return _registered(env_name)
    name = game_name(env_name)
    if name in GAMES_BY_NAME:
        return GAMES_BY_NAME[name]
    described = getattr(env_module(env_name), "GAME_SPEC", None)
    if described is None:
        return GameSpec(name=name, env=env_name)
    if not isinstance(described, GameSpec) or described.name != name:
        raise ConfigError(
            f"GAME_SPEC of {env_name!r} must be a GameSpec named {name!r} (the game's "
            f"info.name), got {described!r}"
        )
    return described


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
