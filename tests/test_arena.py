"""The arena: seating, seeds, resume, outputs, statistics, and every agent's conformance."""

from __future__ import annotations

import copy
import csv
import importlib
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tabletop_rl.baselines import arena
from tabletop_rl.baselines.agents import agent_names
from tabletop_rl.baselines.arena import (
    ArenaConfig,
    parse_agent_spec,
    play_game,
    read_records,
    resolve_agent,
    run_arena,
    schedule,
    seat_orders,
    summarize,
    tables,
)
from tabletop_rl.baselines.stats import wilson_interval
from tabletop_rl.envs import ConfigError, available_envs, make
from tabletop_rl.envs.core import files
from tabletop_rl.envs.core.simulator import select_action

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
toy_games = importlib.import_module("toy_games")
TOY = "toy_games:raw_env"
FAST_MCTS = "mcts:simulations=2,max_rollout_steps=10"


# ------------------------------------------------------------------ seating and seeds
@pytest.mark.parametrize(("num_agents", "players"), [(3, 2), (4, 3), (5, 4), (2, 3), (2, 4)])
def test_every_agent_plays_every_seat_equally(num_agents: int, players: int) -> None:
    agents = tuple(f"a{i}" for i in range(num_agents))
    config = ArenaConfig(env=TOY, agents=agents, games=2 * players, players=players)
    tasks = schedule(config)
    seats: Counter = Counter()
    for task in tasks:
        assert len(task.seats) == players
        for s, a in enumerate(task.seats):
            seats[(a, s)] += 1
    per_agent = {a: [seats[(a, s)] for s in range(players)] for a in agents}
    for counts in per_agent.values():
        assert len(set(counts)) == 1 and counts[0] > 0
    # every pairing or table plays the same number of games
    assert Counter(t.table for t in tasks) == dict.fromkeys(
        range(len(tables(agents, players))), 2 * players
    )


def test_tables_cover_every_combination() -> None:
    assert tables(("a", "b", "c"), 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert len(tables(("a", "b", "c", "d"), 3)) == 4
    assert tables(("a", "b"), 3) == [("a", "a", "b"), ("a", "b", "b")]
    orders = seat_orders(("a", "b", "c", "d"))
    assert len(orders) == 24 and len(set(orders)) == 24


def test_seeds_are_recorded_distinct_and_reproducible() -> None:
    config = ArenaConfig(env=TOY, agents=("random", "mcts"), games=50)
    tasks = schedule(config)
    assert len({t.seed for t in tasks}) == len(tasks)
    assert schedule(config) == tasks
    other = schedule(ArenaConfig(env=TOY, agents=("random", "mcts"), games=50, seed=1))
    assert [t.seed for t in other] != [t.seed for t in tasks]


def test_agent_specs() -> None:
    assert parse_agent_spec("greedy") == ("greedy", {})
    assert parse_agent_spec("mcts:c=1.5,rollout=random,time_ms=none") == (
        "mcts",
        {"c": 1.5, "rollout": "random", "time_ms": None},
    )
    with pytest.raises(ConfigError, match="key=value"):
        parse_agent_spec("mcts:simulations")
    with pytest.raises(ConfigError, match="no agent 'nobody'"):
        resolve_agent("nobody", TOY, np.random.default_rng(0))
    with pytest.raises(ConfigError, match="mcts takes no option .depth.; allowed: simulations"):
        resolve_agent("mcts:depth=3", TOY, np.random.default_rng(0))
    with pytest.raises(ConfigError, match="listed twice"):
        ArenaConfig(env=TOY, agents=("random", "random"), games=2)


# ------------------------------------------------------------------ running and resuming
def _comparable(records: list[dict]) -> list[dict]:
    return sorted(
        ({k: v for k, v in r.items() if k != "seconds"} for r in records),
        key=lambda r: r["game_id"],
    )


CONFIG = ArenaConfig(env=TOY, agents=("random", "mcts:simulations=8"), games=6, seed=5)


def test_resume_plays_only_missing_games_and_matches_an_uninterrupted_run(
    tmp_path: Path,
) -> None:
    whole = run_arena(CONFIG, tmp_path / "whole", progress=False)
    assert whole.complete and whole.played == 6

    first_ids: list[int] = []
    part = run_arena(
        CONFIG,
        tmp_path / "part",
        progress=False,
        max_new_games=4,
        on_record=lambda r: first_ids.append(r["game_id"]),
    )
    assert part.played == 4 and not part.complete
    assert not part.summary["complete"]
    # an interruption in the middle of a write leaves a torn last line
    with open(tmp_path / "part" / "games.jsonl", "a") as f:
        f.write('{"game_id": 4, "trunc')
    second_ids: list[int] = []
    rest = run_arena(
        CONFIG,
        tmp_path / "part",
        progress=False,
        on_record=lambda r: second_ids.append(r["game_id"]),
    )
    assert rest.played == 2 and rest.complete
    assert not set(first_ids) & set(second_ids)
    assert sorted(first_ids + second_ids) == list(range(6))
    assert _comparable(rest.records) == _comparable(whole.records)
    on_disk = read_records(tmp_path / "part" / "games.jsonl")
    assert _comparable(on_disk) == _comparable(whole.records)
    # a third call has nothing left to play
    again = run_arena(CONFIG, tmp_path / "part", progress=False)
    assert again.played == 0
    assert again.summary["agents"] == whole.summary["agents"]


def test_resume_refuses_a_different_run(tmp_path: Path) -> None:
    run_arena(CONFIG, tmp_path, progress=False, max_new_games=1)
    other = ArenaConfig(env=TOY, agents=("random", "mcts:simulations=8"), games=8, seed=5)
    with pytest.raises(ConfigError, match="different arena run"):
        run_arena(other, tmp_path, progress=False)
    assert run_arena(other, tmp_path, progress=False, fresh=True, max_new_games=1).played == 1


def test_two_workers_give_the_same_results(tmp_path: Path) -> None:
    config = ArenaConfig(env=TOY, agents=("random", "mcts:simulations=4"), games=6, players=3)
    one = run_arena(config, tmp_path / "one", progress=False, workers=1)
    two = run_arena(config, tmp_path / "two", progress=False, workers=2)
    assert _comparable(one.records) == _comparable(two.records)


def test_outputs_are_written(tmp_path: Path) -> None:
    run = run_arena(CONFIG, tmp_path, progress=False)
    with open(tmp_path / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["agent"] for r in rows] == list(CONFIG.agents)
    assert float(rows[0]["rating"]) == 0.0  # random is the anchor
    with open(tmp_path / "pairwise.csv") as f:
        assert len(list(csv.DictReader(f))) == 2
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["complete"] and results["games_played"] == 6
    assert results["agents"] == json.loads(json.dumps(run.summary["agents"]))
    assert (tmp_path / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(tmp_path.glob(".*tmp")), "temporary files left behind"


def test_outputs_are_replaced_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "results.json"
    arena.atomic_write_text(target, "old\n")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        arena.atomic_write_text(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


# ------------------------------------------------------------------ statistics of a run
def _record(game_id: int, seats: list[str], winners: list[int], scores: list[float]) -> dict:
    return {"game_id": game_id, "agents": seats, "winners": winners, "scores": scores}


def test_summary_on_synthetic_records_with_known_answers() -> None:
    config = ArenaConfig(env=TOY, agents=("random", "strong"), games=4)
    records = [
        _record(0, ["random", "strong"], [1], [10, 20]),
        _record(1, ["strong", "random"], [0], [30, 12]),
        _record(2, ["random", "strong"], [0, 1], [15, 15]),  # a draw counts half
        _record(3, ["strong", "random"], [1], [8, 9]),
    ]
    summary = summarize(config, records)
    rows = {r["agent"]: r for r in summary["agents"]}
    strong = rows["strong"]
    assert strong["games"] == 4 and strong["win_rate"] == pytest.approx(2.5 / 4)
    assert (strong["win_lo"], strong["win_hi"]) == pytest.approx(wilson_interval(2.5, 4))
    assert strong["mean_score"] == pytest.approx((20 + 30 + 15 + 8) / 4)
    assert strong["mean_margin"] == pytest.approx((10 + 18 + 0 - 1) / 4)
    assert rows["random"]["mean_margin"] == pytest.approx(-strong["mean_margin"])
    assert strong["seat_games"] == [2, 2] and strong["seat_win_rate"] == [0.5, 0.75]
    assert summary["seat_win_rate"] == pytest.approx([1.5 / 4, 2.5 / 4])
    assert rows["random"]["rating"] == 0.0 and strong["rating"] > 0
    # Bradley-Terry with two agents: the rating follows the head-to-head score 2.5 : 1.5
    assert strong["rating"] == pytest.approx(400 * np.log10(2.5 / 1.5), rel=0.05)
    h2h = {(h["agent"], h["opponent"]): h for h in summary["head_to_head"]}
    assert h2h[("strong", "random")]["win_rate"] == pytest.approx(0.625)
    assert h2h[("random", "strong")]["win_rate"] == pytest.approx(0.375)
    assert h2h[("strong", "random")]["mean_score"] == pytest.approx(73 / 4)
    assert h2h[("strong", "random")]["mean_margin"] == pytest.approx(27 / 4)
    assert h2h[("strong", "random")]["margin_se"] == pytest.approx(
        np.std([10, 18, 0, -1], ddof=1) / 2
    )
    assert h2h[("random", "strong")]["mean_margin"] == pytest.approx(-27 / 4)


def test_summary_notes_missing_scores_and_perfect_records() -> None:
    config = ArenaConfig(env=TOY, agents=("random", "strong"), games=3)
    records = [
        {"game_id": 0, "agents": ["random", "strong"], "winners": [1]},
        {"game_id": 1, "agents": ["strong", "random"], "winners": [0]},
        {"game_id": 2, "agents": ["random", "strong"], "winners": [1]},
    ]
    summary = summarize(config, records)
    notes = " ".join(summary["notes"])
    assert "no final scores" in notes
    assert "won every comparison" in notes
    assert "not all a multiple of 2 players" in notes
    assert {r["agent"]: r["mean_score"] for r in summary["agents"]} == {
        "random": None,
        "strong": None,
    }


def test_an_illegal_action_forfeits_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    class Cheater:
        name = "cheater"

        def act(self, observation, view=None) -> int:
            return int(np.flatnonzero(observation["action_mask"] == 0)[0])

    real = arena.resolve_agent
    monkeypatch.setattr(
        arena.games,
        "resolve_agent",
        lambda spec, env, rng: Cheater() if spec == "cheater" else real(spec, env, rng),
    )
    record = play_game(TOY, {}, ["random", "cheater"], seed=1, agent_seeds=[1, 2])
    assert record["forfeit"] == 1 and record["winners"] == [0]
    assert "not legal" in record["error"]


# ------------------------------------------------------------------ agent conformance
def _agent_specs(env_name: str) -> list[str]:
    names = agent_names(env_name) if ":" not in env_name else ["random"]
    return [*names, FAST_MCTS]


CASES = [(env, spec) for env in [*available_envs(), TOY] for spec in _agent_specs(env)]


@pytest.mark.parametrize(("env_name", "spec"), CASES)
def test_agent_plays_only_legal_actions(env_name: str, spec: str) -> None:
    games = 6 if env_name == TOY else 2
    for g in range(games):
        seats = [spec, "random"] if g % 2 == 0 else ["random", spec]
        record = play_game(env_name, {}, seats, seed=100 + g, agent_seeds=[g, g + 50])
        assert record["forfeit"] is None, record["error"]
        assert record["winners"] or record["truncated"]


@pytest.mark.parametrize(("env_name", "spec"), CASES)
def test_agent_ignores_hidden_information(env_name: str, spec: str) -> None:
    """Redealing what the player cannot see leaves a seeded agent's choices unchanged.

    At the start of some turns the game is copied twice, the hidden information of one copy
    is redealt, and two agents built with the same seed play the whole turn, one on each
    copy (so agents that plan a turn ahead are checked on every sub-action too).
    """
    env = make(env_name, raw=True, num_players=2)
    rng = np.random.default_rng(7)
    checked, game, previous = 0, 0, None
    env.reset(seed=game)
    for step in range(400):
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            game += 1
            env.reset(seed=game)
            previous = None
            continue
        obs = env.observe(name)
        if name != previous and step % 3 == 0 and obs["action_mask"].sum() > 1:
            original = copy.deepcopy(env)
            twin = copy.deepcopy(env)
            twin.resample_hidden(name, np.random.default_rng(1000 + step))
            np.testing.assert_array_equal(twin.observe(name)["observation"], obs["observation"])
            agents = [resolve_agent(spec, env_name, np.random.default_rng(3)) for _ in range(2)]
            while original.agent_selection == name and not any(original.terminations.values()):
                a = select_action(agents[0], original, name)
                b = select_action(agents[1], twin, name)
                assert a == b, f"step {step}: hidden information changed the move"
                original.step(a)
                twin.step(a)
            checked += 1
            if checked == 5:
                break
        previous = name
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked == 5


def test_arena_command(tmp_path: Path) -> None:
    import io

    from tabletop_rl.baselines.cli import main as cli_main

    argv = ["arena", "--env", TOY, "--agents", "random", "mcts:simulations=4", "--games", "4"]
    argv += ["--workers", "1", "--out", str(tmp_path), "--no-progress", "--seed", "2"]
    out = io.StringIO()
    assert cli_main(argv, stdout=out) == 0
    text = out.getvalue()
    assert "| agent | games | win rate (95% CI)" in text and "4 in all" in text
    assert json.loads((tmp_path / "run.json").read_text())["seed"] == 2
    out = io.StringIO()
    assert cli_main(argv, stdout=out) == 0  # resumed: nothing left to play
    assert "0 games played now, 4 in all" in out.getvalue()
    bad = ["arena", "--env", TOY, "--agents", "random", "--games", "2", "--out", str(tmp_path)]
    assert cli_main(bad, stdout=io.StringIO()) == 2  # one agent only: a clear error
    limited = [*argv[:8], "--workers", "1", "--no-progress", "--out", str(tmp_path / "lim")]
    limited.append("--agent-games")
    assert cli_main([*limited, "mcts:simulations=4=2"], stdout=io.StringIO()) == 0
    assert len(read_records(tmp_path / "lim" / "games.jsonl")) == 2
    assert cli_main([*limited, "mcts"], stdout=io.StringIO()) == 2


def test_slow_agents_play_fewer_games_with_seats_still_balanced() -> None:
    config = ArenaConfig(env=TOY, agents=("a", "b", "slow"), games=6, agent_games={"slow": 2})
    per_table = Counter(tuple(sorted(t.seats)) for t in schedule(config))
    assert per_table == {("a", "b"): 6, ("a", "slow"): 2, ("b", "slow"): 2}
    seats = Counter((t.seats[0], t.seats[1]) for t in schedule(config))
    assert seats[("a", "slow")] == seats[("slow", "a")] == 1
    with pytest.raises(ConfigError, match="not playing"):
        ArenaConfig(env=TOY, agents=("a", "b"), games=2, agent_games={"c": 1})
    with pytest.raises(ConfigError, match="positive int"):
        ArenaConfig(env=TOY, agents=("a", "b"), games=2, agent_games={"a": 0})
    notes = " ".join(summarize(config, [])["notes"])
    assert "fewer games at the tables of slow agents (slow: 2 per table)" in notes
