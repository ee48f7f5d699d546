"""Self-play collection on the compiled batch, in the training process (Pgx / CleanRL style).

:class:`BatchedCollector` steps :class:`~tabletop_rl.envs.vector.VectorGames` (one compiled
call per step for all ``num_envs`` games) and takes **one network forward per batch step**
for every game whose seat to act is played by the learner, and one per opponent-pool snapshot
for the games where that snapshot sits. Every seat of a game is the learner or a snapshot
(Pgx and AlphaZero style self-play); the opponents are drawn as the slot path draws them
(:meth:`.selfplay.SelfPlayCollector.new_setup`: the learner holds one random *primary* seat,
whose results are logged; ``self`` fills a seat with the learner, ``pool`` with a snapshot).

Per-seat transitions, as in :mod:`.selfplay`: a learner seat's transition collects every
reward that reaches the seat until it acts again (the other seats' moves in between, the
terminal reward included), and is finalised then, bootstrapped from the value of that next
observation; a seat's consecutive decisions (the parts of one Qwirkle or Qwirkle Cards turn)
are consecutive transitions with no reward in between. When the game ends, on any seat's
move, every pending transition of the game is finalised: with no bootstrap when the game
ended by its rules, and bootstrapped when the game was cut by its turn limit: the seat the
batch shows at the cut from the value of that final observation, every other seat from the
value of its own last observation (the batch keeps one observation per game). A transition
still pending when a rollout ends is carried over to the next rollout. The rows go to the PPO
update (:func:`.ppo.ppo_update`) grouped per stream (game slot, seat) in time order, as the
slot path's :class:`~.selfplay.Batch`.

Which configs collect here (:func:`slot_path_reason` says why one does not): an environment
with a compiled batch (Liniell, Qwirkle, Qwirkle Cards, with only the options the compiled
core takes), opponents ``self`` and ``pool`` only, no ``teacher`` and no
``symmetry_augmentation``. The others keep the slot path (:mod:`.rollout`'s worker processes
stepping the game models one by one): scripted opponents and teachers have no batch form yet
(they play or label one game at a time on the game model), and symmetry frames are not
implemented here yet. A checkpoint of the batched path stores the games' compiled state
(:meth:`VectorGames.state_dict`), so resuming is bit-exact without replaying games; the
budgets (``max_minutes``, ``max_cpu_minutes``) are checked at every batch step and every
minibatch step, so a run stops within seconds of its budget.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from tabletop_rl.envs import available_envs
from tabletop_rl.envs.core.model import Ending
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.vector import VectorGames

from ..stats import win_credits
from .config import PPOConfig
from .rollout import LEARNER, POOL_PREFIX, GameSetup
from .selfplay import Batch, RolloutStats, SelfPlayCollector, opponent_key, policy_step
from .stopping import BudgetSpent

KIND = "batched"
"""The ``kind`` entry of a batched collector's checkpoint state."""
SELF_PLAY = frozenset({"self", "pool"})
"""The opponents the batched path plays (the others have no batch form yet)."""


def slot_path_reason(cfg: PPOConfig) -> str | None:
    """Why ``cfg`` collects on the slot path (:mod:`.rollout`); None: it collects on the batch."""
    scripted = sorted(k for k, w in cfg.opponents.items() if w > 0 and k not in SELF_PLAY)
    if scripted:
        return f"scripted opponents {scripted} have no batch form yet"
    if cfg.teacher:
        return "a teacher has no batch form yet"
    if cfg.symmetry_augmentation:
        return "symmetry_augmentation is not implemented on the batch yet"
    if cfg.env not in available_envs():
        return f"{cfg.env!r} is not a registered game"
    if VectorGames(cfg.env, 1, **cfg.env_kwargs).backend != "compiled":
        return f"{cfg.env!r} with env_kwargs {cfg.env_kwargs} has no compiled batch"
    return None


def is_batched_state(state: dict[str, Any]) -> bool:
    """Whether a checkpoint's collector state is a batched collector's."""
    return state.get("kind") == KIND


class BatchedCollector(SelfPlayCollector):
    """Plays ``cfg.num_envs`` games on the compiled batch with the learner and its snapshots
    (module docstring); :meth:`collect` yields finalised batches."""

    def __init__(
        self,
        cfg: PPOConfig,
        learner: nn.Module,
        gen: torch.Generator,
        net_factory: Callable[[], nn.Module],
    ) -> None:
        self.games_seed = int(np.random.SeedSequence([cfg.seed, 4]).generate_state(1)[0])
        """The games' seed: slot ``i`` deals from ``default_rng([games_seed, i])``."""
        games = VectorGames(cfg.env, cfg.num_envs, seed=self.games_seed, **cfg.env_kwargs)
        super().__init__(cfg, games, learner, gen, net_factory)
        self.games = games
        n, p = games.num_envs, games.num_players
        self.who = np.full((n, p), -1, dtype=np.int64)
        """Per game and seat: -1 the learner, ``k >= 0`` snapshot ``k`` of the pool."""
        self.ended = np.zeros(n, dtype=np.bool_)
        """Games that ended with the last step (the next step starts their next game)."""
        self.primary = np.zeros(n, dtype=np.int64)
        """Per game, the learner's primary seat (whose results are logged)."""
        self.ep_return = np.zeros(n, dtype=np.float64)
        self.length = np.zeros(n, dtype=np.int64)
        # the pending transition of each (game, seat): what the next rollout carries over
        self.p_has = np.zeros((n, p), dtype=np.bool_)
        self.p_obs = np.zeros((n, p, games.single_observation_space.shape[0]), np.float32)
        self.p_mask = np.zeros((n, p, games.num_actions), dtype=np.int8)
        self.p_action = np.zeros((n, p), dtype=np.int64)
        self.p_logp = np.zeros((n, p), dtype=np.float32)
        self.p_value = np.zeros((n, p), dtype=np.float32)
        self.p_reward = np.zeros((n, p), dtype=np.float64)
        self._obs_buf = np.zeros((0, self.p_obs.shape[2]), dtype=np.float32)
        self._mask_buf = np.zeros((0, games.num_actions), dtype=np.int8)
        self.res = games.reset()
        for i in range(n):
            self._new_game(i)

    def _new_game(self, i: int) -> None:
        """Draw who plays game ``i``'s next game (the batch deals the game itself)."""
        setup, primary = self.new_setup()
        s = self.slots[i]
        s.setup, s.primary = setup, primary
        self.primary[i] = primary
        for seat, c in enumerate(setup.controllers):
            self.who[i, seat] = -1 if c == LEARNER else int(c[len(POOL_PREFIX) :])
        self.ep_return[i] = 0.0
        self.length[i] = 0

    def shaped(self, rewards: np.ndarray, ended: np.ndarray) -> np.ndarray:
        """The rewards the learner trains on (``relative_reward``, ``reward_scale``,
        ``win_bonus``; as :meth:`SelfPlayCollector.shaped_rewards`) of one batch step."""
        cfg, n = self.cfg, rewards.shape[1]
        r = rewards.astype(np.float64) * cfg.reward_scale
        if cfg.relative_reward and n > 1:
            r = r - (r.sum(axis=1, keepdims=True) - r) / (n - 1)
        if cfg.win_bonus:
            for i in np.flatnonzero(ended):
                outcome = self.games.outcome(int(i))
                assert outcome is not None
                if 0 < len(outcome.winners) < n:
                    bonus = np.full(n, -cfg.win_bonus)
                    bonus[list(outcome.winners)] = cfg.win_bonus
                    r[i] += bonus
        return r

    def collect(
        self, rounds: int, should_stop: Callable[[], bool] | None = None
    ) -> tuple[Batch, RolloutStats]:
        """Play ``rounds`` batch steps; the transitions finalised meanwhile. ``should_stop()``
        is asked before every step (:class:`~.stopping.BudgetSpent` when it says so)."""
        stats = RolloutStats()
        games, n, p = self.games, self.games.num_envs, self.games.num_players
        every = np.arange(n)
        cap = n * p + rounds * n
        stream = np.zeros(cap, np.int64)
        action = np.zeros(cap, np.int64)
        logp = np.zeros(cap, np.float32)
        value = np.zeros(cap, np.float32)
        reward = np.zeros(cap, np.float64)
        next_value = np.zeros(cap, np.float32)
        done = np.zeros(cap, np.bool_)  # the game ended by its rules: no bootstrap
        over = np.zeros(cap, np.bool_)  # the game ended (by its rules or cut) after the row
        final = np.zeros(cap, np.bool_)
        last = np.full((n, p), -1, np.int64)  # each (game, seat)'s pending row
        # the pending transitions carried over from the last rollout come first
        carried = np.flatnonzero(self.p_has.ravel())
        count = len(carried)
        if len(self._obs_buf) < cap:  # the rollout's rows, kept from one rollout to the next
            self._obs_buf = np.zeros((cap, self.p_obs.shape[2]), dtype=np.float32)
            self._mask_buf = np.zeros((cap, self.p_mask.shape[2]), dtype=np.int8)
        obs_buf, mask_buf = self._obs_buf, self._mask_buf
        obs_buf[:count] = self.p_obs.reshape(n * p, -1)[carried]
        mask_buf[:count] = self.p_mask.reshape(n * p, -1)[carried]
        stream[:count] = carried
        action[:count] = self.p_action.ravel()[carried]
        logp[:count] = self.p_logp.ravel()[carried]
        value[:count] = self.p_value.ravel()[carried]
        reward[:count] = self.p_reward.ravel()[carried]
        last.ravel()[carried] = np.arange(count)

        self.learner.eval()
        res = self.res
        for _ in range(rounds):
            if should_stop is not None and should_stop():
                raise BudgetSpent
            t0 = time.perf_counter()
            live = ~self.ended
            seat = res.current_player.copy()
            controller = self.who[every, seat]
            actions = np.zeros(n, dtype=np.int64)
            for c in [-1, *sorted(set(controller[live & (controller >= 0)].tolist()))]:
                rows = np.flatnonzero(live & (controller == c))
                if rows.size == 0:
                    continue
                if c >= 0:  # a snapshot of the pool: its actions only
                    obs, mask = res.observation[rows], res.action_mask[rows]
                    actions[rows] = policy_step(self.pool_nets[c], obs, mask, self.gen)[0]
                    continue
                idx = np.arange(count, count + rows.size)
                obs, mask = obs_buf[count : count + rows.size], mask_buf[count : count + rows.size]
                np.take(res.observation, rows, axis=0, out=obs)
                np.take(res.action_mask, rows, axis=0, out=mask)
                a, lp, v = policy_step(self.learner, obs, mask, self.gen)
                actions[rows] = a
                prev = last[rows, seat[rows]]
                waiting = prev >= 0
                next_value[prev[waiting]] = v[waiting]  # the seat acts again: bootstrap
                final[prev[waiting]] = True
                last[rows, seat[rows]] = idx
                stream[idx] = rows * p + seat[rows]
                action[idx], logp[idx], value[idx] = a, lp, v
                count += rows.size
                stats.decisions += rows.size
            t1 = time.perf_counter()
            res = games.step(actions)
            t2 = time.perf_counter()
            stats.net_time += t1 - t0
            stats.env_time += t2 - t1
            stats.agent_steps += int(live.sum())
            self.length += live
            restarted = np.flatnonzero(self.ended)
            self.ended = res.terminated | res.truncated
            r = self.shaped(res.rewards, self.ended)
            waiting = last >= 0
            reward[last[waiting]] += r[waiting]
            self.ep_return += r[every, self.primary]
            for i in restarted:
                self._new_game(int(i))
            cut_games: list[int] = []
            cut_rows: list[int] = []
            for i in np.flatnonzero(self.ended):
                rows = last[i][last[i] >= 0]
                final[rows] = over[rows] = True
                if res.truncated[i]:  # bootstrap from the cut
                    next_value[rows] = value[rows]
                    shown = last[i, res.current_player[i]]
                    if shown >= 0:
                        cut_games.append(int(i))
                        cut_rows.append(int(shown))
                else:
                    done[rows] = True
                last[i] = -1
                outcome = games.outcome(int(i))
                assert outcome is not None
                s = self.slots[i]
                assert s.setup is not None
                winners = [] if outcome.ending is Ending.TRUNCATED else list(outcome.winners)
                credit = win_credits(winners, p)[s.primary]
                key = opponent_key(s.setup.controllers, s.primary)
                stats.games.append((key, credit, float(self.ep_return[i]), int(self.length[i])))
            if cut_rows:
                with torch.no_grad():
                    cut = torch.as_tensor(res.final_observation[cut_games])
                    next_value[cut_rows] = self.learner(cut)[1].numpy()
        self.res = res

        # what is still pending is carried over; the finalised rows go to the update
        self.p_has[:] = last >= 0
        rows = last[self.p_has]
        self.p_obs[self.p_has], self.p_mask[self.p_has] = obs_buf[rows], mask_buf[rows]
        self.p_action[self.p_has], self.p_logp[self.p_has] = action[rows], logp[rows]
        self.p_value[self.p_has], self.p_reward[self.p_has] = value[rows], reward[rows]
        self._drop_unused_snapshots()
        keep = np.flatnonzero(final[:count])
        keep = keep[np.argsort(stream[keep], kind="stable")]  # per stream, in time order
        cont = np.zeros(len(keep), dtype=np.float32)
        if len(keep) > 1:
            same = stream[keep[1:]] == stream[keep[:-1]]
            cont[:-1] = (same & ~over[keep[:-1]]).astype(np.float32)
        batch = Batch(
            obs=obs_buf[keep],
            masks=mask_buf[keep],
            actions=action[keep],
            logps=logp[keep],
            values=value[keep],
            rewards=reward[keep].astype(np.float32),
            dones=done[keep].astype(np.float32),
            next_values=next_value[keep],
            cont=cont,
            teacher_actions=np.full((len(keep), 1), -1, dtype=np.int64),
        )
        return batch, stats

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """The collector's state as tensors and plain containers (for ``weights_only`` loads):
        the games' compiled state, who plays each game, the pending transitions, the pool."""
        games = self.games.state_dict()
        has = self.p_has
        return {
            "kind": KIND,
            "rng": json.dumps(self.rng.bit_generator.state),
            "games": {
                "arrays": {k: torch.from_numpy(v) for k, v in games.pop("arrays").items()},
                **games,
            },
            "controllers": [list(s.setup.controllers) if s.setup else [] for s in self.slots],
            "primary": [s.primary for s in self.slots],
            "ended": torch.from_numpy(self.ended.copy()),
            "ep_return": torch.from_numpy(self.ep_return.copy()),
            "length": torch.from_numpy(self.length.copy()),
            "pending": {
                "has": torch.from_numpy(has.copy()),
                "obs": torch.from_numpy(self.p_obs[has]),
                "mask": torch.from_numpy(self.p_mask[has]),
                "action": torch.from_numpy(self.p_action[has]),
                "logp": torch.from_numpy(self.p_logp[has]),
                "value": torch.from_numpy(self.p_value[has]),
                "reward": torch.from_numpy(self.p_reward[has]),
            },
            **self.pool_state(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from :meth:`state_dict` (the games continue exactly where they were)."""
        if not is_batched_state(state):
            raise ConfigError("the checkpoint's games were collected on the slot path")
        games = dict(state["games"])
        games["arrays"] = {k: v.numpy() for k, v in games["arrays"].items()}
        self.games.load_state_dict(games)
        self.rng.bit_generator.state = json.loads(state["rng"])
        self.load_pool_state(state)
        for i, (controllers, primary) in enumerate(
            zip(state["controllers"], state["primary"], strict=True)
        ):
            s = self.slots[i]
            s.setup = GameSetup(0, 0, tuple(controllers))
            s.primary = self.primary[i] = int(primary)
            for seat, c in enumerate(controllers):
                self.who[i, seat] = -1 if c == LEARNER else int(c[len(POOL_PREFIX) :])
        self.ended[:] = state["ended"].numpy()
        self.ep_return[:] = state["ep_return"].numpy()
        self.length[:] = state["length"].numpy()
        pending = state["pending"]
        self.p_has[:] = pending["has"].numpy()
        has = self.p_has
        self.p_obs[has], self.p_mask[has] = pending["obs"].numpy(), pending["mask"].numpy()
        self.p_action[has], self.p_logp[has] = pending["action"].numpy(), pending["logp"].numpy()
        self.p_value[has] = pending["value"].numpy()
        self.p_reward[has] = pending["reward"].numpy()
