"""A categorical distribution restricted to the legal actions.

Illegal logits are replaced by a large negative number before a log-softmax, so their
probability is exactly 0 (``exp`` underflows) and their gradient exactly 0 (the fill cuts
it); the entropy sums over legal actions only, so it is 0 when one action is legal and
``log(k)`` for a uniform choice among ``k``. One fill and one fused log-softmax per batch:
this runs on every minibatch of a PPO update.

>>> import torch
>>> logits = torch.tensor([[1.0, 5.0, 0.0, 2.0]])
>>> mask = torch.tensor([[True, False, True, False]])
>>> dist = MaskedCategorical(logits, mask)
>>> dist.probs[0, 1].item(), dist.probs[0, 3].item()
(0.0, 0.0)
>>> dist.mode().tolist()
[0]
>>> round(MaskedCategorical(torch.zeros(1, 4), mask).entropy().item(), 4)  # log 2
0.6931
"""

from __future__ import annotations

import torch

ILLEGAL_LOGIT = -1e9
"""What an illegal action's logit becomes (far below any float32 logit a network produces)."""


class MaskedCategorical:
    """Categorical over the last axis of ``logits``, zero probability where ``mask`` is False."""

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor) -> None:
        mask = mask.bool()
        if not bool(mask.any(dim=-1).all()):
            raise ValueError("MaskedCategorical: a row of the action mask has no legal action")
        self.mask = mask
        self.logits = torch.log_softmax(logits.masked_fill(~mask, ILLEGAL_LOGIT), dim=-1)
        """Log-probabilities: those of illegal actions about ``ILLEGAL_LOGIT``."""
        self._legal_logits: torch.Tensor | None = None
        self._probs: torch.Tensor | None = None

    @property
    def probs(self) -> torch.Tensor:
        """Probabilities, exactly 0 for illegal actions (computed on first use)."""
        if self._probs is None:
            # exp() of the illegal entries' 0 and not of ILLEGAL_LOGIT: torch's CPU exp of a
            # large negative takes a slow path (about 40 times slower per entry).
            self._probs = self._legal().exp().masked_fill(~self.mask, 0.0)
        return self._probs

    def _legal(self) -> torch.Tensor:
        """:attr:`logits` with 0 at the illegal actions."""
        if self._legal_logits is None:
            self._legal_logits = self.logits.masked_fill(~self.mask, 0.0)
        return self._legal_logits

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """One action per row, drawn with ``generator`` (illegal actions never come out).

        Inverse-CDF sampling: the first action whose cumulative probability reaches
        ``v`` in ``(0, total]``; a zero-probability action never adds to the sum, so it is
        never the first to reach ``v``.
        """
        cdf = self.probs.cumsum(dim=-1)
        u = 1.0 - torch.rand((*cdf.shape[:-1], 1), generator=generator, dtype=cdf.dtype)
        idx = torch.searchsorted(cdf, u * cdf[..., -1:])
        return idx.squeeze(-1).clamp_max(cdf.shape[-1] - 1)

    def mode(self) -> torch.Tensor:
        """The most probable legal action of each row."""
        return self.logits.argmax(dim=-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.logits.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def log_prob_any(self, actions: torch.Tensor) -> torch.Tensor:
        """Log-probability that the action drawn is any of a row's ``actions``: ``(B, K)``
        indices padded with -1 (each row names at least one action, none twice).

        >>> dist = MaskedCategorical(torch.zeros(1, 4), torch.ones(1, 4, dtype=torch.bool))
        >>> round(dist.log_prob_any(torch.tensor([[0, 2, -1]])).exp().item(), 4)
        0.5
        """
        return self._labels_log_probs(actions).logsumexp(dim=-1)

    def log_prob_likeliest(self, actions: torch.Tensor) -> torch.Tensor:
        """Log-probability of the most probable of a row's ``actions`` (``(B, K)`` indices
        padded with -1, as :meth:`log_prob_any`): a loss on it raises that one action and
        lowers the others, so the policy settles on one of them instead of spreading over all.

        >>> logits = torch.log(torch.tensor([[0.4, 0.1, 0.3, 0.2]]))
        >>> dist = MaskedCategorical(logits, torch.ones(1, 4, dtype=torch.bool))
        >>> round(dist.log_prob_likeliest(torch.tensor([[1, 2, -1]])).exp().item(), 4)
        0.3
        """
        return self._labels_log_probs(actions).max(dim=-1).values

    def _labels_log_probs(self, actions: torch.Tensor) -> torch.Tensor:
        """``(B, K)``: the log-probability of each of a row's ``actions``, the padding (-1)
        at the illegal actions' value, so that it adds nothing and is never the largest."""
        actions = actions.long()
        picked = self.logits.gather(-1, actions.clamp_min(0))
        return torch.where(actions >= 0, picked, torch.full_like(picked, ILLEGAL_LOGIT))

    def entropy(self) -> torch.Tensor:
        """Entropy over the legal actions only."""
        legal = self._legal()  # an illegal action adds exp(0) * 0 = 0, and no gradient
        return -(legal.exp() * legal).sum(dim=-1)
