"""docs/results/liniell_steals.py: both sides' steal counts agree, scores match the records."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tabletop_rl.baselines.replay import record_game


def test_steal_counts_of_both_sides_agree(
    tmp_path: Path, results_script: Callable[[str], dict[str, Any]]
) -> None:
    steal_table = results_script("liniell_steals.py")["steal_table"]
    games = tmp_path / "games.jsonl"
    records = [
        record_game("liniell_v0", ["greedy", "random"][:: 1 if s % 2 else -1], seed=s)
        for s in range(12)
    ]
    games.write_text("".join(json.dumps(r) + "\n" for r in records))
    greedy, random = steal_table(games, "greedy"), steal_table(games, "random")

    def total(table: dict, column: str) -> float:
        return sum(row["games"] * row[column] for row in table.values())

    assert sum(row["games"] for row in greedy.values()) == len(records)
    assert total(greedy, "own_steals") == pytest.approx(total(random, "their_steals"))
    assert total(greedy, "their_steals") == pytest.approx(total(random, "own_steals"))
    seats = [r["agents"].index("greedy") for r in records]
    assert total(greedy, "score") == pytest.approx(
        sum(r["scores"][s] for r, s in zip(records, seats, strict=True))
    )
    assert all(0 <= row["pawns_placed"] <= 2 for row in greedy.values())
    with pytest.raises(ValueError, match="did not play"):
        steal_table(games, "heuristic")
