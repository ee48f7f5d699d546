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
            return self._env.determinize(self.agent, rng)
        except NotImplementedError as exc:
            raise ConfigError(
                f"{info.name} cannot redraw hidden information ({exc}); search agents need "
                "the environment's resample_hidden()"
            ) from exc


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


__all__ = ["Simulator", "select_action"]
