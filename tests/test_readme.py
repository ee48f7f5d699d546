"""The README's promises: its quickstart runs, and its test command is the one CI runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _block(heading: str, language: str) -> str:
    section = README.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert match, f"no {language} block under '## {heading}'"
    return match.group(1)


def test_quickstart_runs(capsys) -> None:
    exec(compile(_block("Quickstart", "python"), "README quickstart", "exec"), {})
    out = capsys.readouterr().out
    assert "game over" in out


def test_ci_runs_exactly_the_readme_test_command() -> None:
    command = _block("Test", "bash").strip()
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert ci_lines[-1].strip() == command


def test_ci_installs_the_readme_extras() -> None:
    install = _block("Install (and run the main job)", "bash").split("&&")[0].strip()
    extras = re.search(r'"\.\[(.*?)\]"', install).group(1)
    assert f'-e ".[{extras}]"' in (ROOT / ".ci" / "run").read_text()


def test_game_model_and_batched_examples_run(capsys) -> None:
    section = README.split("## Game models and batched stepping\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2
    for i, block in enumerate(blocks):
        namespace: dict = {}
        exec(compile(block, f"README game model example {i}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "Outcome(ending=<Ending.FINISHED" in out
    assert namespace["out"].observation.shape == (256, 2707)


def test_feature_sizes_in_the_readme_are_the_observations() -> None:
    """The README's table of observation features gives each environment's observation size
    with features on, as built."""
    from tabletop_rl.envs import make

    rows = re.findall(r"^\| `(\w+_v\d)` \| (\d+) \| per ", README, re.M)
    assert {name for name, _ in rows} == {"liniell_v0", "qwirkle_v0", "qwirkle_cards_v0"}
    for name, size in rows:
        assert make(name, raw=True, features=True).layout.size == int(size), name
