"""Agent specs: the text that names an agent on the command line and in game records.

A spec is a name from ``agent_names(env)`` (``random``, ``greedy``, ...), ``mcts``,
``value:FIELD=WEIGHT,...`` (the legal action of the highest weighted sum of feature fields, see
:mod:`tabletop_rl.baselines.agents.feature_value`), ``ppo:PATH``
(``ppo:pretrained/<env name>``: the policy shipped for that game) or
``rllib:PATH`` (an RLlib checkpoint, see :mod:`tabletop_rl.baselines.rllib`);
options follow a colon, e.g. ``mcts:simulations=100,rollout=greedy``.

>>> parse_agent_spec("mcts:simulations=50,rollout=greedy")
('mcts', {'simulations': 50, 'rollout': 'greedy'})
>>> parse_agent_spec("ppo:runs/liniell/model.pt")
('ppo', {'path': 'runs/liniell/model.pt'})
>>> parse_value("0.5"), parse_value("none"), parse_value("greedy")
(0.5, None, 'greedy')
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from tabletop_rl.envs.core.batch_policy import BatchPolicy, batch_form
from tabletop_rl.envs.core.keywords import check_keywords
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.registry import game_name

from ..workers import use_worker_threads

VALUE_SPEC = "value:FIELD=WEIGHT,..."
"""How :func:`available_agents` lists the feature value agent."""


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
            raise ConfigError(
                f"{spec!r}: a PPO agent needs a path: ppo:RUN_FOLDER or ppo:CHECKPOINT_FILE"
            )
        return name, {"path": rest}
    if name == "rllib":
        if not rest:
            raise ConfigError(f"{spec!r}: an RLlib agent needs a checkpoint folder: rllib:PATH")
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
    """Agent names usable for ``env_name``: the scripted ones, ``mcts``,
    ``value:FIELD=WEIGHT,...``, ``ppo:PATH`` and ``rllib:PATH``."""
    return [*agent_names_for(env_name), "mcts", VALUE_SPEC, "ppo:PATH", "rllib:PATH"]


def resolve_agent(spec: str, env_name: str, rng: np.random.Generator) -> Any:
    """Build the agent named by ``spec`` for ``env_name`` (see the module docstring).

    Every mistake is a ConfigError that says what is allowed: an unknown agent name, an
    option the agent does not take, a ``ppo:PATH`` that is neither a checkpoint file nor a
    training run folder.
    """
    name, kwargs = parse_agent_spec(spec)
    game = game_name(env_name)
    if name == "mcts":
        from ..agents.mcts import MCTSAgent, make_mcts

        check_keywords(
            MCTSAgent, kwargs, f"{spec!r}: mcts", skip=("rng", "env_name"), noun="option"
        )
        return make_mcts(rng, env_name, **kwargs)
    if name == "value":
        from ..agents.feature_value import make_value_agent

        return make_value_agent(rng, game, **kwargs)
    if name == "ppo":
        return _load_ppo(kwargs["path"], game, rng)
    if name == "rllib":
        from ..rllib import RLlibAgent

        try:
            agent = RLlibAgent(kwargs["path"], rng)
        except ImportError as exc:
            raise ConfigError(
                f"rllib agents need Ray, which the rllib extra installs "
                f"(pip install 'tabletop-rl[rllib]'): {exc}"
            ) from None
        use_worker_threads()  # the agent loaded torch: in a worker, on the worker's threads
        return agent
    from ..agents import agent_class

    if name not in agent_names_for(env_name):
        raise ConfigError(
            f"no agent {name!r} for {game}; available: " + ", ".join(available_agents(env_name))
        )
    cls = agent_class(name, env_name)
    check_keywords(cls, kwargs, f"{spec!r}: {name}", skip=("rng",), noun="option")
    from ..agents import make_agent

    return make_agent(name, env_name, rng, **kwargs)


BATCH_AGENTS = (
    "random, value:FIELD=WEIGHT,... (features=True), and on liniell_v0 greedy (features=True)"
)
"""The agent specs with a batch form (:func:`resolve_batch_policy`)."""


def resolve_batch_policy(spec: str, env_name: str, model: Any) -> BatchPolicy:
    """The batch form (:mod:`tabletop_rl.envs.core.batch_policy`) of the agent named by
    ``spec``, over the observation of game model ``model`` (an environment's ``.model``,
    features included), for the Gymnasium vector environment's opponents; a ConfigError
    naming the agents that have one for anything else.

    >>> from tabletop_rl.envs import make
    >>> model = make("liniell_v0", raw=True, features=True).model
    >>> type(resolve_batch_policy("greedy", "liniell_v0", model)).__name__
    'FeatureValuePolicy'
    >>> resolve_batch_policy("heuristic", "liniell_v0", model)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tabletop_rl.envs.errors.ConfigError: agent 'heuristic' has no batch form ...
    """
    agent = resolve_agent(spec, env_name, np.random.default_rng(0))
    policy = batch_form(agent, model)
    if policy is None:
        raise ConfigError(
            f"agent {spec!r} has no batch form for {game_name(env_name)} with these options; "
            f"agents with one: {BATCH_AGENTS}"
        )
    return policy


def agent_names_for(env_name: str) -> list[str]:
    """The scripted agents of ``env_name`` (a ``module:factory`` name: of its game)."""
    from ..agents import agent_names

    return agent_names(env_name)


def observation_kwargs(specs: Sequence[str], env_name: str) -> dict[str, Any]:
    """The environment options the agents of ``specs`` need to read their observations:
    ``{"features": True}`` when a ``ppo:`` policy was trained on observation features or a
    ``value:`` agent reads them (the others read the basic observation it starts with), else
    empty."""
    needs: dict[str, Any] = {}
    for spec in specs:
        name, kwargs = parse_agent_spec(spec)
        if name == "value":
            needs["features"] = True
        if name == "ppo":
            path = kwargs["path"]
            needs.update(_ppo_module(path).checkpoint_env_kwargs(path, game_name(env_name)))
    return needs


def _load_ppo(path: str, env_name: str, rng: np.random.Generator) -> Any:
    module = _ppo_module(path)
    use_worker_threads()  # torch is loaded now: in a worker process, on the worker's threads
    return module.load_ppo_agent(path, env_name, rng)


def _ppo_module(path: str) -> ModuleType:
    """The module that loads ``ppo:`` policies, once ``path`` is known to exist: a clear
    error when it does not, or when torch is missing."""
    where = Path(path)
    shipped = path.startswith("pretrained/") and not where.exists()  # a policy we ship
    if not shipped and not where.exists():
        raise ConfigError(
            f"ppo:{path}: no such file or folder; give a training run folder (holding "
            "checkpoint.pt) or a checkpoint file"
        )
    if where.is_dir() and not (where / "checkpoint.pt").is_file():
        raise ConfigError(
            f"ppo:{path}: the folder holds no checkpoint.pt; give a training run folder "
            "(where `tabletop-rl train` wrote checkpoint.pt) or a checkpoint file"
        )
    try:
        from ..ppo import agent
    except ImportError as exc:
        raise ConfigError(
            f"ppo agents need torch, which the baselines extra installs "
            f"(pip install 'tabletop-rl[baselines]'): {exc}"
        ) from None
    return agent


def check_agent_specs(specs: Sequence[str], env_name: str) -> None:
    """Build every agent of ``specs`` once, so that a bad spec fails before any game starts."""
    for spec in specs:
        resolve_agent(spec, env_name, np.random.default_rng(0))


__all__ = [
    "BATCH_AGENTS",
    "agent_names_for",
    "available_agents",
    "check_agent_specs",
    "game_name",
    "observation_kwargs",
    "parse_agent_spec",
    "parse_value",
    "resolve_agent",
    "resolve_batch_policy",
]
