"""The arena's schedule: which agents meet, in which seat orders, with which seeds.

Every pairing of the agents (two players) or every table of ``players`` agents (three or
four players; with fewer agents than seats, every multiset of agents that seats each of them
at least once) plays ``games`` games. Within a table the seat orders cycle through every
rotation of every arrangement, so when ``games`` is a multiple of the number of players
every agent plays every seat equally often. Every game has its own seeds (the environment's
and one per seat), derived from the run's seed and the game's id, so results do not depend
on the number of workers or the order in which games finish.

>>> [len(seat_orders(("a", "b", "c")))] + list(seat_orders(("a", "b")))
[6, ('a', 'b'), ('b', 'a')]
>>> tables(("random", "greedy", "mcts"), 2)
[('random', 'greedy'), ('random', 'mcts'), ('greedy', 'mcts')]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from tabletop_rl.envs.errors import ConfigError


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


__all__ = ["ArenaConfig", "GameTask", "schedule", "seat_orders", "tables"]
