"""Kickstarting and behaviour cloning: the teacher's labels, the distillation loss, the clone
command, starting PPO from a checkpoint, and resuming a kickstarted run."""

from __future__ import annotations

import csv
import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.agents import make_agent  # noqa: E402
from tabletop_rl.baselines.ppo import clone, train  # noqa: E402
from tabletop_rl.baselines.ppo.agent import load_ppo_agent  # noqa: E402
from tabletop_rl.baselines.ppo.checkpoint import (  # noqa: E402
    load_checkpoint,
    load_weights,
    make_network,
)
from tabletop_rl.baselines.ppo.config import apply_overrides, load_config  # noqa: E402
from tabletop_rl.baselines.ppo.rollout import TOY_ENV  # noqa: E402
from tabletop_rl.baselines.ppo.toy import TicTacToeModel  # noqa: E402
from tabletop_rl.envs.errors import ConfigError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
make_collector = importlib.import_module("collectors").make_collector
SMOKE = str(ROOT / "configs" / "smoke.yaml")
TOY = [
    "--env",
    TOY_ENV,
    "--opponents",
    "{self: 0.3, random: 0.7}",
    "--eval_every",
    "0",
    "--eval_games",
    "10",
    "--eval_opponents",
    "[random]",
]


def _rows(run_dir: Path) -> list[dict[str, str]]:
    with open(run_dir / "progress.csv", newline="") as f:
        return list(csv.DictReader(f))


def _held_positions(count: int, seed: int) -> list[dict]:
    """Positions where the teacher is to move in games of the teacher against a random player,
    from seeds the training never used."""
    model = TicTacToeModel()
    teacher = make_agent("tactics", TOY_ENV, np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    out: list[dict] = []
    while len(out) < count:
        state = model.new_state(rng)
        teacher_seat = int(rng.integers(2))
        while not model.is_over(state):
            seat = model.current_player(state)
            mask = model.legal_mask(state)
            if seat == teacher_seat:
                out.append({"cells": state["cells"].copy(), "turn": state["turn"]})
                action = teacher.act({"action_mask": mask}, model.public_view(state, seat))
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            model.step(state, action)
    return out[:count]


def _board(obs: np.ndarray) -> np.ndarray:
    """The tic-tac-toe board (-1 empty, else the seat that marked it) of a seat's
    observation: its own marks, the opponent's, and the number of marks (the seat to move is
    their parity)."""
    board = obs[:18].reshape(2, 9)
    seat = round(float(obs[18]) * 9) % 2
    return np.where(board[0] > 0, seat, np.where(board[1] > 0, 1 - seat, -1))


def test_the_teacher_labels_every_learner_decision_with_its_choice() -> None:
    """Every learner decision, in every seat the learner holds, is labelled with what the
    teacher plays there; a snapshot of the pool plays its seats unlabelled (no transition),
    and a run without a teacher has no labels."""
    settings = {"opponents": {"self": 1.0, "pool": 1.0, "random": 1.0}, "num_envs": 8}
    collector = make_collector(TOY_ENV, {}, teacher="tactics", **settings)
    collector.add_snapshot()
    teacher = make_agent("tactics", TOY_ENV, np.random.default_rng(0))
    batch, stats = collector.collect(20)
    assert {"self", "pool", "random"} <= {key for key, *_ in stats.games}
    assert len(batch) == stats.decisions - collector.p_has.sum()  # the learner's alone
    for k in range(len(batch)):
        obs = {"observation": batch.obs[k], "action_mask": batch.masks[k]}
        expected = teacher.act(obs, _board(batch.obs[k]))
        assert batch.teacher_actions[k].tolist() == [expected], k
    untaught = make_collector(TOY_ENV, {}, **settings)
    batch, _ = untaught.collect(10)
    assert len(batch) > 0 and (batch.teacher_actions == -1).all()


@pytest.mark.parametrize("target", ["any", "likeliest"])
def test_clone_reproduces_the_teachers_choices_on_held_positions(
    tmp_path: Path, target: str
) -> None:
    run_dir = tmp_path / "clone"
    args = [*TOY, "--teacher", "tactics", "--total_steps", "12000", "--num_workers", "0"]
    args += ["--teacher_target", target]
    args += ["--opponents", "{random: 1.0}", "--update_epochs", "4"]
    args += ["--lr", "0.003", "--rollout_steps", "16", "--num_envs", "32", "--network", "mlp"]
    args += ["--hidden_sizes", "[64, 64]"]
    assert clone.main([SMOKE, *args, "--run_dir", str(run_dir)]) == 0
    cfg = load_config(run_dir / "config.yaml")
    assert (cfg.teacher_plays, cfg.pg_coef, cfg.ent_coef) == (1.0, 0.0, 0.0)
    assert cfg.teacher_target == target
    rows = _rows(run_dir)
    assert float(rows[-1]["teacher_agreement"]) > float(rows[0]["teacher_agreement"])

    student = load_ppo_agent(str(run_dir), TOY_ENV, np.random.default_rng(0))
    teacher = make_agent("tactics", TOY_ENV, np.random.default_rng(0))
    model = TicTacToeModel()
    agree = []
    for state in _held_positions(300, seed=99):
        seat = model.current_player(state)
        obs = {"observation": model.observe(state, seat), "action_mask": model.legal_mask(state)}
        agree.append(student.act(obs) == teacher.act(obs, model.public_view(state, seat)))
    assert np.mean(agree) >= 0.9, np.mean(agree)


def test_kickstarting_anneals_the_teacher_away_and_resumes_exactly(tmp_path: Path) -> None:
    args = [*TOY, "--teacher", "tactics", "--teacher_coef", "2.0", "--teacher_decay_steps"]
    args += ["800", "--total_steps", "1600", "--checkpoint_every", "1", "--num_workers", "0"]
    straight = tmp_path / "straight"
    train.train(apply_overrides(load_config(SMOKE), [*args, "--run_dir", str(straight)]))
    rows = _rows(straight)
    weights = [float(r["teacher_coef"]) for r in rows]
    assert weights[0] == 2.0 and weights == sorted(weights, reverse=True) and weights[-1] == 0.0
    assert rows[0]["teacher_loss"] and not rows[-1]["teacher_loss"]  # no labels once at 0

    class Killed(Exception):
        pass

    def kill(update: int) -> None:
        if update == 2:
            raise Killed

    killed = tmp_path / "killed"
    with pytest.raises(Killed):
        train.train(
            apply_overrides(load_config(SMOKE), [*args, "--run_dir", str(killed)]), on_update=kill
        )
    assert train.main([SMOKE, *args, "--run_dir", str(killed), "--resume"]) == 0
    a, b = load_checkpoint(straight), load_checkpoint(killed)
    assert a["update"] == b["update"] > 2
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), key


def test_ppo_starts_from_a_clone_and_refuses_another_network(tmp_path: Path) -> None:
    source = tmp_path / "clone"
    base = [*TOY, "--teacher", "tactics", "--total_steps", "400", "--num_workers", "0"]
    assert clone.main([SMOKE, *base, "--run_dir", str(source)]) == 0
    cfg = apply_overrides(load_config(SMOKE), [*TOY, "--init_from", str(source)])
    net = make_network(cfg)
    load_weights(net, str(source), cfg)
    for key, tensor in load_checkpoint(source)["model"].items():
        assert torch.equal(net.state_dict()[key], tensor), key

    bigger = apply_overrides(cfg, ["--hidden_sizes", "[64]"])
    with pytest.raises(ConfigError, match="does not fit"):
        load_weights(make_network(bigger), str(source), bigger)
    other_game = apply_overrides(load_config(SMOKE), ["--init_from", str(source)])
    with pytest.raises(ConfigError, match="trained on"):
        load_weights(make_network(other_game), str(source), other_game)

    run = tmp_path / "ppo"
    args = [*TOY, "--init_from", str(source), "--total_steps", "300", "--num_workers", "0"]
    assert train.main([SMOKE, *args, "--run_dir", str(run)]) == 0


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["--teacher_plays", "0.5"], "needs a 'teacher'"),
        (["--teacher", "tactics", "--teacher_plays", "0.5"], "pg_coef: 0"),
        (["--pg_coef", "0"], "needs a 'teacher'"),
        (["--teacher_coef", "-1"], "must be >= 0"),
        (["--teacher", "tactics", "--symmetry_augmentation", "true"], "cannot be combined"),
    ],
)
def test_bad_teacher_settings_are_refused(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        apply_overrides(load_config(SMOKE), [*TOY, *overrides])


def test_an_unknown_teacher_and_clone_without_one_fail_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = str(tmp_path / "r")
    assert train.main([SMOKE, *TOY, "--teacher", "oracle", "--run_dir", run]) == 2
    assert "'teacher' names 'oracle'" in capsys.readouterr().err
    assert clone.main([SMOKE, *TOY, "--run_dir", run]) == 2
    assert "clone needs a teacher" in capsys.readouterr().err


@pytest.mark.parametrize("env_name", ["liniell_v0", "qwirkle_v0", "qwirkle_cards_v0"])
def test_the_heuristic_teachers_label_a_learners_games_legally(env_name: str) -> None:
    """The teacher never gives an illegal label; the Qwirkle and Qwirkle Cards heuristics
    continue whatever partial turn the learner made, so they label every decision."""
    collector = make_collector(
        env_name, {"num_players": 2}, opponents={"greedy": 1.0}, teacher="heuristic"
    )
    assert collector.teacher_form is None  # asked game by game
    batch, _ = collector.collect(30)
    labels = [[a for a in row if a >= 0] for row in batch.teacher_actions.tolist()]
    for k, best in enumerate(labels):
        assert all(batch.masks[k][a] for a in best), (k, best)
    if env_name == "liniell_v0":
        assert sum(bool(best) for best in labels) >= len(labels) // 3
    else:
        unlabelled = [k for k, best in enumerate(labels) if not best]
        assert not unlabelled, f"rows {unlabelled} of {len(labels)} have no label"
    assert len(labels) > 60


def test_the_teachers_tied_actions_are_one_label() -> None:
    """The distillation loss rewards probability on any of the teacher's best actions: a
    student that puts it all on one of two tied actions has (almost) no loss, one that puts it
    on a third action a large loss; agreement counts the most probable action in the set."""
    from tabletop_rl.baselines.ppo.distributions import MaskedCategorical
    from tabletop_rl.baselines.ppo.selfplay import padded_labels

    labels = torch.as_tensor(padded_labels([(1, 3), (2,)]))
    mask = torch.tensor([[True, True, True, True], [True, True, True, False]])
    on_a_tie = MaskedCategorical(torch.tensor([[0.0, 20.0, 0.0, 0.0], [0.0, 0.0, 20.0, 0.0]]), mask)
    elsewhere = MaskedCategorical(
        torch.tensor([[20.0, 0.0, 0.0, 0.0], [20.0, 0.0, 0.0, 0.0]]), mask
    )
    assert (-on_a_tie.log_prob_any(labels)).max().item() < 1e-6
    assert (-elsewhere.log_prob_any(labels)).min().item() > 19.0
    spread = MaskedCategorical(torch.zeros(2, 4), mask)
    assert spread.log_prob_any(labels).exp().tolist() == pytest.approx([0.5, 1 / 3])


@pytest.mark.parametrize("target", ["any", "likeliest"])
def test_the_likeliest_target_settles_on_one_of_the_teachers_actions(target: str) -> None:
    """Minimising the distillation loss from a policy that spreads over the teacher's two
    best actions, slightly below a rival: ``any`` keeps both (their sum is what it raises),
    ``likeliest`` ends with nearly all the probability on the one it started higher."""
    from tabletop_rl.baselines.ppo.distributions import MaskedCategorical
    from tabletop_rl.baselines.ppo.selfplay import padded_labels

    labels = torch.as_tensor(padded_labels([(0, 1)]))
    logits = torch.tensor([[1.0, 0.95, 1.5, -1.0]], requires_grad=True)
    optimizer = torch.optim.SGD([logits], lr=0.5)
    for _ in range(200):
        dist = MaskedCategorical(logits, torch.ones(1, 4, dtype=torch.bool))
        if target == "likeliest":
            loss = -dist.log_prob_likeliest(labels).mean()
        else:
            loss = -dist.log_prob_any(labels).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    probs = torch.softmax(logits.detach(), -1)[0].tolist()
    assert probs[0] + probs[1] > 0.95
    if target == "likeliest":
        assert probs[0] > 0.9 and probs[1] < 0.05
    else:
        assert probs[1] > 0.3


def test_an_unknown_teacher_target_is_refused() -> None:
    from tabletop_rl.baselines.ppo.config import config_from_dict

    assert config_from_dict({"teacher_target": "likeliest"}).teacher_target == "likeliest"
    with pytest.raises(ConfigError, match="'teacher_target' must be one of 'any', 'likeliest'"):
        config_from_dict({"teacher_target": "best"})


def test_the_liniell_heuristic_names_every_best_action_and_plays_one() -> None:
    """Brute force over the legal actions: the heuristic values every one of them, its best
    actions are exactly those of the highest value, and it plays one of them."""
    from tabletop_rl.envs import liniell_v0

    env = liniell_v0.raw_env()
    teacher = make_agent("heuristic", "liniell_v0", np.random.default_rng(0))
    rng = np.random.default_rng(1)
    tied = 0
    for game in range(2):
        env.reset(seed=game)
        while not any(env.terminations.values()):
            seat = env.agent_selection
            obs, view = env.observe(seat), env.public_view(seat)
            scored = dict((a, v) for v, a in teacher.scored_actions(obs, view))
            assert set(scored) == set(np.flatnonzero(obs["action_mask"]).tolist())
            best = teacher.best_actions(obs, view)
            top = max(scored.values())
            assert sorted(best) == sorted(a for a, v in scored.items() if v >= top - 1e-9)
            assert teacher.act(obs, view) in best
            tied += len(best) > 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert tied > 0  # the positions include ties, so the set labels are exercised
