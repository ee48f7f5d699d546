"""The batched self-play collector and the trainer on it (``baselines/ppo/batched.py``)."""

from __future__ import annotations

import importlib
import os
import signal
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
from tabletop_rl.baselines.ppo.batched import BatchedCollector  # noqa: E402
from tabletop_rl.baselines.ppo.checkpoint import (  # noqa: E402
    load_checkpoint,
    save_checkpoint,
)
from tabletop_rl.baselines.ppo.config import (  # noqa: E402
    apply_overrides,
    load_config,
)
from tabletop_rl.baselines.ppo.rollout import LEARNER  # noqa: E402
from tabletop_rl.envs import make  # noqa: E402
from tabletop_rl.envs.errors import ConfigError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
cli_process = importlib.import_module("cli_runner").cli_process
_collector = importlib.import_module("collectors").make_collector

TOY = "tabletop_rl.baselines.ppo.toy:TicTacToeEnv"
CARDS = str(ROOT / "configs" / "qwirkle_cards_selfplay.yaml")
LINIELL = str(ROOT / "configs" / "liniell_selfplay.yaml")
TINY = ["--network", "mlp", "--hidden_sizes", "[16]", "--num_envs", "6", "--rollout_steps", "8"]
TINY += ["--update_epochs", "2", "--num_minibatches", "2", "--eval_every", "0"]
TINY += ["--eval_games", "4", "--eval_opponents", "[random]", "--progress_bar", "false"]
TINY += ["--max_minutes", "0", "--num_workers", "0"]
"""Overrides that make a self-play config a run of seconds."""


# --------------------------------------------------------------- transitions
def _deal(setup: Any) -> tuple[int, tuple[str, ...]]:
    """A game's deal as the reference replays it: its ``env_seed`` and who plays each seat."""
    return setup.env_seed, tuple(setup.controllers)


class _Recorder:
    """Records every batch step of a collector (its actions, the games it stepped, the
    collection it belongs to) and every game's deal (per slot, in order)."""

    def __init__(self, collector: BatchedCollector) -> None:
        self.steps: list[tuple[int, np.ndarray, np.ndarray]] = []
        self.deals = [[_deal(slot.setup)] for slot in collector.slots]
        self.collections = 0
        games, n = collector.games, collector.games.num_envs
        step, new_game = games.step, collector._new_game

        def recording_step(actions: np.ndarray, active: np.ndarray | None = None) -> Any:
            stepped = np.ones(n, dtype=np.bool_) if active is None else active.copy()
            self.steps.append((self.collections, actions.copy(), stepped))
            return step(actions, active)

        def recording_new_game(i: int) -> None:
            new_game(i)
            self.deals[i].append(_deal(collector.slots[i].setup))

        games.step = recording_step  # type: ignore[method-assign]
        collector._new_game = recording_new_game  # type: ignore[method-assign]

    def collect(self, collector: BatchedCollector, rounds: int) -> tuple[Any, Any]:
        out = collector.collect(rounds)
        self.collections += 1
        return out


def _reference(collector: BatchedCollector, recorder: _Recorder) -> list[list[tuple[Any, ...]]]:
    """The transitions of the recorded games replayed one by one on the game model, each
    game dealt from its setup's ``env_seed``: per collection, the learner's rows finalised
    in it, per stream (slot, seat) in time order."""
    games = collector.games
    model, n, p = games.model, games.num_envs, games.num_players
    score = collector.cfg.env_kwargs.get("reward") == "score"
    per_collect: list[dict[int, list[tuple[Any, ...]]]] = [
        defaultdict(list) for _ in range(recorder.collections)
    ]
    for i in range(n):
        deals = iter(recorder.deals[i])
        state, over, controllers = None, True, ()
        pending: dict[int, list[Any]] = {}  # learner seat -> [obs, mask, action, reward]
        for c, step_actions, stepped in recorder.steps:
            if not stepped[i]:
                continue
            if over:  # the first step, and the step after a game's end, start a game
                env_seed, controllers = next(deals)
                state, over = model.new_state(np.random.default_rng(env_seed)), False
                continue
            seat = model.current_player(state)
            a = int(step_actions[i])
            if controllers[seat] == LEARNER:  # the learner's transitions only
                if seat in pending:  # the seat acts again: its last transition is final
                    obs, mask, pa, r = pending.pop(seat)
                    per_collect[c][i * p + seat].append((obs, mask, pa, r, 0.0))
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
                    obs, mask, pa, r = pending[s]
                    done = 1.0 if result.game_over else 0.0
                    per_collect[c][i * p + s].append((obs, mask, pa, r, done))
                pending, over = {}, True
    return [[row for key in sorted(c) for row in c[key]] for c in per_collect]


SCRIPTED_MIX = {"self": 1.0, "random": 1.0, "greedy": 1.0}
"""Self-play and scripted opponents, a batch form (random) and, but in Liniell with
features, an agent asked game by game (greedy)."""


@pytest.mark.parametrize(
    ("env", "env_kwargs", "opponents"),
    [
        # multi-part turns, points during the game; opponents move several times in a row
        ("qwirkle_cards_v0", {"reward": "score"}, {"self": 1.0}),
        ("qwirkle_cards_v0", {"reward": "score"}, SCRIPTED_MIX),
        ("qwirkle_cards_v0", {"reward": "score"}, {"greedy": 1.0}),
        # the game ends on one seat's move, the opponent's too: both seats get it
        ("liniell_v0", {"reward": "win"}, {"self": 1.0}),
        ("liniell_v0", {"reward": "win", "features": True}, SCRIPTED_MIX),
        ("qwirkle_v0", {"reward": "score"}, {"self": 1.0}),
        ("qwirkle_v0", {"reward": "score"}, {"self": 1.0, "random": 1.0}),
        # a game of one's own, on its game model
        (TOY, {}, {"self": 1.0, "random": 1.0, "tactics": 1.0}),
    ],
)
def test_batched_transitions_equal_the_games_played_one_by_one(
    env: str, env_kwargs: dict[str, Any], opponents: dict[str, float]
) -> None:
    collector = _collector(env, env_kwargs, opponents=opponents)
    recorder = _Recorder(collector)
    n = collector.games.num_envs
    rounds, batches, ends = 40, [], 0
    while ends < 2 or len(batches) < 3:  # through game ends, autoresets and carried rows
        batch, stats = recorder.collect(collector, rounds)
        batches.append(batch)
        ends += len(stats.games)
        # the opponents move inside the round: every round is a decision in every game
        assert stats.decisions == rounds * n
        assert len(batches) < 40, "no game ended"
    expected = _reference(collector, recorder)
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
    if set(opponents) != {"self"}:  # some opponent moved several times between two rounds
        partial = [not stepped.all() for _c, _a, stepped in recorder.steps]
        runs = "".join("p" if x else "." for x in partial).split(".")
        assert max(len(r) for r in runs) >= 2


def test_symmetry_frames_hold_each_decision_and_the_real_action_is_played() -> None:
    collector = _collector("qwirkle_v0", {"reward": "score"}, symmetry_augmentation=True)
    sym = collector.symmetries
    assert sym is not None
    recorder = _Recorder(collector)
    batches = [recorder.collect(collector, 12)[0] for _ in range(2)]
    frames = set()
    for batch, rows in zip(batches, _reference(collector, recorder), strict=True):
        assert len(batch) == len(rows) > 0
        for k, (obs, mask, action, reward, done) in enumerate(rows):
            seen = [
                g
                for g in range(len(sym))
                if np.array_equal(batch.obs[k], sym.transform_obs(g, obs))
                and np.array_equal(batch.masks[k], sym.transform_mask(g, mask))
                and sym.to_env_action(g, int(batch.actions[k])) == action
            ]
            assert seen, f"row {k} is its position in no frame"
            frames.update(seen)
            assert batch.rewards[k] == pytest.approx(reward) and batch.dones[k] == done
    assert len(frames) > 1  # not only the identity


def test_a_game_of_ones_own_trains_and_resumes_on_the_batch(tmp_path: Path) -> None:
    args = [*TINY, "--env", TOY, "--env_kwargs", "{}", "--opponents", "{self: 1, random: 1}"]
    args += ["--total_steps", "150", "--checkpoint_every", "1", "--anneal_lr", "false"]
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    assert train.main([CARDS, *args, "--run_dir", str(straight)]) == 0
    assert train.main([CARDS, *args, "--total_steps", "60", "--run_dir", str(resumed)]) == 0
    assert train.main([CARDS, *args, "--run_dir", str(resumed), "--resume"]) == 0
    a, b = load_checkpoint(straight), load_checkpoint(resumed)
    assert a["collector"]["kind"] == "batched" and a["collector"]["games"] is None
    assert a["update"] == b["update"] and a["global_step"] == b["global_step"]
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), key


def test_resuming_a_slot_path_checkpoint_says_why_not(tmp_path: Path) -> None:
    run = tmp_path / "run"
    args = [*TINY, "--env", TOY, "--env_kwargs", "{}", "--total_steps", "20"]
    args += ["--run_dir", str(run)]
    assert train.main([CARDS, *args]) == 0
    state = load_checkpoint(run)
    # a slot-path collector's state: the games as setups and network actions, no kind
    state["collector"] = {k: v for k, v in state["collector"].items() if k != "kind"}
    save_checkpoint(state, run / "checkpoint.pt")
    before = (run / "checkpoint.pt").read_bytes()
    with pytest.raises(ConfigError, match="collected on the slot path.*start a new run"):
        train.train(apply_overrides(load_config(CARDS), args), resume=True)
    assert (run / "checkpoint.pt").read_bytes() == before  # nothing written


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
    with cli_process(args) as proc:
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
    assert proc.returncode == 128 + signal.SIGINT, err
    assert stopped_after < 15
    state = load_checkpoint(run_dir)
    assert state["update"] >= 2 and state["collector"]["kind"] == "batched"
    assert f"stopped by SIGINT at update {state['update']}" in err


# --------------------------------------------------- opponents and teachers on the batch
LINIELL_TEACHER = (
    "value:lay_turn_margin=1,lay_open_ends=1.6,occupy_turn_margin=1,skip_turn_margin=1"
)


def test_a_value_teachers_labels_are_its_best_choices_computed_in_batch() -> None:
    from tabletop_rl.baselines.agents.base import best_choices
    from tabletop_rl.baselines.arena.agent_specs import resolve_agent

    collector = _collector(
        "liniell_v0",
        {"features": True},
        opponents={"self": 1.0, "random": 1.0, "greedy": 1.0},
        teacher=LINIELL_TEACHER,
        action_features=True,
    )
    assert collector.teacher_form is not None  # labelled in batch, not game by game
    assert all(form is not None for form in collector.forms)  # random, greedy: batch forms
    teacher = resolve_agent(LINIELL_TEACHER, "liniell_v0", np.random.default_rng(0))
    batch, stats = collector.collect(60)
    assert {key for key, *_ in stats.games} & {"random", "greedy"}  # scripted games ended
    labelled = 0
    for k in range(len(batch)):
        obs = {"observation": batch.obs[k], "action_mask": batch.masks[k]}
        expected = best_choices(teacher, obs)  # what the teacher names, asked by itself
        got = tuple(int(a) for a in batch.teacher_actions[k] if a >= 0)
        assert got == expected, k
        assert all(batch.masks[k][a] for a in got), k  # legal
        labelled += bool(got)
    assert labelled == len(batch) > 0


def test_python_agents_play_the_slot_paths_games_and_resume_exactly() -> None:
    """Agents without a batch form (Qwirkle Cards' greedy, the heuristic teacher) act game
    by game on the batch: each game is the one a GameSlot plays from the same setup and the
    learner's actions, and a collector restored from a checkpoint continues exactly."""
    from tabletop_rl.baselines.ppo.rollout import GameSlot

    settings = {
        "opponents": {"greedy": 1.0, "random": 1.0},
        "teacher": "heuristic",
        "teacher_plays": 0.5,
        "pg_coef": 0.0,
    }
    env_kwargs = {"reward": "score"}
    collector = _collector("qwirkle_cards_v0", env_kwargs, **settings)
    assert collector.forms[0] is None and collector.teacher_form is None
    collector.collect(25)
    model = collector.games.model
    for i, slot in enumerate(collector.slots):
        actions = collector.replays[i]
        assert actions is not None and slot.setup is not None
        state = model.new_state(np.random.default_rng(slot.setup.env_seed))
        learner_actions = []
        for a in actions:
            if collector.who[i, model.current_player(state)] == -1:
                learner_actions.append(a)
            model.step_unchecked(state, a)
        reference = GameSlot("qwirkle_cards_v0", env_kwargs)
        reference.replay(slot.setup, learner_actions)
        for seat in range(model.num_players):
            assert np.array_equal(
                reference.model.observe(reference.state, seat), model.observe(state, seat)
            )
    saved = collector.state_dict()
    restored = _collector("qwirkle_cards_v0", env_kwargs, **settings)
    restored.gen.set_state(collector.gen.get_state())
    restored.load_state_dict(saved)
    a, _ = collector.collect(30)
    b, _ = restored.collect(30)
    assert len(a) == len(b) > 0
    for name in ("obs", "masks", "actions", "rewards", "dones", "teacher_actions"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_qwirkles_python_agents_replay_their_games_on_resume() -> None:
    """Qwirkle's greedy and heuristic are asked game by game on a copy of the game; resuming
    replays their games on the game model, where they must play as they played (the
    compiled model's views follow the views built before from the same state)."""
    settings = {"opponents": {"greedy": 1.0}, "teacher": "heuristic", "num_envs": 2}
    collector = _collector("qwirkle_v0", {"reward": "score"}, **settings)
    assert collector.forms[0] is None and collector.teacher_form is None
    collector.collect(20)
    restored = _collector("qwirkle_v0", {"reward": "score"}, **settings)
    restored.gen.set_state(collector.gen.get_state())
    restored.load_state_dict(collector.state_dict())
    a, _ = collector.collect(10)
    b, _ = restored.collect(10)
    assert len(a) == len(b) > 0
    for name in ("obs", "masks", "actions", "rewards", "dones", "teacher_actions"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_a_game_of_ones_own_collects_on_its_model_and_resumes_exactly() -> None:
    """A ``module:factory`` game is stepped on its game model, which cannot save its games:
    a checkpoint holds each game's actions since its deal, and a restored collector plays
    them again and continues exactly (mid-game, and games waiting for their first step)."""
    settings = {"opponents": {"self": 1.0, "random": 1.0, "tactics": 1.0}, "num_envs": 5}
    for rounds in (4, 7):
        collector = _collector(TOY, {}, **settings)
        assert collector.games.backend == "reference" and not collector.saves_games
        collector.collect(rounds)
        saved = collector.state_dict()
        assert saved["games"] is None and all(r is not None for r in saved["replays"])
        assert any(saved["replays"])  # games in progress, replayed on load
        restored = _collector(TOY, {}, **settings)
        restored.gen.set_state(collector.gen.get_state())
        restored.load_state_dict(saved)
        a, stats_a = collector.collect(30)
        b, stats_b = restored.collect(30)
        assert stats_a.games == stats_b.games and len(stats_a.games) > 0
        assert len(a) == len(b) > 0
        for name in ("obs", "masks", "actions", "rewards", "dones", "next_values"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
