"""The generic PettingZoo AEC adapter over a game model.

Every environment of the suite is a :class:`TabletopAECEnv` over its game's
:class:`~.model.GameModel`: the model holds the rules, observations and rendering; this class
does the PettingZoo bookkeeping (agents, rewards, cumulative rewards, terminations, dead
steps), the reward modes, seeding, the cached action mask and rendering dispatch. An
environment module's ``raw_env`` only builds its model from the constructor's options.

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
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..errors import ActionOutOfRangeError, ConfigError, IllegalActionError
from .checks import check_seed
from .features import observation_version
from .game_info import GameInfo
from .model import GameModel, Outcome, StepResult
from .observation import ObservationLayout
from .symmetry import Symmetries

RENDER_MODES = ("ansi", "rgb_array", "human")


class TabletopAECEnv(AECEnv):
    """A PettingZoo AEC environment over a :class:`~.model.GameModel` (module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self, model: GameModel, render_mode: str | None = None, reward: str = "win"
    ) -> None:
        super().__init__()
        info = model.info
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
        self.model = model
        """The game model this environment plays (the public way to simulate)."""
        self.info: GameInfo = info
        self.num_players = model.num_players
        self.render_mode = render_mode
        self.reward_mode = reward
        self.layout: ObservationLayout = model.layout
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
        single = self.layout.space()
        self.state_space = spaces.Box(
            np.tile(single.low, self.num_players),
            np.tile(single.high, self.num_players),
            dtype=np.float32,
        )
        self._rng = np.random.default_rng()
        self._mask: np.ndarray | None = None
        self.game_state: Any = None
        """The model state of the game in progress (``None`` before ``reset``)."""
        self.agents: list[str] = []

    # ------------------------------------------------------------ the model
    @property
    def observation_version(self) -> str:
        """The version of this environment's observation, as built (its options included):
        every saved policy carries the one it was trained on (see
        :func:`~.features.observation_version`)."""
        return observation_version(self.model)

    def action_layout(self) -> ObservationLayout:
        """How the flat action index splits into named groups (see the game model)."""
        return self.model.action_layout()

    def symmetries(self) -> Symmetries | None:
        """The game's symmetries as permutations of the observation and of the actions.

        For data augmentation (PPO's ``symmetry_augmentation``): see :mod:`.symmetry`. None
        when the game declares none.
        """
        return self.model.symmetries()

    def describe_action(self, action: int) -> str:
        """A readable name for ``action`` in the current position."""
        return self.model.describe_action(self.game_state, int(action))

    def current_player(self) -> int:
        """Seat index of the player to act."""
        return self.model.current_player(self._require_state())

    def public_view(self, agent: str) -> Any:
        """What ``agent`` may see of the state, for scripted agents; no hidden information."""
        return self.model.public_view(self._require_state(), self._index(agent))

    def resample_hidden(self, agent: str, rng: np.random.Generator) -> None:
        """Redeal everything ``agent`` cannot see, consistently with what it can see."""
        self.model.resample_hidden(self._require_state(), self._index(agent), rng)
        self._mask = None

    def determinize(self, agent: str, rng: np.random.Generator) -> TabletopAECEnv:
        """A copy of this environment whose hidden information is redrawn for ``agent``.

        What ``agent`` cannot see (other hands, bag or stack order) is resampled consistently
        with what it can see, so a search agent can plan on the copy without peeking.
        """
        clone = copy.copy(self)
        clone.render_mode = None
        clone.game_state = self.model.determinize(self._require_state(), self._index(agent), rng)
        clone._mask = None
        for name in ("agents", "rewards", "_cumulative_rewards", "terminations", "truncations"):
            setattr(clone, name, copy.copy(getattr(self, name)))
        clone.infos = {a: dict(i) for a, i in self.infos.items()}
        return clone

    def final_scores(self) -> list[float]:
        """Every seat's score so far in the game's points (final once the game is over)."""
        return list(self.model.scores(self._require_state()))

    def outcome(self) -> Outcome | None:
        """How the game ended (``None`` while it runs)."""
        return self.model.outcome(self._require_state())

    def dump(self) -> str:
        """The whole game state as text, for bug reports (reveals every hand)."""
        return self.model.to_text(self._require_state())

    def _index(self, agent: str) -> int:
        if agent not in self._agent_index:
            raise ConfigError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        return self._agent_index[agent]

    def _require_state(self) -> Any:
        if self.game_state is None:
            raise RuntimeError("call reset() first: no game is in progress")
        return self.game_state

    # --------------------------------------------------------------- PettingZoo
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def state(self) -> np.ndarray:
        """Every seat's observation, seat 0 first, concatenated (PettingZoo's global state;
        it reveals every hidden hand, so it is for centralised critics, not for players)."""
        game = self._require_state()
        size = self.layout.size
        out = np.empty(self.num_players * size, dtype=np.float32)
        for p in range(self.num_players):
            self.model.observe(game, p, out[p * size : (p + 1) * size])
        return out

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(check_seed(seed))
        self.load_state(self.model.new_state(self._rng))

    def load_state(self, state: Any) -> None:
        """Continue from the model state ``state`` (a position built with the game model or
        read from its notation) as :meth:`reset` starts a new game: rewards and flags
        cleared, the player to act selected."""
        self.model.check_state(state)
        if self.model.is_over(state):
            raise ConfigError("the position is already over; load a game in progress")
        self.game_state = state
        self._mask = None
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._player_info(i) for i, a in enumerate(self.agents)}
        self.agent_selection = self.possible_agents[self.model.current_player(state)]

    def _player_info(self, player: int) -> dict[str, Any]:
        return self.model.player_info(self.game_state, player)

    def action_mask(self) -> np.ndarray:
        """The mask of the agent to act (cached until the state changes)."""
        if self._mask is None:
            self._mask = self.model.legal_mask(self._require_state())
        return self._mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.model.observe(self._require_state(), self._agent_index[agent])
        running = not (self.terminations.get(agent) or self.truncations.get(agent))
        if agent == self.agent_selection and running:
            mask = self.action_mask().copy()
        else:
            mask = np.zeros(self.info.num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        if self.game_state is None:
            raise RuntimeError(f"{self.info.name}: call reset() before step(); no game is set up")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            action = self.model.check_legal(self.game_state, action, self.action_mask())
        except IllegalActionError as exc:
            raise IllegalActionError(f"{agent}: {exc}") from None
        self._cumulative_rewards[agent] = 0.0
        result: StepResult = self.model.step_unchecked(self.game_state, action)
        self._mask = None
        self.rewards = {a: 0.0 for a in self.agents}
        if self.reward_mode == "score":
            for p, pts in result.points.items():
                self.rewards[self.possible_agents[p]] += float(pts)
        if result.game_over:
            if self.reward_mode == "win":
                outcome = self.model.outcome(self.game_state)
                assert outcome is not None
                for a, r in zip(self.possible_agents, outcome.win_rewards(), strict=True):
                    self.rewards[a] += r
            self.terminations = {a: True for a in self.agents}
        elif result.truncated:
            self.truncations = {a: True for a in self.agents}
        self.infos = {a: self._player_info(i) for i, a in enumerate(self.possible_agents)}
        self._accumulate_rewards()
        if not (result.game_over or result.truncated):
            self.agent_selection = self.possible_agents[self.model.current_player(self.game_state)]
        if self.render_mode == "human":
            self.render()

    def winners(self) -> list[str]:
        """Agents who won the finished game (several on a shared win)."""
        outcome = self.outcome()
        if outcome is None:
            raise RuntimeError("the game is not over: no winners yet")
        return [self.possible_agents[i] for i in outcome.winners]

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; nothing to render")
            return None
        if self.game_state is None:
            raise RuntimeError("call reset() before render()")
        viewer = self._agent_index.get(self.agent_selection, 0)
        if self.render_mode == "ansi":
            return self.model.render_ansi(self.game_state, viewer)
        if self.render_mode == "human":
            print(self.model.render_ansi(self.game_state, viewer))
            return None
        return self.model.render_rgb(self.game_state, viewer)

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
