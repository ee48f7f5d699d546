"""Saved games: record, save, load, re-simulate, print turn by turn, animate.

A saved game is a JSON object holding everything needed to play it again::

    {"env": "liniell_v0", "env_kwargs": {"num_players": 2}, "seed": 7,
     "agents": ["random", "greedy"], "actions": [12, 40, ...],
     "winners": [1], "scores": [14.0, 17.0], "truncated": false, "forfeit": null}

``agents`` names who sat where (for the record; replaying does not run them). The
environment is rebuilt, reset with ``seed`` and fed ``actions``; :func:`resimulate` checks
that every action is legal and that the game ends where and how the record says
(winners, scores), and raises :class:`ReplayMismatchError` otherwise — which means the
environment's rules or seeding changed since the game was recorded. The arena's
``games.jsonl`` holds one such record per line; pick one with ``--game ID``.

``tabletop-rl replay FILE`` prints the game turn by turn (the board before each turn as the
player to move saw it, then the moves); ``--gif OUT`` writes an animation of the
``rgb_array`` pictures, one frame per turn.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from tabletop_rl.envs.core.files import atomic_write_bytes, atomic_write_text
from tabletop_rl.envs.errors import ConfigError, IllegalActionError
from tabletop_rl.envs.registry import make

from .arena import play_game

REQUIRED = ("env", "env_kwargs", "seed", "actions")


class ReplayMismatchError(ValueError):
    """Re-simulating a saved game did not reproduce it (illegal action or another outcome)."""


def record_game(
    env_name: str,
    agents: Sequence[str],
    seed: int,
    env_kwargs: dict[str, Any] | None = None,
    agent_seeds: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Play one game between agent specs (arena syntax) and return its record."""
    from .arena.agent_specs import observation_kwargs

    kwargs = {**observation_kwargs(agents, env_name), **dict(env_kwargs or {})}
    kwargs.pop("num_players", None)
    if agent_seeds is None:
        state = np.random.SeedSequence([int(seed), 1]).generate_state(len(agents))
        agent_seeds = [int(s) for s in state]
    return play_game(env_name, kwargs, list(agents), seed, agent_seeds)


def save_game(record: dict[str, Any], path: str | Path) -> None:
    """Write a game record as JSON (atomically)."""
    _check_record(record)
    atomic_write_text(Path(path), json.dumps(record, indent=1) + "\n")


def load_game(path: str | Path, game_id: int | None = None) -> dict[str, Any]:
    """Read a saved game (a ``.json`` record, or one line of an arena ``games.jsonl``)."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"no such file: {path}")
    text = path.read_text(encoding="utf-8")
    try:
        record = json.loads(text)
    except json.JSONDecodeError:
        record = None
    if isinstance(record, dict) and game_id is None:
        _check_record(record)
        return record
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    if game_id is None:
        if len(lines) == 1:
            _check_record(lines[0])
            return lines[0]
        ids = [r.get("game_id") for r in lines[:10]]
        raise ConfigError(
            f"{path} holds {len(lines)} games; choose one with --game ID (ids like {ids})"
        )
    for r in lines:
        if r.get("game_id") == game_id:
            _check_record(r)
            return r
    raise ConfigError(f"{path} has no game with id {game_id}")


def _check_record(record: Any) -> None:
    if not isinstance(record, dict):
        raise ConfigError("a saved game must be a JSON object")
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise ConfigError(f"saved game lacks {', '.join(missing)}; needs {', '.join(REQUIRED)}")


def replay_events(env: Any, actions: Sequence[int]) -> Iterator[tuple[str, str, int | None]]:
    """Step ``env`` through ``actions``, yielding what happens.

    ``("turn", agent, None)`` comes before each turn (a maximal run of one agent's moves)
    and ``("move", agent, action)`` before each action is applied, so the consumer sees the
    position the move was made in. A refused action, or actions left after the game ended,
    raise :class:`ReplayMismatchError`.
    """
    i = 0
    while i < len(actions):
        if _over(env):
            raise ReplayMismatchError(
                f"the game ended after {i} actions but the record holds {len(actions)}"
            )
        mover = env.agent_selection
        yield "turn", mover, None
        while i < len(actions) and env.agent_selection == mover and not _over(env):
            action = int(actions[i])
            yield "move", mover, action
            try:
                env.step(action)
            except IllegalActionError as exc:
                raise ReplayMismatchError(
                    f"recorded action #{i} ({action}) is refused on re-simulation: {exc}"
                ) from exc
            i += 1


def _over(env: Any) -> bool:
    return any(env.terminations.values()) or any(env.truncations.values())


def new_env(record: dict[str, Any], render_mode: str | None = None) -> Any:
    """The record's environment, reset with its seed."""
    env = make(record["env"], raw=True, render_mode=render_mode, **record["env_kwargs"])
    env.reset(seed=int(record["seed"]))
    return env


def check_outcome(record: dict[str, Any], env: Any) -> None:
    """Raise :class:`ReplayMismatchError` unless ``env`` ended as ``record`` says."""
    from .arena import final_scores

    forfeit = record.get("forfeit")
    if forfeit is not None:
        if _over(env):
            raise ReplayMismatchError("the record ends in a forfeit but the game ended by itself")
        return
    if not _over(env):
        raise ReplayMismatchError(
            f"the game is not over after the {len(record['actions'])} recorded actions"
        )
    truncated = any(env.truncations.values())
    if "truncated" in record and bool(record["truncated"]) != truncated:
        raise ReplayMismatchError(
            f"the record says truncated={record['truncated']}, re-simulation: {truncated}"
        )
    if record.get("winners") is not None and not truncated:
        winners = sorted(env.possible_agents.index(a) for a in env.winners())
        if winners != sorted(record["winners"]):
            raise ReplayMismatchError(
                f"winners differ: recorded seats {record['winners']}, re-simulated {winners}"
            )
    if record.get("scores") is not None:
        scores = final_scores(env)
        if scores is None or not np.allclose(scores, record["scores"]):
            raise ReplayMismatchError(
                f"final scores differ: recorded {record['scores']}, re-simulated {scores}"
            )


def resimulate(record: dict[str, Any], render_mode: str | None = None) -> Any:
    """Re-play the record's actions from its seed, check the outcome, return the final env."""
    env = new_env(record, render_mode)
    for _ in replay_events(env, record["actions"]):
        pass
    check_outcome(record, env)
    return env


def _seat_label(record: dict[str, Any], env: Any, agent: str) -> str:
    seats = record.get("agents")
    seat = env.possible_agents.index(agent)
    return f"{agent} ({seats[seat]})" if seats else agent


def outcome_text(env: Any, labels: dict[str, str]) -> str:
    """``"player_1 (greedy) wins | scores 120, 131"`` for a finished game."""
    from .arena import final_scores

    scores = final_scores(env)
    score_text = "" if scores is None else " | scores " + ", ".join(f"{s:g}" for s in scores)
    if any(env.truncations.values()):
        return "truncated (turn limit): a draw" + score_text
    winners = env.winners()
    if len(winners) == env.num_players:
        return "a draw between all players" + score_text
    names = " and ".join(labels.get(a, a) for a in winners)
    return f"{names} {'win' if len(winners) > 1 else 'wins'}{score_text}"


def _outcome_text(record: dict[str, Any], env: Any) -> str:
    if record.get("forfeit") is not None:
        agent = env.possible_agents[record["forfeit"]]
        return f"{_seat_label(record, env, agent)} forfeited with an illegal action"
    labels = {a: _seat_label(record, env, a) for a in env.possible_agents}
    return outcome_text(env, labels)


def _notation(record: dict[str, Any]) -> Any:
    """The move parser of the record's game (moves are printed as a player types them)."""
    from .play import parser_for

    return parser_for(record["env"])


def turns(record: dict[str, Any], env: Any) -> Iterator[tuple[str, str]]:
    """Step ``env`` through the record turn by turn, yielding ``("start", mover)`` before a
    turn and ``("end", "MOVER_LABEL: moves")`` after it, the moves in the play notation."""
    from .play import join_moves, move_text

    parser = _notation(record)
    mover, names = None, []
    for kind, agent, action in replay_events(env, record["actions"]):
        if kind == "turn":
            if mover is not None:
                yield "end", f"{_seat_label(record, env, mover)}: {join_moves(names)}"
            mover, names = agent, []
            yield "start", agent
        else:
            names.append(move_text(parser, int(action), env))  # type: ignore[arg-type]
    if mover is not None:
        yield "end", f"{_seat_label(record, env, mover)}: {join_moves(names)}"


def print_replay(record: dict[str, Any], out: TextIO, board: bool = True) -> None:
    """Print a saved game turn by turn, moves in the play notation (it is re-simulated and
    checked on the way)."""
    env = new_env(record, render_mode="ansi" if board else None)
    seats = ", ".join(_seat_label(record, env, a) for a in env.possible_agents)
    kwargs = ", ".join(f"{k}={v}" for k, v in record["env_kwargs"].items())
    out.write(f"{record['env']} ({kwargs}), seed {record['seed']}: {seats}\n")
    turn_no = 0
    for kind, what in turns(record, env):
        if kind == "start":
            turn_no += 1
            out.write(f"\n--- turn {turn_no}: {_seat_label(record, env, what)} ---\n")
            if board:
                out.write(_plain(str(env.render()), out) + "\n")
        else:
            out.write(f"  {what}\n")
    check_outcome(record, env)
    out.write("\n=== end of game ===\n")
    if board:
        out.write(_plain(str(env.render()), out) + "\n")
    out.write(_outcome_text(record, env) + "\n")


def _plain(text: str, out: TextIO) -> str:
    """``text`` without colour codes unless ``out`` is a terminal."""
    from .play import strip_ansi

    return text if getattr(out, "isatty", lambda: False)() else strip_ansi(text)


def gif_frames(record: dict[str, Any]) -> list[np.ndarray]:
    """One ``rgb_array`` picture before each turn and one of the final position, all of one
    size; each says (below the game's own caption of turn, player to act and scores) the
    move that led to it, and the last one the outcome."""
    from tabletop_rl.envs.core.caption import add_caption, pad_to

    env = new_env(record, render_mode="rgb_array")
    pictures: list[tuple[np.ndarray, str]] = []
    last = "the game starts"
    for kind, what in turns(record, env):
        if kind == "start":
            pictures.append((np.asarray(env.render())[..., :3], f"last move: {last}"))
        else:
            last = what
    check_outcome(record, env)
    final = f"last move: {last}  |  {_outcome_text(record, env)}"
    pictures.append((np.asarray(env.render())[..., :3], final))
    # the board grows: every picture padded with its own background to the largest first
    height = max(p.shape[0] for p, _ in pictures)
    width = max(p.shape[1] for p, _ in pictures)
    frames = [add_caption(pad_to(p, height, width), [text], at_bottom=True) for p, text in pictures]
    height = max(f.shape[0] for f in frames)
    width = max(f.shape[1] for f in frames)
    return [pad_to(f, height, width) for f in frames]


def write_gif(record: dict[str, Any], path: str | Path, fps: float = 2.0) -> int:
    """Write the game as an animated GIF; returns the number of frames."""
    from PIL import Image

    images = [Image.fromarray(f) for f in gif_frames(record)]
    buf = io.BytesIO()
    duration = [int(1000 / fps)] * (len(images) - 1) + [int(3000 / fps)]
    images[0].save(
        buf, format="GIF", save_all=True, append_images=images[1:], duration=duration, loop=0
    )
    atomic_write_bytes(Path(path), buf.getvalue())
    return len(images)


def main(args: Any, out: TextIO) -> int:
    """``tabletop-rl replay``: print a saved game, optionally write a GIF."""
    record = load_game(args.file, args.game)
    print_replay(record, out, board=not args.moves_only)
    if args.gif:
        n = write_gif(record, args.gif, fps=args.fps)
        out.write(f"wrote {args.gif} ({n} frames)\n")
    return 0


__all__ = [
    "ReplayMismatchError",
    "check_outcome",
    "gif_frames",
    "load_game",
    "new_env",
    "outcome_text",
    "print_replay",
    "record_game",
    "resimulate",
    "save_game",
    "turns",
    "write_gif",
]
