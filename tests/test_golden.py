"""Golden playthroughs (as OpenSpiel keeps them): a fixed seed and action rule per game, each
position's text, legal actions and observation digests stored under ``tests/golden/``; both
engines must reproduce them exactly. After a deliberate change, run
``python tests/golden/regenerate.py`` and review the diff."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
_spec = importlib.util.spec_from_file_location("regenerate", GOLDEN / "regenerate.py")
regenerate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regenerate)


@pytest.mark.parametrize("engine", ["reference", "compiled"])
@pytest.mark.parametrize("name", sorted(regenerate.GAMES))
def test_playthrough_matches_the_stored_one(name: str, engine: str) -> None:
    stored = [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines()]
    played = json.loads(json.dumps(regenerate.playthrough(name, engine)))
    assert len(played) == len(stored), f"{name}: {len(played)} positions, stored {len(stored)}"
    for i, (a, b) in enumerate(zip(played, stored, strict=True)):
        assert a == b, f"{name} ({engine} engine) differs at position {i}"
    assert "outcome" in stored[-1]
