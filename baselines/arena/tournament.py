"""The tournament: play (or resume) a whole arena run into a folder.

Finished games are appended to ``games.jsonl`` and flushed one by one; running the same
configuration again with the same folder resumes: games already recorded are not played
again. ``run.json`` holds the run's configuration (a resumed run must match it). Games are
played in worker processes when ``workers > 1``, or on a Ray cluster with ``ray_address``
(``"local"`` starts a local Ray instance; Ray's ``multiprocessing.Pool`` stands in for the
process pool, and needs the ``rllib`` extra). Local workers come from
:func:`~tabletop_rl.baselines.workers.worker_context`, safe with torch loaded here (a
``ppo:`` agent). Since each game has its own seeds (:mod:`.schedule`), results do not depend
on the number of workers or where games run.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabletop_rl.envs.core.files import atomic_write_text
from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.registry import make

from ..workers import init_worker, worker_context, worker_lost
from .agent_specs import check_agent_specs
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
    skipped_outputs: list[str] = field(default_factory=list)
    """Output files that could not be written, each with the reason (a missing library)."""


def check_run(config: ArenaConfig) -> None:
    """Build the environment and every agent once: a mistake in the environment's arguments
    or in an agent spec is a ConfigError before anything is written or any worker starts."""
    make(config.env, raw=True, num_players=config.players, **config.env_kwargs)
    check_agent_specs(config.agents, config.env)


def run_arena(
    config: ArenaConfig,
    out_dir: str | Path,
    workers: int = 1,
    progress: bool = True,
    max_new_games: int | None = None,
    fresh: bool = False,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    ray_address: str | None = None,
) -> ArenaRun:
    """Play (or resume) the run ``config`` into ``out_dir`` and write its summaries.

    ``ray_address`` plays the games on Ray (``"local"``: a local instance; else a cluster
    address such as ``"auto"`` or ``"ray://host:10001"``) with ``workers`` Ray processes.

    ``max_new_games`` stops after that many newly played games (as an interruption would);
    ``fresh`` discards a previous run in ``out_dir`` instead of resuming it. The environment
    and agents are checked first (:func:`check_run`); a new run that ends before its first
    game is recorded (an error, Ctrl-C) leaves nothing behind, so the corrected command can
    use the same ``out_dir``.
    """
    check_run(config)
    out = Path(out_dir)
    created_dir = not out.exists()
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
        created_run = False
    else:
        atomic_write_text(run_file, json.dumps(wanted, indent=2) + "\n")
        created_run = True
    try:
        return _play_run(config, out, workers, progress, max_new_games, on_record, ray_address)
    finally:
        if created_run and not read_records(games_file):
            _remove_empty_run(out, created_dir)


def _remove_empty_run(out: Path, created_dir: bool) -> None:
    for name in (RUN_FILE, GAMES_FILE):
        with contextlib.suppress(FileNotFoundError):
            (out / name).unlink()
    if created_dir:
        with contextlib.suppress(OSError):
            out.rmdir()  # only if empty


def _play_run(
    config: ArenaConfig,
    out: Path,
    workers: int,
    progress: bool,
    max_new_games: int | None,
    on_record: Callable[[dict[str, Any]], None] | None,
    ray_address: str | None = None,
) -> ArenaRun:
    games_file = out / GAMES_FILE
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
            for record in _execute(config, todo, workers, ray_address):
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
    skipped = write_outputs(summary, out) if summary is not None else []
    return ArenaRun(
        records=records, played=played, summary=summary, complete=complete, skipped_outputs=skipped
    )


def _progress_bar(total: int, initial: int, enabled: bool) -> Any:
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm comes with the baselines extra; the arena runs without it
        return _PlainProgress(total, initial)
    return tqdm(total=total, initial=initial, unit="game", desc="arena")


class _PlainProgress:
    """A progress line on stderr every tenth of the run, where tqdm is not installed."""

    def __init__(self, total: int, initial: int) -> None:
        self.total, self.done = total, initial
        self.step = max(1, total // 10)
        self.started = time.perf_counter()

    def update(self, n: int) -> None:
        before, self.done = self.done, self.done + n
        if self.done // self.step > before // self.step or self.done == self.total:
            elapsed = time.perf_counter() - self.started
            print(f"arena: {self.done}/{self.total} games ({elapsed:.0f} s)", file=sys.stderr)

    def close(self) -> None:
        pass


def _execute(
    config: ArenaConfig, todo: list[GameTask], workers: int, ray_address: str | None = None
) -> Iterable[dict[str, Any]]:
    if ray_address is not None:
        yield from _execute_on_ray(config, todo, workers, ray_address)
        return
    if workers <= 1 or len(todo) <= 1:
        for task in todo:
            yield play_task(config.env, config.env_kwargs, task)
        return
    # not forked: the parent may have loaded torch (a ppo: agent, in check_run)
    with ProcessPoolExecutor(workers, mp_context=worker_context(), initializer=init_worker) as pool:
        pending: set[Future] = set()
        queue = iter(todo)
        try:
            # keep a bounded number of games in flight so an interruption loses little
            for task in itertools.islice(queue, 4 * workers):
                pending.add(pool.submit(play_task, config.env, config.env_kwargs, task))
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    try:
                        record = future.result()
                    except BrokenProcessPool:
                        raise worker_lost("an arena worker process") from None
                    yield record
                    task = next(queue, None)
                    if task is not None:
                        pending.add(pool.submit(play_task, config.env, config.env_kwargs, task))
        finally:
            for future in pending:
                future.cancel()


def _execute_on_ray(
    config: ArenaConfig, todo: list[GameTask], workers: int, ray_address: str
) -> Iterable[dict[str, Any]]:
    """The games on Ray's process pool, yielded as they finish."""
    try:
        from ray.util.multiprocessing import Pool
    except ImportError as exc:
        raise ConfigError(f"--ray needs Ray: pip install -e '.[rllib]' ({exc})") from None
    address = None if ray_address == "local" else ray_address
    play = functools.partial(play_task, config.env, config.env_kwargs)
    with Pool(processes=max(1, workers), ray_address=address) as pool:
        yield from pool.imap_unordered(play, todo)


__all__ = ["GAMES_FILE", "RUN_FILE", "ArenaRun", "check_run", "run_arena"]
