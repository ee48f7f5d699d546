"""The arena: agents play each other under controlled seating, with honest statistics.

``tabletop-rl arena --env liniell_v0 --agents random greedy mcts --games 100`` plays
``--games`` games for every pairing of the agents (two players) or every table of
``--players`` agents (three or four players; with fewer agents than seats, every multiset of
agents that seats each of them at least once). Within a pairing or table the seat orders
cycle through every rotation of every arrangement, so when ``--games`` is a multiple of the
number of players every agent plays every seat equally often. ``--agent-games mcts=100``
plays at most 100 games at every table where a slow agent sits (the ratings still use all
games).

Every game has its own seeds (the environment's and one per seat), derived from ``--seed``
and the game's id, so results do not depend on the number of workers or the order in which
games finish, and any game can be replayed (``tabletop-rl replay``). Finished games are
appended to ``games.jsonl`` and flushed one by one; running the same command again with the
same ``--out`` resumes: games already recorded are not played again.

Outputs in ``--out``: ``games.jsonl`` (one self-contained game record per line, a saved
game for :mod:`tabletop_rl.baselines.replay`), ``run.json`` (the run's configuration),
``summary.csv`` (per agent: win rate with its Wilson 95% interval, mean score and margin,
rating with standard error), ``pairwise.csv`` (head to head: win rate with its interval,
mean score, mean margin over that opponent and its standard error), ``results.json`` (all of it
plus seat statistics and notes) and ``ratings.png``. Summaries are written atomically.

Definitions: a game's *win credit* is 1 for a sole win, ``1/k`` for a win shared by ``k``
players, 0 otherwise (a two-player draw counts half; a truncated game is a draw of all
seats). The *score* is the environment's final score (its ``final_scores()`` method), and
the *margin* is the agent's score minus the best score among the other seats. Ratings are
Bradley–Terry maximum-likelihood ratings on the Elo scale (:mod:`.stats`), anchored at
``random`` = 0 when ``random`` plays. An agent that returns an illegal action forfeits the
game (the other seats share the win); forfeits are counted in the notes.

Agent specs: a name from ``agent_names(env)`` (``random``, ``greedy``, ...), ``mcts``, or
``ppo:PATH``; options follow a colon, e.g. ``mcts:simulations=100,rollout=greedy``.

>>> parse_agent_spec("mcts:simulations=50,rollout=greedy")
('mcts', {'simulations': 50, 'rollout': 'greedy'})
>>> parse_agent_spec("ppo:runs/liniell/model.pt")
('ppo', {'path': 'runs/liniell/model.pt'})
>>> [len(seat_orders(("a", "b", "c")))] + list(seat_orders(("a", "b")))
[6, ('a', 'b'), ('b', 'a')]
"""

from __future__ import annotations

import contextlib
import csv
import functools
import importlib
import io
import itertools
import json
import math
import os
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_rl.envs.errors import ConfigError, IllegalActionError

from .simulator import select_action
from .stats import (
    PairResult,
    fit_bradley_terry,
    table_pairwise,
    table_ranks,
    wilson_interval,
    win_credits,
)

GAMES_FILE = "games.jsonl"
RUN_FILE = "run.json"


# --------------------------------------------------------------------------- resolution
def make_env(env_name: str, **kwargs: Any) -> Any:
    """A raw environment: a registry name, or ``"module:factory"`` for a game of your own."""
    if ":" in env_name:
        module_name, factory = env_name.rsplit(":", 1)
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigError(f"cannot import environment module {module_name!r}: {exc}") from exc
        if not hasattr(module, factory):
            raise ConfigError(f"module {module_name!r} has no environment factory {factory!r}")
        return getattr(module, factory)(**kwargs)
    from tabletop_rl.envs import make

    return make(env_name, raw=True, **kwargs)


def _parse_value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name:key=value,...`` (or ``ppo:PATH``) into a name and keyword arguments."""
    name, _, rest = spec.partition(":")
    if not name:
        raise ConfigError(f"empty agent name in spec {spec!r}")
    if name == "ppo":
        if not rest:
            raise ConfigError("a PPO agent needs a model path: ppo:PATH")
        return name, {"path": rest}
    kwargs: dict[str, Any] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise ConfigError(
                    f"bad option {item!r} in agent spec {spec!r}; write name:key=value,key=value"
                )
            kwargs[key.strip()] = _parse_value(value.strip())
    return name, kwargs


def available_agents(env_name: str) -> list[str]:
    """Agent names usable for ``env_name``: the scripted ones, ``mcts`` and ``ppo:PATH``."""
    from .agents import agent_names

    return [*agent_names(env_name), "mcts", "ppo:PATH"]


@functools.lru_cache(maxsize=64)
def game_name(env_name: str) -> str:
    """The registry name agents are looked up by: ``env_name``, or for a ``module:factory``
    environment the name its ``info`` declares (a variant of a registered game gets its
    agents)."""
    if ":" not in env_name:
        return env_name
    return str(make_env(env_name).info.name)


def resolve_agent(spec: str, env_name: str, rng: np.random.Generator) -> Any:
    """Build the agent named by ``spec`` for ``env_name`` (see the module docstring)."""
    name, kwargs = parse_agent_spec(spec)
    env_name = game_name(env_name)
    if name == "mcts":
        from .agents.mcts import make_mcts

        try:
            return make_mcts(rng, env_name, **kwargs)
        except TypeError as exc:
            raise ConfigError(f"bad option for mcts in {spec!r}: {exc}") from exc
    if name == "ppo":
        try:
            from .ppo.agent import load_ppo_agent
        except ImportError as exc:
            raise ConfigError(f"PPO agents need the baselines extra (torch): {exc}") from exc
        return load_ppo_agent(kwargs["path"], env_name, rng)
    from .agents import agent_names, make_agent

    if name not in agent_names(env_name):
        raise ConfigError(
            f"no agent {name!r} for {env_name}; available: " + ", ".join(available_agents(env_name))
        )
    try:
        return make_agent(name, env_name, rng, **kwargs)
    except TypeError as exc:
        raise ConfigError(f"bad option for {name} in {spec!r}: {exc}") from exc


def final_scores(env: Any) -> list[float] | None:
    """Every seat's final score, if the environment exposes one (``final_scores()``)."""
    method = getattr(env, "final_scores", None)
    if callable(method):
        values = method()
        if isinstance(values, dict):
            return [float(values[a]) for a in env.possible_agents]
        return [float(v) for v in values]
    return None


# --------------------------------------------------------------------------- schedule
def seat_orders(table: Sequence[str]) -> list[tuple[str, ...]]:
    """Seat orders for one table: every rotation of every arrangement of ``table``.

    Consecutive blocks of ``len(table)`` orders are the rotations of one arrangement, so
    any multiple of the table size seats every member at every seat equally often.
    """
    first, rest = table[0], table[1:]
    orders = []
    for arrangement in itertools.permutations(rest):
        base = (first, *arrangement)
        for r in range(len(base)):
            orders.append(base[r:] + base[:r])
    return orders


def tables(agents: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The tables to play: every pairing (or set of ``players`` agents) of ``agents``.

    With fewer agents than seats, every multiset of agents in which each appears at least
    once.
    """
    if len(agents) >= players:
        return list(itertools.combinations(agents, players))
    return [
        t for t in itertools.combinations_with_replacement(agents, players) if set(t) == set(agents)
    ]


@dataclass(frozen=True)
class GameTask:
    """One scheduled game: who sits where and with which seeds."""

    game_id: int
    table: int
    seats: tuple[str, ...]
    seed: int
    agent_seeds: tuple[int, ...]


@dataclass(frozen=True)
class ArenaConfig:
    """Everything that defines an arena run (a resumed run must match it exactly)."""

    env: str
    agents: tuple[str, ...]
    games: int
    players: int = 2
    seed: int = 0
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    agent_games: dict[str, int] = field(default_factory=dict)
    """Fewer games for the tables of a slow agent: ``{"mcts": 100}`` plays at most 100 games
    at every table where ``mcts`` sits (``--agent-games mcts=100``)."""

    def __post_init__(self) -> None:
        for agent, n in self.agent_games.items():
            if agent not in self.agents:
                raise ConfigError(
                    f"agent_games names {agent!r}, which is not playing; agents: "
                    + ", ".join(self.agents)
                )
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ConfigError(f"agent_games[{agent!r}] must be a positive int, got {n!r}")
        if len(set(self.agents)) != len(self.agents):
            raise ConfigError(f"an agent is listed twice: {list(self.agents)}")
        if len(self.agents) < 2:
            raise ConfigError("the arena needs at least two agents")
        if self.games < 1:
            raise ConfigError(f"games must be at least 1, got {self.games}")
        if "num_players" in self.env_kwargs:
            raise ConfigError("set the number of players with players=, not env_kwargs")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["agents"] = list(self.agents)
        return data

    def games_at(self, table: Sequence[str]) -> int:
        """Games to play at ``table``: ``games``, or less if a slow agent sits there."""
        return min(
            [self.games, *(self.agent_games[a] for a in set(table) if a in self.agent_games)]
        )


def schedule(config: ArenaConfig) -> list[GameTask]:
    """All games of a run, each with its seeds (derived from the run seed and game id)."""
    tasks = []
    game_id = 0
    for t, table in enumerate(tables(config.agents, config.players)):
        orders = seat_orders(table)
        for g in range(config.games_at(table)):
            state = np.random.SeedSequence([config.seed, game_id]).generate_state(
                1 + config.players
            )
            tasks.append(
                GameTask(
                    game_id=game_id,
                    table=t,
                    seats=orders[g % len(orders)],
                    seed=int(state[0]),
                    agent_seeds=tuple(int(s) for s in state[1:]),
                )
            )
            game_id += 1
    return tasks


# --------------------------------------------------------------------------- playing
_ENV_CACHE: dict[str, Any] = {}
_PPO_CACHE: dict[tuple[str, str], Any] = {}


def _agent_for(spec: str, env_name: str, rng: np.random.Generator) -> Any:
    if spec.startswith("ppo:"):
        # loading a network per game is slow: reuse it, with this game's generator
        key = (spec, env_name)
        if key not in _PPO_CACHE:
            _PPO_CACHE[key] = resolve_agent(spec, env_name, rng)
        agent = _PPO_CACHE[key]
        if hasattr(agent, "rng"):
            agent.rng = rng
        return agent
    return resolve_agent(spec, env_name, rng)


def play_game(
    env_name: str,
    env_kwargs: dict[str, Any],
    seats: Sequence[str],
    seed: int,
    agent_seeds: Sequence[int],
    env: Any = None,
) -> dict[str, Any]:
    """Play one game and return its record (a saved game, see :mod:`.replay`)."""
    if env is None:
        env = make_env(env_name, num_players=len(seats), **env_kwargs)
    started = time.perf_counter()
    env.reset(seed=int(seed))
    agents = [
        _agent_for(spec, env_name, np.random.default_rng(int(s)))
        for spec, s in zip(seats, agent_seeds, strict=True)
    ]
    actions: list[int] = []
    forfeit: int | None = None
    error: str | None = None
    limit = env.info.max_game_length
    while True:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            break
        seat = env.possible_agents.index(name)
        try:
            action = select_action(agents[seat], env, name, env_name=env_name)
        except IllegalActionError as exc:
            forfeit, error = seat, str(exc)
            break
        env.step(action)
        actions.append(action)
        if len(actions) > limit:
            raise RuntimeError(
                f"{env_name} game with seed {seed} exceeded max_game_length={limit} steps"
            )
    n = len(seats)
    truncated = forfeit is None and any(env.truncations.values())
    if forfeit is not None:
        winners = [s for s in range(n) if s != forfeit]
    elif truncated:
        winners = []
    else:
        winners = [env.possible_agents.index(a) for a in env.winners()]
    return {
        "env": env_name,
        "env_kwargs": {"num_players": n, **env_kwargs},
        "seed": int(seed),
        "agents": list(seats),
        "agent_seeds": [int(s) for s in agent_seeds],
        "actions": actions,
        "winners": winners,
        "scores": final_scores(env),
        "truncated": truncated,
        "forfeit": forfeit,
        "error": error,
        "seconds": round(time.perf_counter() - started, 4),
    }


def _play_task(env_name: str, env_kwargs: dict[str, Any], task: GameTask) -> dict[str, Any]:
    key = json.dumps([env_name, len(task.seats), env_kwargs], sort_keys=True)
    if key not in _ENV_CACHE:
        _ENV_CACHE[key] = make_env(env_name, num_players=len(task.seats), **env_kwargs)
    try:
        record = play_game(
            env_name, env_kwargs, task.seats, task.seed, task.agent_seeds, _ENV_CACHE[key]
        )
    except Exception as exc:
        raise RuntimeError(
            f"game {task.game_id} ({' vs '.join(task.seats)}, seed {task.seed}) failed: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    return {"game_id": task.game_id, "table": task.table, **record}


# --------------------------------------------------------------------------- files
def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and os.replace."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o644)  # mkstemp's 0600 would hide results from others
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def read_records(path: Path) -> list[dict[str, Any]]:
    """The complete game records of a ``games.jsonl`` (a torn last line is ignored)."""
    records = []
    if not Path(path).exists():
        return records
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break  # torn write of an interrupted run
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                break
    return records


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
            yield _play_task(config.env, config.env_kwargs, task)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: set[Future] = set()
        queue = iter(todo)
        try:
            # keep a bounded number of games in flight so an interruption loses little
            for task in itertools.islice(queue, 4 * workers):
                pending.add(pool.submit(_play_task, config.env, config.env_kwargs, task))
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
                    task = next(queue, None)
                    if task is not None:
                        pending.add(pool.submit(_play_task, config.env, config.env_kwargs, task))
        finally:
            for future in pending:
                future.cancel()


# --------------------------------------------------------------------------- summaries
def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def summarize(config: ArenaConfig, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Win rates, scores, head-to-head results, seat statistics and ratings of a run."""
    agents = list(config.agents)
    index = {a: i for i, a in enumerate(agents)}
    n_seats = config.players
    credit = {a: 0.0 for a in agents}
    count = {a: 0 for a in agents}
    scores: dict[str, list[float]] = {a: [] for a in agents}
    margins: dict[str, list[float]] = {a: [] for a in agents}
    seat_games = {a: [0] * n_seats for a in agents}
    seat_credit = {a: [0.0] * n_seats for a in agents}
    overall_seat_credit = [0.0] * n_seats
    h2h_score: dict[tuple[str, str], float] = {}
    h2h_count: dict[tuple[str, str], int] = {}
    h2h_points: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    """(own score, own score - opponent's) in each comparison with final scores."""
    pairs: list[PairResult] = []
    forfeits, truncated, missing_scores = 0, 0, 0
    for r in sorted(records, key=lambda rec: rec["game_id"]):
        seats = r["agents"]
        credits = win_credits(r["winners"], n_seats)
        game_scores = r.get("scores")
        forfeits += r.get("forfeit") is not None
        truncated += bool(r.get("truncated"))
        if game_scores is None:
            missing_scores += 1
        for s, a in enumerate(seats):
            credit[a] += credits[s]
            count[a] += 1
            seat_games[a][s] += 1
            seat_credit[a][s] += credits[s]
            overall_seat_credit[s] += credits[s]
            if game_scores is not None:
                scores[a].append(game_scores[s])
                others = [game_scores[o] for o in range(n_seats) if o != s]
                margins[a].append(game_scores[s] - max(others))
        ranks = table_ranks(r["winners"], n_seats, game_scores)
        for sa, sb, score, weight in table_pairwise(ranks):
            a, b = seats[sa], seats[sb]
            if a == b:
                continue
            pairs.append(PairResult(index[a], index[b], score, weight))
            for x, y, sc in ((a, b, score), (b, a, 1.0 - score)):
                h2h_score[(x, y)] = h2h_score.get((x, y), 0.0) + sc
                h2h_count[(x, y)] = h2h_count.get((x, y), 0) + 1
            if game_scores is not None:
                pa, pb = float(game_scores[sa]), float(game_scores[sb])
                h2h_points[(a, b)].append((pa, pa - pb))
                h2h_points[(b, a)].append((pb, pb - pa))
    anchor_name = "random" if "random" in index else agents[0]
    fit = fit_bradley_terry(pairs, len(agents), anchor=index[anchor_name])
    rows = []
    for a in agents:
        i = index[a]
        lo, hi = wilson_interval(credit[a], count[a])
        r_lo, r_hi = fit.interval(i)
        rows.append(
            {
                "agent": a,
                "games": count[a],
                "win_rate": credit[a] / count[a] if count[a] else None,
                "win_lo": lo,
                "win_hi": hi,
                "mean_score": _mean(scores[a]),
                "mean_margin": _mean(margins[a]),
                "rating": fit.ratings[i],
                "rating_se": fit.std_errors[i],
                "rating_lo": r_lo,
                "rating_hi": r_hi,
                "seat_games": seat_games[a],
                "seat_win_rate": [
                    c / g if g else None for c, g in zip(seat_credit[a], seat_games[a], strict=True)
                ],
            }
        )
    head_to_head = []
    for (a, b), k in sorted(h2h_count.items(), key=lambda kv: (index[kv[0][0]], index[kv[0][1]])):
        lo, hi = wilson_interval(h2h_score[(a, b)], k)
        points = np.array(h2h_points.get((a, b), []), dtype=np.float64).reshape(-1, 2)
        n = len(points)
        head_to_head.append(
            {
                "agent": a,
                "opponent": b,
                "games": k,
                "win_rate": h2h_score[(a, b)] / k,
                "win_lo": lo,
                "win_hi": hi,
                "mean_score": float(points[:, 0].mean()) if n else None,
                "mean_margin": float(points[:, 1].mean()) if n else None,
                "margin_se": float(points[:, 1].std(ddof=1) / np.sqrt(n)) if n > 1 else None,
            }
        )
    total = len(records)
    notes = [
        "win rate: draws and shared wins count 1/k for k winners; interval: Wilson 95%",
        f"ratings: Bradley-Terry maximum likelihood on the Elo scale, {anchor_name} = 0, "
        "weak N(0, 1000^2) prior; +-1.96 standard errors from the observed information",
    ]
    if n_seats > 2:
        notes.append(
            "tables of more than two players are decomposed into pairwise results by final "
            "rank (winners first, then score), each weighted 1/(players-1) for the ratings; "
            "head-to-head intervals count each comparison as one game, so they are too narrow"
        )
    if missing_scores:
        notes.append(
            f"{missing_scores} of {total} games have no final scores (the environment has no "
            "final_scores()); mean score and margin omit them"
        )
    unbalanced = sorted(
        {config.games_at(t) for t in tables(config.agents, n_seats)} if n_seats else set()
    )
    if any(g % n_seats for g in unbalanced):
        notes.append(
            f"games per table ({', '.join(map(str, unbalanced))}) are not all a multiple of "
            f"{n_seats} players: seats are not exactly balanced"
        )
    if config.agent_games:
        limits = ", ".join(f"{a}: {n}" for a, n in config.agent_games.items())
        notes.append(f"fewer games at the tables of slow agents ({limits} per table)")
    if forfeits:
        notes.append(f"{forfeits} games ended by an illegal action (a forfeit)")
    if truncated:
        notes.append(f"{truncated} games were truncated (counted as draws)")
    for a, b in itertools.combinations(agents, 2):
        k = h2h_count.get((a, b), 0)
        if k and h2h_score[(a, b)] in (0.0, float(k)):
            winner = a if h2h_score[(a, b)] else b
            notes.append(
                f"{winner} won every comparison between {a} and {b}: the size of its rating "
                "gap is set by the prior, not the data"
            )
    expected = len(schedule(config))
    return {
        "config": config.to_json(),
        "games_played": total,
        "games_scheduled": expected,
        "complete": total == expected,
        "agents": rows,
        "head_to_head": head_to_head,
        "seat_win_rate": [c / total if total else None for c in overall_seat_credit],
        "anchor": anchor_name,
        "notes": notes,
    }


_RESULT_COLUMNS = ("games", "win_rate", "win_lo", "win_hi", "mean_score", "mean_margin")
"""What summary.csv (per agent) and pairwise.csv (per agent and opponent) both report."""
SUMMARY_COLUMNS = ("agent", *_RESULT_COLUMNS, "rating", "rating_se", "rating_lo", "rating_hi")
PAIRWISE_COLUMNS = ("agent", "opponent", *_RESULT_COLUMNS, "margin_se")


def _csv(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row[c] is None else row[c] for c in columns])
    return buf.getvalue()


def write_outputs(summary: dict[str, Any], out_dir: str | Path) -> None:
    """Write summary.csv, pairwise.csv, results.json and ratings.png atomically."""
    out = Path(out_dir)
    atomic_write_text(out / "summary.csv", _csv(summary["agents"], SUMMARY_COLUMNS))
    atomic_write_text(out / "pairwise.csv", _csv(summary["head_to_head"], PAIRWISE_COLUMNS))
    atomic_write_text(out / "results.json", json.dumps(summary, indent=2) + "\n")
    atomic_write_bytes(out / "ratings.png", ratings_plot(summary))


def ratings_plot(summary: dict[str, Any]) -> bytes:
    """A PNG of every agent's rating with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    rows = sorted(summary["agents"], key=lambda r: r["rating"])
    fig = Figure(figsize=(6.4, 0.6 * len(rows) + 1.4), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    ratings = [r["rating"] for r in rows]
    errors = [1.959963984540054 * r["rating_se"] for r in rows]
    ax.errorbar(ratings, y, xerr=errors, fmt="o", capsize=4, color="tab:blue")
    ax.set_yticks(y, [r["agent"] for r in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.axvline(0.0, color="grey", linewidth=0.8, linestyle="--")
    config = summary["config"]
    ax.set_xlabel(f"Elo (Bradley-Terry, {summary['anchor']} = 0), 95% interval")
    ax.set_title(
        f"{config['env']}, {config['players']} players, {summary['games_played']} games",
        fontsize=10,
    )
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def format_table(summary: dict[str, Any]) -> str:
    """The summary as a Markdown table (what the CLI prints and the README shows)."""

    def num(x: float | None, spec: str) -> str:
        return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)

    lines = [
        "| agent | games | win rate (95% CI) | mean score | mean margin | Elo ± s.e. |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for r in sorted(summary["agents"], key=lambda r: -r["rating"]):
        lines.append(
            f"| {r['agent']} | {r['games']} | {num(r['win_rate'], '.3f')} "
            f"({r['win_lo']:.3f}–{r['win_hi']:.3f}) | {num(r['mean_score'], '.1f')} | "
            f"{num(r['mean_margin'], '+.1f')} | {r['rating']:.0f} ± {r['rating_se']:.0f} |"
        )
    return "\n".join(lines)


__all__ = [
    "ArenaConfig",
    "ArenaRun",
    "GameTask",
    "atomic_write_bytes",
    "atomic_write_text",
    "available_agents",
    "final_scores",
    "format_table",
    "game_name",
    "make_env",
    "parse_agent_spec",
    "play_game",
    "read_records",
    "resolve_agent",
    "run_arena",
    "schedule",
    "seat_orders",
    "summarize",
    "tables",
    "write_outputs",
]
