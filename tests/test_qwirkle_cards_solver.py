"""The validity solver against brute force, and the one-line fact it relies on."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest

from tabletop_rl.envs.qwirkle_cards import cards, compiled_solver, solver
from tabletop_rl.envs.qwirkle_cards.cards import KIND_LINES, NUM_KINDS, parse_cards
from tabletop_rl.envs.qwirkle_cards.solver import (
    arrange_rows,
    find_split,
    is_valid_table,
    line_ok,
    split_line,
)


def _line_splits_into_rows(counts: tuple[int, ...]) -> bool:
    """Brute force: can this line multiset (6 kind counts) be partitioned into rows of 3..6
    distinct kinds?"""
    if sum(counts) == 0:
        return True
    first = next(i for i, c in enumerate(counts) if c)
    # the row holding one copy of `first`: any set of 3..6 distinct kinds containing it
    others = [i for i in range(6) if counts[i] and i != first]
    for size in range(2, 6):
        for rest in itertools.combinations(others, size):
            reduced = list(counts)
            for i in (first, *rest):
                reduced[i] -= 1
            if _line_splits_into_rows(tuple(reduced)):
                return True
    return False


def _reference_total(
    fixed: tuple[int, ...], optional: tuple[int, ...] | list[int] | None = None
) -> tuple[int, ...] | None:
    split = find_split(fixed, optional)
    return None if split is None else split.total


def _compiled_total(
    fixed: tuple[int, ...], optional: tuple[int, ...] | list[int] | None = None
) -> tuple[int, ...] | None:
    found = compiled_solver.find_split_arrays(fixed, optional)
    return None if found is None else tuple(int(x) for x in found[0])


Solve = Callable[..., tuple[int, ...] | None]
SOLVERS = pytest.mark.parametrize(
    "solve", [_reference_total, _compiled_total], ids=["reference", "compiled"]
)
"""The reference solver and the compiled one face the same oracles; each returns the cards
of the split it found (``fixed`` plus the extras used), or None."""


def test_one_line_fact_exhaustively() -> None:
    """A line's cards split into rows iff none, or count >= 3 x the largest multiplicity."""
    checked = 0
    for counts in itertools.product(range(4), repeat=6):
        fact = line_ok(sum(counts), max(counts))
        assert _line_splits_into_rows(counts) == fact, counts
        if fact and sum(counts):
            rows = split_line({i: c for i, c in enumerate(counts) if c})
            assert all(3 <= len(r) <= 6 and len(set(r)) == len(r) for r in rows)
            assert sorted(k for r in rows for k in r) == sorted(
                i for i, c in enumerate(counts) for _ in range(c)
            )
        checked += 1
    assert checked == 4**6


def brute_force_valid(counts: tuple[int, ...]) -> bool:
    """Every assignment of every copy to its colour or its symbol line, checked line by line
    (vectorised over the assignments)."""
    live = [k for k in range(NUM_KINDS) if counts[k]]
    if not live:
        return True
    grids = np.meshgrid(*[np.arange(counts[k] + 1) for k in live], indexing="ij")
    to_colour = np.stack([g.ravel() for g in grids], axis=1)  # (assignments, live kinds)
    total = np.array([counts[k] for k in live])
    ok = np.ones(len(to_colour), dtype=bool)
    for line in range(12):
        cols = [i for i, k in enumerate(live) if line in KIND_LINES[k]]
        if not cols:
            continue
        got = to_colour[:, cols] if line < 6 else total[cols] - to_colour[:, cols]
        size = got.sum(axis=1)
        ok &= (size == 0) | (size >= 3 * got.max(axis=1))
    return bool(ok.any())


def _random_multisets(rng: np.random.Generator, count: int) -> list[tuple[int, ...]]:
    """Small random multisets with a brute-forceable number of assignments: a few random
    rows (often sharing kinds, so duplicates are frequent), then mostly one card
    added or removed, so that valid and invalid tables are both common."""
    out = []
    while len(out) < count:
        colours = rng.choice(6, size=rng.integers(2, 4), replace=False)
        symbols = rng.choice(6, size=rng.integers(2, 4), replace=False)
        counts = [0] * NUM_KINDS
        for _ in range(rng.integers(1, 4)):
            if rng.random() < 0.5:
                c = int(rng.choice(colours))
                kinds = [c * 6 + int(s) for s in rng.permutation(6)]
            else:
                s = int(rng.choice(symbols))
                kinds = [int(c) * 6 + s for c in rng.permutation(6)]
            for k in kinds[: rng.integers(3, 6)]:
                counts[k] = min(3, counts[k] + 1)
        if rng.random() < 0.8:
            k = int(rng.choice(colours)) * 6 + int(rng.choice(symbols))
            counts[k] = min(3, counts[k] + 1) if rng.random() < 0.6 else max(0, counts[k] - 1)
        if np.prod([c + 1 for c in counts]) <= 20_000:
            out.append(tuple(counts))
    return out


@SOLVERS
def test_solver_matches_brute_force_on_random_multisets(solve: Solve) -> None:
    rng = np.random.default_rng(2024)
    samples = _random_multisets(rng, 3000)
    valid = 0
    for counts in samples:
        expected = brute_force_valid(counts)
        assert (solve(counts) is not None) == expected, cards.format_cards(counts)
        valid += expected
    # both outcomes well represented, many with duplicates
    assert 600 < valid < 2400
    assert sum(max(c) >= 2 for c in samples) > 1000


def test_split_is_a_real_split() -> None:
    rng = np.random.default_rng(7)
    for counts in _random_multisets(rng, 500):
        split = find_split(counts)
        if split is None:
            continue
        assert split.total == counts
        rows = arrange_rows(counts)
        assert sorted(k for r in rows for k in r) == cards.counts_to_kinds(counts)
        for row in rows:
            assert 3 <= len(row) <= 6 and len(set(row)) == len(row)
            colours = {k // 6 for k in row}
            symbols = {k % 6 for k in row}
            assert len(colours) == 1 or len(symbols) == 1


@SOLVERS
def test_optional_cards_match_brute_force_over_subsets(solve: Solve) -> None:
    rng = np.random.default_rng(11)
    checked = found_some = 0
    for fixed in _random_multisets(rng, 400):
        optional = [0] * NUM_KINDS
        for k in rng.choice(NUM_KINDS, size=4, replace=False):
            optional[int(k)] = int(rng.integers(0, 4 - fixed[int(k)]))
        if np.prod([f + o + 1 for f, o in zip(fixed, optional, strict=True)]) > 20_000:
            continue
        ranges = [range(optional[k] + 1) for k in range(NUM_KINDS)]
        expected = any(
            brute_force_valid(tuple(f + e for f, e in zip(fixed, extra, strict=True)))
            for extra in itertools.product(*ranges)
        )
        found = solve(fixed, optional)
        assert (found is not None) == expected
        checked += 1
        if found is not None:
            found_some += 1
            assert all(fixed[k] <= found[k] <= fixed[k] + optional[k] for k in range(NUM_KINDS))
            assert brute_force_valid(found)
    assert checked > 200 and 0 < found_some < checked


def test_large_tables_agree_with_the_uncached_search() -> None:
    """Tables of 20 to 60 cards (too big for brute force): a found split is checked line by
    line, and the cached answer equals a fresh search and the compiled search."""
    rng = np.random.default_rng(5)
    deck = np.repeat(np.arange(NUM_KINDS), 3)
    for size in (20, 40, 60):
        for _ in range(40):
            counts = tuple(np.bincount(rng.choice(deck, size, replace=False), minlength=36))
            split = find_split(counts)
            assert (split is None) == (solver._search(counts, (0,) * NUM_KINDS) is None)
            assert (split is None) == (_compiled_total(counts) is None)
            if split is not None:
                for line in range(12):
                    got = split.line_cards(line)
                    assert line_ok(sum(got.values()), max(got.values(), default=0))


@SOLVERS
def test_seed_rows(solve: Solve) -> None:
    """A blue square cannot join a blue row that already holds one (seed 003)."""
    assert solve(parse_cards("Bo Bx Bs")) is not None
    assert solve(parse_cards("Bo Bx Bs Bs")) is None
    assert solve(parse_cards("Bo Bx Bs Bd Bt Bc")) is not None


def test_bad_counts_are_rejected() -> None:
    with pytest.raises(ValueError, match="allowed: 0 to 3"):
        is_valid_table((4,) + (0,) * 35)
    with pytest.raises(ValueError, match="36 counts"):
        is_valid_table((1, 1, 1))
    with pytest.raises(ValueError, match="allowed: 0 to 3"):
        compiled_solver.is_valid_counts((4,) + (0,) * 35)
    with pytest.raises(ValueError, match="36 counts"):
        compiled_solver.is_valid_counts((1, 1, 1))
