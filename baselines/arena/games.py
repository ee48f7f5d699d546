"""Playing one arena game and keeping its record.

A game record is self-contained: the environment and its arguments, the seeds, the agent
specs by seat, every action, the winners, the final scores and whether the game was
truncated or forfeited. It is a saved game for :mod:`tabletop_rl.baselines.replay`. An agent
that returns an illegal action forfeits the game (the other seats share the win).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_rl.envs.core.simulator import select_action
from tabletop_rl.envs.errors import IllegalActionError
from tabletop_rl.envs.registry import make

from .agent_specs import resolve_agent
from .schedule import GameTask


def final_scores(env: Any) -> list[float] | None:
    """Every seat's final score, if the environment exposes one (``final_scores()``)."""
    method = getattr(env, "final_scores", None)
    if callable(method):
        values = method()
        if isinstance(values, dict):
            return [float(values[a]) for a in env.possible_agents]
        return [float(v) for v in values]
    return None


_ENV_CACHE: dict[str, Any] = {}
_PPO_CACHE: dict[tuple[str, str], Any] = {}


def _agent_for(spec: str, env_name: str, rng: np.random.Generator) -> Any:
    if spec.startswith(("ppo:", "rllib:")):
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
        env = make(env_name, raw=True, num_players=len(seats), **env_kwargs)
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


def play_task(env_name: str, env_kwargs: dict[str, Any], task: GameTask) -> dict[str, Any]:
    """Play a scheduled game (reusing this process's environment) and return its record."""
    key = json.dumps([env_name, len(task.seats), env_kwargs], sort_keys=True)
    if key not in _ENV_CACHE:
        _ENV_CACHE[key] = make(env_name, raw=True, num_players=len(task.seats), **env_kwargs)
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


__all__ = ["final_scores", "play_game", "play_task", "read_records"]
