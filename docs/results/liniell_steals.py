"""How Liniell games are lost: compulsory moves ("steals") by each side, in won and lost games.

A compulsory move follows a tile that joins lines occupied by different players: the player
who laid it moves a pawn onto the joined line and both old pawns go home, so the line changes
hands. This script replays an arena's ``games.jsonl`` and reports, for the games one agent
won and those it lost, the mean per game of: its compulsory moves, the opponents'
compulsory moves, its pawns on the board at the end, and both final scores.

    tabletop-rl arena --env liniell_v0 --agents ppo:runs/liniell_ppo random --games 200 \\
        --seed 5 --out arena/ppo_vs_random
    python docs/results/liniell_steals.py arena/ppo_vs_random/games.jsonl ppo:runs/liniell_ppo
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from tabletop_rl.envs import make
from tabletop_rl.envs.liniell import Phase

COLUMNS = ("own_steals", "their_steals", "pawns_placed", "score", "their_score")


def steal_table(path: str | Path, agent: str) -> dict[str, dict[str, float]]:
    """``{"won": {...}, "lost": {...}}``: games and per-game means of :data:`COLUMNS`."""
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for line in Path(path).read_text().splitlines():
        record = json.loads(line)
        if record["env"] != "liniell_v0":
            raise ValueError(f"{path}: a {record['env']} game, not liniell_v0")
        if agent not in record["agents"]:
            raise ValueError(f"{path}: {agent!r} did not play game {record.get('game_id')}")
        seat = record["agents"].index(agent)
        env = make("liniell_v0", raw=True, engine="reference", **record["env_kwargs"])
        env.reset(seed=record["seed"])
        steals = [0] * env.num_players
        for action in record["actions"]:
            if env.game_state.game.phase is Phase.MOVE:
                steals[env.game_state.game.current] += 1
            env.step(action)
        row = sums["won" if seat in record["winners"] else "lost"]
        row["games"] += 1
        row["own_steals"] += steals[seat]
        row["their_steals"] += sum(steals) - steals[seat]
        row["pawns_placed"] += sum(p >= 0 for p in env.game_state.game.board.pawns[seat])
        row["score"] += record["scores"][seat]
        row["their_score"] += max(s for i, s in enumerate(record["scores"]) if i != seat)
    return {
        outcome: {"games": row["games"], **{c: row[c] / row["games"] for c in COLUMNS}}
        for outcome, row in sums.items()
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("games", help="an arena games.jsonl of liniell_v0 games")
    parser.add_argument("agent", help="the agent spec to report on, as the arena named it")
    args = parser.parse_args(argv)
    table = steal_table(args.games, args.agent)
    print("| games | n | " + " | ".join(COLUMNS) + " |")
    print("|---|---:|" + "---:|" * len(COLUMNS))
    for outcome in ("won", "lost"):
        if outcome in table:
            row = table[outcome]
            cells = " | ".join(f"{row[c]:.2f}" for c in COLUMNS)
            print(f"| {outcome} | {int(row['games'])} | {cells} |")


if __name__ == "__main__":
    main()
