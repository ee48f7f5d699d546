"""MCTS as a kickstarting teacher: its labels are the moves it would play, it searches the
learner's real game (hidden information redrawn, observation features left out), and it says
nothing once the learner leaves the turn it planned."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tabletop_rl.baselines.agents.mcts import MCTSAgent
from tabletop_rl.baselines.agents.turns import turn_model_class
from tabletop_rl.baselines.arena.agent_specs import resolve_agent
from tabletop_rl.envs import make
from tabletop_rl.envs.core.features import FeatureModel
from tabletop_rl.envs.core.simulator import agent_view

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
collectors = importlib.import_module("collectors")

SMOKE = str(Path(__file__).resolve().parents[1] / "configs" / "smoke.yaml")
TEACHER = "mcts:simulations=6"
"""A cheap search: what is checked is where its labels come from, not its strength."""


def _taught(env_name: str, teacher_plays: float, env_kwargs: dict[str, Any]) -> Any:
    """A collector of one game of the learner, taught by :data:`TEACHER`, against greedy;
    ``teacher_plays`` of its decisions play one of the teacher's labels."""
    pytest.importorskip("torch")
    settings = {"teacher": TEACHER, "teacher_plays": teacher_plays, "pg_coef": 0.0}
    return collectors.make_collector(
        env_name,
        {"num_players": 2, **env_kwargs},
        opponents={"greedy": 1.0},
        num_envs=1,
        **settings,
    )


@pytest.mark.parametrize(
    ("env_name", "rounds"), [("qwirkle_v0", 24), ("qwirkle_cards_v0", 24), ("liniell_v0", 8)]
)
def test_a_learner_that_follows_the_mcts_teacher_plays_mcts_own_game(
    env_name: str, rounds: int
) -> None:
    """The labels are the moves the search would play: a learner that plays one of them at
    every decision plays, turn by turn, the game MCTS plays in its seat from the same seeds
    (the order of a turn's parts is not the search's choice)."""
    collector = _taught(env_name, 1.0, {"features": True})
    collector.collect(rounds)
    model, setup = collector.games.model, collector.slots[0].setup
    learner = collector.slots[0].primary
    # MCTS's own game, beside the learner's: the search decides in the learner's seat (with
    # the generator the collector gives the teacher), the other seat plays what the
    # opponent played in the learner's game
    search = resolve_agent(TEACHER, env_name, np.random.default_rng([setup.agent_seed, 1]))
    taught = model.new_state(np.random.default_rng(setup.env_seed))
    own = model.new_state(np.random.default_rng(setup.env_seed))
    turns, last = 0, -1
    for k, a in enumerate(collector.replays[0]):
        seat = model.current_player(own)
        if seat != last:  # a turn starts: the same position in both games
            assert model.current_player(taught) == seat, f"action {k}"
            assert np.array_equal(model.observe(taught, seat), model.observe(own, seat)), k
            turns += 1
        last = seat
        model.step(taught, a)
        if seat == learner:
            obs = {"observation": model.observe(own, seat), "action_mask": model.legal_mask(own)}
            # the collector hands its Python agents a copy of the game (VectorGames.state)
            a = int(search.act(obs, agent_view(search, model, model.copy(own), seat, env_name)))
        model.step(own, a)
    assert turns >= 6


@pytest.mark.parametrize("env_name", ["qwirkle_v0", "qwirkle_cards_v0"])
def test_the_mcts_teacher_labels_every_order_of_the_turn_it_chose(env_name: str) -> None:
    """The order of a turn's tiles (or Qwirkles and cards) is not the search's choice: a
    learner that plays any label at every decision completes the searched turn, labelled
    throughout."""
    collector = _taught(env_name, 1.0, {})
    batch, _ = collector.collect(60)
    decisions = collectors.learner_decisions(collector, batch)
    for d in decisions:
        assert d.labels and all(d.mask[a] for a in d.labels), d.labels
        assert d.action in d.labels
    assert len(decisions) >= 50
    assert sum(len(d.labels) > 1 for d in decisions) >= 5


def test_the_mcts_teacher_stays_silent_once_the_learner_leaves_its_planned_turn() -> None:
    """A learner that plays its own action now and then leaves the searched turn: the rest of
    that turn has no label, and the search plans again at the next turn."""
    turns = turn_model_class("qwirkle_v0")()
    collector = _taught("qwirkle_v0", 0.5, {})
    batch, _ = collector.collect(50)
    left = silent = planned_again = 0
    outside = False  # the learner left the turn it is in
    for d in collectors.learner_decisions(collector, batch):
        starting = not turns.turn_started(collector.games.model.public_view(d.state, d.seat))
        if starting:
            assert d.labels  # a turn start has its labels
            planned_again += left > 0
            outside = False
        elif outside:
            assert d.labels == ()  # the rest of that turn: no label
            silent += 1
        if not outside and d.action not in d.labels:
            outside = True
            left += 1
    assert left >= 3 and silent >= 3 and planned_again >= 3, (left, silent, planned_again)


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
