"""The agent protocol shared by scripted and learned agents."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from tabletop_rl.envs.core.batch_policy import RandomPolicy


@runtime_checkable
class Agent(Protocol):
    """Something that picks an action for the player to act.

    ``observation`` is the environment's observation dict (``"observation"`` and
    ``"action_mask"``). ``view`` is the environment's ``public_view(agent)``: what that
    player may see of the state, for scripted agents that reason with the rules engine. It
    never holds hidden information (other hands, the order of the bag or stack). An agent
    returns an action whose mask entry is 1. An agent class that decides from the observation
    alone sets ``needs_view = False``, and the tools pass it None instead of building a view
    (:func:`~tabletop_rl.envs.core.simulator.agent_view`).
    """

    name: str

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int: ...


@runtime_checkable
class Teacher(Protocol):
    """An agent that can name every action it rates best, not only the one it plays.

    Scripted agents break ties between equally valued actions at random; a learner imitating
    such a teacher (kickstarting, behaviour cloning) should be told the whole set of tied
    actions rather than one drawn at random: see :func:`best_choices`.
    """

    def best_actions(self, observation: Mapping[str, np.ndarray], view: Any = None) -> list[int]:
        """Every legal action the agent rates best here; :meth:`Agent.act` plays one of them."""
        ...


def best_choices(
    agent: Any, observation: Mapping[str, np.ndarray], view: Any = None
) -> tuple[int, ...]:
    """The actions ``agent`` rates best here: its :meth:`Teacher.best_actions` when it has
    them, else the one action it plays.

    >>> best_choices(RandomAgent(np.random.default_rng(0)), {"action_mask": np.array([0, 1])})
    (1,)
    """
    if isinstance(agent, Teacher):
        return tuple(int(a) for a in agent.best_actions(observation, view))
    return (int(agent.act(observation, view)),)


class SeededAgent:
    """Base class of the scripted agents: all their randomness comes from ``self.rng``.

    :meth:`reseed` hands an agent a new generator and makes it forget the game it was playing,
    so a game played after ``agent.reseed(np.random.default_rng(seed))`` depends on ``seed``
    alone (the single-agent wrapper reseeds its opponents this way at every ``reset(seed=...)``).
    Subclasses that remember something within a game (a planned turn) clear it in
    :meth:`forget_game`.

    >>> agent = RandomAgent(np.random.default_rng(0))
    >>> obs = {"action_mask": np.ones(100, dtype=np.int8)}
    >>> agent.reseed(np.random.default_rng(5)); first = agent.act(obs)
    >>> agent.reseed(np.random.default_rng(5)); first == agent.act(obs)
    True
    """

    name: str

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def reseed(self, rng: np.random.Generator) -> None:
        """Draw all further randomness from ``rng`` and start afresh (see the class docstring)."""
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"reseed needs a numpy.random.Generator, got {type(rng).__name__}")
        self.rng = rng
        self.forget_game()

    def forget_game(self) -> None:
        """Drop whatever the agent remembers of the current game; nothing by default."""


class RandomAgent(SeededAgent):
    """Uniform over the legal actions, from a seeded generator.

    >>> agent = RandomAgent(np.random.default_rng(0))
    >>> agent.act({"action_mask": np.array([0, 0, 1, 0], dtype=np.int8)})
    2
    """

    name = "random"
    needs_view = False

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(self.rng.choice(legal))

    def batch_policy(self, model: Any) -> RandomPolicy:
        """The batch form (:mod:`tabletop_rl.envs.core.batch_policy`): the same draw in many
        games at once."""
        return RandomPolicy()
