"""Self-play for single-agent learners: every seat of every game is one slot of a batch.

:class:`SelfPlayGames` runs ``num_games`` games side by side and gives each seat of each game
its own slot (slot ``g * num_players + seat``), so one learner makes the decisions of every
seat while each seat keeps its own, exact stream of observations and rewards. It steps its
games one by one in Python; :class:`SelfPlayBatch` plays the same games, step for step, in
one compiled batch (:class:`~tabletop_rl.envs.vector.VectorGames`), and is the engine of the
Stable-Baselines3 adapter :class:`tabletop_rl.baselines.sb3.SelfPlayVecEnv` and of the
Gymnasium vector form :class:`tabletop_rl.envs.gym_vector.SelfPlayVectorEnv`. Neither needs
torch nor SB3.

A step is one decision in every game:

* **Actions.** Only the seat to move in a game decides. Every other seat of that game is
  *waiting*: its mask allows exactly one action, :data:`WAIT_ACTION` (0), and whatever action
  its slot sends is ignored. A masked policy therefore picks the waiting action with
  probability 1 (log-probability 0): in PPO such a sample has no policy gradient and no
  entropy, and only trains the value function on that seat's view.
* **Rewards.** Slot ``(g, seat)`` gets exactly the reward the game gave that seat for this
  step's decision, whoever made it (``env.rewards[agent]`` after the step): with
  ``reward="win"`` every seat gets its +1/-1/0 on the step that ends the game, with
  ``reward="score"`` the points each move scores for it. Nothing is moved between seats or
  delayed, so the sum of a slot's rewards over a game is that seat's return in the game.
* **Discounting.** A seat's stream advances one step per decision in its game (its own and
  the other seats'), so a discount factor ``gamma`` discounts per decision of the game.
* **Episodes.** When a game ends every slot of that game reports ``terminated`` (or
  ``truncated`` at the game's length limit) in the same step, and the game is reset at once
  (same-step autoreset): the returned observation and mask are the new game's, and the last
  observation is in ``infos[slot]["final_obs"]``. Game seeds come from ``reset(seed=...)``.
* **Illegal actions.** A mover that sends an illegal action ends its game with -1 for that
  seat and 0 for the others; ``infos[slot]["illegal_action"]`` says what happened.

>>> from tabletop_rl.envs import make
>>> games = SelfPlayGames(lambda: make("liniell_v0", raw=True, num_players=3), num_games=2)
>>> obs, masks = games.reset(seed=0)
>>> obs.shape[0], masks.shape[0], games.num_slots
(6, 6, 6)
>>> games.movers()  # the slot of the seat to move in each game; the other seats wait
[1, 5]
>>> masks.sum(axis=1).tolist()  # waiting seats may send only WAIT_ACTION
[1, 4, 1, 1, 1, 4]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

from ..errors import ConfigError
from .aec import TabletopAECEnv
from .checks import check_int, check_seed

WAIT_ACTION = 0
"""The one action a waiting seat's mask allows; it is ignored."""


class SelfPlayGames:
    """``num_games`` games of ``game_fn()``, one slot per seat (see the module docstring)."""

    def __init__(self, game_fn: Callable[[], TabletopAECEnv], num_games: int = 1) -> None:
        num_games = check_int("num_games", num_games, 1)
        self.games = [game_fn() for _ in range(num_games)]
        for game in self.games:
            if not isinstance(game, TabletopAECEnv):
                raise ConfigError(
                    "SelfPlayGames needs raw tabletop-rl environments (make(name, raw=True)), "
                    f"got {type(game).__name__}"
                )
        first = self.games[0]
        self.num_players = first.num_players
        if any(game.num_players != self.num_players for game in self.games):
            raise ConfigError("every game of a SelfPlayGames batch needs the same player count")
        self.num_games = num_games
        self.num_slots = num_games * self.num_players
        agent0 = first.possible_agents[0]
        self.observation_space: gymnasium.Space = first.observation_space(agent0)["observation"]
        self.action_space: gymnasium.spaces.Discrete = first.action_space(agent0)
        self._rng = np.random.default_rng()
        self._masks = np.zeros((self.num_slots, int(self.action_space.n)), dtype=np.int8)

    def slot(self, game: int, seat: int) -> int:
        """The slot of ``seat`` in game ``game``."""
        return game * self.num_players + seat

    def movers(self) -> list[int]:
        """The slot of the seat to move in each game, game by game."""
        return [
            self.slot(g, game.possible_agents.index(game.agent_selection))
            for g, game in enumerate(self.games)
        ]

    def action_masks(self) -> np.ndarray:
        """Every slot's mask (``int8``, one row per slot): waiting seats allow only action 0."""
        return self._masks.copy()

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Start every game afresh; returns every slot's observation and mask."""
        self._rng = np.random.default_rng(None if seed is None else check_seed(seed))
        for game in self.games:
            game.reset(seed=int(self._rng.integers(2**31)))
        obs = np.stack([self._observe(g) for g in range(self.num_games)]).reshape(
            self.num_slots, *self.observation_space.shape
        )
        return obs, self.action_masks()

    def _observe(self, g: int) -> np.ndarray:
        """Observations of game ``g``'s seats; updates their masks."""
        game = self.games[g]
        rows = []
        over = not game.agents or any(game.terminations.values())
        over = over or any(game.truncations.values())
        for seat, agent in enumerate(game.possible_agents):
            view = game.observe(agent)
            mask = self._masks[self.slot(g, seat)]
            mask[:] = 0
            if over:
                pass  # no legal action: the game is reset in the same step
            elif agent == game.agent_selection:
                mask[:] = view["action_mask"]
            else:
                mask[WAIT_ACTION] = 1
            rows.append(view["observation"])
        return np.stack(rows)

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """One decision in every game: ``actions`` has one entry per slot (waiting ones ignored).

        Returns observations, rewards, terminated, truncated (one entry per slot) and one info
        dict per slot.
        """
        actions = np.asarray(actions).reshape(-1)
        if actions.shape != (self.num_slots,):
            raise ConfigError(
                f"step needs {self.num_slots} actions (one per slot), got {actions.size}"
            )
        n = self.num_players
        rewards = np.zeros(self.num_slots, dtype=np.float32)
        terminated = np.zeros(self.num_slots, dtype=bool)
        truncated = np.zeros(self.num_slots, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_slots)]
        obs = np.zeros(
            (self.num_games, n, *self.observation_space.shape), self.observation_space.dtype
        )
        for g, game in enumerate(self.games):
            mover = game.possible_agents.index(game.agent_selection)
            action = int(actions[self.slot(g, mover)])
            base = self.slot(g, 0)
            legal = 0 <= action < self._masks.shape[1] and self._masks[base + mover][action] == 1
            if legal:
                game.step(action)
                for seat, agent in enumerate(game.possible_agents):
                    rewards[base + seat] = float(game.rewards.get(agent, 0.0))
                done = bool(game.terminations[game.possible_agents[0]])
                cut = bool(game.truncations[game.possible_agents[0]])
            else:
                rewards[base + mover] = -1.0
                infos[base + mover]["illegal_action"] = f"action {action} is not legal now"
                done, cut = True, False
            if done or cut:
                final = self._observe(g)
                for seat in range(n):
                    infos[base + seat]["final_obs"] = final[seat]
                    infos[base + seat]["final_info"] = dict(game.infos[game.possible_agents[seat]])
                terminated[base : base + n] = done
                truncated[base : base + n] = cut and not done
                game.reset(seed=int(self._rng.integers(2**31)))
            obs[g] = self._observe(g)
        return (
            obs.reshape(self.num_slots, *self.observation_space.shape),
            rewards,
            terminated,
            truncated,
            infos,
        )


class SelfPlayBatch:
    """:class:`SelfPlayGames` over one compiled batch: the same slots, masks, rewards,
    autoresets, seeds and infos, step for step (tested), for ``num_games`` games of
    environment ``env_name`` (keyword arguments go to the game, as for
    :class:`~tabletop_rl.envs.vector.VectorGames`).

    A step is one compiled call for the movers' actions, one for every seat's observation
    of every game (the game-model backend, or ``features=True``, observes game by game in
    Python instead), and a few array operations; a game that ends is dealt anew from the
    seeded generator of :meth:`reset`, as :class:`SelfPlayGames` deals it.
    """

    def __init__(
        self,
        env_name: str,
        num_games: int = 1,
        num_players: int = 2,
        threads: int = 1,
        **env_kwargs: Any,
    ) -> None:
        from ..vector import VectorGames

        num_games = check_int("num_games", num_games, 1)
        reward = env_kwargs.pop("reward", "win")
        self.games = VectorGames(
            env_name, num_games, num_players, seed=0, threads=threads, reward=reward, **env_kwargs
        )
        self.num_players = n = self.games.num_players
        self.num_games = num_games
        self.num_slots = num_games * n
        self.observation_space: gymnasium.Space = self.games.single_observation_space
        self.action_space = gymnasium.spaces.Discrete(self.games.num_actions)
        self._rng = np.random.default_rng()
        self._masks = np.zeros((self.num_slots, self.games.num_actions), dtype=np.int8)
        self._views = np.zeros((num_games, n, *self.observation_space.shape), dtype=np.float32)
        self._final = np.zeros_like(self._views)
        self._fresh = np.ones(num_games, dtype=np.bool_)
        self._base = np.arange(num_games, dtype=np.int64) * n
        self._all = np.ones(num_games, dtype=np.bool_)
        self._noop = np.zeros(num_games, dtype=np.int64)
        self._started = False

    def slot(self, game: int, seat: int) -> int:
        """The slot of ``seat`` in game ``game``."""
        return game * self.num_players + seat

    def movers(self) -> list[int]:
        """The slot of the seat to move in each game, game by game."""
        return (self._base + self.games._result.current_player).tolist()

    def action_masks(self) -> np.ndarray:
        """Every slot's mask (``int8``, one row per slot): waiting seats allow only action 0."""
        return self._masks.copy()

    def _start(self, games: np.ndarray) -> None:
        """Deal the next game of each of ``games`` (in order) from the reset's generator."""
        rows = np.zeros(self.num_games, dtype=np.bool_)
        rows[games] = True
        dealt = [np.random.default_rng(int(self._rng.integers(2**31))) for _ in games]
        if not self._started:
            self.games.reset()
            self._started = True
        self.games.restart(games, dealt)
        self.games.step(self._noop, rows)
        self._fresh[games] = True

    def _show(self) -> np.ndarray:
        """Every slot's observation (a new array) and mask."""
        out = self.games._result
        if self.games.observes_in_place:  # updated from the last views, then copied
            self.games.observe_all(self._views, self._all, self._fresh)
            views = self._views.copy()
        else:  # written whole: straight into the array returned, no copy
            views = np.empty_like(self._views)
            self.games.observe_all(views, self._all)
        self._fresh[:] = False
        movers = self._base + out.current_player
        self._masks[:] = 0
        self._masks[:, WAIT_ACTION] = 1
        self._masks[movers] = out.action_mask
        return views.reshape(self.num_slots, *self.observation_space.shape)

    def close(self) -> None:
        """Stop the batch's worker threads, if any."""
        self.games.close()

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Start every game afresh; returns every slot's observation and mask."""
        self._rng = np.random.default_rng(None if seed is None else check_seed(seed))
        self._start(np.arange(self.num_games))
        return self._show(), self.action_masks()

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """One decision in every game (as :meth:`SelfPlayGames.step`)."""
        if not self._started:
            raise ConfigError("call reset() before step()")
        actions = np.asarray(actions).reshape(-1)
        if actions.shape != (self.num_slots,):
            raise ConfigError(
                f"step needs {self.num_slots} actions (one per slot), got {actions.size}"
            )
        n, g = self.num_players, self.num_games
        out = self.games._result
        movers = self._base + out.current_player
        chosen = actions[movers]
        num_actions = self._masks.shape[1]
        in_range = (chosen >= 0) & (chosen < num_actions)
        legal = in_range & (self._masks[movers, np.where(in_range, chosen, 0)] == 1)
        rewards = np.zeros((g, n), dtype=np.float32)
        done = ~legal
        cut = np.zeros(g, dtype=np.bool_)
        if legal.any():
            self.games.step(np.where(legal, chosen, 0).astype(np.int64), legal)
            rewards[legal] = out.rewards[legal]
            done = ~legal | (legal & out.terminated)
            cut = legal & out.truncated & ~done
        rewards = rewards.reshape(-1)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_slots)]
        for i in np.flatnonzero(~legal).tolist():
            rewards[movers[i]] = -1.0
            infos[int(movers[i])]["illegal_action"] = f"action {int(chosen[i])} is not legal now"
        ended = done | cut
        terminated = np.repeat(done, n)
        truncated = np.repeat(cut, n)
        if ended.any():
            games = np.flatnonzero(ended)
            final = self._final
            self.games.observe_all(final, ended)
            for seat in range(n):
                seat_info = self.games.player_info(np.full(g, seat, dtype=np.int64))
                for i in games.tolist():
                    info = infos[i * n + seat]
                    info["final_obs"] = final[i, seat].copy()
                    info["final_info"] = {k: v[i].item() for k, v in seat_info.items()}
            self._start(games)
        return self._show(), rewards, terminated, truncated, infos
