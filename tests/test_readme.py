"""The README's promises: it is short, every command in it runs, its tables are the code's.

Every command of the README runs here (or, for the test and documentation commands, is the
command CI runs): the install lines name extras that exist, the main job and the command
table's commands run in a scratch folder as written (the main job with a budget of a few
steps appended), and the Python snippets run (the library ones in
``tests/test_readme_libraries.py``, ``tests/test_tianshou.py`` and ``tests/test_rllib.py``).
The results table is checked against its evidence by the documentation build.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
from cli_runner import run_cli  # noqa: E402


def _section(heading: str) -> str:
    return README.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def _table(text: str, header_start: str) -> list[list[str]]:
    """The rows of the table whose header starts ``header_start``, as stripped cells."""
    table = text.split(header_start, 1)[1].split("\n\n", 1)[0]
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in table.splitlines()[2:]
    ]


def _extras() -> set[str]:
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(config["project"]["optional-dependencies"])


def _ci_lines() -> list[str]:
    return [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]


def test_the_readme_is_short_and_starts_with_the_quickstart_early() -> None:
    lines = README.splitlines()
    assert len(lines) <= 200
    quickstart = lines.index("## Quickstart")
    end = lines.index("```", lines.index("```python", quickstart))
    assert end < 60, "the Quickstart's code must end within the first 60 lines"


def test_quickstart_runs(capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = _blocks(_section("Quickstart"), "python")
    exec(compile(block, "README quickstart", "exec"), {})
    assert "game over" in capsys.readouterr().out


def test_install_lines_name_extras_that_exist() -> None:
    (block,) = _blocks(_section("Install"), "bash")
    pip = [line for line in block.splitlines() if line.startswith("pip install")]
    assert pip[0] == "pip install -e ."
    for line in pip[1:]:
        extras = re.fullmatch(r'pip install -e "\.\[(.*)\]"', line)
        assert extras, line
        assert set(extras.group(1).split(",")) <= _extras(), line


def test_extras_table_is_every_extra() -> None:
    rows = _table(_section("Install"), "| extra | adds | for |")
    assert {row[0].strip("`") for row in rows} == _extras()


def test_the_main_job_runs(tmp_path: Path) -> None:
    """The main job's command as written, with a budget of a few steps appended."""
    pytest.importorskip("torch")
    (block,) = _blocks(_section("Install"), "bash")
    main_job = block.splitlines()[-1]
    assert main_job == "tabletop-rl train configs/liniell_ppo.yaml"
    tiny = (
        "--total_steps 16 --num_envs 2 --num_workers 0 --rollout_steps 8 --update_epochs 1 "
        f"--num_minibatches 1 --eval_games 1 --run_dir {tmp_path}"
    )
    result = run_cli([*shlex.split(main_job)[1:], *tiny.split()], cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert list(tmp_path.glob("checkpoint*")), sorted(p.name for p in tmp_path.iterdir())


def test_environment_table_is_the_environments() -> None:
    from tabletop_rl.envs import available_envs, make

    rows = _table(_section("Environments"), "| name | game | players |")
    assert {row[0].strip("`") for row in rows} == set(available_envs())
    for name, _, players, actions, observation, _ in rows:
        env = make(name.strip("`"), raw=True)
        env.reset(seed=0)
        agent = env.agent_selection
        assert env.action_space(agent).n == int(actions), name
        assert env.observation_space(agent)["observation"].shape == (int(observation),), name
        low, high = (int(p) for p in players.split("-"))
        assert (env.info.min_players, env.info.max_players) == (low, high), name


def test_command_table_commands_run(tmp_path: Path) -> None:
    """Every command of the table, as written and in its order, in a scratch folder."""
    pytest.importorskip("torch")
    (tmp_path / "configs").symlink_to(ROOT / "configs", target_is_directory=True)
    rows = _table(_section("Command line"), "| command | what it does |")
    for row in rows:
        args = shlex.split(row[0].strip("`"))
        stdin = "help\nhint\nquit\n" if args[:2] == ["tabletop-rl", "play"] else ""
        if args[0] == "tabletop-rl":
            result = run_cli(args[1:], cwd=tmp_path, stdin=stdin, timeout=600)
        else:
            assert args[0] == "python", row[0]
            result = subprocess.run(
                [sys.executable, *args[1:]], cwd=tmp_path, capture_output=True, text=True
            )
        allowed = (0, 2) if stdin else (0,)  # play: 2 when the player quits
        assert result.returncode in allowed, f"{row[0]}\n{result.stdout}\n{result.stderr}"
    for made in ("arena/games.jsonl", "game.gif", "runs/smoke", "runs/clone", "policy.pt"):
        assert (tmp_path / made).exists(), made
    assert (tmp_path / "curve.png").stat().st_size > 0


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test, _ = _blocks(_section("Test and documentation"), "bash")
    assert _ci_lines()[-1] == test.strip()


def test_ci_installs_and_builds_the_docs_as_the_readme_says() -> None:
    _, docs = _blocks(_section("Test and documentation"), "bash")
    install, build = docs.strip().splitlines()
    assert install == 'pip install -e ".[docs]"'
    ci = _ci_lines()
    assert any(re.search(r'-e "\.\[[^"]*\bdocs\b[^"]*\]"', line) for line in ci)
    assert build in ci


def test_layout_matches_the_tree() -> None:
    (block,) = _blocks(_section("Layout"), "")
    listed = re.findall(r"^(\S+)/\s", block, re.M)
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    folders = {path.split("/")[0] for path in tracked if "/" in path}
    assert set(listed) == {f for f in folders if not f.startswith(".")}


def test_readme_links_resolve() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), target
