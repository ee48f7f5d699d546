"""Regenerate the golden playthroughs: ``python tests/golden/regenerate.py``.

For each game, a fixed seed and a fixed rule for choosing actions (the legal action at a
seeded random rank) are played to the end on the reference engine; every position's text,
the player to act, the mask's legal actions and a digest of every seat's observation are
written to ``tests/golden/<game>.jsonl``, with the step's action and points. The tests replay
the same actions on both engines and compare position by position, so any change to the
rules, the masks, the observations or the notation shows up as a diff of these files.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
GAMES: dict[str, dict[str, Any]] = {
    "liniell_v0": {"num_players": 3, "seed": 2026},
    "qwirkle_v0": {"num_players": 2, "seed": 2026, "max_turns": 14},
    "qwirkle_cards_v0": {"num_players": 3, "seed": 2026},
}
"""Game -> its playthrough's seed and environment options (Qwirkle's turn limit keeps its
file small and covers truncation)."""


def digest(array: np.ndarray) -> str:
    """A short, stable digest of an array's values (float32 little-endian bytes)."""
    return hashlib.sha256(np.ascontiguousarray(array, dtype="<f4").tobytes()).hexdigest()[:16]


def playthrough(name: str, engine: str) -> list[dict[str, Any]]:
    """Every position of the game's golden playthrough on ``engine``."""
    from tabletop_rl.envs import make

    options = dict(GAMES[name])
    seed = options.pop("seed")
    model = make(name, raw=True, engine=engine, **options).model
    state = model.new_state(np.random.default_rng(seed))
    choose = np.random.default_rng(seed + 1)
    rows = []
    while True:
        mask = model.legal_mask(state)
        legal = np.flatnonzero(mask)
        row: dict[str, Any] = {
            "text": model.to_text(state),
            "to_act": None if model.is_over(state) else model.current_player(state),
            "legal": legal.tolist(),
            "observations": [digest(model.observe(state, p)) for p in range(model.num_players)],
        }
        if model.is_over(state):
            outcome = model.outcome(state)
            row["outcome"] = {
                "ending": outcome.ending.value,
                "winners": list(outcome.winners),
                "scores": list(outcome.scores),
            }
            rows.append(row)
            return rows
        action = int(legal[choose.integers(legal.size)])
        row["action"] = action
        row["notation"] = model.codec.to_text(state, action)
        row["points"] = {str(p): v for p, v in sorted(model.step(state, action).points.items())}
        rows.append(row)


def write(name: str) -> Path:
    path = HERE / f"{name}.jsonl"
    text = "".join(json.dumps(row, sort_keys=True) + "\n" for row in playthrough(name, "reference"))
    fd, tmp = tempfile.mkstemp(dir=HERE, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return path


if __name__ == "__main__":
    for game in sys.argv[1:] or GAMES:
        print(write(game))
