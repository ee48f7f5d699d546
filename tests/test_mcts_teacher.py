"""MCTS as a kickstarting teacher: its labels are the moves it would play, it searches the
learner's real game (hidden information redrawn, observation features left out), and it says
nothing once the learner leaves the turn it planned."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tabletop_rl.baselines.agents.mcts import MCTSAgent
from tabletop_rl.baselines.agents.turns import turn_model_class
from tabletop_rl.baselines.arena.agent_specs import resolve_agent
from tabletop_rl.baselines.ppo.rollout import Decision, GameSetup, GameSlot
from tabletop_rl.envs import make
from tabletop_rl.envs.core.features import FeatureModel
from tabletop_rl.envs.core.simulator import agent_view

SMOKE = str(Path(__file__).resolve().parents[1] / "configs" / "smoke.yaml")
TEACHER = "mcts:simulations=6"
"""A cheap search: what is checked is where its labels come from, not its strength."""


def _mcts_moves(env_name: str, setup: GameSetup, count: int) -> list[int]:
    """The first ``count`` moves of seat 0 in the game the teacher plays itself there (with the
    generator the slot gives it) against the slot's scripted opponent in seat 1."""
    model = make(env_name, raw=True, num_players=2, features=True).model
    state = model.new_state(np.random.default_rng(setup.env_seed))
    teacher = resolve_agent(TEACHER, env_name, np.random.default_rng([setup.agent_seed, 1]))
    opponent = resolve_agent(
        setup.controllers[1], env_name, np.random.default_rng(setup.agent_seed)
    )
    moves: list[int] = []
    while len(moves) < count and not model.is_over(state):
        seat = model.current_player(state)
        agent = teacher if seat == 0 else opponent
        obs = {"observation": model.observe(state, seat), "action_mask": model.legal_mask(state)}
        action = int(agent.act(obs, agent_view(agent, model, state, seat, env_name)))
        if seat == 0:
            moves.append(action)
        model.step(state, action)
    return moves


@pytest.mark.parametrize("env_name", ["qwirkle_v0", "qwirkle_cards_v0", "liniell_v0"])
def test_a_learner_that_follows_the_mcts_teacher_plays_mcts_own_game(env_name: str) -> None:
    """The first label is the move the search would play: the learner that plays it,
    decision after decision, plays the game MCTS plays from the same seeds."""
    setup = GameSetup(21, 22, ("learner", "greedy"), teacher=TEACHER)
    slot = GameSlot(env_name, {"num_players": 2, "features": True})
    report = slot.reset(setup)
    labels: list[int] = []
    while isinstance(report, Decision) and len(labels) < 24:
        assert report.teacher_actions
        labels.append(report.teacher_actions[0])
        report = slot.act(report.teacher_actions[0])
    assert labels == _mcts_moves(env_name, setup, len(labels))


@pytest.mark.parametrize("env_name", ["qwirkle_v0", "qwirkle_cards_v0"])
def test_the_mcts_teacher_labels_every_order_of_the_turn_it_chose(env_name: str) -> None:
    """The order of a turn's tiles (or Qwirkles and cards) is not the search's choice: a
    learner that plays any label at every decision completes the searched turn, labelled
    throughout."""
    slot = GameSlot(env_name, {"num_players": 2})
    report = slot.reset(GameSetup(7, 8, ("learner", "greedy"), teacher=TEACHER))
    rng = np.random.default_rng(0)
    decisions = several = 0
    while isinstance(report, Decision) and decisions < 60:
        labels = report.teacher_actions
        assert labels and all(report.mask[a] for a in labels), labels
        assert len(set(labels)) == len(labels)
        decisions += 1
        several += len(labels) > 1
        report = slot.act(int(labels[rng.integers(len(labels))]))
    assert several >= 5, several


def test_the_mcts_teacher_stays_silent_once_the_learner_leaves_its_planned_turn() -> None:
    turns = turn_model_class("qwirkle_v0")()
    slot = GameSlot("qwirkle_v0", {"num_players": 2})
    report = slot.reset(GameSetup(5, 6, ("learner", "greedy"), teacher=TEACHER))
    left, planned_again = False, 0
    while isinstance(report, Decision) and planned_again < 3:
        starting = not turns.turn_started(slot.model.public_view(slot.state, report.seat))
        assert report.teacher_actions or not starting  # a turn start has its labels
        others = [int(a) for a in np.flatnonzero(report.mask) if a not in report.teacher_actions]
        if starting and left:
            planned_again += 1
        if starting and not left and len(others) > 1:
            report = slot.act(others[0])  # not the planned sub-action
            left = True
            while isinstance(report, Decision) and report.mask.sum() > 1:
                if turns.turn_started(slot.model.public_view(slot.state, report.seat)):
                    assert report.teacher_actions == ()  # the rest of that turn: no label
                else:
                    break
                report = slot.act(int(np.flatnonzero(report.mask)[-1]))
            continue
        label = report.teacher_actions
        report = slot.act(label[0] if label else int(np.flatnonzero(report.mask)[0]))
    assert left and planned_again == 3


def test_a_search_agent_simulates_the_rules_without_observation_features() -> None:
    """Observation features are computed at every observation: a search that carried them
    into its playouts would compute them whenever a playout observes."""
    model = make("qwirkle_v0", raw=True, num_players=2, features=True).model
    assert isinstance(model, FeatureModel)
    state = model.new_state(np.random.default_rng(0))
    agent = resolve_agent("mcts", "qwirkle_v0", np.random.default_rng(0))
    assert isinstance(agent, MCTSAgent)
    view = agent_view(agent, model, state, 0, "qwirkle_v0")
    game = view.sample(np.random.default_rng(1))
    assert game.model is model.base
    assert game.observe(0)["observation"].size == model.base.layout.size


@pytest.mark.parametrize(
    ("teacher", "message"),
    [
        (
            "ppo:pretrained/liniell_v0",
            "'teacher' names 'ppo:pretrained/liniell_v0', not a scripted",
        ),
        ("mcts:simulations=0", "simulations must be at least 1"),
        ("mcts:depth=3", "config key 'teacher': 'mcts:depth=3': mcts takes no option 'depth'"),
    ],
)
def test_a_teacher_is_a_scripted_agent_or_mcts_with_valid_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], teacher: str, message: str
) -> None:
    pytest.importorskip("torch")
    from tabletop_rl.baselines.ppo import train

    run = str(tmp_path / "run")
    assert train.main([SMOKE, "--teacher", teacher, "--run_dir", run]) == 2
    assert message in capsys.readouterr().err
    assert not Path(run).exists()  # refused before anything is written
