"""A Gymnasium single-agent view of any of the suite's AEC environments.

The learner plays one seat; the other seats are played by opponent policies. An opponent
is either a callable ``policy(observation, action_mask) -> action`` or an agent object with
an ``act(observation_dict, view)`` method (the baselines' :class:`Agent` protocol); agents
that set ``needs_simulator`` (MCTS) get a :class:`~.simulator.Simulator` as their view.

Masks. ``action_masks()`` (SB3-contrib MaskablePPO's convention) returns the learner's legal
actions as an ``int8`` array of 0/1, the dtype Gymnasium's ``Discrete.sample(mask)`` takes, so
``env.action_space.sample(env.action_masks())`` draws a legal action; the same mask is in
``info["action_mask"]``. Once an episode is over the mask is all zeros (there is no legal
action) until the next ``reset``.

In a Gymnasium vector env (``gymnasium.make_vec`` or ``SyncVectorEnv``/``AsyncVectorEnv``),
``envs.call("action_masks")`` after a sub-env's episode ended depends on the autoreset mode:

* ``AutoresetMode.NEXT_STEP`` (Gymnasium's default): the step that ends an episode returns its
  last observation, and that sub-env's mask stays all zeros for one step; the next
  ``envs.step`` resets the sub-env and ignores its action (any action will do, e.g. 0), after
  which its mask is the new episode's. Read ``info["action_mask"]`` of the step instead to
  get the same values without a ``call``.
* ``AutoresetMode.SAME_STEP``: the step that ends an episode resets the sub-env at once; the
  returned observation, ``info["action_mask"]`` and ``call("action_masks")`` all belong to the
  new episode (the last ones are in ``info["final_obs"]`` and ``info["final_info"]``).

Seeds. ``reset(seed=s)`` draws the learner's seat (with ``learner_seat=None``), the game's seed
and a fresh generator for every opponent from ``s``; opponents that have a ``reseed(rng)``
method (every scripted agent of :mod:`tabletop_rl.baselines.agents`) are reseeded with it, and
the default random opponents are rebuilt. A seed therefore replays the episode exactly when
the learner replays its actions. A plain callable opponent keeps its own randomness.

Rewards. The reward of a step is everything the learner received since its previous action,
including rewards delivered during the opponents' moves and at the end of the game.

An illegal action is treated as ``env()`` treats it (``illegal_action="terminate"``, the
default): the episode ends at once with reward -1 and ``info["illegal_action"]`` says why.
``illegal_action="raise"`` raises :class:`IllegalActionError` instead, as the raw env does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from ..errors import ConfigError, IllegalActionError
from .aec import TabletopAECEnv
from .checks import check_seed
from .simulator import select_action

Policy = Callable[[np.ndarray, np.ndarray], int]


def random_policy(rng: np.random.Generator) -> Policy:
    """A policy that picks uniformly among legal actions with ``rng``."""

    def policy(observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(rng.choice(np.flatnonzero(action_mask)))

    return policy


class SingleAgentEnv(gymnasium.Env):
    """Play seat ``learner_seat`` of ``aec_env`` against ``opponents`` (one per other seat).

    ``learner_seat=None`` draws the learner's seat at random at each reset (from the reset's
    seed), so a policy sees every seat. Opponents default to uniform random play.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        aec_env: TabletopAECEnv,
        opponents: Sequence[Any] | None = None,
        learner_seat: int | None = 0,
        illegal_action: str = "terminate",
    ) -> None:
        super().__init__()
        if illegal_action not in ("terminate", "raise"):
            raise ConfigError(
                f"illegal_action={illegal_action!r} is not supported; allowed: 'terminate', 'raise'"
            )
        self.illegal_action = illegal_action
        self._episode_over = True
        if not isinstance(aec_env, TabletopAECEnv):
            raise ConfigError(
                "SingleAgentEnv needs a raw tabletop-rl environment (make(name, raw=True)), "
                f"got {type(aec_env).__name__}"
            )
        self.env = aec_env
        n = aec_env.num_players
        if learner_seat is not None and not 0 <= learner_seat < n:
            raise ConfigError(f"learner_seat={learner_seat} is not a seat; allowed: 0 to {n - 1}")
        if opponents is not None and len(opponents) != n - 1:
            raise ConfigError(f"{n}-player game needs {n - 1} opponents, got {len(opponents)}")
        self._given_opponents = list(opponents) if opponents is not None else None
        self._fixed_seat = learner_seat
        self.learner_seat = learner_seat if learner_seat is not None else 0
        self.render_mode = aec_env.render_mode
        agent0 = aec_env.possible_agents[0]
        self.observation_space = aec_env.observation_space(agent0)["observation"]
        self.action_space = aec_env.action_space(agent0)
        self._opponents: list[Any] = []
        self._last_mask = np.zeros(self.action_space.n, dtype=np.int8)

    @property
    def learner(self) -> str:
        """The learner's agent name in the game (``possible_agents[learner_seat]``)."""
        return self.env.possible_agents[self.learner_seat]

    @property
    def opponents(self) -> list[Any]:
        """The opponents of the current episode, in seat order (empty before ``reset``)."""
        return list(self._opponents)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, ``int8`` 0/1 (``action_space.sample``'s mask dtype)."""
        return self._last_mask.astype(np.int8)

    def _opponent_action(self, policy: Any, agent: str) -> int:
        obs = self.env.observe(agent)
        if getattr(policy, "needs_simulator", False):  # search agents (MCTS) plan on it
            return select_action(policy, self.env, agent, obs)
        if hasattr(policy, "act"):
            view = self.env.public_view(agent) if getattr(policy, "needs_view", True) else None
            return int(policy.act(obs, view))
        return int(policy(obs["observation"], obs["action_mask"]))

    def _advance(self) -> float:
        """Let opponents move until it is the learner's turn or the game is over."""
        env = self.env
        while env.agents and env.agent_selection != self.learner:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            policy = self._opponents[seat if seat < self.learner_seat else seat - 1]
            env.step(self._opponent_action(policy, agent))
        return float(env._cumulative_rewards.get(self.learner, 0.0))

    def _observation(self, episode_over: bool = False) -> tuple[np.ndarray, dict[str, Any]]:
        """The learner's observation and info; at the episode's end the mask is all zeros."""
        obs = self.env.observe(self.learner)
        mask = np.asarray(obs["action_mask"], dtype=np.int8)
        if episode_over:
            mask = np.zeros_like(mask)
        self._episode_over = episode_over
        self._last_mask = mask
        info = dict(self.env.infos.get(self.learner, {}))
        info["action_mask"] = mask.copy()
        return obs["observation"], info

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=None if seed is None else check_seed(seed))
        rng = self.np_random
        if self._fixed_seat is None:
            self.learner_seat = int(rng.integers(self.env.num_players))
        game_seed = int(rng.integers(2**31))
        opponent_rngs = [
            np.random.default_rng(int(rng.integers(2**63))) for _ in range(self.env.num_players - 1)
        ]
        if self._given_opponents is None:
            self._opponents = [random_policy(r) for r in opponent_rngs]
        else:
            self._opponents = self._given_opponents
            for opponent, opponent_rng in zip(self._opponents, opponent_rngs, strict=True):
                reseed = getattr(opponent, "reseed", None)
                if callable(reseed):
                    reseed(opponent_rng)
        self.env.reset(seed=game_seed)
        self._advance()
        return self._observation()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        env = self.env
        if self._episode_over or env.agent_selection != self.learner or not env.agents:
            raise IllegalActionError("step() called after the episode ended; call reset()")
        n = int(self.action_space.n)
        if not (0 <= int(action) < n and self._last_mask[int(action)]):
            if self.illegal_action == "raise":
                env.step(int(action))  # raises IllegalActionError naming the rule broken
            obs, info = self._observation(episode_over=True)
            info["illegal_action"] = f"action {int(action)} is not legal now"
            return obs, -1.0, True, False, info
        env.step(int(action))
        reward = self._advance()
        learner = self.learner
        terminated = bool(env.terminations.get(learner, True))
        truncated = bool(env.truncations.get(learner, False))
        obs, info = self._observation(episode_over=terminated or truncated)
        return obs, reward, terminated, truncated, info

    def render(self) -> Any:
        return self.env.render()
