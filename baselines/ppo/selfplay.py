"""Self-play: who plays each game (opponents, the pool of snapshots), the batch of finalised
transitions and the network's decisions, shared by the collector on the batch
(:mod:`.batched`, which plays the games and stores the transitions).

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

from .config import PPOConfig
from .distributions import MaskedCategorical
from .rollout import LEARNER, POOL_PREFIX, GameSetup


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
    primary: int = 0


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
    """Who plays ``vec``'s games: the learner, its snapshots and the scripted opponents (the
    module docstring); :class:`~.batched.BatchedCollector` plays them."""

    def __init__(
        self,
        cfg: PPOConfig,
        vec: VectorGames,
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
        self.slots = [_SlotState() for _ in range(vec.num_envs)]
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
        return GameSetup(int(seeds[0]), int(seeds[1]), tuple(controllers)), primary

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
