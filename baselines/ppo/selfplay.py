"""Self-play collection: opponents, per-seat transitions, and the collector's checkpoint state.

Every new game puts the learner in one random seat (its *primary* seat, whose results are
logged); each other seat is filled, with the config's ``opponents`` weights, by the learner
itself (``self``), a past snapshot of the learner from the pool (``pool``), or a scripted
agent. One shared learner network plays all its seats.

Transitions are stored **per seat**: a learner seat's transition holds its own observation,
mask, action, log-probability and value; its reward is everything that reaches that seat
until it acts again (the opponents' moves in between, the terminal reward included) and it
is *finalised* only then — with the value of that next observation as bootstrap — or at the
end of the game: with no bootstrap when the game ended by its rules (done), and with the
value of the seat's observation at the cut when the game was truncated (a turn limit is not
an outcome, so the return beyond it is estimated, not taken as 0). A transition still
waiting at the end of a rollout is carried over to the next one, so no reward is ever cut off
at a rollout boundary.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from tabletop_rl.envs.core.symmetry import Symmetries
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.registry import make
from tabletop_rl.envs.vector import VectorGames

from ..stats import win_credits
from .config import PPOConfig
from .distributions import MaskedCategorical
from .rollout import (
    LEARNER,
    POOL_PREFIX,
    Decision,
    GameOver,
    GameSetup,
    Report,
    VecGames,
)


@dataclass
class Transition:
    """One decision of one learner seat (reward accumulates until it is finalised)."""

    obs: np.ndarray
    mask: np.ndarray
    action: int
    logp: float
    value: float
    reward: float = 0.0
    done: bool = False
    """The game ended by its rules after this decision: no bootstrap."""
    next_value: float = 0.0
    truncated: bool = False
    """The game was cut after this decision; ``next_value`` bootstraps from the cut."""
    teacher_actions: tuple[int, ...] = ()
    """The actions the teacher rates best in this position (empty: no teacher asked)."""


@dataclass
class Batch:
    """Finalised transitions, grouped by stream (slot, seat) in time order."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    logps: np.ndarray
    values: np.ndarray
    rewards: np.ndarray
    dones: np.ndarray
    next_values: np.ndarray
    cont: np.ndarray
    """1 where the next row is this stream's next transition (same game), else 0."""
    teacher_actions: np.ndarray
    """``(rows, K)`` int64: the actions the teacher rates best per row, padded with -1 (a row
    of -1 where no teacher was asked); ``K >= 1`` is the largest such set in the batch."""

    def __len__(self) -> int:
        return len(self.actions)


@dataclass
class RolloutStats:
    """What one collection did, for logging."""

    env_time: float = 0.0
    net_time: float = 0.0
    agent_steps: int = 0
    decisions: int = 0
    games: list[tuple[str, float, float, int]] = field(default_factory=list)
    """Finished games: (opponent key, primary seat's credit, its return, length)."""


@dataclass
class _SlotState:
    setup: GameSetup | None = None
    net_actions: list[int] = field(default_factory=list)
    report: Report | None = None
    primary: int = 0
    ep_return: float = 0.0
    pending: dict[int, Transition] = field(default_factory=dict)


def padded_labels(labels: list[tuple[int, ...]]) -> np.ndarray:
    """The teacher's label sets as one ``(rows, K)`` int64 array padded with -1.

    >>> padded_labels([(3,), (), (1, 4)]).tolist()
    [[3, -1], [-1, -1], [1, 4]]
    """
    width = max([1, *map(len, labels)])
    out = np.full((len(labels), width), -1, dtype=np.int64)
    for j, best in enumerate(labels):
        out[j, : len(best)] = best
    return out


def _stored_labels(pending: dict[str, Any]) -> tuple[int, ...]:
    """A checkpointed transition's teacher labels (older checkpoints stored one action)."""
    if "teacher_actions" in pending:
        return tuple(int(a) for a in pending["teacher_actions"])
    single = int(pending.get("teacher_action", -1))
    return (single,) if single >= 0 else ()


def opponent_key(controllers: tuple[str, ...], primary: int) -> str:
    """Name of the opposition the primary seat faced (``self`` when only the learner played).

    >>> opponent_key(("learner", "greedy"), 0), opponent_key(("pool:3", "learner"), 1)
    ('greedy', 'pool')
    >>> opponent_key(("learner", "learner", "random"), 0)
    'random+self'
    """
    names = set()
    for seat, c in enumerate(controllers):
        if seat != primary:
            names.add("self" if c == LEARNER else "pool" if c.startswith(POOL_PREFIX) else c)
    return "+".join(sorted(names))


@torch.no_grad()
def policy_step(
    net: nn.Module,
    obs: np.ndarray,
    masks: np.ndarray,
    gen: torch.Generator,
    greedy: bool = False,
    forced: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Actions (sampled with ``gen``, or the mode), their log-probabilities, and values.

    Where ``forced`` is given and ``>= 0`` that action is taken instead (its log-probability
    under the policy is returned); the sample is drawn either way, so forcing some rows does
    not change the random stream of the others."""
    logits, values = net(torch.as_tensor(obs, dtype=torch.float32))
    dist = MaskedCategorical(logits, torch.as_tensor(masks).bool())
    actions = dist.mode() if greedy else dist.sample(gen)
    if forced is not None:
        override = torch.as_tensor(forced)
        actions = torch.where(override >= 0, override, actions)
    return actions.numpy(), dist.log_prob(actions).numpy(), values.numpy()


class SelfPlayCollector:
    """Plays ``vec``'s games with the learner and its opponents; yields finalised batches."""

    def __init__(
        self,
        cfg: PPOConfig,
        vec: VecGames | VectorGames,
        learner: nn.Module,
        gen: torch.Generator,
        net_factory: Callable[[], nn.Module],
    ) -> None:
        self.cfg = cfg
        self.vec = vec
        self.learner = learner
        self.gen = gen
        self.net_factory = net_factory
        self.rng = np.random.default_rng([cfg.seed, 1])
        names = sorted(cfg.opponents)
        weights = np.array([cfg.opponents[k] for k in names], dtype=np.float64)
        self.opponent_names = names
        self.opponent_p = weights / weights.sum()
        self.pool_ids: list[int] = []
        self.pool_nets: dict[int, nn.Module] = {}
        self.next_pool_id = 0
        games = vec.num_envs if isinstance(vec, VectorGames) else vec.num_slots
        self.slots = [_SlotState() for _ in range(games)]
        self.symmetries: Symmetries | None = None
        if cfg.symmetry_augmentation:
            self.symmetries = make(cfg.env, raw=True, **cfg.env_kwargs).symmetries()
            if self.symmetries is None:
                raise ConfigError(
                    f"symmetry_augmentation: {cfg.env!r} declares no symmetries "
                    "(qwirkle_v0 does; set it to false for this game)"
                )
        self.sym_rng = np.random.default_rng([cfg.seed, 2])
        """Draws the frame of every learner decision (only with ``symmetry_augmentation``)."""
        self.teacher_rng = np.random.default_rng([cfg.seed, 3])
        """Draws which learner decisions play the teacher's action (``teacher_plays``)."""
        self.teacher_active = bool(cfg.teacher)
        """Whether new games ask the teacher (the trainer turns it off once its weight is 0)."""

    # ------------------------------------------------------------------ opponents
    def add_snapshot(self) -> None:
        """Copy the learner into the opponent pool (dropping the oldest beyond pool_size)."""
        net = self.net_factory()
        net.load_state_dict(self.learner.state_dict())
        net.eval()
        self.pool_nets[self.next_pool_id] = net
        self.pool_ids.append(self.next_pool_id)
        self.next_pool_id += 1
        del self.pool_ids[: -self.cfg.pool_size]
        self._drop_unused_snapshots()

    def _drop_unused_snapshots(self) -> None:
        used = set(self.pool_ids)
        for s in self.slots:
            if s.setup is not None:
                used.update(
                    int(c[len(POOL_PREFIX) :])
                    for c in s.setup.controllers
                    if c.startswith(POOL_PREFIX)
                )
        for k in list(self.pool_nets):
            if k not in used:
                del self.pool_nets[k]

    def new_setup(self) -> tuple[GameSetup, int]:
        """A new game's setup and the learner's primary seat."""
        n = self.vec.num_players
        primary = int(self.rng.integers(n))
        controllers = []
        for seat in range(n):
            if seat == primary:
                controllers.append(LEARNER)
                continue
            kind = self.opponent_names[
                int(self.rng.choice(len(self.opponent_names), p=self.opponent_p))
            ]
            if kind == "self" or (kind == "pool" and not self.pool_ids):
                controllers.append(LEARNER)
            elif kind == "pool":
                pid = self.pool_ids[int(self.rng.integers(len(self.pool_ids)))]
                controllers.append(f"{POOL_PREFIX}{pid}")
            else:
                controllers.append(kind)
        seeds = self.rng.integers(2**31, size=2)
        teacher = self.cfg.teacher if self.teacher_active else ""
        setup = GameSetup(int(seeds[0]), int(seeds[1]), tuple(controllers), teacher)
        return setup, primary

    # ------------------------------------------------------------------ collection
    def shaped_rewards(self, report: Report) -> np.ndarray:
        """The rewards the learner trains on (see ``relative_reward``, ``reward_scale``,
        ``win_bonus``) from what reached each seat."""
        cfg = self.cfg
        r = report.rewards.astype(np.float64) * cfg.reward_scale
        n = len(r)
        if cfg.relative_reward and n > 1:
            r = r - (r.sum() - r) / (n - 1)
        over = isinstance(report, GameOver)
        if cfg.win_bonus and over and 0 < len(report.winners) < n:  # type: ignore[union-attr]
            bonus = np.full(n, -cfg.win_bonus)
            bonus[report.winners] = cfg.win_bonus  # type: ignore[union-attr]
            r = r + bonus
        return r

    def collect(self, rounds: int) -> tuple[Batch, RolloutStats]:
        """Play ``rounds`` decision rounds over all games; the transitions finalised meanwhile."""
        import time

        stats = RolloutStats()
        done: dict[tuple[int, int], list[Transition]] = defaultdict(list)
        self.learner.eval()
        for _ in range(rounds):
            commands: list[tuple[str, Any]] = [("idle", None)] * len(self.slots)
            groups: dict[str, list[int]] = defaultdict(list)
            for i, s in enumerate(self.slots):
                if s.report is None or isinstance(s.report, GameOver):
                    setup, primary = self.new_setup()
                    s.setup, s.primary, s.ep_return, s.net_actions = setup, primary, 0.0, []
                    commands[i] = ("reset", setup)
                else:
                    assert isinstance(s.report, Decision) and s.setup is not None
                    groups[s.setup.controllers[s.report.seat]].append(i)
            t0 = time.perf_counter()
            for controller in sorted(groups, key=lambda c: (c != LEARNER, c)):
                rows = groups[controller]
                decisions = [self.slots[i].report for i in rows]
                obs = np.stack([d.obs for d in decisions])  # type: ignore[union-attr]
                masks = np.stack([d.mask for d in decisions])  # type: ignore[union-attr]
                frames = None
                if controller == LEARNER:
                    net = self.learner
                    if self.symmetries is not None:
                        frames = self.sym_rng.integers(len(self.symmetries), size=len(rows))
                        obs = np.take_along_axis(obs, self.symmetries.obs[frames], axis=1)
                        masks = np.take_along_axis(masks, self.symmetries.actions[frames], axis=1)
                else:
                    net = self.pool_nets[int(controller[len(POOL_PREFIX) :])]
                labels = [d.teacher_actions for d in decisions]  # type: ignore[union-attr]
                forced = None
                if controller == LEARNER and self.cfg.teacher_plays > 0:
                    forced = self._teacher_plays(labels)
                actions, logps, values = policy_step(net, obs, masks, self.gen, forced=forced)
                played = actions  # the real actions; ``actions`` are in the frames seen
                if frames is not None and self.symmetries is not None:
                    played = self.symmetries.actions[frames, actions]
                for j, i in enumerate(rows):
                    s = self.slots[i]
                    seat = s.report.seat  # type: ignore[union-attr]
                    a = int(actions[j])
                    if controller == LEARNER:
                        prev = s.pending.pop(seat, None)
                        if prev is not None:
                            prev.next_value = float(values[j])
                            done[(i, seat)].append(prev)
                        s.pending[seat] = Transition(
                            obs[j],
                            masks[j],
                            a,
                            float(logps[j]),
                            float(values[j]),
                            teacher_actions=labels[j],
                        )
                        stats.decisions += 1
                    s.net_actions.append(int(played[j]))
                    commands[i] = ("act", int(played[j]))
            t1 = time.perf_counter()
            assert isinstance(self.vec, VecGames)
            reports = self.vec.run(commands)
            t2 = time.perf_counter()
            stats.net_time += t1 - t0
            stats.env_time += t2 - t1
            for i, report in enumerate(reports):
                s = self.slots[i]
                s.report = report
                assert report is not None and s.setup is not None
                stats.agent_steps += report.steps
                rewards = self.shaped_rewards(report)
                for seat, tr in s.pending.items():
                    tr.reward += float(rewards[seat])
                s.ep_return += float(rewards[s.primary])
                if isinstance(report, GameOver):
                    cut = self._values_at_cut(report, sorted(s.pending))
                    for seat in sorted(s.pending):
                        tr = s.pending[seat]
                        if seat in cut:
                            tr.truncated, tr.next_value = True, cut[seat]
                        else:
                            tr.done, tr.next_value = True, 0.0
                        done[(i, seat)].append(tr)
                    s.pending = {}
                    key = opponent_key(s.setup.controllers, s.primary)
                    credit = win_credits(report.winners, self.vec.num_players)[s.primary]
                    stats.games.append((key, credit, s.ep_return, report.length))
        self._drop_unused_snapshots()
        return self._batch(done), stats

    def _teacher_plays(self, labels: list[tuple[int, ...]]) -> np.ndarray:
        """Per row, the teacher's action to play instead of the learner's (one of its best,
        drawn with the collector's teacher generator), or -1: a fraction ``teacher_plays``."""
        plays = self.teacher_rng.random(len(labels)) < self.cfg.teacher_plays
        forced = np.full(len(labels), -1, dtype=np.int64)
        for j, best in enumerate(labels):
            if plays[j] and best:
                forced[j] = (
                    best[0] if len(best) == 1 else best[self.teacher_rng.integers(len(best))]
                )
        return forced

    def _values_at_cut(self, report: GameOver, seats: list[int]) -> dict[int, float]:
        """The learner's values of ``seats``' observations where a truncated game was cut."""
        if not report.truncated or report.final_obs is None or not seats:
            return {}
        with torch.no_grad():
            _, values = self.learner(torch.as_tensor(report.final_obs[seats]))
        return {seat: float(v) for seat, v in zip(seats, values.tolist(), strict=True)}

    def _batch(self, done: dict[tuple[int, int], list[Transition]]) -> Batch:
        rows = [tr for key in sorted(done) for tr in done[key]]
        cont = np.zeros(len(rows), dtype=np.float32)
        k = 0
        for key in sorted(done):
            n = len(done[key])
            for j in range(n - 1):
                ends = done[key][j].done or done[key][j].truncated
                cont[k + j] = 0.0 if ends else 1.0
            k += n
        num_actions = self.vec.num_actions
        return Batch(
            obs=np.stack([t.obs for t in rows]) if rows else np.zeros((0, 0), np.float32),
            masks=np.stack([t.mask for t in rows]) if rows else np.zeros((0, num_actions), np.int8),
            actions=np.array([t.action for t in rows], dtype=np.int64),
            logps=np.array([t.logp for t in rows], dtype=np.float32),
            values=np.array([t.value for t in rows], dtype=np.float32),
            rewards=np.array([t.reward for t in rows], dtype=np.float32),
            dones=np.array([t.done for t in rows], dtype=np.float32),
            next_values=np.array([t.next_value for t in rows], dtype=np.float32),
            cont=cont,
            teacher_actions=padded_labels([t.teacher_actions for t in rows]),
        )

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """The collector's state as tensors and plain containers (for ``weights_only`` loads)."""
        slots = []
        for s in self.slots:
            entry: dict[str, Any] = {
                "setup": None,
                "net_actions": list(s.net_actions),
                "primary": s.primary,
                "ep_return": s.ep_return,
                "game_over": isinstance(s.report, GameOver),
                "pending": {},
            }
            if s.setup is not None:
                entry["setup"] = [
                    s.setup.env_seed,
                    s.setup.agent_seed,
                    list(s.setup.controllers),
                    s.setup.teacher,
                ]
            for seat, tr in s.pending.items():
                entry["pending"][seat] = {
                    "obs": torch.from_numpy(tr.obs.copy()),
                    "mask": torch.from_numpy(tr.mask.copy()),
                    "action": tr.action,
                    "logp": tr.logp,
                    "value": tr.value,
                    "reward": tr.reward,
                    "teacher_actions": list(tr.teacher_actions),
                }
            slots.append(entry)
        return {
            "rng": json.dumps(self.rng.bit_generator.state),
            "sym_rng": json.dumps(self.sym_rng.bit_generator.state),
            "teacher_rng": json.dumps(self.teacher_rng.bit_generator.state),
            "teacher_active": self.teacher_active,
            "slots": slots,
            **self.pool_state(),
        }

    def pool_state(self) -> dict[str, Any]:
        """The opponent pool's part of :meth:`state_dict`."""
        return {
            "pool_ids": list(self.pool_ids),
            "pool_nets": {k: net.state_dict() for k, net in self.pool_nets.items()},
            "next_pool_id": self.next_pool_id,
        }

    def load_pool_state(self, state: dict[str, Any]) -> None:
        """Restore the opponent pool from :meth:`pool_state`'s entries of ``state``."""
        self.pool_ids = list(state["pool_ids"])
        self.next_pool_id = int(state["next_pool_id"])
        self.pool_nets = {}
        for k, sd in state["pool_nets"].items():
            net = self.net_factory()
            net.load_state_dict(sd)
            net.eval()
            self.pool_nets[int(k)] = net

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from :meth:`state_dict`, replaying every running game in its slot."""
        self.rng.bit_generator.state = json.loads(state["rng"])
        if "sym_rng" in state:  # absent in checkpoints written before symmetry augmentation
            self.sym_rng.bit_generator.state = json.loads(state["sym_rng"])
        if "teacher_rng" in state:  # absent in checkpoints written before kickstarting
            self.teacher_rng.bit_generator.state = json.loads(state["teacher_rng"])
            self.teacher_active = bool(state["teacher_active"])
        self.load_pool_state(state)
        commands: list[tuple[str, Any]] = []
        for s, entry in zip(self.slots, state["slots"], strict=True):
            s.net_actions = list(entry["net_actions"])
            s.primary = int(entry["primary"])
            s.ep_return = float(entry["ep_return"])
            s.setup = None
            s.report = None
            s.pending = {
                int(seat): Transition(
                    p["obs"].numpy(),
                    p["mask"].numpy(),
                    int(p["action"]),
                    p["logp"],
                    p["value"],
                    p["reward"],
                    teacher_actions=_stored_labels(p),
                )
                for seat, p in entry["pending"].items()
            }
            if entry["setup"] is None:
                commands.append(("idle", None))
            else:
                env_seed, agent_seed, controllers, *teacher = entry["setup"]
                s.setup = GameSetup(
                    int(env_seed), int(agent_seed), tuple(controllers), *map(str, teacher)
                )
                commands.append(("replay", (s.setup, s.net_actions)))
        assert isinstance(self.vec, VecGames)
        reports = self.vec.run(commands)
        for s, entry, report in zip(self.slots, state["slots"], reports, strict=True):
            s.report = report
            if report is not None and isinstance(report, GameOver) != entry["game_over"]:
                raise RuntimeError("checkpoint replay diverged: a game ended differently")
