"""The games' rules are in the repository (docs/rules/), and everything points there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"
GAMES = {"qwirkle_v0": "qwirkle", "qwirkle_cards_v0": "qwirkle_cards", "liniell_v0": "liniell"}
DECISIONS = {"qwirkle": 5, "qwirkle_cards": 6, "liniell": 11}
"""How many [decision] points the rules sections of each reference text hold (all kept)."""


@pytest.mark.parametrize("game", sorted(DECISIONS))
def test_rules_page_keeps_every_decision(game: str) -> None:
    text = (RULES / f"{game}.md").read_text()
    body = text.split("\n## ", 1)[1]  # the rules themselves, after the introduction
    assert body.count("[decision]") == DECISIONS[game]
    assert "## Playing it here" in text and "tabletop-rl play --env" in text


def test_nothing_points_to_a_rules_file_outside_the_repository() -> None:
    sources = [*ROOT.glob("envs/**/*.py"), *ROOT.glob("notebooks/*"), ROOT / "README.md"]
    for path in sources:
        if path.is_file():
            assert "shared/rules" not in path.read_text(), path


@pytest.mark.parametrize(("env", "game"), sorted(GAMES.items()))
def test_environment_docstrings_link_their_rules(env: str, game: str) -> None:
    import importlib

    doc = importlib.import_module(f"tabletop_rl.envs.{env}").__doc__
    assert f"docs/rules/{game}.md" in doc
    assert (RULES / f"{game}.md").is_file()


def test_notebook_and_readme_links_resolve() -> None:
    for path in [ROOT / "README.md", *ROOT.glob("notebooks/*.ipynb")]:
        for target in re.findall(r"\]\(([^)#]*docs/rules/[^)#]*)\)", path.read_text()):
            assert (path.parent / target).resolve().is_file(), (path, target)
