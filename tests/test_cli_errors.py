"""Mistakes on the command line get one line that names the problem and what is allowed.

Every command is run as a user runs it: the ``tabletop-rl`` script in a subprocess.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
import yaml

from tabletop_rl.envs import ConfigError, make

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
run_cli = importlib.import_module("cli_runner").run_cli

ARENA = ["arena", "--env", "liniell_v0", "--games", "2", "--workers", "2", "--no-progress"]


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("nosuch", "no agent 'nosuch' for liniell_v0; available: random, greedy, heuristic"),
        ("mcts:sims=5", "mcts takes no option 'sims'; allowed: simulations, time_ms, rollout"),
        ("greedy:depth=2", "greedy takes no option 'depth'; allowed: none"),
        ("ppo:", "a PPO agent needs a path: ppo:RUN_FOLDER or ppo:CHECKPOINT_FILE"),
        ("ppo:no/such/run", "ppo:no/such/run: no such file or folder; give a training run"),
    ],
)
def test_a_bad_agent_spec_is_one_line_and_leaves_nothing_behind(
    tmp_path: Path, spec: str, expected: str
) -> None:
    out = tmp_path / "run"
    done = run_cli([*ARENA, "--agents", "random", spec, "--out", str(out)], cwd=tmp_path)
    assert done.returncode == 2
    assert expected in _one_line(done.stderr)
    assert not out.exists()


def test_a_run_folder_without_a_checkpoint_is_refused_before_any_game(tmp_path: Path) -> None:
    (tmp_path / "not_a_run").mkdir()
    out = tmp_path / "out"
    out.mkdir()  # a folder the user made: kept, but nothing written into it
    args = [*ARENA, "--agents", "random", "ppo:not_a_run", "--out", str(out)]
    done = run_cli(args, cwd=tmp_path)
    assert done.returncode == 2
    assert "the folder holds no checkpoint.pt" in _one_line(done.stderr)
    assert list(out.iterdir()) == []
    # the corrected command runs in the same --out
    fixed = run_cli([*ARENA, "--agents", "random", "greedy", "--out", str(out)], cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert (out / "run.json").exists() and (out / "summary.csv").exists()


def test_unknown_environment_and_environment_keyword(tmp_path: Path) -> None:
    done = run_cli(["arena", "--env", "chess_v0", "--agents", "random", "greedy"], cwd=tmp_path)
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert "unknown environment 'chess_v0'; available: liniell_v0, qwirkle_cards_v0" in line
    args = [*ARENA, "--agents", "random", "greedy", "--env-arg", "numplayers=3"]
    done = run_cli(args, cwd=tmp_path)
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert "liniell_v0 takes no keyword 'numplayers'; allowed: num_players, render_mode" in line
    assert list(tmp_path.iterdir()) == []


def test_make_names_an_unknown_keyword_and_the_allowed_ones() -> None:
    for name in ("liniell_v0", "qwirkle_v0", "qwirkle_cards_v0"):
        for raw in (False, True):
            with pytest.raises(
                ConfigError, match=r"takes no keyword 'numplayers'; allowed: num_pl"
            ):
                make(name, raw=raw, numplayers=2)


def test_evaluate_on_a_folder_that_is_not_a_run(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    done = run_cli(["evaluate", str(tmp_path)], cwd=tmp_path)
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert "no checkpoint at" in line and "give a training run folder" in line


def test_arena_runs_without_the_baselines_extra(tmp_path: Path) -> None:
    """``pip install -e .`` alone: no tqdm, no matplotlib. The arena plays, reports its
    progress in plain lines and says which extra draws the ratings picture."""
    hide = (
        "import sys\nfor m in ('tqdm', 'matplotlib', 'torch', 'yaml'):\n    sys.modules[m] = None"
    )
    args = ["arena", "--env", "liniell_v0", "--agents", "random", "greedy", "--games", "2"]
    done = run_cli([*args, "--workers", "1", "--out", "out"], cwd=tmp_path, python_prelude=hide)
    assert done.returncode == 0, done.stderr
    assert "arena: 2/2 games" in done.stderr
    assert "ratings.png not drawn: it needs matplotlib" in done.stdout
    assert "pip install 'tabletop-rl[baselines]'" in done.stdout
    assert (tmp_path / "out" / "summary.csv").exists()
    assert not (tmp_path / "out" / "ratings.png").exists()


@pytest.mark.parametrize("command", ["arena", "replay", "play", "evaluate"])
def test_help_shows_the_defaults(command: str) -> None:
    if command == "evaluate":
        pytest.importorskip("torch")
    done = run_cli([command, "--help"])
    assert done.returncode == 0, done.stderr
    expected = {
        "arena": "(default: 100)",
        "replay": "(default: 2.0)",
        "play": "(default: greedy)",
        "evaluate": "(default: 1000)",
    }[command]
    assert expected in done.stdout


def test_train_help_shows_the_config_values() -> None:
    pytest.importorskip("torch")
    config = str(Path(__file__).resolve().parents[1] / "configs" / "liniell_ppo.yaml")
    done = run_cli(["train", config, "--help"])
    assert done.returncode == 0, done.stderr
    assert f"--max_cpu_minutes float ({config}: 20.0; built-in default: 0.0)" in done.stdout
    teacher = yaml.safe_load(Path(config).read_text())["teacher"]
    assert f"--teacher str ({config}: {teacher!r}; built-in default: '')" in done.stdout
    assert "Ctrl-C (or SIGTERM) stops a run" in done.stdout
