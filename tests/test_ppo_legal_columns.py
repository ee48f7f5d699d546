"""The PPO update over each row's legal actions only: the same update as over full rows."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.ppo import ppo as ppo_module  # noqa: E402
from tabletop_rl.baselines.ppo.config import PPOConfig  # noqa: E402
from tabletop_rl.baselines.ppo.distributions import MaskedCategorical  # noqa: E402
from tabletop_rl.baselines.ppo.ppo import LegalColumns, ppo_update  # noqa: E402
from tabletop_rl.baselines.ppo.selfplay import Batch, padded_labels  # noqa: E402

ACTIONS, INPUTS, ROWS = 300, 12, 96


def _batch(seed: int) -> Batch:
    """Random positions with 1 to 20 legal actions of 300, and actions among them."""
    rng = np.random.default_rng(seed)
    masks = np.zeros((ROWS, ACTIONS), dtype=np.int8)
    actions = np.zeros(ROWS, dtype=np.int64)
    for row in range(ROWS):
        legal = rng.choice(ACTIONS, size=rng.integers(1, 21), replace=False)
        masks[row, legal] = 1
        actions[row] = rng.choice(legal)
    f32 = np.float32
    return Batch(
        obs=rng.normal(size=(ROWS, INPUTS)).astype(f32),
        masks=masks,
        actions=actions,
        logps=np.log(1.0 / masks.sum(axis=1)).astype(f32),
        values=rng.normal(size=ROWS).astype(f32),
        rewards=rng.normal(size=ROWS).astype(f32),
        dones=(rng.random(ROWS) < 0.1).astype(f32),
        next_values=rng.normal(size=ROWS).astype(f32),
        cont=(rng.random(ROWS) < 0.9).astype(f32),
        teacher_actions=padded_labels([()] * ROWS),
    )


class _Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.body = torch.nn.Linear(INPUTS, 32)
        self.policy = torch.nn.Linear(32, ACTIONS)
        self.value = torch.nn.Linear(32, 1)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.tanh(self.body(obs))
        return self.policy(h), self.value(h).squeeze(-1)


def _update(batch: Batch) -> tuple[dict[str, float], list[torch.Tensor]]:
    net = _Net()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    cfg = PPOConfig(update_epochs=2, num_minibatches=3)
    stats = ppo_update(net, optimizer, batch, cfg, torch.Generator().manual_seed(0))
    return stats, [p.detach().clone() for p in net.parameters()]


def test_the_update_over_legal_columns_is_the_full_update(monkeypatch: pytest.MonkeyPatch) -> None:
    batch = _batch(0)
    assert LegalColumns.worth_it(torch.as_tensor(batch.masks).bool())
    compact_stats, compact = _update(batch)
    monkeypatch.setattr(ppo_module, "COMPACT_RATIO", ACTIONS + 1)  # never worth it: full rows
    assert not LegalColumns.worth_it(torch.as_tensor(batch.masks).bool())
    full_stats, full = _update(batch)
    for a, b in zip(compact, full, strict=True):
        assert torch.allclose(a, b, rtol=1e-5, atol=1e-6)
    for key in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac"):
        assert compact_stats[key] == pytest.approx(full_stats[key], rel=1e-5, abs=1e-7)


def test_legal_columns_name_each_rows_legal_actions_and_the_one_taken() -> None:
    batch = _batch(1)
    masks = torch.as_tensor(batch.masks).bool()
    actions = torch.as_tensor(batch.actions)
    legal = LegalColumns(masks, actions)
    for row in range(ROWS):
        named = legal.columns[row][legal.valid[row]]
        assert named.tolist() == torch.nonzero(masks[row]).squeeze(1).tolist()
        assert int(named[legal.taken[row]]) == int(actions[row])
    logits = torch.randn(ROWS, ACTIONS, generator=torch.Generator().manual_seed(2))
    full = MaskedCategorical(logits, masks)
    compact = MaskedCategorical(logits.gather(1, legal.columns), legal.valid)
    assert torch.allclose(compact.log_prob(legal.taken), full.log_prob(actions), atol=1e-6)
    assert torch.allclose(compact.entropy(), full.entropy(), atol=1e-6)
