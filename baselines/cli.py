"""The ``tabletop-rl`` command line.

Subcommands:

- ``arena``: agents play each other; win rates with Wilson intervals, Bradley–Terry ratings.
- ``replay``: print a saved game turn by turn, ``--gif`` writes an animation.
- ``play``: play against agents in the terminal.
- ``train`` / ``evaluate`` / ``clone`` / ``export``: PPO, behaviour cloning and policy files
  (need the ``baselines`` extra); arguments are passed on to the modules of
  ``tabletop_rl.baselines.ppo`` of the same names unchanged.

>>> main(["arena", "--env", "no_such_env", "--agents", "random", "greedy"])
Traceback (most recent call last):
...
SystemExit: 2
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import TextIO

from tabletop_rl.envs.errors import TabletopError

from .arguments import CommandParser

FORWARDED = {
    "train": "tabletop_rl.baselines.ppo.train",
    "evaluate": "tabletop_rl.baselines.ppo.evaluate",
    "clone": "tabletop_rl.baselines.ppo.clone",
    "export": "tabletop_rl.baselines.ppo.export",
}


def _env_kwargs(items: Sequence[str]) -> dict[str, object]:
    from .arena.agent_specs import parse_value

    kwargs: dict[str, object] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"--env-arg wants KEY=VALUE, got {item!r}")
        kwargs[key] = parse_value(value)
    return kwargs


def _agent_games(items: Sequence[str]) -> dict[str, int]:
    limits: dict[str, int] = {}
    for item in items:
        agent, eq, value = item.rpartition("=")
        if not eq or not agent or not value.isdigit():
            raise ValueError(f"--agent-games wants AGENT=N, got {item!r}")
        limits[agent] = int(value)
    return limits


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="tabletop-rl",
        description="Arena, replays and human play for the tabletop-rl environments.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    arena = sub.add_parser(
        "arena",
        help="play agents against each other and rate them",
        description="Every pairing (2 players) or table (3-4 players) plays --games games "
        "with seats rotated; results go to --out (resumable).",
    )
    arena.add_argument("--env", required=True, help="environment name, e.g. liniell_v0")
    arena.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help="agent specs: random, greedy, heuristic, mcts[:simulations=N,...], "
        "value:FIELD=WEIGHT,..., ppo:PATH, rllib:PATH",
    )
    arena.add_argument("--games", type=int, default=100, help="games per pairing or table")
    arena.add_argument("--players", type=int, default=2, help="players per game (2-4)")
    arena.add_argument("--seed", type=int, default=0, help="seed of the whole run")
    arena.add_argument("--workers", type=int, default=2, help="worker processes")
    arena.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="play the games on Ray: a local instance, or the cluster at ADDRESS",
    )
    arena.add_argument("--out", default=None, help="output folder (default arena/ENV_Np)")
    arena.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE")
    arena.add_argument(
        "--agent-games",
        action="append",
        default=[],
        metavar="AGENT=N",
        help="at most N games at each table of a slow agent, e.g. mcts=100",
    )
    arena.add_argument("--fresh", action="store_true", help="discard a previous run in --out")
    arena.add_argument("--no-progress", action="store_true", help="no progress bar")

    replay = sub.add_parser("replay", help="print a saved game turn by turn")
    replay.add_argument("file", help="a saved game (.json) or an arena games.jsonl")
    replay.add_argument("--game", type=int, default=None, help="game id in a games.jsonl")
    replay.add_argument("--gif", default=None, metavar="OUT", help="write an animated GIF")
    replay.add_argument("--fps", type=float, default=2.0, help="GIF frames per second")
    replay.add_argument("--moves-only", action="store_true", help="do not print the boards")

    play = sub.add_parser("play", help="play against agents in the terminal")
    play.add_argument("--env", required=True, help="environment name")
    play.add_argument(
        "--opponents", nargs="+", default=["greedy"], help="one agent spec per opponent"
    )
    play.add_argument(
        "--seat",
        type=int,
        default=0,
        help="your seat, 0 to players-1 (seat 0 does not always move first: the starting "
        "player is drawn at random, in the Qwirkle games among the largest starting sets)",
    )
    play.add_argument("--hint", action="store_true", help="allow the 'hint' command")
    play.add_argument("--hint-agent", default=None, help="agent spec that gives hints")
    play.add_argument("--seed", type=int, default=None, help="seed of the game")
    play.add_argument("--save", default=None, metavar="FILE", help="save the game for replay")

    for name in FORWARDED:
        sub.add_parser(name, help=f"PPO {name} (arguments passed on unchanged)", add_help=False)
    return parser


def _forward(command: str, argv: list[str]) -> int:
    try:
        module = importlib.import_module(FORWARDED[command])
    except ImportError as exc:
        print(
            f"tabletop-rl {command} needs the baselines extra (pip install -e '.[baselines]'): "
            f"{exc}",
            file=sys.stderr,
        )
        return 2
    return int(module.main(argv) or 0)


def _arena(args: argparse.Namespace, out: TextIO) -> int:
    from pathlib import Path

    from .arena import ArenaConfig, format_table, run_arena
    from .arena.agent_specs import observation_kwargs

    config = ArenaConfig(
        env=args.env,
        agents=tuple(args.agents),
        games=args.games,
        players=args.players,
        seed=args.seed,
        env_kwargs={**observation_kwargs(args.agents, args.env), **_env_kwargs(args.env_arg)},
        agent_games=_agent_games(args.agent_games),
    )
    folder = Path(args.out or f"arena/{args.env}_{args.players}p")
    run = run_arena(
        config,
        folder,
        workers=args.workers,
        progress=not args.no_progress,
        fresh=args.fresh,
        ray_address=args.ray,
    )
    if run.summary is None:
        out.write("no games were played\n")
        return 1
    out.write(format_table(run.summary) + "\n\n")
    for note in run.summary["notes"]:
        out.write(f"- {note}\n")
    for skipped in run.skipped_outputs:
        out.write(f"- {skipped}\n")
    out.write(f"\n{run.played} games played now, {len(run.records)} in all; results in {folder}\n")
    return 0


def _validate_env(parser: argparse.ArgumentParser, name: str) -> None:
    """An unknown registry name is a usage error (a ``module:factory`` is checked on use)."""
    if ":" in name:
        return
    from tabletop_rl.envs.registry import game_spec

    try:
        game_spec(name)
    except TabletopError as exc:
        parser.error(str(exc))


def main(
    argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Run the command line; ``stdin``/``stdout`` default to the process's streams."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in FORWARDED:
        return _forward(args_list[0], args_list[1:])
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.command in ("arena", "play"):
        _validate_env(parser, args.env)
    try:
        if args.command == "arena":
            return _arena(args, stdout)
        if args.command == "replay":
            from . import replay

            return replay.main(args, stdout)
        if args.command == "play":
            from . import play

            return play.main(args, stdin, stdout)
    except (TabletopError, ValueError) as exc:
        print(f"tabletop-rl {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ntabletop-rl {args.command}: interrupted", file=sys.stderr)
        return 130
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
