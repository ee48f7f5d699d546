"""How tools hand a turn to an agent: the public view, or a simulator for search agents.

An agent object gets ``agent.act(observation, view)``. For most agents ``view`` is the
environment's ``public_view(agent)``. An agent whose class sets ``needs_view = False`` decides
from the observation alone and gets None: no view is built for it (a game model may build its
view by replaying the game, as Liniell's compiled one does). An agent whose class sets
``needs_simulator = True``
(a search agent such as MCTS) gets a :class:`Simulator` instead: it exposes the public view
and :meth:`Simulator.sample`, which returns a :class:`Playout`: a *determinised copy* of the
game on the game's public model — everything the agent cannot see (other hands, the order of
the bag or stack) redrawn consistently with what it can see. The agent never touches the real
environment, so it cannot peek.

The same choice serves the training's game slots, which play on a game model without an
environment (:func:`agent_view`). Observation features are left out of a search's copies: a
search plays by the rules alone.

>>> import numpy as np
>>> from tabletop_rl.envs import liniell_v0
>>> class FirstLegal:  # any object with act(observation, view) is an agent
...     def act(self, observation, view):
...         return int(np.flatnonzero(observation["action_mask"])[0])
>>> env = liniell_v0.raw_env()
>>> env.reset(seed=0)
>>> action = select_action(FirstLegal(), env)
>>> bool(env.observe(env.agent_selection)["action_mask"][action])
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ConfigError, GameOverError, IllegalActionError
from .features import FeatureModel
from .model import GameModel, Outcome, StepResult


class Playout:
    """A game a search agent may play forward: a model state it owns, stepped by the model.

    >>> from tabletop_rl.envs.liniell.model import LiniellModel
    >>> model = LiniellModel()
    >>> game = Playout(model, model.new_state(np.random.default_rng(0)))
    >>> step = game.step(int(np.flatnonzero(game.action_mask())[0]))
    >>> game.current_player() in (0, 1), step.game_over
    (True, False)
    """

    def __init__(self, model: GameModel, state: Any) -> None:
        self.model = model
        self.state = state
        self.num_players: int = model.num_players
        self.info = model.info
        self._mask: np.ndarray | None = None

    @property
    def has_scores(self) -> bool:
        """The game keeps points (a cut-off playout can be judged by them)."""
        return type(self.model).scores is not GameModel.scores

    def current_player(self) -> int:
        return self.model.current_player(self.state)

    def action_mask(self) -> np.ndarray:
        """The legal actions of the player to act (cached until the next step)."""
        if self._mask is None:
            self._mask = self.model.legal_mask_unchecked(self.state)
        return self._mask

    def step(self, action: int) -> StepResult:
        """Play ``action``; an illegal one (or any once the game is over) raises
        :class:`~tabletop_rl.envs.errors.IllegalActionError` and changes nothing. The check
        reads the cached mask, which a playout has usually asked for already."""
        if self.model.is_over(self.state):
            raise GameOverError(f"the game is over, so action {action!r} cannot be played")
        action = self.model.check_legal(self.state, action, self.action_mask())
        self._mask = None
        return self.model.step_unchecked(self.state, action)

    def public_view(self, player: int) -> Any:
        return self.model.public_view(self.state, player)

    def observe(self, player: int) -> dict[str, np.ndarray]:
        """The observation dict a PettingZoo environment would give ``player`` to act."""
        return {
            "observation": self.model.observe(self.state, player),
            "action_mask": self.action_mask().copy(),
        }

    def scores(self) -> list[float]:
        return list(self.model.scores(self.state))

    def outcome(self) -> Outcome | None:
        return self.model.outcome(self.state)


class Simulator:
    """A search agent's handle on the game, for player ``player`` (see the module docstring).

    It holds the real game privately; an agent uses only :meth:`public_view`,
    :meth:`sample` and the read-only facts below.
    """

    def __init__(
        self, model: GameModel, state: Any, player: int, env_name: str | None = None
    ) -> None:
        # a search plays by the rules alone: observation features (FeatureModel) would be
        # computed whenever a playout observes (greedy rollouts of the sub-action search)
        self.model = model.base if isinstance(model, FeatureModel) else model
        self._state = state
        self.env_name = env_name
        self.player = player
        self.num_players: int = model.num_players
        self.info = model.info

    @classmethod
    def of_env(cls, env: Any, agent: str, env_name: str | None = None) -> Simulator:
        """The simulator of ``agent`` (a PettingZoo agent name) in a tabletop-rl environment."""
        raw = getattr(env, "unwrapped", env)
        return cls(raw.model, raw.game_state, raw.possible_agents.index(agent), env_name)

    def public_view(self) -> Any:
        """What the player may see of the state (the model's ``public_view``)."""
        try:
            return self.model.public_view(self._state, self.player)
        except NotImplementedError:
            return None

    def sample(self, rng: np.random.Generator) -> Playout:
        """A copy of the game with the hidden information redrawn from ``rng``.

        For a game with perfect information and no chance the copy is exact.
        """
        info = self.info
        if info.perfect_information and not info.chance:
            return Playout(self.model, self.model.copy(self._state))
        try:
            state = self.model.determinize(self._state, self.player, rng)
        except NotImplementedError as exc:
            raise ConfigError(
                f"{info.name} cannot redraw hidden information ({exc}); search agents need "
                "the game model's resample_hidden()"
            ) from exc
        return Playout(self.model, state)


def agent_view(
    agent: Any, model: GameModel, state: Any, player: int, env_name: str | None = None
) -> Any:
    """What ``agent`` is handed to decide for ``player``: a :class:`Simulator` if it sets
    ``needs_simulator``, None if it sets ``needs_view = False``, else the public view (None
    for a game without one).

    >>> from tabletop_rl.envs.liniell.model import LiniellModel
    >>> model = LiniellModel()
    >>> state = model.new_state(np.random.default_rng(0))
    >>> class Search:  # as MCTS declares itself
    ...     needs_simulator = True
    >>> class Reader:  # as the random and value agents declare themselves
    ...     needs_view = False
    >>> type(agent_view(Search(), model, state, 0)).__name__
    'Simulator'
    >>> type(agent_view(object(), model, state, 0)).__name__  # the engine's game
    'Game'
    >>> agent_view(Reader(), model, state, 0) is None  # it reads the observation alone
    True
    """
    if getattr(agent, "needs_simulator", False):
        return Simulator(model, state, player, env_name)
    if not getattr(agent, "needs_view", True):
        return None
    try:
        return model.public_view(state, player)
    except NotImplementedError:
        return None


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
    raw = getattr(env, "unwrapped", env)
    view = agent_view(agent, raw.model, raw.game_state, raw.possible_agents.index(name), env_name)
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


__all__ = ["Playout", "Simulator", "agent_view", "select_action"]
