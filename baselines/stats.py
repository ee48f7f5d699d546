"""Statistics for the arena: Wilson intervals and Bradley–Terry (Elo) ratings.

Win rates
---------
A game's *credit* for a player is 1 for a sole win, ``1/k`` for a win shared by ``k``
players (so a two-player draw counts half) and 0 for a loss. A win rate is the mean credit
over games; its 95% interval is Wilson's score interval, which stays inside [0, 1] and keeps
its coverage near 0 and 1, where the normal approximation fails.

>>> lo, hi = wilson_interval(81, 263)          # Newcombe (1998), Table I
>>> round(lo, 4), round(hi, 4)
(0.2553, 0.3662)
>>> wilson_interval(0, 0)
(0.0, 1.0)

Ratings
-------
:func:`fit_bradley_terry` fits one rating per agent on the Elo scale (400 points = odds of
10 to 1) by maximising the Bradley–Terry likelihood of all pairwise results, with
``P(i beats j) = 1 / (1 + 10 ** ((r_j - r_i) / 400))``. A draw counts as half a win and half
a loss. A weak Gaussian prior (``prior_sd`` Elo around 0) keeps ratings finite when an agent
won or lost every game (a perfect record carries no information on *how much* stronger it is;
its rating is then set by the prior and its standard error is large). Standard errors come
from the inverse of the Hessian of the negative log posterior (the observed Fisher
information plus the prior), for the difference to the anchor agent, whose rating is 0.

Tables of three or four players are decomposed into the pairwise results they imply
(:func:`table_pairwise`): every pair of seats gives one comparison by final rank. Because a
table of ``k`` players yields ``k - 1`` comparisons per player that are not independent, each
is weighted ``1 / (k - 1)``, so that a table carries about as much weight per player as one
two-player game; without this the standard errors would be too small.

>>> results = [PairResult(0, 1, 1.0)] * 30 + [PairResult(0, 1, 0.0)] * 10
>>> fit = fit_bradley_terry(results, 2, anchor=1)
>>> round(fit.ratings[0]), fit.ratings[1]
(190, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of odds."""

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion of ``wins`` (draws count half) in ``n`` games.

    >>> lo, hi = wilson_interval(15, 148)          # Newcombe (1998), Table I
    >>> round(lo, 4), round(hi, 4)
    (0.0624, 0.1605)
    >>> lo, hi = wilson_interval(5, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.2366, 0.7634)
    """
    if n < 0 or wins < 0 or wins > n:
        raise ValueError(f"need 0 <= wins <= n, got wins={wins}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if wins == 0 else max(0.0, centre - half)
    hi = 1.0 if wins == n else min(1.0, centre + half)
    return (lo, hi)


@dataclass(frozen=True)
class PairResult:
    """One pairwise comparison: ``score`` is what ``i`` got against ``j`` (1, 0.5 or 0)."""

    i: int
    j: int
    score: float
    weight: float = 1.0


def win_credits(winners: Sequence[int], num_players: int) -> list[float]:
    """Each seat's credit for one game: 1/k for each of k winners, 0 for the others.

    No winners (a truncated game) is a draw between all seats.

    >>> win_credits([1], 2), win_credits([0, 1], 2), win_credits([], 3)
    ([0.0, 1.0], [0.5, 0.5], [0.3333333333333333, 0.3333333333333333, 0.3333333333333333])
    """
    if not winners:
        return [1.0 / num_players] * num_players
    share = 1.0 / len(winners)
    won = set(winners)
    return [share if seat in won else 0.0 for seat in range(num_players)]


def table_ranks(
    winners: Sequence[int], num_players: int, scores: Sequence[float] | None = None
) -> list[float]:
    """Final ranks of one game (smaller is better, equal ranks tie).

    Winners share rank 0; the other seats are ordered by final score when scores are known,
    and otherwise tie behind the winners. No winners (a truncated game) ties everyone.

    >>> table_ranks([2], 3, [10, 30, 25])
    [2.0, 1.0, 0.0]
    >>> table_ranks([0], 3)
    [0.0, 1.0, 1.0]
    """
    if not winners:
        return [0.0] * num_players
    won = set(winners)
    ranks = [0.0] * num_players
    losers = [s for s in range(num_players) if s not in won]
    if scores is None:
        for s in losers:
            ranks[s] = 1.0
        return ranks
    distinct = sorted({float(scores[s]) for s in losers}, reverse=True)
    for s in losers:
        ranks[s] = 1.0 + distinct.index(float(scores[s]))
    return ranks


def table_pairwise(ranks: Sequence[float]) -> list[tuple[int, int, float, float]]:
    """The pairwise results ``(seat_i, seat_j, score_of_i, weight)`` implied by one table.

    Each pair of seats is compared once by rank; each comparison weighs ``1 / (k - 1)`` for a
    table of ``k`` seats (see the module docstring).

    >>> table_pairwise([0.0, 1.0])
    [(0, 1, 1.0, 1.0)]
    >>> table_pairwise([1.0, 0.0, 1.0])
    [(0, 1, 0.0, 0.5), (0, 2, 0.5, 0.5), (1, 2, 1.0, 0.5)]
    """
    k = len(ranks)
    weight = 1.0 / (k - 1)
    out = []
    for a in range(k):
        for b in range(a + 1, k):
            if ranks[a] < ranks[b]:
                score = 1.0
            elif ranks[a] > ranks[b]:
                score = 0.0
            else:
                score = 0.5
            out.append((a, b, score, weight))
    return out


@dataclass(frozen=True)
class RatingFit:
    """Bradley–Terry ratings on the Elo scale with standard errors relative to the anchor."""

    ratings: tuple[float, ...]
    std_errors: tuple[float, ...]
    anchor: int
    covariance: np.ndarray
    iterations: int

    def interval(self, index: int, z: float = Z95) -> tuple[float, float]:
        """The normal-approximation interval of one rating (95% by default)."""
        r, se = self.ratings[index], self.std_errors[index]
        return (r - z * se, r + z * se)


def _aggregate(results: Sequence[PairResult], num_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """Total weight ``n[i, j]`` and score ``s[i, j]`` of i against j (both orientations)."""
    n = np.zeros((num_agents, num_agents))
    s = np.zeros((num_agents, num_agents))
    for r in results:
        if r.i == r.j:
            continue
        if not (0 <= r.i < num_agents and 0 <= r.j < num_agents):
            raise ValueError(f"result {r} names an agent outside 0..{num_agents - 1}")
        if not 0.0 <= r.score <= 1.0:
            raise ValueError(f"result {r}: score must lie in [0, 1]")
        n[r.i, r.j] += r.weight
        n[r.j, r.i] += r.weight
        s[r.i, r.j] += r.weight * r.score
        s[r.j, r.i] += r.weight * (1.0 - r.score)
    return n, s


def fit_bradley_terry(
    results: Sequence[PairResult],
    num_agents: int,
    anchor: int = 0,
    prior_sd: float = 1000.0,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> RatingFit:
    """Maximum a-posteriori Bradley–Terry ratings (Elo scale) of ``num_agents`` agents.

    Newton's method on the convex negative log posterior; ratings are shifted so that
    ``anchor`` has rating 0 and the standard errors are those of ``r_i - r_anchor``.
    """
    if num_agents < 1:
        raise ValueError("need at least one agent")
    if not 0 <= anchor < num_agents:
        raise ValueError(f"anchor {anchor} is not an agent index (0..{num_agents - 1})")
    if prior_sd <= 0:
        raise ValueError("prior_sd must be positive")
    n, s = _aggregate(results, num_agents)
    # Work in natural-log odds units; the prior's precision in those units:
    precision = (ELO_SCALE / prior_sd) ** 2
    theta = np.zeros(num_agents)

    def objective(t: np.ndarray) -> float:
        diff = t[:, None] - t[None, :]
        # -sum over ordered pairs of s_ij * log p_ij; each unordered pair counted via both
        # orientations, because s[i, j] + s[j, i] = n[i, j].
        log_p = -np.logaddexp(0.0, -diff)
        return float(-(s * log_p).sum() + 0.5 * precision * (t @ t))

    iterations = 0
    value = objective(theta)
    for iterations in range(1, max_iter + 1):  # noqa: B007
        diff = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        grad = -(s - n * p).sum(axis=1) + precision * theta
        w = n * p * (1.0 - p)
        hess = -w
        np.fill_diagonal(hess, w.sum(axis=1) + precision)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while True:
            candidate = theta - t * step
            new_value = objective(candidate)
            if new_value <= value + 1e-12 or t < 1e-8:
                break
            t *= 0.5
        theta, value = candidate, new_value
        if np.max(np.abs(t * step)) < tol:
            break
    diff = theta[:, None] - theta[None, :]
    p = 1.0 / (1.0 + np.exp(-diff))
    w = n * p * (1.0 - p)
    hess = -w
    np.fill_diagonal(hess, w.sum(axis=1) + precision)
    cov = np.linalg.inv(hess) * ELO_SCALE**2
    ratings = (theta - theta[anchor]) * ELO_SCALE
    var = np.diag(cov) + cov[anchor, anchor] - 2.0 * cov[:, anchor]
    std = np.sqrt(np.maximum(var, 0.0))
    std[anchor] = 0.0
    return RatingFit(
        ratings=tuple(float(x) for x in ratings),
        std_errors=tuple(float(x) for x in std),
        anchor=anchor,
        covariance=cov,
        iterations=iterations,
    )


def elo_expected_score(rating_diff: float) -> float:
    """Expected score of a player rated ``rating_diff`` Elo above its opponent.

    >>> elo_expected_score(0.0), round(elo_expected_score(400.0), 4)
    (0.5, 0.9091)
    """
    return 1.0 / (1.0 + 10.0 ** (-rating_diff / 400.0))


__all__ = [
    "ELO_SCALE",
    "Z95",
    "PairResult",
    "RatingFit",
    "elo_expected_score",
    "fit_bradley_terry",
    "table_pairwise",
    "table_ranks",
    "wilson_interval",
    "win_credits",
]
