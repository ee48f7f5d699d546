"""MkDocs hook: the pages built from the code, and the published figures checked.

- Each environment's page (``environments/<name>.md``) is its module docstring, written as
  Markdown, with a picture of a game in progress and an animation of a whole game
  (``greedy`` against itself, recorded and drawn as ``tabletop-rl replay --gif`` does).
- mkdocstrings reads the installed packages ``tabletop_rl.envs`` and ``tabletop_rl.baselines``
  from the folders ``envs/`` and ``baselines/``: a folder ``build/docs_api/tabletop_rl`` links
  them under their installed names for its static analysis.
- The tables of the README's and the results page's figures are compared with the evidence
  they cite (``docs/results/``: the evaluations' and the arena's CSV files, the training
  logs); a cell that differs fails the build, naming the file.

``python docs/_hooks/build.py`` writes the README's picture (``docs/assets/games.png``).
"""

from __future__ import annotations

import csv
import io
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EVIDENCE = DOCS / "results"
API_SOURCES = ROOT / "build" / "docs_api"
PICTURE_SEED = 3
"""Seed of the recorded games that the environment pages show."""

sys.path.insert(0, str(Path(__file__).resolve().parent))
from markdown_docstrings import to_markdown  # noqa: E402


def link_api_sources() -> None:
    """``build/docs_api/tabletop_rl/{envs,baselines}``: links to the package folders."""
    package = API_SOURCES / "tabletop_rl"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""tabletop-rl (linked for the documentation)."""\n')
    for name in ("envs", "baselines"):
        link = package / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name, target_is_directory=True)


link_api_sources()  # before mkdocstrings collects anything


# ------------------------------------------------------------------ environment pages
def game_pictures(name: str) -> tuple[bytes, bytes]:
    """A PNG of a game of ``name`` in progress and an animated GIF of the whole game."""
    from PIL import Image

    from tabletop_rl.baselines.replay import gif_frames, record_game

    frames = gif_frames(record_game(name, ["greedy", "greedy"], PICTURE_SEED))
    still = io.BytesIO()
    Image.fromarray(frames[len(frames) * 2 // 3]).save(still, format="PNG", optimize=True)
    images = [Image.fromarray(f) for f in frames]
    gif = io.BytesIO()
    durations = [500] * (len(images) - 1) + [2000]
    images[0].save(
        gif, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0
    )
    return still.getvalue(), gif.getvalue()


def environment_page(name: str) -> str:
    """The page of environment ``name``: its module docstring as Markdown, with pictures."""
    from tabletop_rl.envs import env_module

    module = env_module(name)
    text = to_markdown(module.__doc__ or "")
    text = re.sub(
        r"`+docs/rules/(\w+)\.md`+", lambda m: f"[the rules](../rules/{m.group(1)}.md)", text
    )
    if not text.startswith("# "):
        first, _, rest = text.partition("\n")
        title = first.split(" (")[0].split(":")[0].strip()
        text = f"# {title}\n\n{first}\n{rest}"
    title, _, body = text.partition("\n")
    pictures = (
        f"\n![{name}: a game in progress](../assets/games/{name}.png){{ width=300 }}\n"
        f"![{name}: a whole game of greedy against greedy](../assets/games/{name}.gif)"
        "{ width=300 }\n\n"
        f"`{module.__name__}` · a game of `greedy` against itself (seed {PICTURE_SEED}):"
        f" `tabletop-rl replay` draws any saved game so.\n"
    )
    return f"{title}\n{pictures}{body}\n"


def overview_picture() -> bytes:
    """The README's picture: the three games side by side, in progress."""
    import numpy as np
    from PIL import Image

    from tabletop_rl.baselines.replay import gif_frames, record_game

    stills = []
    for name in ("liniell_v0", "qwirkle_v0", "qwirkle_cards_v0"):
        frames = gif_frames(record_game(name, ["greedy", "greedy"], PICTURE_SEED))
        image = Image.fromarray(frames[len(frames) * 2 // 3])
        stills.append(image.resize((int(image.width * 300 / image.height), 300), Image.LANCZOS))
    width = sum(s.width for s in stills) + 10 * (len(stills) - 1)
    canvas = Image.new("RGB", (width, 300), (255, 255, 255))
    x = 0
    for still in stills:
        canvas.paste(still, (x, 0))
        x += still.width + 10
    out = io.BytesIO()
    Image.fromarray(np.asarray(canvas)).save(out, format="PNG", optimize=True)
    return out.getvalue()


# --------------------------------------------------------------- published figures
SHIPPED_RUNS = {
    "liniell_v0": "liniell_v0_idle10_turn_value",
    "qwirkle_cards_v0": "qwirkle_cards_v0_idle10_turn_value",
    "qwirkle_v0": "qwirkle_v0_idle10_endgame",
}
"""The training run (``docs/results/ppo_runs/``) whose policy ships as ``ppo:pretrained/ENV``."""
ABLATION_CELLS = {
    "liniell_v0": (
        "liniell_scratch/eval_greedy_1000.csv",
        "liniell_features_rev4/eval_1000.csv",
        "liniell_kickstarted/eval_greedy_1000.csv",
        "liniell_both_turn_value/eval_greedy_1000.csv",
    ),
    "qwirkle_cards_v0": (
        "cards_scratch/eval_greedy_1000.csv",
        "cards_features_rev2/eval_1000.csv",
        "cards_kickstarted_rev2/eval_greedy_1000.csv",
        "cards_both_turn_value/eval_greedy_1000.csv",
    ),
    "qwirkle_v0": (
        "qwirkle_scratch/eval_greedy_1000.csv",
        "qwirkle_features_rev4/eval_greedy_1000.csv",
        "qwirkle_kickstarted_value/eval_greedy_1000.csv",
        "qwirkle_both_plan/eval_greedy_1000.csv",
    ),
}
"""The ablation table's cells (from scratch, features, kickstarted, both), under
``docs/results/ppo_runs/ablation_current/``."""
BASELINE_RUNS = {
    10: {
        "liniell_v0": "liniell_selfplay10",
        "qwirkle_cards_v0": "qwirkle_cards_selfplay10",
        "qwirkle_v0": "qwirkle_selfplay10",
    },
    60: {
        "liniell_v0": "liniell_selfplay60",
        "qwirkle_cards_v0": "qwirkle_cards_selfplay60",
        "qwirkle_v0": "qwirkle_selfplay60",
    },
}
"""The baseline table's runs (``docs/results/ppo_runs/``) by training budget in minutes:
``configs/<game>_selfplay.yaml`` for that long, written by ``benchmarks/baseline_table.py``;
a game whose run is not there yet has no row (in the README, a dash). The README has one
self-play column per budget, in this order; the results page has one table per budget, under
a heading ``#### N minutes``."""


class FigureMismatch(Exception):
    """A published figure is not what its evidence says."""


def _rate(text: str) -> str:
    """A rate as the tables write it: three decimals, as the arena and ``evaluate`` print it."""
    return f"{float(text):.3f}"


def rate_cell(rate: str, low: str, high: str) -> str:
    """``rate (low–high)``, the tables' way of writing a win rate and its interval."""
    return f"{_rate(rate)} ({_rate(low)}–{_rate(high)})"


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def evaluation_cell(path: Path, opponent: str) -> str:
    """A 1,000-game evaluation's row against ``opponent`` (``evaluate --out``'s CSV)."""
    row = next(r for r in _rows(path) if r["opponent"] == opponent)
    if row["games"] != "1000":
        raise FigureMismatch(f"{path}: {row['games']} games against {opponent}, not 1000")
    return rate_cell(row["win_rate"], row["ci_low"], row["ci_high"])


def pairwise_cell(env: str, agent: str, opponent: str) -> str:
    """The arena ladder's head-to-head win rate of ``agent`` against ``opponent``."""
    path = EVIDENCE / "arena" / env / "pairwise.csv"
    row = next(r for r in _rows(path) if (r["agent"], r["opponent"]) == (agent, opponent))
    return rate_cell(row["win_rate"], row["win_lo"], row["win_hi"])


def table_rows(text: str, header_start: str) -> dict[str, list[str]]:
    """The rows of the Markdown table whose header starts ``header_start``, by the first
    cell (its backquotes removed); each row's other cells, stripped of ``**``."""
    if header_start not in text:
        raise FigureMismatch(f"no table starting {header_start!r}")
    table = text.split(header_start, 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip().strip("*") for c in line.strip().strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[1:]
    return rows


def _expect(where: str, shown: list[str], expected: list[str], source: str) -> None:
    if shown != expected:
        raise FigureMismatch(f"{where}: shows {shown}, {source} says {expected}")


def check_published_figures(readme: str, results: str) -> None:
    """Compare the README's and the results page's tables with their evidence."""
    runs = EVIDENCE / "ppo_runs"
    rows = table_rows(readme, "| game | heuristic vs greedy | PPO vs greedy |")
    if set(rows) != set(SHIPPED_RUNS):
        raise FigureMismatch(f"README results table: rows {sorted(rows)}")
    for env, cells in rows.items():
        evaluation = runs / SHIPPED_RUNS[env] / "eval_1000.csv"
        expected = [
            pairwise_cell(env, "heuristic", "greedy"),
            evaluation_cell(evaluation, "greedy"),
            evaluation_cell(evaluation, "heuristic"),
        ]
        for budget_runs in BASELINE_RUNS.values():  # self-play PPO, 10 and 60 minutes
            baseline = runs / budget_runs[env]
            expected.append(
                evaluation_cell(baseline / "eval_1000.csv", "greedy") if baseline.is_dir() else "–"
            )
        shown = cells[: len(expected)]
        _expect(f"README results, {env}", shown, expected, f"{evaluation} and the arena")

    rows = table_rows(results, "| game | training wall clock | CPU-minutes | learner steps |")
    if set(rows) != set(SHIPPED_RUNS):
        raise FigureMismatch(f"results page PPO table: rows {sorted(rows)}")
    for env, cells in rows.items():
        run = runs / SHIPPED_RUNS[env]
        steps = _rows(run / "progress.csv")[-1]["global_step"]
        expected = [f"{int(steps):,}"] + [
            evaluation_cell(run / "eval_1000.csv", o) for o in ("random", "greedy", "heuristic")
        ]
        _expect(f"results page PPO table, {env}", cells[2:], expected, str(run))

    for minutes, budget_runs in BASELINE_RUNS.items():
        published = {env: run for env, run in budget_runs.items() if (runs / run).is_dir()}
        heading = f"#### {minutes} minutes\n"
        if not published and heading not in results:
            continue
        if heading not in results:
            raise FigureMismatch(f"results page: no baseline table under {heading.strip()!r}")
        section = results.split(heading, 1)[1]
        rows = table_rows(section, "| game | training wall clock (min) | CPU-minutes |")
        if set(rows) != set(published):
            raise FigureMismatch(
                f"results page baseline table, {minutes} minutes: rows {sorted(rows)}"
            )
        for env, cells in rows.items():
            run = runs / published[env]
            progress = _rows(run / "progress.csv")[-1]
            expected = [f"{int(progress['global_step']):,}"] + [
                evaluation_cell(run / "eval_1000.csv", o) for o in ("random", "greedy", "heuristic")
            ]
            shown = [cells[2], *cells[4:]]
            where = f"results page baseline table, {minutes} minutes, {env}"
            _expect(where, shown, expected, str(run))

    rows = table_rows(results, "| game | from scratch | features | kickstarted |")
    if set(rows) != set(ABLATION_CELLS):
        raise FigureMismatch(f"results page ablation table: rows {sorted(rows)}")
    for env, cells in rows.items():
        paths = [runs / "ablation_current" / p for p in ABLATION_CELLS[env]]
        expected = [evaluation_cell(p, "greedy") for p in paths]
        _expect(f"results page ablation table, {env}", cells, expected, "the ablation runs")

    for env in SHIPPED_RUNS:
        marker = f"`tabletop-rl arena --env {env} --agents random greedy heuristic"
        section = results.split(marker, 1)[1]
        rows = table_rows(section, "| agent | games | win rate (95% CI) |")
        summary = {r["agent"]: r for r in _rows(EVIDENCE / "arena" / env / "summary.csv")}
        for agent, cells in rows.items():
            r = summary[agent]
            expected = [r["games"], rate_cell(r["win_rate"], r["win_lo"], r["win_hi"])]
            _expect(f"results page ladder, {env}, {agent}", cells[:2], expected, "summary.csv")


# ------------------------------------------------------------------------ hooks
def on_files(files: Any, config: Any) -> Any:
    """Add the environment pages and their pictures; check the published figures."""
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import File

    from tabletop_rl.envs import available_envs

    try:
        check_published_figures(
            (ROOT / "README.md").read_text(), (DOCS / "results" / "index.md").read_text()
        )
    except FigureMismatch as exc:
        raise PluginError(f"published figure out of date: {exc}") from exc
    for name in available_envs():
        page = environment_page(name)
        files.append(File.generated(config, f"environments/{name}.md", content=page))
        still, gif = game_pictures(name)
        files.append(File.generated(config, f"assets/games/{name}.png", content=still))
        files.append(File.generated(config, f"assets/games/{name}.gif", content=gif))
    return files


if __name__ == "__main__":
    target = DOCS / "assets" / "games.png"
    target.write_bytes(overview_picture())
    print(f"wrote {target.relative_to(ROOT)}")
