"""The PettingZoo AEC base class shared by the suite's environments.

A game plugs into :class:`TabletopAECEnv` by implementing a handful of hooks over its pure
rules engine (``_new_state``, ``_current_player``, ``_legal_mask``, ``_apply``,
``_observe_into``, ``_winners``, ``_explain_illegal``); this class does the PettingZoo
bookkeeping (agents, rewards, cumulative rewards, terminations, dead steps), the reward
modes, seeding, observation buffers and rendering dispatch. Rendering modules are imported
lazily by the subclasses, so a headless training run never loads Pillow.

Rewards
-------
``reward="win"``: at the end of a game, +1 to every winner and -1 to every other player;
if *all* players tie, everyone gets 0. A shared win between some (not all) players gives
+1 to each of them and -1 to the rest. A truncated game gives 0 to everyone.
``reward="score"``: the points each player scores, as they are scored (the game defines
what a point is).
"""

from __future__ import annotations

import copy
from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..errors import ActionOutOfRangeError, ConfigError, IllegalActionError
from .game_info import GameInfo
from .observation import Field, ObservationLayout
from .symmetry import Symmetries

RENDER_MODES = ("ansi", "rgb_array", "human")


@dataclass
class StepResult:
    """What applying one action did, reported by a game's ``_apply`` hook."""

    points: dict[int, float] = field(default_factory=dict)
    """Points scored by each player index during this action (``reward="score"``)."""
    game_over: bool = False
    truncated: bool = False


class TabletopAECEnv(AECEnv):
    """Base class of the suite's AEC environments (see the module docstring)."""

    info: ClassVar[GameInfo]
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self, num_players: int = 2, render_mode: str | None = None, reward: str = "win"
    ) -> None:
        super().__init__()
        info = self.info
        if isinstance(num_players, bool) or not isinstance(num_players, int | np.integer):
            raise ConfigError(f"num_players must be an int, got {type(num_players).__name__}")
        if not info.min_players <= num_players <= info.max_players:
            raise ConfigError(
                f"num_players={num_players} is not allowed for {info.name}; "
                f"allowed: {info.min_players} to {info.max_players}"
            )
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ConfigError(
                f"render_mode={render_mode!r} is not supported; allowed: None, "
                + ", ".join(repr(m) for m in RENDER_MODES)
            )
        if reward not in info.reward_modes:
            raise ConfigError(
                f"reward={reward!r} is not supported; allowed: "
                + ", ".join(repr(m) for m in info.reward_modes)
            )
        self.num_players = int(num_players)
        self.render_mode = render_mode
        self.reward_mode = reward
        self.layout: ObservationLayout = self._build_layout()
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._agent_index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": self.layout.space(),
                "action_mask": spaces.Box(0, 1, shape=(info.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(info.num_actions) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self._mask: np.ndarray | None = None
        self.state: Any = None
        self.agents: list[str] = []

    # ------------------------------------------------------------------ hooks
    @abstractmethod
    def _build_layout(self) -> ObservationLayout:
        """The observation layout (may depend on constructor options)."""

    @abstractmethod
    def _new_state(self, rng: np.random.Generator) -> Any:
        """A fresh game state; all randomness comes from ``rng``."""

    @abstractmethod
    def _current_player(self) -> int:
        """Index of the player to act in ``self.state``."""

    @abstractmethod
    def _legal_mask(self) -> np.ndarray:
        """int8 mask of the legal actions of the player to act."""

    @abstractmethod
    def _apply(self, action: int) -> StepResult:
        """Apply a legal action to ``self.state``."""

    @abstractmethod
    def _observe_into(self, player: int, views: dict[str, np.ndarray]) -> None:
        """Fill the named views of a zeroed observation for ``player``."""

    @abstractmethod
    def _winners(self) -> list[int]:
        """Indices of the winners of the finished game (all players on a full tie)."""

    @abstractmethod
    def _explain_illegal(self, action: int) -> str:
        """Why ``action`` is illegal now (it has mask entry 0)."""

    def action_layout(self) -> ObservationLayout:
        """How the flat action index splits into named groups.

        Groups with ``spatial=True`` have shape ``(channels, height, width)`` over the same
        board window as the observation's spatial planes, so a network can score them with a
        per-cell convolutional head. The groups' sizes add up to ``info.num_actions``; a game
        without board-indexed actions keeps this default of one flat group.
        """
        return ObservationLayout(
            (Field("action", (self.info.num_actions,), "every action", high=1.0),)
        )

    def symmetries(self) -> Symmetries | None:
        """The game's symmetries as permutations of the observation and of the actions.

        For data augmentation (PPO's ``symmetry_augmentation``): see :mod:`.symmetry`. None,
        the default, when the game declares none.
        """
        return None

    def describe_action(self, action: int) -> str:
        """A readable name for ``action``."""
        return str(action)

    def _player_info(self, player: int) -> dict[str, Any]:
        """Extra entries for ``infos[agent]`` after each step."""
        return {}

    def public_view(self, agent: str) -> Any:
        """What ``agent`` may see of the state, for scripted agents; no hidden information."""
        raise NotImplementedError(f"{type(self).__name__} has no public view")

    def resample_hidden(self, agent: str, rng: np.random.Generator) -> None:
        """Redeal everything ``agent`` cannot see, consistently with what it can see.

        Used by tests (an observation must not change) and by search agents' determinisation.
        """
        raise NotImplementedError(f"{type(self).__name__} cannot resample hidden information")

    def determinize(self, agent: str, rng: np.random.Generator) -> TabletopAECEnv:
        """A copy of this environment whose hidden information is redrawn for ``agent``.

        What ``agent`` cannot see (other hands, bag or stack order) is resampled consistently
        with what it can see, so a search agent can plan on the copy without peeking.
        """
        clone = copy.deepcopy(self)
        clone.render_mode = None
        clone.resample_hidden(agent, rng)
        clone._mask = None
        return clone

    def _render_ansi(self, viewer: int) -> str:
        raise NotImplementedError

    def _render_rgb(self) -> np.ndarray:
        raise NotImplementedError

    # --------------------------------------------------------------- PettingZoo
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = self._new_state(self._rng)
        self._mask = None
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._player_info(i) for i, a in enumerate(self.agents)}
        self.agent_selection = self.possible_agents[self._current_player()]

    def action_mask(self) -> np.ndarray:
        """The mask of the agent to act (cached until the state changes)."""
        if self._mask is None:
            self._mask = np.asarray(self._legal_mask(), dtype=np.int8)
        return self._mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self._agent_index[agent]
        obs = self.layout.zeros()
        self._observe_into(player, self.layout.views(obs))
        game_running = not (self.terminations.get(agent) or self.truncations.get(agent))
        if agent == self.agent_selection and game_running:
            mask = self.action_mask().copy()
        else:
            mask = np.zeros(self.info.num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        if not hasattr(self, "agent_selection"):
            raise RuntimeError(f"{self.info.name}: call reset() before step(); no game is set up")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalActionError(
                f"{agent}: action must be an int in [0, {self.info.num_actions}), got {action!r}"
            )
        action = int(action)
        if not 0 <= action < self.info.num_actions:
            last = self.info.num_actions - 1
            raise IllegalActionError(
                f"{agent}: action {action} is out of range; allowed: 0 to {last}"
            )
        if not self.action_mask()[action]:
            raise IllegalActionError(
                f"{agent}: action {action} ({self.describe_action(action)}) is illegal: "
                f"{self._explain_illegal(action)}"
            )
        self._cumulative_rewards[agent] = 0.0
        result = self._apply(action)
        self._mask = None
        self.rewards = {a: 0.0 for a in self.agents}
        if self.reward_mode == "score":
            for p, pts in result.points.items():
                self.rewards[self.possible_agents[p]] += float(pts)
        if result.game_over:
            if self.reward_mode == "win":
                for a, r in self._win_rewards().items():
                    self.rewards[a] += r
            self.terminations = {a: True for a in self.agents}
        elif result.truncated:
            self.truncations = {a: True for a in self.agents}
        self.infos = {a: self._player_info(i) for i, a in enumerate(self.possible_agents)}
        self._accumulate_rewards()
        if not (result.game_over or result.truncated):
            self.agent_selection = self.possible_agents[self._current_player()]
        if self.render_mode == "human":
            self.render()

    def _win_rewards(self) -> dict[str, float]:
        winners = set(self._winners())
        if len(winners) == self.num_players:
            return {a: 0.0 for a in self.possible_agents}
        return {a: (1.0 if i in winners else -1.0) for i, a in enumerate(self.possible_agents)}

    def winners(self) -> list[str]:
        """Agents who won the finished game (several on a shared win)."""
        return [self.possible_agents[i] for i in self._winners()]

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; nothing to render")
            return None
        if self.state is None:
            raise RuntimeError("call reset() before render()")
        viewer = self._agent_index.get(self.agent_selection, 0)
        if self.render_mode == "ansi":
            return self._render_ansi(viewer)
        if self.render_mode == "human":
            print(self._render_ansi(viewer))
            return None
        return self._render_rgb()

    def close(self) -> None:
        pass


# Attributes read on every step of an agent loop (``last()``, ``agent_iter()``). PettingZoo's
# wrappers forward them through one ``__getattr__`` per wrapper layer, which costs more than a
# step of a small game; the wrappers below read them from the raw env directly instead.
_HOT_ATTRIBUTES = (
    "agents",
    "agent_selection",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
    "possible_agents",
)


def _direct(name: str, before_reset_error: bool) -> property:
    if before_reset_error and name != "possible_agents":

        def get(self: Any) -> Any:
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self._raw_env, name)

    else:

        def get(self: Any) -> Any:
            return getattr(self._raw_env, name)

    return property(get, doc=f"``{name}`` of the raw environment")


class _DirectReads:
    """Mixin for a PettingZoo wrapper: the hot attributes are read from the raw env directly.

    The wrappers below are ordinary module-level classes (not built at run time), so pickle
    finds them by name and a wrapped environment pickles and deep-copies like a raw one.
    """

    _raw_env: TabletopAECEnv

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        self._raw_env = env.unwrapped  # type: ignore[assignment]
        super().__init__(env, *args, **kwargs)  # type: ignore[call-arg]


for _name in _HOT_ATTRIBUTES:
    setattr(_DirectReads, _name, _direct(_name, before_reset_error=False))


class _DirectReadsAfterReset(_DirectReads):
    """:class:`_DirectReads` that refuses the reads before ``reset()``, as PettingZoo's
    ``OrderEnforcingWrapper`` does."""


for _name in _HOT_ATTRIBUTES:
    setattr(_DirectReadsAfterReset, _name, _direct(_name, before_reset_error=True))
del _name


class TerminateIllegalWrapper(_DirectReads, wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    __doc__ = wrappers.TerminateIllegalWrapper.__doc__


class AssertOutOfBoundsWrapper(_DirectReads, wrappers.AssertOutOfBoundsWrapper):  # type: ignore[misc]
    """PettingZoo's AssertOutOfBoundsWrapper with an integer range test in place of
    ``Discrete.contains`` (which builds ``np.iinfo`` on every call); same verdicts. A refused
    action raises :class:`ActionOutOfRangeError` (an ``AssertionError``, as PettingZoo's
    wrapper raises) naming the action and the allowed range."""

    def step(self, action: Any) -> None:
        raw = self._raw_env
        agent = raw.agent_selection
        if action is None:
            ok = raw.terminations[agent] or raw.truncations[agent]
        else:
            if isinstance(action, np.ndarray) and action.shape == ():
                action = action.item() if np.issubdtype(action.dtype, np.integer) else action
            ok = (
                isinstance(action, int | np.integer)
                and not isinstance(action, bool)
                and 0 <= action < raw.info.num_actions
            )
        if not ok:
            allowed = f"an int from 0 to {raw.info.num_actions - 1}"
            if action is None:
                allowed += " (None only once the agent's game is over)"
            shown = action.item() if isinstance(action, np.generic) else action
            raise ActionOutOfRangeError(
                f"{agent}: action {shown!r} is not in the action space; allowed: {allowed}"
            )
        wrappers.BaseWrapper.step(self, action)


class OrderEnforcingWrapper(_DirectReadsAfterReset, wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    __doc__ = wrappers.OrderEnforcingWrapper.__doc__


def wrap(raw: TabletopAECEnv) -> AECEnv:
    """PettingZoo classic's standard wrappers: an illegal action ends the game with -1.

    These are PettingZoo's own ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper``, subclassed only so that the attributes an agent loop reads every
    step come straight from the raw environment (same values, fewer indirections).
    """
    env: AECEnv = TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = AssertOutOfBoundsWrapper(env)
    return OrderEnforcingWrapper(env)
