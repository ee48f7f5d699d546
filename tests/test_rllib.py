"""RLlib on a local Ray: the multi-agent env, a short masked PPO self-play run (games sampled
by a Ray env-runner actor, as on a cluster), its checkpoint
as an arena agent, and the arena's games spread over Ray with the same results and resume.

Needs the ``rllib`` extra, whose Ray pins gymnasium 1.2.2: CI runs this file in a second
virtual environment (see ``.ci/run``); elsewhere it is skipped.
"""

from __future__ import annotations

import importlib
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from tabletop_rl.baselines import rllib  # noqa: E402
from tabletop_rl.baselines.arena import ArenaConfig, run_arena  # noqa: E402
from tabletop_rl.baselines.cli import build_parser  # noqa: E402
from tabletop_rl.envs import available_envs  # noqa: E402

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
readme_blocks = importlib.import_module("readme_blocks")
library_block, page_blocks = readme_blocks.library_block, readme_blocks.page_blocks


@pytest.mark.parametrize("name", available_envs())
@pytest.mark.parametrize("players", [2, 4])
def test_multi_agent_env_gives_each_seat_its_own_turns_and_rewards(name: str, players: int) -> None:
    env = rllib.RLlibGameEnv({"env": name, "num_players": players})
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=3)
    totals = dict.fromkeys(env.agents, 0.0)
    for _ in range(5000):
        assert len(obs) == 1
        ((mover, seen),) = obs.items()
        assert seen in env.observation_spaces[mover]
        action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
        obs, rewards, terminateds, truncateds, _infos = env.step({mover: action})
        assert set(rewards) == set(env.agents)
        for agent, reward in rewards.items():
            totals[agent] += reward
        if terminateds["__all__"] or truncateds["__all__"]:
            break
    assert set(obs) == set(env.agents), "every seat sees the end of the game"
    winners = {env.agents[i] for i in range(players) if totals[env.agents[i]] == 1.0}
    assert set(env.game.winners()) == winners or all(v == 0.0 for v in totals.values())


def test_illegal_action_ends_the_game_for_that_seat() -> None:
    env = rllib.RLlibGameEnv({"env": "liniell_v0"})
    obs, _ = env.reset(seed=0)
    ((mover, seen),) = obs.items()
    bad = int(np.flatnonzero(seen["action_mask"] == 0)[0])
    _obs, rewards, terminateds, _truncs, infos = env.step({mover: bad})
    assert terminateds["__all__"] and rewards[mover] == -1.0 and "illegal_action" in infos[mover]


def test_seat_policy_mapping() -> None:
    ids, mapping = rllib.seat_policy_mapping(3, shared=True)
    assert ids == ["main"] and {mapping(a, None) for a in ("player_0", "player_2")} == {"main"}
    ids, mapping = rllib.seat_policy_mapping(3, shared=False)
    assert ids == ["seat_0", "seat_1", "seat_2"] and mapping("player_2", None) == "seat_2"


def _comparable(records: list[dict[str, Any]]) -> list[tuple]:
    """Everything in the game records but the time each game took."""
    rows = [sorted((k, str(v)) for k, v in r.items() if k != "seconds") for r in records]
    return sorted(tuple(row) for row in rows)


def test_training_checkpoint_plays_in_the_arena_on_ray(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    ckpt = tmp_path / "rllib_liniell"
    argv = ["--env", "liniell_v0", "--iterations", "2", "--out", str(ckpt), "--env-runners", "1"]
    argv += ["--train-batch-size", "200", "--minibatch-size", "64", "--num-epochs", "1"]
    assert rllib.main(argv) == 0
    assert (ckpt / "progress.json").is_file()

    agent = rllib.RLlibAgent(ckpt, np.random.default_rng(0))
    mask = np.zeros(209, dtype=np.int8)
    mask[[3, 17]] = 1
    obs = {"observation": np.zeros(2707, dtype=np.float32), "action_mask": mask}
    assert agent.act(obs) in (3, 17)

    config = ArenaConfig(env="liniell_v0", agents=(f"rllib:{ckpt}", "random"), games=4, seed=5)
    local = run_arena(config, tmp_path / "local", workers=1, progress=False)
    # On Ray: two games, then a resume for the rest.
    first = run_arena(
        config, tmp_path / "ray", workers=2, progress=False, max_new_games=2, ray_address="local"
    )
    assert first.played == 2 and not first.complete
    resumed = run_arena(config, tmp_path / "ray", workers=2, progress=False, ray_address="local")
    assert resumed.played == 2 and resumed.complete
    assert _comparable(resumed.records) == _comparable(local.records)
    assert resumed.summary is not None and local.summary is not None
    assert resumed.summary["agents"] == local.summary["agents"]


def test_readme_rllib_snippets(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's Python snippet runs; the integrations page's commands parse with the real
    command lines."""
    torch.set_num_threads(1)
    exec(compile(library_block("RLlib"), "README: RLlib", "exec"), {})
    assert "env steps" in capsys.readouterr().out
    (bash,) = page_blocks("RLlib", "bash")
    commands = [shlex.split(line) for line in bash.splitlines()]
    assert commands[0][:3] == ["python", "-m", "tabletop_rl.baselines.rllib"]
    args = rllib.build_parser().parse_args(commands[0][3:])
    assert args.env == "liniell_v0" and args.out is not None
    assert commands[1][:2] == ["tabletop-rl", "arena"]
    arena = build_parser().parse_args(commands[1][1:])
    assert arena.ray == "local" and f"rllib:{args.out}" in arena.agents
