"""Evaluate a trained policy against scripted agents, with Wilson 95% intervals.

``python -m tabletop_rl.baselines.ppo.evaluate RUN_DIR --games 1000`` (or ``tabletop-rl
evaluate RUN_DIR``) plays the run's latest checkpoint against each opponent (an agent spec:
``greedy``, ``heuristic:risk=1``, ``mcts``, ...) with seats rotated (game ``g`` puts the
policy in seat ``g mod players``, every other seat is the opponent).
``tabletop-rl evaluate pretrained/liniell_v0`` evaluates the policy shipped for a game (so
does its agent spec, ``ppo:pretrained/liniell_v0``, as ``arena`` and ``play`` take it). A
game's credit is 1 for a sole win, 1/k for a win shared by k, 0 for a loss; the win rate is
the mean credit. Results are printed and written (atomically) to ``RUN_DIR/evaluation.csv``,
or to ``--out FILE`` (for a shipped policy only with ``--out``).

``tabletop-rl evaluate heuristic --env qwirkle_v0 --opponents greedy`` puts an agent in the
policy's seat instead: the same games (deals, seats and the opponents' generators, for the
same ``--games`` and ``--seed``) that every policy of the game is evaluated on, so its row is
a reference for theirs, free of the luck of the deal.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from tabletop_rl.envs.core.files import atomic_write_text
from tabletop_rl.envs.errors import ConfigError

from ..agents import agent_names, make_agent
from ..arena.agent_specs import check_agent_specs, observation_kwargs
from ..arguments import CommandParser, fail
from ..stats import wilson_interval, win_credits
from .checkpoint import (
    CHECKPOINT_NAME,
    PRETRAINED_DIR,
    checkpoint_path,
    load_checkpoint,
    network_from_checkpoint,
)
from .rollout import LEARNER, Decision, GameOver, GameSetup, VecGames
from .selfplay import policy_step


@dataclass(frozen=True)
class MatchResult:
    """The policy's results against one opponent."""

    opponent: str
    games: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_length: float
    credits: tuple[float, ...]
    """Each game's credit, in game order: game ``g`` is the same deal and seat for every
    player evaluated with the same seed, so two players' credits pair up game by game."""


def play_matches(
    net: nn.Module | str,
    env: str,
    env_kwargs: dict[str, Any],
    opponent: str,
    games: int,
    seed: int,
    deterministic: bool = True,
    num_workers: int = 0,
    num_slots: int = 64,
) -> MatchResult:
    """Play ``games`` games of ``net`` against ``opponent`` (an agent spec), seats rotated.

    ``net`` may be an agent spec instead of a network: that agent then takes the policy's
    seat in the very same games (the same deals, seats and opponent generators), a reference
    to read the policy's results against.
    """
    player = net if isinstance(net, str) else LEARNER
    vec = VecGames(env, env_kwargs, max(1, min(num_slots, games)), num_workers)
    try:
        n = vec.num_players
        seeds = np.random.default_rng([seed, 7]).integers(2**31, size=(games, 2))
        gen = torch.Generator().manual_seed(seed)
        credits = np.zeros(games)
        lengths = np.zeros(games)
        slot_game: list[int | None] = [None] * vec.num_slots
        reports: list[Any] = [None] * vec.num_slots
        next_game = finished = 0
        while finished < games:
            commands: list[tuple[str, Any]] = [("idle", None)] * vec.num_slots
            deciding = []
            for i, report in enumerate(reports):
                if isinstance(report, Decision):
                    deciding.append(i)
                elif next_game < games:
                    g = next_game
                    next_game += 1
                    controllers = tuple(player if seat == g % n else opponent for seat in range(n))
                    slot_game[i] = g
                    commands[i] = (
                        "reset",
                        GameSetup(int(seeds[g, 0]), int(seeds[g, 1]), controllers),
                    )
            if deciding:
                assert isinstance(net, nn.Module)
                obs = np.stack([reports[i].obs for i in deciding])
                masks = np.stack([reports[i].mask for i in deciding])
                actions, _, _ = policy_step(net, obs, masks, gen, greedy=deterministic)
                for j, i in enumerate(deciding):
                    commands[i] = ("act", int(actions[j]))
            reports = vec.run(commands)
            for i, report in enumerate(reports):
                if isinstance(report, GameOver):
                    g = slot_game[i]
                    assert g is not None
                    credits[g] = win_credits(report.winners, n)[g % n]
                    lengths[g] = report.length
                    finished += 1
    finally:
        vec.close()
    lo, hi = wilson_interval(float(credits.sum()), games)
    return MatchResult(
        opponent, games, float(credits.mean()), lo, hi, float(lengths.mean()), tuple(credits)
    )


def evaluate_against(
    net: nn.Module,
    env: str,
    env_kwargs: dict[str, Any],
    opponents: list[str],
    games: int,
    seed: int,
    deterministic: bool = True,
    num_workers: int = 0,
) -> list[MatchResult]:
    """:func:`play_matches` against each opponent that exists for ``env`` (others skipped)."""
    return [
        play_matches(net, env, env_kwargs, name, games, seed, deterministic, num_workers)
        for name in opponents
        if agent_available(name, env)
    ]


def agent_available(name: str, env: str) -> bool:
    """Whether scripted agent ``name`` can be built for ``env``."""
    if name not in agent_names(env):
        return False
    try:
        make_agent(name, env, np.random.default_rng(0))
    except (ImportError, AttributeError):
        return False
    return True


def checkpoint_label(state: dict[str, Any]) -> str:
    """Which point of training a loaded checkpoint holds: its update, step and training time.

    >>> checkpoint_label({"update": 12, "global_step": 49152, "time": 95.0, "cpu_time": 180.0})
    'update 12, step 49,152, 1.6 min of training (3.0 CPU-min)'
    """
    text = f"update {int(state['update'])}, step {int(state['global_step']):,}"
    if "time" in state:
        text += f", {float(state['time']) / 60:.1f} min of training"
        if "cpu_time" in state:
            text += f" ({float(state['cpu_time']) / 60:.1f} CPU-min)"
    return text


def format_results(results: list[MatchResult]) -> str:
    lines = [f"{'opponent':<10} {'games':>6} {'win rate':>9}  95% CI (Wilson)    mean length"]
    for r in results:
        lines.append(
            f"{r.opponent:<10} {r.games:>6} {r.win_rate:>9.3f}  [{r.ci_low:.3f}, {r.ci_high:.3f}]"
            f"     {r.mean_length:.1f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(prog="tabletop-rl evaluate", description=__doc__.split("\n")[0])
    parser.add_argument(
        "run_dir",
        help="run directory, checkpoint file, or pretrained/<env name> (a shipped policy), "
        "with or without the agent spec's ppo: in front; with --env, an agent spec instead "
        "(e.g. heuristic, greedy, heuristic:risk=1) that takes the policy's seat in the same "
        "games",
    )
    parser.add_argument(
        "--env",
        default=None,
        help="evaluate the agent spec RUN_DIR in this game (its default players), on the games "
        "a policy of that game is evaluated on with the same --seed and --games",
    )
    parser.add_argument("--games", type=int, default=1000, help="games per opponent")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["random", "greedy"],
        help="agent specs: scripted agents, with options after a colon (e.g. "
        "heuristic:risk=1), mcts, or value:FIELD=WEIGHT,...",
    )
    parser.add_argument("--seed", type=int, default=12345, help="seed of the evaluation games")
    parser.add_argument("--workers", type=int, default=2, help="subprocesses stepping games")
    parser.add_argument("--sample", action="store_true", help="sample instead of the mode")
    parser.add_argument(
        "--out",
        default=None,
        help="CSV file for the results (default RUN_DIR/evaluation.csv; for a shipped policy "
        "or an agent spec, only printed unless given)",
    )
    args = parser.parse_args(argv)
    if args.games <= 0:
        parser.error("--games must be > 0")
    player: nn.Module | str
    if args.env is not None:
        env, player = args.env, args.run_dir
        try:
            check_agent_specs([player], env)
            # a ppo: agent reads the observation its policy was trained on
            env_kwargs = observation_kwargs([player, *args.opponents], env)
        except ConfigError as exc:
            fail(parser.prog, f"{exc} (with --env, RUN_DIR is an agent spec)")
        heading = f"{env}: {player} in the policy's seat"
        default_out = None
    else:
        # the policy's agent spec (ppo:PATH) names the same checkpoint as PATH
        policy = args.run_dir.removeprefix("ppo:")
        try:
            state = load_checkpoint(policy)
        except ConfigError as exc:
            fail(
                parser.prog,
                f"{exc}; give a training run folder (where `tabletop-rl train` wrote "
                f"{CHECKPOINT_NAME}) or a checkpoint file, or an agent spec with --env",
            )
        try:
            cfg, player = network_from_checkpoint(state, f"checkpoint {policy!r}")
        except ConfigError as exc:
            fail(parser.prog, str(exc))
        env, env_kwargs = cfg.env, cfg.env_kwargs
        source = checkpoint_path(policy)
        heading = f"{env}: {source} ({checkpoint_label(state)})"
        default_out = None if source.parent == PRETRAINED_DIR else source.parent / "evaluation.csv"
    try:
        check_agent_specs(args.opponents, env)
    except ConfigError as exc:
        parser.error(f"--opponents: {exc}")
    results = [
        play_matches(
            player, env, env_kwargs, opponent, args.games, args.seed, not args.sample, args.workers
        )
        for opponent in args.opponents
    ]
    print(heading)
    print(format_results(results))
    out = Path(args.out) if args.out else default_out
    if out is None:
        print("(pass --out FILE to keep these results in a CSV file)")
        return 0
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(["opponent", "games", "win_rate", "ci_low", "ci_high", "mean_length"])
    for r in results:
        writer.writerow([r.opponent, r.games, r.win_rate, r.ci_low, r.ci_high, r.mean_length])
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, text.getvalue())
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
