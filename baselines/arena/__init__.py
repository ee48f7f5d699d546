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
``summary.csv``, ``pairwise.csv``, ``results.json`` and ``ratings.png`` (see
:mod:`.summary`).

The parts, each in its own module:

- :mod:`.agent_specs`: the agent specs (``random``, ``mcts:simulations=100``, ``ppo:PATH``);
- :mod:`.schedule`: the tables, seat orders and seeds of a run (:class:`ArenaConfig`);
- :mod:`.games`: playing one game into a self-contained record;
- :mod:`.tournament`: playing and resuming a whole run in worker processes;
- :mod:`.summary`: win rates, ratings and the files that report them.

>>> parse_agent_spec("mcts:simulations=50,rollout=greedy")
('mcts', {'simulations': 50, 'rollout': 'greedy'})
>>> [len(seat_orders(("a", "b", "c")))] + list(seat_orders(("a", "b")))
[6, ('a', 'b'), ('b', 'a')]
"""

from __future__ import annotations

from tabletop_rl.envs.core.files import atomic_write_bytes, atomic_write_text

from .agent_specs import available_agents, game_name, parse_agent_spec, resolve_agent
from .games import final_scores, play_game, read_records
from .schedule import ArenaConfig, GameTask, schedule, seat_orders, tables
from .summary import (
    PAIRWISE_COLUMNS,
    SUMMARY_COLUMNS,
    format_table,
    ratings_plot,
    summarize,
    write_outputs,
)
from .tournament import GAMES_FILE, RUN_FILE, ArenaRun, check_run, run_arena

__all__ = [
    "GAMES_FILE",
    "PAIRWISE_COLUMNS",
    "RUN_FILE",
    "SUMMARY_COLUMNS",
    "ArenaConfig",
    "ArenaRun",
    "GameTask",
    "atomic_write_bytes",
    "atomic_write_text",
    "available_agents",
    "check_run",
    "final_scores",
    "format_table",
    "game_name",
    "parse_agent_spec",
    "play_game",
    "ratings_plot",
    "read_records",
    "resolve_agent",
    "run_arena",
    "schedule",
    "seat_orders",
    "summarize",
    "tables",
    "write_outputs",
]
