"""The agent protocol shared by scripted and learned agents."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Something that picks an action for the player to act.

    ``observation`` is the environment's observation dict (``"observation"`` and
    ``"action_mask"``). ``view`` is the environment's ``public_view(agent)``: what that
    player may see of the state, for scripted agents that reason with the rules engine. It
    never holds hidden information (other hands, the order of the bag or stack). An agent
    returns an action whose mask entry is 1.
    """

    name: str

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int: ...


class RandomAgent:
    """Uniform over the legal actions, from a seeded generator.

    >>> agent = RandomAgent(np.random.default_rng(0))
    >>> agent.act({"action_mask": np.array([0, 0, 1, 0], dtype=np.int8)})
    2
    """

    name = "random"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(self.rng.choice(legal))
