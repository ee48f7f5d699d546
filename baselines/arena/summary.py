"""Summaries of an arena run: win rates, scores, head-to-head results, seat statistics and
ratings, and the files and table that show them.

Definitions: a game's *win credit* is 1 for a sole win, ``1/k`` for a win shared by ``k``
players, 0 otherwise (a two-player draw counts half; a truncated game is a draw of all
seats; :func:`~tabletop_rl.baselines.stats.win_credits`). The *score* is the environment's
final score, and the *margin* is the agent's score minus the best score among the other
seats. Ratings are Bradley–Terry maximum-likelihood ratings on the Elo scale
(:mod:`tabletop_rl.baselines.stats`), anchored at ``random`` = 0 when ``random`` plays.

Files (:func:`write_outputs`, all written atomically): ``summary.csv`` (per agent: win rate
with its Wilson 95% interval, mean score and margin, rating with standard error),
``pairwise.csv`` (head to head: win rate with its interval, mean score, mean margin over that
opponent and its standard error), ``results.json`` (all of it plus seat statistics and notes)
and ``ratings.png``.
"""

from __future__ import annotations

import io
import itertools
import json
import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_rl.envs.core.files import atomic_write_bytes, atomic_write_text, csv_text

from ..stats import (
    PairResult,
    fit_bradley_terry,
    table_pairwise,
    table_ranks,
    wilson_interval,
    win_credits,
)
from .schedule import ArenaConfig, schedule, tables


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def summarize(config: ArenaConfig, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Win rates, scores, head-to-head results, seat statistics and ratings of a run."""
    agents = list(config.agents)
    index = {a: i for i, a in enumerate(agents)}
    n_seats = config.players
    credit = {a: 0.0 for a in agents}
    count = {a: 0 for a in agents}
    scores: dict[str, list[float]] = {a: [] for a in agents}
    margins: dict[str, list[float]] = {a: [] for a in agents}
    seat_games = {a: [0] * n_seats for a in agents}
    seat_credit = {a: [0.0] * n_seats for a in agents}
    overall_seat_credit = [0.0] * n_seats
    h2h_score: dict[tuple[str, str], float] = {}
    h2h_count: dict[tuple[str, str], int] = {}
    h2h_points: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    """(own score, own score - opponent's) in each comparison with final scores."""
    pairs: list[PairResult] = []
    forfeits, truncated, missing_scores = 0, 0, 0
    for r in sorted(records, key=lambda rec: rec["game_id"]):
        seats = r["agents"]
        credits = win_credits(r["winners"], n_seats)
        game_scores = r.get("scores")
        forfeits += r.get("forfeit") is not None
        truncated += bool(r.get("truncated"))
        if game_scores is None:
            missing_scores += 1
        for s, a in enumerate(seats):
            credit[a] += credits[s]
            count[a] += 1
            seat_games[a][s] += 1
            seat_credit[a][s] += credits[s]
            overall_seat_credit[s] += credits[s]
            if game_scores is not None:
                scores[a].append(game_scores[s])
                others = [game_scores[o] for o in range(n_seats) if o != s]
                margins[a].append(game_scores[s] - max(others))
        ranks = table_ranks(r["winners"], n_seats, game_scores)
        for sa, sb, score, weight in table_pairwise(ranks):
            a, b = seats[sa], seats[sb]
            if a == b:
                continue
            pairs.append(PairResult(index[a], index[b], score, weight))
            for x, y, sc in ((a, b, score), (b, a, 1.0 - score)):
                h2h_score[(x, y)] = h2h_score.get((x, y), 0.0) + sc
                h2h_count[(x, y)] = h2h_count.get((x, y), 0) + 1
            if game_scores is not None:
                pa, pb = float(game_scores[sa]), float(game_scores[sb])
                h2h_points[(a, b)].append((pa, pa - pb))
                h2h_points[(b, a)].append((pb, pb - pa))
    anchor_name = "random" if "random" in index else agents[0]
    fit = fit_bradley_terry(pairs, len(agents), anchor=index[anchor_name])
    rows = []
    for a in agents:
        i = index[a]
        lo, hi = wilson_interval(credit[a], count[a])
        r_lo, r_hi = fit.interval(i)
        rows.append(
            {
                "agent": a,
                "games": count[a],
                "win_rate": credit[a] / count[a] if count[a] else None,
                "win_lo": lo,
                "win_hi": hi,
                "mean_score": _mean(scores[a]),
                "mean_margin": _mean(margins[a]),
                "rating": fit.ratings[i],
                "rating_se": fit.std_errors[i],
                "rating_lo": r_lo,
                "rating_hi": r_hi,
                "seat_games": seat_games[a],
                "seat_win_rate": [
                    c / g if g else None for c, g in zip(seat_credit[a], seat_games[a], strict=True)
                ],
            }
        )
    head_to_head = _head_to_head(index, h2h_score, h2h_count, h2h_points)
    total = len(records)
    notes = _notes(
        config,
        anchor_name,
        total,
        h2h_score,
        h2h_count,
        missing_scores=missing_scores,
        forfeits=forfeits,
        truncated=truncated,
    )
    expected = len(schedule(config))
    return {
        "config": config.to_json(),
        "games_played": total,
        "games_scheduled": expected,
        "complete": total == expected,
        "agents": rows,
        "head_to_head": head_to_head,
        "seat_win_rate": [c / total if total else None for c in overall_seat_credit],
        "anchor": anchor_name,
        "notes": notes,
    }


def _head_to_head(
    index: dict[str, int],
    h2h_score: dict[tuple[str, str], float],
    h2h_count: dict[tuple[str, str], int],
    h2h_points: dict[tuple[str, str], list[tuple[float, float]]],
) -> list[dict[str, Any]]:
    """One row per ordered pair of agents that met: win rate, interval, score and margin."""
    head_to_head = []
    for (a, b), k in sorted(h2h_count.items(), key=lambda kv: (index[kv[0][0]], index[kv[0][1]])):
        lo, hi = wilson_interval(h2h_score[(a, b)], k)
        points = np.array(h2h_points.get((a, b), []), dtype=np.float64).reshape(-1, 2)
        n = len(points)
        head_to_head.append(
            {
                "agent": a,
                "opponent": b,
                "games": k,
                "win_rate": h2h_score[(a, b)] / k,
                "win_lo": lo,
                "win_hi": hi,
                "mean_score": float(points[:, 0].mean()) if n else None,
                "mean_margin": float(points[:, 1].mean()) if n else None,
                "margin_se": float(points[:, 1].std(ddof=1) / np.sqrt(n)) if n > 1 else None,
            }
        )
    return head_to_head


def _notes(
    config: ArenaConfig,
    anchor_name: str,
    total: int,
    h2h_score: dict[tuple[str, str], float],
    h2h_count: dict[tuple[str, str], int],
    *,
    missing_scores: int,
    forfeits: int,
    truncated: int,
) -> list[str]:
    """What a reader of the summary must know to read its numbers right."""
    agents = list(config.agents)
    n_seats = config.players
    notes = [
        "win rate: draws and shared wins count 1/k for k winners; interval: Wilson 95%",
        f"ratings: Bradley-Terry maximum likelihood on the Elo scale, {anchor_name} = 0, "
        "weak N(0, 1000^2) prior; +-1.96 standard errors from the observed information",
    ]
    if n_seats > 2:
        notes.append(
            "tables of more than two players are decomposed into pairwise results by final "
            "rank (winners first, then score), each weighted 1/(players-1) for the ratings; "
            "head-to-head intervals count each comparison as one game, so they are too narrow"
        )
    if missing_scores:
        notes.append(
            f"{missing_scores} of {total} games have no final scores (the environment has no "
            "final_scores()); mean score and margin omit them"
        )
    unbalanced = sorted(
        {config.games_at(t) for t in tables(config.agents, n_seats)} if n_seats else set()
    )
    if any(g % n_seats for g in unbalanced):
        notes.append(
            f"games per table ({', '.join(map(str, unbalanced))}) are not all a multiple of "
            f"{n_seats} players: seats are not exactly balanced"
        )
    if config.agent_games:
        limits = ", ".join(f"{a}: {n}" for a, n in config.agent_games.items())
        notes.append(f"fewer games at the tables of slow agents ({limits} per table)")
    if forfeits:
        notes.append(f"{forfeits} games ended by an illegal action (a forfeit)")
    if truncated:
        notes.append(f"{truncated} games were truncated (counted as draws)")
    for a, b in itertools.combinations(agents, 2):
        k = h2h_count.get((a, b), 0)
        if k and h2h_score[(a, b)] in (0.0, float(k)):
            winner = a if h2h_score[(a, b)] else b
            notes.append(
                f"{winner} won every comparison between {a} and {b}: the size of its rating "
                "gap is set by the prior, not the data"
            )
    return notes


_RESULT_COLUMNS = ("games", "win_rate", "win_lo", "win_hi", "mean_score", "mean_margin")
"""What summary.csv (per agent) and pairwise.csv (per agent and opponent) both report."""
SUMMARY_COLUMNS = ("agent", *_RESULT_COLUMNS, "rating", "rating_se", "rating_lo", "rating_hi")
PAIRWISE_COLUMNS = ("agent", "opponent", *_RESULT_COLUMNS, "margin_se")


def write_outputs(summary: dict[str, Any], out_dir: str | Path) -> list[str]:
    """Write summary.csv, pairwise.csv, results.json and ratings.png atomically.

    Returns what was not written and why: ratings.png needs matplotlib (the baselines extra).
    """
    out = Path(out_dir)
    atomic_write_text(out / "summary.csv", csv_text(summary["agents"], SUMMARY_COLUMNS))
    atomic_write_text(out / "pairwise.csv", csv_text(summary["head_to_head"], PAIRWISE_COLUMNS))
    atomic_write_text(out / "results.json", json.dumps(summary, indent=2) + "\n")
    try:
        image = ratings_plot(summary)
    except ImportError:
        return [
            "ratings.png not drawn: it needs matplotlib, which the baselines extra installs "
            "(pip install 'tabletop-rl[baselines]')"
        ]
    atomic_write_bytes(out / "ratings.png", image)
    return []


def ratings_plot(summary: dict[str, Any]) -> bytes:
    """A PNG of every agent's rating with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    rows = sorted(summary["agents"], key=lambda r: r["rating"])
    fig = Figure(figsize=(6.4, 0.6 * len(rows) + 1.4), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    ratings = [r["rating"] for r in rows]
    errors = [1.959963984540054 * r["rating_se"] for r in rows]
    ax.errorbar(ratings, y, xerr=errors, fmt="o", capsize=4, color="tab:blue")
    ax.set_yticks(y, [r["agent"] for r in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.axvline(0.0, color="grey", linewidth=0.8, linestyle="--")
    config = summary["config"]
    ax.set_xlabel(f"Elo (Bradley-Terry, {summary['anchor']} = 0), 95% interval")
    ax.set_title(
        f"{config['env']}, {config['players']} players, {summary['games_played']} games",
        fontsize=10,
    )
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def format_table(summary: dict[str, Any]) -> str:
    """The summary as a Markdown table (what the CLI prints and the README shows)."""

    def num(x: float | None, spec: str) -> str:
        return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)

    lines = [
        "| agent | games | win rate (95% CI) | mean score | mean margin | Elo ± s.e. |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for r in sorted(summary["agents"], key=lambda r: -r["rating"]):
        lines.append(
            f"| {r['agent']} | {r['games']} | {num(r['win_rate'], '.3f')} "
            f"({r['win_lo']:.3f}–{r['win_hi']:.3f}) | {num(r['mean_score'], '.1f')} | "
            f"{num(r['mean_margin'], '+.1f')} | {r['rating']:.0f} ± {r['rating_se']:.0f} |"
        )
    return "\n".join(lines)


__all__ = [
    "PAIRWISE_COLUMNS",
    "SUMMARY_COLUMNS",
    "format_table",
    "ratings_plot",
    "summarize",
    "write_outputs",
]
