"""Small batched self-play collectors (``baselines/ppo/batched.py``) for the tests, and the
learner decisions behind the rows of a collected batch, replayed on the game model.

Tests import this module after putting ``tests/`` on ``sys.path``; it imports torch only when
a collector is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from tabletop_rl.baselines.ppo.batched import BatchedCollector
    from tabletop_rl.baselines.ppo.selfplay import Batch


def make_collector(env: str, env_kwargs: dict[str, Any], **cfg: Any) -> BatchedCollector:
    """A collector of ``num_envs`` (3 unless given) games of ``env`` with a tiny MLP learner
    seeded by 0; ``cfg`` sets or overrides the config's keys (``opponents``: self-play)."""
    import torch

    from tabletop_rl.baselines.ppo.batched import BatchedCollector
    from tabletop_rl.baselines.ppo.checkpoint import make_network
    from tabletop_rl.baselines.ppo.config import config_from_dict

    config = config_from_dict(
        {
            "env": env,
            "env_kwargs": env_kwargs,
            "opponents": {"self": 1.0},
            "network": "mlp",
            "hidden_sizes": [8],
            "num_envs": 3,
            **cfg,
        }
    )
    torch.manual_seed(0)
    return BatchedCollector(
        config, make_network(config), torch.Generator().manual_seed(0), lambda: make_network(config)
    )


@dataclass
class LearnerDecision:
    """One learner decision of a batch: where it was taken, what the teacher said, what the
    learner played."""

    game: int
    seat: int
    state: Any
    """The game model's state of the decision (a copy)."""
    mask: np.ndarray
    labels: tuple[int, ...]
    """The batch row's teacher labels (its best actions, in increasing order; empty: none)."""
    action: int


def learner_decisions(collector: BatchedCollector, batch: Batch) -> list[LearnerDecision]:
    """The decisions behind ``batch``'s rows, in row order: ``batch`` is ``collector``'s first,
    collected with no game ending, and every game keeps its actions (a Python agent or
    teacher plays in it, or the game is one's own), so replaying them on the game model from
    each game's deal rebuilds every position. Each row is checked against its position."""
    games = collector.games
    model, p = games.model, games.num_players
    streams: dict[int, list[tuple[int, int, Any, int]]] = {}
    for i, actions in enumerate(collector.replays):
        setup = collector.slots[i].setup
        assert actions is not None and setup is not None, f"game {i} keeps no actions"
        state = model.new_state(np.random.default_rng(setup.env_seed))
        for a in actions:
            seat = model.current_player(state)
            if collector.who[i, seat] == -1:
                streams.setdefault(i * p + seat, []).append((i, seat, model.copy(state), a))
            model.step(state, a)
    # the rows come per stream (game, seat) in time order; each seat's last decision is
    # still pending (it is finalised when the seat acts again)
    finalised = [entry for key in sorted(streams) for entry in streams[key][:-1]]
    assert len(finalised) == len(batch), "a game ended during the collection"
    out = []
    for k, (i, seat, state, a) in enumerate(finalised):
        mask = model.legal_mask(state)
        assert np.array_equal(batch.obs[k], model.observe(state, seat)), k
        assert np.array_equal(batch.masks[k], mask) and batch.actions[k] == a, k
        labels = tuple(int(x) for x in batch.teacher_actions[k] if x >= 0)
        out.append(LearnerDecision(i, seat, state, mask, labels, a))
    return out
