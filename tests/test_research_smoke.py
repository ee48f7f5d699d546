"""Every script in ``research/`` (those that reproduce a figure of the results pages) runs to
the end with tiny settings.

They run as a user runs them (``python research/SCRIPT ARGS``, in a subprocess): the product's
tests never import them. ``decisions.py`` and ``turn_choices.py`` are helpers the others
import; they run as part of those.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from shlex import split

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESEARCH = ROOT / "research"
HELPERS = {"decisions.py", "turn_choices.py"}

SMOKE_ARGS: dict[str, list[str]] = {
    "cards_game_end.py": split("ending --games 1"),
    "feature_choice.py": split("pretrained/liniell_v0 lay_turn_margin --games 1"),
    "hand_calibration.py": split("qwirkle_cards_v0 --games 1"),
    "opponent_hand.py": split("qwirkle_v0 passes --games 1"),
    "qwirkle_teachers.py": split("endgame --games 1 --paired"),
    "teacher_ties.py": split("liniell_v0 --games 1"),
}
"""Tiny settings of each script (its own command-line options)."""

NEEDS_TORCH = {"feature_choice.py"}


def test_every_research_script_has_smoke_settings() -> None:
    scripts = {path.name for path in RESEARCH.glob("*.py")}
    assert scripts == set(SMOKE_ARGS) | HELPERS, "give each research script tiny settings"


@pytest.mark.parametrize("script", sorted(SMOKE_ARGS))
def test_research_script_runs(script: str) -> None:
    if script in NEEDS_TORCH:
        pytest.importorskip("torch")
    command = [sys.executable, str(RESEARCH / script), *SMOKE_ARGS[script]]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{' '.join(command)}\n{result.stdout}\n{result.stderr}"
    assert result.stdout.strip(), f"{script} printed nothing"
