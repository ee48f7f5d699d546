"""The arena's statistics on synthetic results with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tabletop_rl.baselines.stats import (
    PairResult,
    elo_expected_score,
    fit_bradley_terry,
    table_pairwise,
    table_ranks,
    wilson_interval,
    win_credits,
)


@pytest.mark.parametrize(
    ("wins", "n", "lo", "hi"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion",
        # Table I, method 3 (Wilson score interval without continuity correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_textbook_values(wins: int, n: int, lo: float, hi: float) -> None:
    got = wilson_interval(wins, n)
    assert got[0] == pytest.approx(lo, abs=5e-5)
    assert got[1] == pytest.approx(hi, abs=5e-5)


def test_wilson_is_symmetric_and_counts_draws_half() -> None:
    for n in (1, 7, 50):
        for wins in np.arange(0, n + 0.5, 0.5):
            lo, hi = wilson_interval(float(wins), n)
            lo2, hi2 = wilson_interval(n - float(wins), n)
            assert lo == pytest.approx(1 - hi2) and hi == pytest.approx(1 - lo2)
            assert 0.0 <= lo <= wins / n <= hi <= 1.0
    # 3 wins and 2 draws in 10 games is a rate of 0.4
    lo, hi = wilson_interval(3 + 2 * 0.5, 10)
    assert lo < 0.4 < hi
    assert wilson_interval(4, 10) == (lo, hi)


def test_wilson_covers_about_95_percent() -> None:
    rng = np.random.default_rng(0)
    p, n, trials = 0.3, 80, 4000
    wins = rng.binomial(n, p, size=trials)
    covered = sum(lo <= p <= hi for lo, hi in (wilson_interval(int(w), n) for w in wins))
    assert 0.93 <= covered / trials <= 0.97


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="wins <= n"):
        wilson_interval(11, 10)


def _simulate(strengths: list[float], games: int, rng: np.random.Generator) -> list[PairResult]:
    results = []
    for i in range(len(strengths)):
        for j in range(i + 1, len(strengths)):
            p = elo_expected_score(strengths[i] - strengths[j])
            wins = rng.binomial(games, p)
            results += [PairResult(i, j, 1.0)] * int(wins)
            results += [PairResult(i, j, 0.0)] * int(games - wins)
    return results


def test_bradley_terry_recovers_known_strengths() -> None:
    true = [0.0, 150.0, 400.0, -100.0]
    fit = fit_bradley_terry(_simulate(true, 2000, np.random.default_rng(1)), 4, anchor=0)
    assert fit.ratings[0] == 0.0 and fit.std_errors[0] == 0.0
    for r, se, t in zip(fit.ratings, fit.std_errors, true, strict=True):
        assert abs(r - t) <= max(4 * se, 1e-9)
    assert all(3 < se < 15 for se in fit.std_errors[1:])


def test_bradley_terry_standard_errors_have_about_nominal_coverage() -> None:
    rng = np.random.default_rng(2)
    true = [0.0, 100.0, 250.0]
    hits = 0
    trials = 150
    for _ in range(trials):
        fit = fit_bradley_terry(_simulate(true, 200, rng), 3, anchor=0)
        lo, hi = fit.interval(2)
        hits += lo <= true[2] <= hi
    assert 0.88 <= hits / trials <= 0.995


def test_bradley_terry_is_symmetric() -> None:
    results = _simulate([0.0, 120.0, 300.0], 300, np.random.default_rng(3))
    fit = fit_bradley_terry(results, 3, anchor=0)
    # swapping every result negates the ratings
    flipped = [PairResult(r.i, r.j, 1.0 - r.score) for r in results]
    fit_f = fit_bradley_terry(flipped, 3, anchor=0)
    np.testing.assert_allclose(fit_f.ratings, [-x for x in fit.ratings], atol=1e-6)
    np.testing.assert_allclose(fit_f.std_errors, fit.std_errors, atol=1e-6)
    # renaming agents permutes the ratings
    perm = [2, 0, 1]  # old index -> new index
    renamed = [PairResult(perm[r.i], perm[r.j], r.score) for r in results]
    fit_p = fit_bradley_terry(renamed, 3, anchor=perm[0])
    for old, new in enumerate(perm):
        assert fit_p.ratings[new] == pytest.approx(fit.ratings[old], abs=1e-6)
    # writing a result from the other side changes nothing
    mirrored = [PairResult(r.j, r.i, 1.0 - r.score) for r in results]
    np.testing.assert_allclose(fit_bradley_terry(mirrored, 3).ratings, fit.ratings, atol=1e-6)


def test_equal_records_give_equal_ratings_and_draws_count_half() -> None:
    results = [PairResult(0, 1, 0.5)] * 40
    fit = fit_bradley_terry(results, 2)
    assert fit.ratings[1] == pytest.approx(0.0, abs=1e-9)
    wins_and_losses = [PairResult(0, 1, 1.0)] * 20 + [PairResult(0, 1, 0.0)] * 20
    assert fit_bradley_terry(wins_and_losses, 2).ratings[1] == pytest.approx(0.0, abs=1e-9)


def test_perfect_record_stays_finite_with_a_large_error() -> None:
    fit = fit_bradley_terry([PairResult(1, 0, 1.0)] * 500, 2, anchor=0)
    assert math.isfinite(fit.ratings[1]) and fit.ratings[1] > 800
    assert fit.std_errors[1] > 200


def test_mle_matches_closed_form_for_two_agents() -> None:
    # with a negligible prior the two-agent MLE is the logit of the win rate
    results = [PairResult(0, 1, 1.0)] * 75 + [PairResult(0, 1, 0.0)] * 25
    fit = fit_bradley_terry(results, 2, anchor=1, prior_sd=1e7)
    assert fit.ratings[0] == pytest.approx(400 * math.log10(3), abs=1e-3)
    # Fisher information of a logit: n p (1 - p), in Elo units
    se = 400 / math.log(10) / math.sqrt(100 * 0.75 * 0.25)
    assert fit.std_errors[0] == pytest.approx(se, rel=1e-4)


def test_credits_and_multiplayer_decomposition() -> None:
    assert win_credits([0, 2], 4) == [0.5, 0.0, 0.5, 0.0]
    ranks = table_ranks([1], 4, [50, 70, 30, 50])
    assert ranks == [1.0, 0.0, 2.0, 1.0]
    pairs = table_pairwise(ranks)
    assert len(pairs) == 6 and all(w == pytest.approx(1 / 3) for *_, w in pairs)
    assert (0, 3, 0.5, pytest.approx(1 / 3)) in pairs
    assert (1, 2, 1.0, pytest.approx(1 / 3)) in pairs
    # every seat's total weight per table is one game's worth
    per_seat = [sum(w for a, b, _, w in pairs if seat in (a, b)) for seat in range(4)]
    assert per_seat == pytest.approx([1.0] * 4)


def test_multiplayer_tables_recover_strengths() -> None:
    """Plackett–Luce tables of 3 drawn from known strengths, fitted through decomposition."""
    rng = np.random.default_rng(4)
    strengths = np.array([0.0, 200.0, 400.0, 100.0])
    gammas = 10 ** (strengths / 400)
    results = []
    for _ in range(3000):
        seats = rng.choice(4, size=3, replace=False)
        winner = rng.choice(3, p=gammas[seats] / gammas[seats].sum())
        for a, b, score, w in table_pairwise(table_ranks([int(winner)], 3)):
            results.append(PairResult(int(seats[a]), int(seats[b]), score, w))
    fit = fit_bradley_terry(results, 4, anchor=0)
    order = np.argsort(fit.ratings)
    assert list(order) == list(np.argsort(strengths))
