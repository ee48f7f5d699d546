"""The tournament: play (or resume) a whole arena run into a folder.

Finished games are appended to ``games.jsonl`` and flushed one by one; running the same
configuration again with the same folder resumes: games already recorded are not played
again. ``run.json`` holds the run's configuration (a resumed run must match it). Games are
played in worker processes when ``workers > 1``; since each game has its own seeds
(:mod:`.schedule`), results do not depend on the number of workers.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabletop_rl.envs.errors import ConfigError

from ..files import atomic_write_text
from .games import play_task, read_records
from .schedule import ArenaConfig, GameTask, schedule
from .summary import summarize, write_outputs

GAMES_FILE = "games.jsonl"
RUN_FILE = "run.json"


@dataclass
class ArenaRun:
    """The outcome of :func:`run_arena`: all records, how many were played now, the summary."""

    records: list[dict[str, Any]]
    played: int
    summary: dict[str, Any] | None
    complete: bool


def run_arena(
    config: ArenaConfig,
    out_dir: str | Path,
    workers: int = 1,
    progress: bool = True,
    max_new_games: int | None = None,
    fresh: bool = False,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> ArenaRun:
    """Play (or resume) the run ``config`` into ``out_dir`` and write its summaries.

    ``max_new_games`` stops after that many newly played games (as an interruption would);
    ``fresh`` discards a previous run in ``out_dir`` instead of resuming it.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    run_file, games_file = out / RUN_FILE, out / GAMES_FILE
    wanted = config.to_json()
    if fresh:
        for name in (RUN_FILE, GAMES_FILE, "summary.csv", "pairwise.csv", "results.json"):
            with contextlib.suppress(FileNotFoundError):
                (out / name).unlink()
    if run_file.exists():
        existing = json.loads(run_file.read_text())
        if existing != wanted:
            raise ConfigError(
                f"{out} holds a different arena run ({existing}); use another --out, the same "
                "settings to resume it, or --fresh to start over"
            )
    else:
        atomic_write_text(run_file, json.dumps(wanted, indent=2) + "\n")
    tasks = schedule(config)
    records = read_records(games_file)
    ids = {t.game_id for t in tasks}
    done = {}
    for r in records:
        if r["game_id"] not in ids:
            raise ConfigError(f"{games_file} holds game {r['game_id']}, not part of this run")
        done[r["game_id"]] = r
    records = list(done.values())
    # rewrite without a torn tail or duplicates before appending
    atomic_write_text(games_file, "".join(json.dumps(r) + "\n" for r in records))
    todo = [t for t in tasks if t.game_id not in done]
    if max_new_games is not None:
        todo = todo[:max_new_games]
    played = 0
    bar = _progress_bar(len(tasks), len(done), progress)
    try:
        with open(games_file, "a", encoding="utf-8") as sink:
            for record in _execute(config, todo, workers):
                sink.write(json.dumps(record) + "\n")
                sink.flush()
                records.append(record)
                played += 1
                if on_record is not None:
                    on_record(record)
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    complete = len(records) == len(tasks)
    summary = summarize(config, records) if records else None
    if summary is not None:
        write_outputs(summary, out)
    return ArenaRun(records=records, played=played, summary=summary, complete=complete)


def _progress_bar(total: int, initial: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", desc="arena")


def _execute(config: ArenaConfig, todo: list[GameTask], workers: int) -> Iterable[dict[str, Any]]:
    if workers <= 1 or len(todo) <= 1:
        for task in todo:
            yield play_task(config.env, config.env_kwargs, task)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: set[Future] = set()
        queue = iter(todo)
        try:
            # keep a bounded number of games in flight so an interruption loses little
            for task in itertools.islice(queue, 4 * workers):
                pending.add(pool.submit(play_task, config.env, config.env_kwargs, task))
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
                    task = next(queue, None)
                    if task is not None:
                        pending.add(pool.submit(play_task, config.env, config.env_kwargs, task))
        finally:
            for future in pending:
                future.cancel()


__all__ = ["GAMES_FILE", "RUN_FILE", "ArenaRun", "run_arena"]
