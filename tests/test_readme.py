"""The README's promises: its quickstart runs, and its test command is the one CI runs."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

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


PPO_RUNS = Path("docs/results/ppo_runs")
"""Where the training runs keep their logs and evaluations (``evaluate --out``)."""
ABLATION_CELLS = {
    "liniell_v0": (
        "ablation_current/liniell_scratch/eval_greedy_1000.csv",
        "ablation_current/liniell_features_rev4/eval_1000.csv",
        "ablation_current/liniell_kickstarted/eval_greedy_1000.csv",
        "ablation_current/liniell_both_turn_value/eval_greedy_1000.csv",
    ),
    "qwirkle_cards_v0": (
        "ablation_current/cards_scratch/eval_greedy_1000.csv",
        "ablation_current/cards_features_rev2/eval_1000.csv",
        "ablation_current/cards_kickstarted_rev2/eval_greedy_1000.csv",
        "ablation_current/cards_both_turn_value/eval_greedy_1000.csv",
    ),
    "qwirkle_v0": (
        "ablation_current/qwirkle_scratch/eval_greedy_1000.csv",
        "ablation_current/qwirkle_features_rev4/eval_greedy_1000.csv",
        "ablation_current/qwirkle_kickstarted_value/eval_greedy_1000.csv",
        "ablation_current/qwirkle_both_plan/eval_greedy_1000.csv",
    ),
}


def _evaluation_cell(path: Path, opponent: str) -> str:
    """A 1,000-game evaluation's row against ``opponent`` (``evaluate --out``'s CSV) as the
    README's tables write it: win rate (Wilson 95% interval)."""
    with open(path) as f:
        row = next(r for r in csv.DictReader(f) if r["opponent"] == opponent)
    assert row["games"] == "1000", (path, opponent)
    rate, low, high = (float(row[k]) for k in ("win_rate", "ci_low", "ci_high"))
    return f"{rate:.3f} ({low:.3f}–{high:.3f})"


def test_the_readme_ablation_table_is_its_evaluations() -> None:
    """Each cell of the README's ablation table (from scratch, features, kickstarted, both)
    is the 1,000-game evaluation against greedy kept with that run's logs."""
    section = README.split("**Ablation at equal budgets**", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\| `(\w+_v\d)` \|(.*)\|$", section, re.M)
    assert {name for name, _ in rows} == set(ABLATION_CELLS)
    for name, cells in rows:
        shown = [cell.strip() for cell in cells.split("|")]
        paths = [ROOT / PPO_RUNS / path for path in ABLATION_CELLS[name]]
        assert shown == [_evaluation_cell(path, "greedy") for path in paths], name


SHIPPED_RUNS = {
    "liniell_v0": "liniell_v0_idle10_turn_value",
    "qwirkle_cards_v0": "qwirkle_cards_v0_idle10_turn_value",
    "qwirkle_v0": "qwirkle_v0_idle10_endgame",
}
"""The training run (``docs/results/ppo_runs/``) whose policy ships as ``ppo:pretrained/ENV``."""


def test_the_readme_ppo_table_is_the_shipped_runs() -> None:
    """Each row of the README's PPO results table is the run whose policy ships: its learner
    steps are the shipped checkpoint's and the run's last logged update's, and its win rates
    the run's 1,000-game evaluation."""
    pytest.importorskip("torch")
    from tabletop_rl.baselines.ppo.checkpoint import load_checkpoint

    header = "| game | training wall clock | CPU-minutes | learner steps | vs random | vs greedy |"
    section = README.split(header, 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `(\w+_v\d)` \|(.*)\|$", section, re.M)
    assert {name for name, _ in rows} == set(SHIPPED_RUNS)
    for name, cells in rows:
        _, _, steps, *rates = (cell.strip().strip("*") for cell in cells.split("|"))
        run = ROOT / PPO_RUNS / SHIPPED_RUNS[name]
        with open(run / "progress.csv") as f:
            logged = list(csv.DictReader(f))[-1]["global_step"]
        shipped = load_checkpoint(f"pretrained/{name}")["global_step"]
        assert int(steps.replace(",", "")) == int(logged) == shipped, name
        opponents = ("random", "greedy", "heuristic")
        assert rates == [_evaluation_cell(run / "eval_1000.csv", o) for o in opponents], name
