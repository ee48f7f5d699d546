"""How tools hand a turn to an agent: the public view, or a simulator for search agents.

An agent object gets ``agent.act(observation, view)``. For most agents ``view`` is the
environment's ``public_view(agent)``. An agent whose class sets ``needs_simulator = True``
(a search agent such as MCTS) gets a :class:`Simulator` instead: it exposes the public view
and :meth:`Simulator.sample`, which returns a *determinised copy* of the game — everything
the agent cannot see (other hands, the order of the bag or stack) redrawn consistently with
what it can see. The agent never touches the real environment, so it cannot peek.

>>> import numpy as np
>>> from tabletop_rl.baselines.agents import RandomAgent
>>> class Coin:
...     def __init__(self):
...         self.agent_selection = "player_0"
...     def observe(self, agent):
...         return {"action_mask": np.array([0, 1], dtype=np.int8)}
...     def public_view(self, agent):
...         return {"seen_by": agent}
>>> select_action(RandomAgent(np.random.default_rng(0)), Coin())
1
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import numpy as np

from tabletop_rl.envs.errors import ConfigError, IllegalActionError


class Simulator:
    """A search agent's handle on the game, for the player ``agent`` (see the module docstring).

    It holds the real environment privately; an agent uses only :meth:`public_view`,
    :meth:`sample` and the read-only facts below.
    """

    def __init__(self, env: Any, agent: str, env_name: str | None = None) -> None:
        self._env = env
        self.agent = agent
        self.env_name = env_name
        self.player: int = env.possible_agents.index(agent)
        self.num_players: int = len(env.possible_agents)
        self.info = env.info

    def public_view(self) -> Any:
        """What the player may see of the state (the environment's ``public_view``)."""
        try:
            return self._env.public_view(self.agent)
        except NotImplementedError:
            return None

    def sample(self, rng: np.random.Generator) -> Any:
        """A copy of the game with the hidden information redrawn from ``rng``.

        For a game with perfect information and no chance the copy is exact.
        """
        info = self._env.info
        if info.perfect_information and not info.chance:
            clone = copy.deepcopy(self._env)
            clone.render_mode = None
            return clone
        try:
            return determinize(self._env, self.agent, rng)
        except NotImplementedError as exc:
            raise ConfigError(
                f"{info.name} cannot redraw hidden information ({exc}); search agents need "
                "the environment's resample_hidden()"
            ) from exc


STATIC_ATTRIBUTES = (
    "observation_spaces",
    "action_spaces",
    "layout",
    "possible_agents",
    "_agent_index",
)
"""Attributes of the base environment that never change during play: copies share them."""


def determinize(env: Any, agent: str, rng: np.random.Generator) -> Any:
    """``env.determinize(agent, rng)``, faster and without a look at future chance.

    An environment that overrides ``determinize`` is trusted with it. Otherwise this is the
    base class's copy-and-redeal, except that the copy shares the static attributes
    (:data:`STATIC_ATTRIBUTES`, plus those an environment names in its own
    ``static_attributes`` tuple) instead of copying them, and gets a fresh random generator
    drawn from ``rng`` in place of a copy of the game's own: an environment that draws from
    its generator during play would otherwise let the copy foresee the real draws.
    """
    from tabletop_rl.envs.core.aec import TabletopAECEnv

    if type(env).determinize is not TabletopAECEnv.determinize:
        return env.determinize(agent, rng)
    memo: dict[int, Any] = {}
    for name in (*STATIC_ATTRIBUTES, *getattr(env, "static_attributes", ())):
        value = getattr(env, name, None)
        if value is not None:
            memo[id(value)] = value
    own_rng = getattr(env, "_rng", None)
    if own_rng is not None:
        memo[id(own_rng)] = np.random.default_rng(int(rng.integers(2**63)))
    clone = copy.deepcopy(env, memo)
    clone.render_mode = None
    clone.resample_hidden(agent, rng)
    clone._mask = None
    return clone


def select_action(
    agent: Any,
    env: Any,
    agent_name: str | None = None,
    observation: Mapping[str, np.ndarray] | None = None,
    env_name: str | None = None,
) -> int:
    """Ask ``agent`` for the move of ``agent_name`` (default: the player to act) in ``env``.

    ``env`` is a raw tabletop-rl environment. The agent gets the public view, or a
    :class:`Simulator` if it sets ``needs_simulator``. The returned action is checked
    against the mask; an illegal choice raises :class:`IllegalActionError` naming the agent.
    """
    name = agent_name or env.agent_selection
    obs = observation if observation is not None else env.observe(name)
    if getattr(agent, "needs_simulator", False):
        view: Any = Simulator(env, name, env_name)
    else:
        try:
            view = env.public_view(name)
        except NotImplementedError:
            view = None
    action = agent.act(obs, view)
    mask = obs["action_mask"]
    if isinstance(action, bool) or not isinstance(action, int | np.integer):
        raise IllegalActionError(
            f"agent {getattr(agent, 'name', agent)!r} returned {action!r}, not an action index"
        )
    action = int(action)
    if not (0 <= action < len(mask) and mask[action]):
        raise IllegalActionError(
            f"agent {getattr(agent, 'name', agent)!r} chose action {action}, "
            f"which is not legal for {name}"
        )
    return action


__all__ = ["STATIC_ATTRIBUTES", "Simulator", "determinize", "select_action"]
