"""Saved games replay deterministically; a game that does not reproduce is an error."""

from __future__ import annotations

import importlib
import io
import json
import sys
from pathlib import Path

import pytest

from tabletop_rl.baselines.arena import ArenaConfig, run_arena
from tabletop_rl.baselines.cli import main as cli_main
from tabletop_rl.baselines.replay import (
    ReplayMismatchError,
    load_game,
    print_replay,
    record_game,
    resimulate,
    save_game,
    write_gif,
)
from tabletop_rl.envs import ConfigError, available_envs

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
importlib.import_module("toy_games")
TOY = "toy_games:raw_env"


@pytest.mark.parametrize("env_name", [*available_envs(), TOY])
def test_recorded_games_resimulate_to_the_same_outcome(env_name: str, tmp_path: Path) -> None:
    for seed in range(2):
        record = record_game(env_name, ["random", "random"], seed=seed)
        path = tmp_path / f"game{seed}.json"
        save_game(record, path)
        loaded = load_game(path)
        assert loaded == json.loads(json.dumps(record))
        env = resimulate(loaded)
        assert any(env.terminations.values()) or any(env.truncations.values())


def _toy_record() -> dict:
    return record_game(TOY, ["mcts:simulations=10", "random"], seed=4, env_kwargs={})


def test_mismatches_are_clear_errors() -> None:
    record = _toy_record()
    resimulate(record)
    wrong_winner = dict(record, winners=[1 - record["winners"][0]])
    with pytest.raises(ReplayMismatchError, match="winners differ"):
        resimulate(wrong_winner)
    wrong_scores = dict(record, scores=[s + 1 for s in record["scores"]])
    with pytest.raises(ReplayMismatchError, match="scores differ"):
        resimulate(wrong_scores)
    with pytest.raises(ReplayMismatchError, match="not over"):
        resimulate(dict(record, actions=record["actions"][:-1]))
    with pytest.raises(ReplayMismatchError, match="ended after"):
        resimulate(dict(record, actions=[*record["actions"], 0]))
    bad = list(record["actions"])
    bad[0] = 3  # "pass" is illegal with cards in hand
    with pytest.raises(ReplayMismatchError, match="refused on re-simulation"):
        resimulate(dict(record, actions=bad))
    other_seed = dict(record, seed=record["seed"] + 1)
    with pytest.raises(ReplayMismatchError):
        resimulate(other_seed)


def test_print_replay_shows_every_move_and_the_result() -> None:
    record = _toy_record()
    out = io.StringIO()
    print_replay(record, out)
    text = out.getvalue()
    assert text.count("\n  player_") == len(record["actions"])
    assert "--- turn 1:" in text and "counter 11" in text
    assert "wins" in text or "draw" in text


def test_gif_has_a_frame_per_turn(tmp_path: Path) -> None:
    from PIL import Image

    record = _toy_record()
    n = write_gif(record, tmp_path / "game.gif")
    assert n == len(record["actions"]) + 1  # one move per turn in the toy game
    with Image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames == n


def test_replay_command_reads_an_arena_game(tmp_path: Path) -> None:
    config = ArenaConfig(env=TOY, agents=("random", "mcts:simulations=4"), games=2)
    run_arena(config, tmp_path, progress=False)
    out = io.StringIO()
    games = str(tmp_path / "games.jsonl")
    gif = str(tmp_path / "g.gif")
    assert cli_main(["replay", games, "--game", "1", "--gif", gif], stdout=out) == 0
    assert "=== end of game ===" in out.getvalue() and Path(gif).exists()
    with pytest.raises(ConfigError, match="--game"):
        load_game(games)
    with pytest.raises(ConfigError, match="no game with id 7"):
        load_game(games, 7)
