"""Generalised advantage estimation and the clipped PPO update, CleanRL style.

>>> import numpy as np
>>> adv, ret = compute_gae(
...     rewards=np.array([0.0, 0.0, 1.0], np.float32),
...     values=np.array([0.5, 0.5, 0.5], np.float32),
...     next_values=np.array([0.5, 0.5, 0.0], np.float32),
...     dones=np.array([0.0, 0.0, 1.0], np.float32),
...     cont=np.array([1.0, 1.0, 0.0], np.float32),
...     gamma=1.0, gae_lambda=1.0)
>>> ret.tolist()  # with lambda = 1 the return is the sum of the rewards to come
[1.0, 1.0, 1.0]
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from .config import PPOConfig
from .distributions import MaskedCategorical
from .networks import TrainingInputs
from .selfplay import Batch
from .stopping import BudgetSpent


def compute_gae(
    rewards: np.ndarray,
    values: np.ndarray,
    next_values: np.ndarray,
    dones: np.ndarray,
    cont: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns over rows grouped in streams.

    ``next_values`` bootstraps each row; ``dones`` marks rows after which the game ended by
    its rules (no bootstrap). ``cont[t]`` is 1 when row ``t + 1`` is the same seat's next
    transition, so the lambda-recursion runs within a stream only: a truncated game's last row
    has ``cont = 0`` but ``done = 0``, and bootstraps from the value at the cut.
    """
    deltas = rewards + gamma * next_values * (1.0 - dones) - values
    adv = np.zeros_like(deltas)
    last = 0.0
    for t in range(len(deltas) - 1, -1, -1):
        last = deltas[t] + gamma * gae_lambda * cont[t] * last
        adv[t] = last
    return adv, adv + values


def explained_variance(pred: np.ndarray, target: np.ndarray) -> float:
    """1 - Var[target - pred] / Var[target] (nan when the target is constant)."""
    var = float(np.var(target))
    return float("nan") if var == 0 else 1.0 - float(np.var(target - pred)) / var


COMPACT_RATIO = 4
"""The update scores each row over its legal actions only (:class:`LegalColumns`) when the
most legal actions of any row are at most the action count over this: Qwirkle's 9,191
actions have at most 129 legal ones in a position, Liniell's 209 at most 48."""


class LegalColumns:
    """Each row's legal actions as columns padded to the widest row, found once per update.

    A minibatch's masked distribution is then taken over ``logits.gather(1, columns)``, with
    ``valid`` as its mask: the same log-probabilities, entropy and gradients as over the full
    masked row (an illegal action's probability is exactly 0 there), at the cost of the legal
    actions instead of all of them. ``taken`` is each row's action as a position in its
    columns."""

    def __init__(self, masks: torch.Tensor, actions: torch.Tensor) -> None:
        rows, cols = masks.nonzero(as_tuple=True)  # row by row, columns ascending
        counts = torch.bincount(rows, minlength=masks.shape[0])
        starts = torch.cumsum(counts, 0) - counts
        at = torch.arange(len(cols)) - starts[rows]
        width = int(counts.max()) if len(counts) else 0
        self.columns = torch.zeros((masks.shape[0], width), dtype=torch.long)
        self.columns[rows, at] = cols
        self.valid = torch.arange(width) < counts[:, None]
        self.taken = ((self.columns == actions.long()[:, None]) & self.valid).long().argmax(dim=1)

    @staticmethod
    def worth_it(masks: torch.Tensor) -> bool:
        """Whether the legal actions are few enough (:data:`COMPACT_RATIO`) to pay off."""
        return int(masks.sum(dim=1).max()) * COMPACT_RATIO <= masks.shape[1]


def ppo_update(
    net: nn.Module,
    optimizer: torch.optim.Optimizer,
    batch: Batch,
    cfg: PPOConfig,
    gen: torch.Generator,
    teacher_coef: float = 0.0,
    should_stop: Callable[[], bool] | None = None,
) -> dict[str, float]:
    """Several epochs of clipped-surrogate minibatch updates on ``batch``; the losses and
    diagnostics of the last epoch (approx_kl, clipfrac, entropy, explained variance), and
    ``grad_norm``: the mean over all minibatch steps of the gradient's total norm before
    clipping (above ``max_grad_norm`` the step was scaled down to it).

    With ``teacher_coef > 0`` the loss also holds ``teacher_coef`` times the distillation
    loss over the rows a teacher labelled (kickstarting): minus the log-probability that the
    masked policy picks one of the teacher's best actions (``batch.teacher_actions``; a
    scripted teacher breaks ties between them at random, so each is its choice, and a single
    sampled one would be a noisy label), or with ``cfg.teacher_target == "likeliest"`` minus
    the log-probability of the one of them it rates highest. ``teacher_loss`` and
    ``teacher_agreement`` (how often the policy's most probable action is one of the
    teacher's best) are then logged too. The policy-gradient term is weighted by
    ``cfg.pg_coef``. ``should_stop()`` (the run's time budget) is asked before every
    minibatch step; when it says so, :class:`~.stopping.BudgetSpent` is raised and the update
    is left unfinished (the caller restores the last update boundary)."""
    advantages, returns = compute_gae(
        batch.rewards,
        batch.values,
        batch.next_values,
        batch.dones,
        batch.cont,
        cfg.gamma,
        cfg.gae_lambda,
    )
    inputs = TrainingInputs(net, torch.as_tensor(batch.obs, dtype=torch.float32))
    b_masks = torch.as_tensor(batch.masks).bool()
    b_actions = torch.as_tensor(batch.actions)
    b_logps = torch.as_tensor(batch.logps)
    b_values = torch.as_tensor(batch.values)
    b_advantages = torch.as_tensor(advantages)
    b_returns = torch.as_tensor(returns)
    b_teacher = torch.as_tensor(batch.teacher_actions)
    b_labelled = b_teacher[:, 0] >= 0
    distil = teacher_coef > 0 and bool(b_labelled.any())
    # the teacher's labels are action indices: with a teacher, the full rows
    legal = (
        LegalColumns(b_masks, b_actions) if not distil and LegalColumns.worth_it(b_masks) else None
    )

    n = len(batch)
    minibatch_size = max(1, -(-n // cfg.num_minibatches))
    net.train()
    clipfracs: list[float] = []
    approx_kl = old_approx_kl = pg_loss = v_loss = entropy_loss = torch.tensor(0.0)
    teacher_losses: list[float] = []
    agreements: list[float] = []
    grad_norms: list[float] = []
    for _epoch in range(cfg.update_epochs):
        order = torch.randperm(n, generator=gen)
        for start in range(0, n, minibatch_size):
            if should_stop is not None and should_stop():
                raise BudgetSpent
            mb = order[start : start + minibatch_size]
            logits, new_values = net(inputs.rows(mb))
            if legal is not None:
                dist = MaskedCategorical(logits.gather(1, legal.columns[mb]), legal.valid[mb])
                new_logps = dist.log_prob(legal.taken[mb])
            else:
                dist = MaskedCategorical(logits, b_masks[mb])
                new_logps = dist.log_prob(b_actions[mb])
            entropy = dist.entropy()
            logratio = new_logps - b_logps[mb]
            ratio = logratio.exp()

            with torch.no_grad():
                old_approx_kl = (-logratio).mean()
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())

            mb_adv = b_advantages[mb]
            if cfg.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)

            # Policy loss
            pg_loss1 = -mb_adv * ratio
            pg_loss2 = -mb_adv * torch.clamp(ratio, 1 - cfg.clip_coef, 1 + cfg.clip_coef)
            pg_loss = torch.max(pg_loss1, pg_loss2).mean()

            # Value loss
            if cfg.clip_vloss:
                v_unclipped = (new_values - b_returns[mb]) ** 2
                v_clipped = b_values[mb] + torch.clamp(
                    new_values - b_values[mb], -cfg.clip_coef, cfg.clip_coef
                )
                v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_returns[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((new_values - b_returns[mb]) ** 2).mean()

            entropy_loss = entropy.mean()
            loss = cfg.pg_coef * pg_loss - cfg.ent_coef * entropy_loss + v_loss * cfg.vf_coef

            if distil:
                labelled = b_labelled[mb]
                if bool(labelled.any()):
                    best = b_teacher[mb][labelled]
                    if cfg.teacher_target == "likeliest":
                        teacher_log_prob = dist.log_prob_likeliest(b_teacher[mb])
                    else:
                        teacher_log_prob = dist.log_prob_any(b_teacher[mb])
                    teacher_nll = -teacher_log_prob[labelled].mean()
                    loss = loss + teacher_coef * teacher_nll
                    with torch.no_grad():
                        teacher_losses.append(teacher_nll.item())
                        picks = dist.mode()[labelled]
                        agreements.append((best == picks[:, None]).any(dim=1).float().mean().item())

            optimizer.zero_grad()
            loss.backward()
            grad_norms.append(float(nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)))
            optimizer.step()

        if cfg.target_kl > 0 and approx_kl.item() > cfg.target_kl:
            break

    diagnostics = {}
    if distil:
        diagnostics = {
            "teacher_labelled": float(b_labelled.float().mean()),
            "teacher_loss": float(np.mean(teacher_losses)) if teacher_losses else float("nan"),
            "teacher_agreement": float(np.mean(agreements)) if agreements else float("nan"),
        }
    return {
        **diagnostics,
        "teacher_coef": teacher_coef,
        "policy_loss": pg_loss.item(),
        "value_loss": v_loss.item(),
        "entropy": entropy_loss.item(),
        "old_approx_kl": old_approx_kl.item(),
        "approx_kl": approx_kl.item(),
        "clipfrac": float(np.mean(clipfracs)) if clipfracs else 0.0,
        "grad_norm": float(np.mean(grad_norms)) if grad_norms else 0.0,
        "explained_variance": explained_variance(batch.values, returns),
    }
