"""The feature value agent ``value:FIELD=W,...``: its choice is the highest weighted sum of the
named fields, it plays legal games wherever an agent spec is taken, it teaches, and every
mistake in its spec gets a clear error."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.baselines.agents import make_agent
from tabletop_rl.baselines.agents.feature_value import FeatureValueAgent
from tabletop_rl.baselines.arena import play_game, resolve_agent
from tabletop_rl.baselines.arena.agent_specs import available_agents, observation_kwargs
from tabletop_rl.envs import ConfigError, make

SPECS = {
    "liniell_v0": "value:lay_turn_margin=1,lay_open_ends=1.2,lay_merge_points=-5,"
    "occupy_turn_margin=1,occupy_open_ends=1.2,occupy_merge_points=-5,skip_turn_margin=1",
    "qwirkle_v0": "value:place_net=1,turn_net=1",
    "qwirkle_cards_v0": "value:action_own_lines=1,action_next_qwirkles=-0.5",
}


def positions(env_name: str, count: int, seed: int):
    """``(model, state, observation)`` at decisions of random games."""
    model = make(env_name, raw=True, num_players=2, features=True).model
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = model.new_state(rng)
        while not model.is_over(state) and len(out) < count:
            player = model.current_player(state)
            mask = model.legal_mask(state)
            obs = {"observation": model.observe(state, player), "action_mask": mask}
            if rng.random() < 0.3:
                out.append((model, obs))
            model.step(state, int(rng.choice(np.flatnonzero(mask))))
    return out


@pytest.mark.parametrize("env_name", sorted(SPECS))
def test_the_value_agent_takes_the_highest_weighted_sum(env_name: str) -> None:
    """Brute force: each legal action's value summed field by field from the named views of
    the observation, the best set compared with the agent's."""
    _, weights = SPECS[env_name].split(":")
    weight = {k: float(v) for k, v in (item.split("=") for item in weights.split(","))}
    agent = resolve_agent(SPECS[env_name], env_name, np.random.default_rng(0))
    for model, obs in positions(env_name, 25, seed=4):
        named = model.layout.decode(obs["observation"])
        groups = model.action_layout()
        offsets = {g.name: groups.slice(g.name).start for g in groups.fields}
        values = {}
        for action in np.flatnonzero(obs["action_mask"]):
            group = groups.field_at(int(action)).name
            scored = [
                weight[f.name] * float(named[f.name].reshape(-1)[action - offsets[group]])
                for f in model.layout.fields
                if f.name in weight and f.action_group == group
            ]
            if scored:
                values[int(action)] = sum(scored)
        if values:
            top = max(values.values())
            expected = sorted(a for a, v in values.items() if v >= top - 1e-6)
        else:  # no named field scores a legal action: any legal action
            expected = np.flatnonzero(obs["action_mask"]).tolist()
        assert agent.best_actions(obs) == expected
        assert agent.act(obs) in expected


@pytest.mark.parametrize("env_name", sorted(SPECS))
def test_the_value_agent_plays_arena_games_with_the_features_it_asks_for(env_name: str) -> None:
    spec = SPECS[env_name]
    assert observation_kwargs([spec, "greedy"], env_name) == {"features": True}
    assert "value:FIELD=WEIGHT,..." in available_agents(env_name)
    kwargs = observation_kwargs([spec], env_name)
    for g in range(2):
        seats = [spec, "greedy"] if g % 2 == 0 else ["greedy", spec]
        record = play_game(env_name, kwargs, seats, seed=30 + g, agent_seeds=[g, g + 9])
        assert record["forfeit"] is None, record["error"]
        assert record["winners"] or record["truncated"]


def test_greedys_margins_as_weights_play_greedys_choices() -> None:
    """Liniell's turn margins are greedy's value of every action: weight 1 on each makes an
    agent whose best actions hold greedy's choice at every decision."""
    spec = "value:lay_turn_margin=1,occupy_turn_margin=1,skip_turn_margin=1"
    agent = resolve_agent(spec, "liniell_v0", np.random.default_rng(0))
    greedy = make_agent("greedy", "liniell_v0", np.random.default_rng(1))
    model = make("liniell_v0", raw=True, num_players=2, features=True).model
    rng = np.random.default_rng(8)
    decisions = 0
    for _ in range(2):
        state = model.new_state(rng)
        while not model.is_over(state):
            player = model.current_player(state)
            obs = {
                "observation": model.observe(state, player),
                "action_mask": model.legal_mask(state),
            }
            action = int(greedy.act(obs, model.public_view(state, player)))
            assert action in agent.best_actions(obs)
            decisions += 1
            model.step(state, action)
    assert decisions > 40


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("value", "name at least one field and its weight, e.g. value:lay_legal=1"),
        ("value:lay_points=1", "'lay_points' is not a feature field that scores actions"),
        ("value:lay_gain=high", "the weight of 'lay_gain' must be a number, got 'high'"),
        ("value:lay_gain", "bad option 'lay_gain'"),
    ],
)
def test_a_bad_value_spec_says_what_is_allowed(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve_agent(spec, "liniell_v0", np.random.default_rng(0))


def test_an_observation_without_features_is_refused() -> None:
    env = make("liniell_v0", raw=True)
    env.reset(seed=0)
    agent = FeatureValueAgent(np.random.default_rng(0), "liniell_v0", {"lay_gain": 1.0})
    with pytest.raises(ConfigError, match="make the environment with features=True"):
        agent.act(env.observe(env.agent_selection))


def test_training_refuses_a_value_teacher_without_features(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    from pathlib import Path

    from tabletop_rl.baselines.ppo import train

    config = str(Path(__file__).resolve().parents[1] / "configs" / "liniell_ppo.yaml")
    args = ["--teacher", "value:lay_gain=1", "--env_kwargs", "{num_players: 2}"]
    assert train.main([config, *args, "--run_dir", str(tmp_path / "r")]) == 2
    assert "set env_kwargs: {features: true}" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
