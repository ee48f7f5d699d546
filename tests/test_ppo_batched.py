"""The batched self-play collector and the trainer on it (``baselines/ppo/batched.py``)."""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.ppo import evaluate, export, plot, train  # noqa: E402
from tabletop_rl.baselines.ppo.agent import load_ppo_agent  # noqa: E402
from tabletop_rl.baselines.ppo.batched import BatchedCollector, slot_path_reason  # noqa: E402
from tabletop_rl.baselines.ppo.checkpoint import load_checkpoint, make_network  # noqa: E402
from tabletop_rl.baselines.ppo.config import (  # noqa: E402
    apply_overrides,
    config_from_dict,
    load_config,
)
from tabletop_rl.envs import make  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
command_line = importlib.import_module("cli_runner").command_line

CARDS = str(ROOT / "configs" / "qwirkle_cards_selfplay.yaml")
LINIELL = str(ROOT / "configs" / "liniell_selfplay.yaml")
TINY = ["--network", "mlp", "--hidden_sizes", "[16]", "--num_envs", "6", "--rollout_steps", "8"]
TINY += ["--update_epochs", "2", "--num_minibatches", "2", "--eval_every", "0"]
TINY += ["--eval_games", "4", "--eval_opponents", "[random]", "--progress_bar", "false"]
TINY += ["--max_minutes", "0", "--num_workers", "0"]
"""Overrides that make a self-play config a run of seconds."""


# --------------------------------------------------------------- transitions
def _collector(env: str, env_kwargs: dict[str, Any], **cfg: Any) -> BatchedCollector:
    config = config_from_dict(
        {
            "env": env,
            "env_kwargs": env_kwargs,
            "opponents": {"self": 1.0},
            "network": "mlp",
            "hidden_sizes": [8],
            "num_envs": 3,
            **cfg,
        }
    )
    torch.manual_seed(0)
    return BatchedCollector(
        config, make_network(config), torch.Generator().manual_seed(0), lambda: make_network(config)
    )


def _reference(
    collector: BatchedCollector, actions: list[np.ndarray], rounds: int
) -> list[list[tuple[Any, ...]]]:
    """The transitions of the recorded games replayed one by one on the game model: per
    collection, the rows finalised in it, per stream (slot, seat) in time order."""
    games = collector.games
    model, n, p = games.model, games.num_envs, games.num_players
    score = collector.cfg.env_kwargs.get("reward") == "score"
    per_collect: list[dict[int, list[tuple[Any, ...]]]] = [
        defaultdict(list) for _ in range(len(actions) // rounds)
    ]
    for i in range(n):
        rng = np.random.default_rng([collector.games_seed, i])
        state, over = model.new_state(rng), False
        pending: dict[int, list[Any]] = {}  # seat -> [obs, mask, action, reward]
        for t, step_actions in enumerate(actions):
            if over:  # the step after a game's end starts the slot's next game
                state, over = model.new_state(rng), False
                continue
            seat = model.current_player(state)
            if seat in pending:  # the seat acts again: its last transition is final
                obs, mask, a, r = pending.pop(seat)
                per_collect[t // rounds][i * p + seat].append((obs, mask, a, r, 0.0))
            a = int(step_actions[i])
            pending[seat] = [
                model.observe_unchecked(state, seat),
                model.legal_mask_unchecked(state),
                a,
                0.0,
            ]
            result = model.step_unchecked(state, a)
            rewards = np.zeros(p)
            if score:
                for player, points in result.points.items():
                    rewards[player] += points
            if result.game_over or result.truncated:
                outcome = model.outcome(state)
                if not score:
                    rewards += outcome.win_rewards()
            for s, entry in pending.items():
                entry[3] += rewards[s]
            if result.game_over or result.truncated:
                for s in sorted(pending):
                    obs, mask, a, r = pending[s]
                    done = 1.0 if result.game_over else 0.0
                    per_collect[t // rounds][i * p + s].append((obs, mask, a, r, done))
                pending, over = {}, True
    return [[row for key in sorted(c) for row in c[key]] for c in per_collect]


@pytest.mark.parametrize(
    ("env", "env_kwargs"),
    [
        ("qwirkle_cards_v0", {"reward": "score"}),  # multi-part turns, points during the game
        ("liniell_v0", {"reward": "win"}),  # the game ends on one seat's move: both get it
        ("qwirkle_v0", {"reward": "score"}),
    ],
)
def test_batched_transitions_equal_the_games_played_one_by_one(
    env: str, env_kwargs: dict[str, Any]
) -> None:
    collector = _collector(env, env_kwargs)
    recorded: list[np.ndarray] = []
    step = collector.games.step

    def recording_step(actions: np.ndarray) -> Any:
        recorded.append(actions.copy())
        return step(actions)

    collector.games.step = recording_step  # type: ignore[method-assign]
    rounds, batches, ends = 40, [], 0
    while ends < 2 or len(batches) < 3:  # through game ends, autoresets and carried rows
        batch, stats = collector.collect(rounds)
        batches.append(batch)
        ends += len(stats.games)
        assert len(batches) < 40, "no game ended"
    expected = _reference(collector, recorded, rounds)
    for batch, rows in zip(batches, expected, strict=True):
        assert len(batch) == len(rows)
        for k, (obs, mask, action, reward, done) in enumerate(rows):
            assert np.array_equal(batch.obs[k], obs)
            assert np.array_equal(batch.masks[k], mask)
            assert batch.actions[k] == action
            assert batch.rewards[k] == pytest.approx(reward)
            assert batch.dones[k] == done
        # a row that continues its stream bootstraps from the value of the next row
        for k in np.flatnonzero(batch.cont):
            assert batch.next_values[k] == batch.values[k + 1]
        assert (batch.next_values[batch.dones == 1] == 0).all()


def test_self_play_configs_collect_on_the_batch_and_others_say_why_not() -> None:
    for game in ("liniell", "qwirkle", "qwirkle_cards"):
        assert slot_path_reason(load_config(ROOT / "configs" / f"{game}_selfplay.yaml")) is None
    cfg = load_config(CARDS)
    scripted = apply_overrides(cfg, ["--opponents", "{self: 0.5, greedy: 0.5}"])
    assert "['greedy']" in str(slot_path_reason(scripted))
    taught = apply_overrides(cfg, ["--teacher", "greedy"])
    assert "teacher" in str(slot_path_reason(taught))


# --------------------------------------------------------------- the trainer
class _Killed(Exception):
    pass


def test_resume_after_a_kill_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    args = [*TINY, "--total_steps", "400", "--checkpoint_every", "1", "--snapshot_every", "1"]
    args += ["--opponents", "{self: 0.5, pool: 0.5}", "--env_kwargs", "{reward: score}"]
    args += ["--relative_reward", "true", "--win_bonus", "1.0"]  # rewards on every step
    straight = tmp_path / "straight"
    train.train(apply_overrides(load_config(LINIELL), [*args, "--run_dir", str(straight)]))

    killed = tmp_path / "killed"

    def kill_after_third_update(update: int) -> None:
        if update == 3:
            raise _Killed

    cfg = apply_overrides(load_config(LINIELL), [*args, "--run_dir", str(killed)])
    with pytest.raises(_Killed):
        train.train(cfg, on_update=kill_after_third_update)
    pending = load_checkpoint(killed)["collector"]["pending"]
    assert pending["reward"].abs().sum() > 0  # the carried transitions' rewards so far
    assert train.main([LINIELL, *args, "--run_dir", str(killed), "--resume"]) == 0

    a, b = load_checkpoint(straight), load_checkpoint(killed)
    assert a["update"] == b["update"] > 3 and a["global_step"] == b["global_step"]
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), key
    assert a["collector"]["pool_ids"] == b["collector"]["pool_ids"]

    # what a run promises works on a batched run too: evaluate, export, the agent, the plot
    assert evaluate.main([str(killed), "--games", "4", "--opponents", "random"]) == 0
    assert export.main([str(killed), str(tmp_path / "policy.pt")]) == 0
    assert plot.main([str(killed), str(tmp_path / "curve.png")]) == 0
    agent = load_ppo_agent(str(tmp_path / "policy.pt"), "liniell_v0", np.random.default_rng(0))
    env = make("liniell_v0", raw=True)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs)] == 1


def test_a_time_budget_stops_the_run_inside_collection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "budget"
    args = [*TINY, "--rollout_steps", "1000000", "--max_minutes", "0.02"]
    start = time.perf_counter()
    assert train.main([CARDS, *args, "--run_dir", str(run_dir)]) == 0
    assert time.perf_counter() - start < 60  # one rollout alone would take many minutes
    state = load_checkpoint(run_dir)
    assert state["update"] == 0 and state["collector"]["kind"] == "batched"
    # the run says where its outputs are and how to use them
    err = capsys.readouterr().err
    assert f"checkpoint: {run_dir / 'checkpoint.pt'}" in err
    assert f"tabletop-rl evaluate {run_dir}" in err and f"ppo:{run_dir}" in err


def test_ctrl_c_stops_a_batched_run_with_a_checkpoint(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    args = ["train", CARDS, *TINY, "--total_steps", "100000000", "--run_dir", str(run_dir)]
    proc = subprocess.Popen(
        command_line(args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        progress = run_dir / "progress.csv"
        while proc.poll() is None and (
            not progress.exists() or len(progress.read_text().splitlines()) < 3
        ):
            assert time.monotonic() < deadline, "training did not start"
            time.sleep(0.1)
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
        stopped_after = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGINT, err
    assert stopped_after < 15
    state = load_checkpoint(run_dir)
    assert state["update"] >= 2 and state["collector"]["kind"] == "batched"
    assert f"stopped by SIGINT at update {state['update']}" in err
