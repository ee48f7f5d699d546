"""Checks every registered environment passes, whatever the game."""

from __future__ import annotations

import inspect
from dataclasses import replace

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import render_test, seed_test

from tabletop_rl.envs import IllegalActionError, available_envs, env_module, make
from tabletop_rl.envs.core import SingleAgentEnv
from tabletop_rl.envs.core.conformance import check_env
from tabletop_rl.envs.core.docs import spec_table
from tabletop_rl.envs.core.features import FeatureModel, observation_version
from tabletop_rl.envs.core.observation import ObservationLayout

ENVS = available_envs()


@pytest.mark.parametrize("name", ENVS)
def test_conformance(name: str) -> None:
    check_env(lambda: make(name, raw=True), games=3)


@pytest.mark.parametrize("name", ENVS)
def test_docstring_is_true_to_the_spaces(name: str) -> None:
    module = env_module(name)
    env = module.raw_env()
    doc = module.__doc__ or ""
    assert spec_table(env, f"from tabletop_rl.envs import {name}") in doc
    assert env.layout.markdown_table() in doc


@pytest.mark.parametrize(
    "name", [n for n in ENVS if "features" in inspect.signature(env_module(n).raw_env).parameters]
)
def test_docstring_feature_rows_are_true_to_the_features(name: str) -> None:
    """An environment with ``features=True`` documents every feature field as a row of its
    observation table (name, shape, offset, values, meaning), as ``layout.markdown_table``
    writes it for the observation with features."""
    module = env_module(name)
    base = {f.name for f in module.raw_env().layout}
    full = module.raw_env(features=True).layout
    rows = full.markdown_table().splitlines()[2:]
    added = [row for row, f in zip(rows, full, strict=True) if f.name not in base]
    assert added, "features=True adds no field"
    missing = [row for row in added if row not in (module.__doc__ or "")]
    assert not missing, f"feature rows missing from the docstring: {missing}"


FEATURED = [n for n in ENVS if "features" in inspect.signature(env_module(n).raw_env).parameters]


@pytest.mark.parametrize("name", ENVS)
def test_docstring_names_the_current_observation_versions(name: str) -> None:
    """The version history names the observation versions the environment has now (with
    and without features), the ones a policy trained today carries."""
    module = env_module(name)
    history = (module.__doc__ or "").split("Version history", 1)[1]
    options = [{}, {"features": True}] if name in FEATURED else [{}]
    for kwargs in options:
        version = module.raw_env(**kwargs).observation_version
        assert f"`{version}`" in history, (kwargs, version)


@pytest.mark.parametrize("name", FEATURED)
def test_the_observation_version_changes_with_the_observation(name: str) -> None:
    """Features on, a features revision, a revision of the basic observation, and any change
    to the layout's fields (here the last one dropped, or its bounds widened) each give
    another observation version; rewording a field's description does not."""
    module = env_module(name)
    base = module.raw_env().model
    featured = module.raw_env(features=True).model
    assert isinstance(featured, FeatureModel)
    fs = featured.features
    wider = (*fs.fields[:-1], replace(fs.fields[-1], high=fs.fields[-1].high + 1))
    revised = module.raw_env().model
    revised.info = replace(base.info, observation_revision=base.info.observation_revision + 1)
    versions = {
        observation_version(base),
        observation_version(featured),
        observation_version(FeatureModel(base, replace(fs, revision=fs.revision + 1))),
        observation_version(FeatureModel(base, replace(fs, fields=fs.fields[:-1]))),
        observation_version(FeatureModel(base, replace(fs, fields=wider))),
        observation_version(revised),
    }
    assert len(versions) == 6, versions
    assert f"/{fs.name}-features{fs.revision}/" in observation_version(featured)
    reworded = replace(fs.fields[-1], description="said otherwise")
    same = ObservationLayout((*featured.layout.fields[:-1], reworded))
    assert same.digest == featured.layout.digest


@pytest.mark.parametrize("name", ENVS)
def test_pettingzoo_seed_and_render(name: str) -> None:
    module = env_module(name)
    seed_test(module.env, num_cycles=50)
    render_test(lambda render_mode=None: module.env(render_mode=render_mode))


@pytest.mark.parametrize("name", ENVS)
def test_rgb_render_is_a_picture(name: str) -> None:
    env = make(name, render_mode="rgb_array")
    env.reset(seed=1)
    for _ in range(6):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert picture.shape[0] >= 64 and picture.shape[1] >= 64
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 3


@pytest.mark.parametrize("name", ENVS)
@pytest.mark.parametrize("seat", [0, 1, None])
def test_single_agent_wrapper_passes_gymnasium_check(name: str, seat: int | None) -> None:
    env = SingleAgentEnv(make(name, raw=True), learner_seat=seat)
    gym_check_env(env, skip_render_check=True)
    env.reset(seed=3)
    assert env.action_masks().any()
    done = False
    total = 0.0
    while not done:
        legal = np.flatnonzero(env.action_masks())
        _obs, reward, terminated, truncated, _info = env.step(int(legal[0]))
        total += reward
        done = terminated or truncated
    assert total in (-1.0, 0.0, 1.0)


@pytest.mark.parametrize("name", ENVS)
def test_raw_env_rejects_illegal_action_with_reason(name: str) -> None:
    env = make(name, raw=True)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {bad} .* is illegal: .+"):
        env.step(bad)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(env.info.num_actions)


@pytest.mark.parametrize("name", ENVS)
def test_wrapped_env_ends_game_on_illegal_action(name: str) -> None:
    env = make(name)
    env.reset(seed=0)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1
    assert all(r == 0 for a, r in env.rewards.items() if a != offender)


@pytest.mark.parametrize("name", ENVS)
def test_win_rewards_are_plus_minus_one(name: str) -> None:
    for seed in range(5):
        env = make(name, raw=True, num_players=3)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            agent = env.agent_selection
            totals[agent] += env._cumulative_rewards[agent]
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        values = sorted(totals.values())
        assert set(values) <= {-1.0, 0.0, 1.0}
        assert values == [0.0] * 3 or (values[0] == -1.0 and values[-1] == 1.0)


@pytest.mark.parametrize("name", ENVS)
def test_bad_options_are_clear_errors(name: str) -> None:
    with pytest.raises(ValueError, match="num_players=9 .* allowed: 2 to 4"):
        make(name, num_players=9)
    with pytest.raises(ValueError, match="reward='points' .* allowed"):
        make(name, reward="points")
    with pytest.raises(ValueError, match="render_mode='window' .* allowed"):
        make(name, render_mode="window")


def test_unknown_env_name_lists_the_available_ones() -> None:
    with pytest.raises(ValueError, match="unknown environment 'qwirkle_v9'; available: liniell_v0"):
        make("qwirkle_v9")


@pytest.mark.parametrize("name", ENVS)
def test_action_layout_covers_the_action_space(name: str) -> None:
    env = make(name, raw=True)
    layout = env.action_layout()
    assert layout.size == env.info.num_actions
    obs_spatial = {f.board for f in env.layout.spatial_fields()}
    for group in layout.spatial_fields():
        assert group.board in obs_spatial, "spatial actions must share the board window"


@pytest.mark.parametrize("name", ENVS)
def test_single_agent_wrapper_illegal_action_modes(name: str) -> None:
    env = SingleAgentEnv(make(name, raw=True))
    env.reset(seed=0)
    bad = int(np.flatnonzero(env.action_masks() == 0)[0])
    _obs, reward, terminated, _truncated, info = env.step(bad)
    assert (reward, terminated) == (-1.0, True) and "illegal_action" in info
    with pytest.raises(IllegalActionError, match="episode ended"):
        env.step(0)
    strict = SingleAgentEnv(make(name, raw=True), illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="is illegal"):
        strict.step(bad)


@pytest.mark.parametrize("name", ENVS)
def test_final_scores_agree_with_the_winners(name: str) -> None:
    for seed in range(4):
        env = make(name, raw=True)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not (any(env.terminations.values()) or any(env.truncations.values())):
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        scores = env.final_scores()
        assert len(scores) == env.num_players
        if any(env.terminations.values()):
            best = max(scores)
            assert {env.possible_agents.index(a) for a in env.winners()} <= {
                i for i, s in enumerate(scores) if s == best
            }


@pytest.mark.parametrize("name", available_envs())
def test_parallel_env_passes_pettingzoos_parallel_api_test(name: str) -> None:
    from pettingzoo.test import parallel_api_test

    parallel_api_test(env_module(name).parallel_env(num_players=3), num_cycles=200)


@pytest.mark.parametrize("name", available_envs())
def test_state_is_every_seats_observation(name: str) -> None:
    env = env_module(name).raw_env(num_players=3)
    env.reset(seed=2)
    state = env.state()
    assert env.state_space.contains(state)
    size = env.layout.size
    for p, agent in enumerate(env.possible_agents):
        np.testing.assert_array_equal(
            state[p * size : (p + 1) * size], env.observe(agent)["observation"]
        )
