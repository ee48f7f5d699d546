"""``action_features``: the policy term read straight off the fields that describe actions."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.env_factory import make_env  # noqa: E402
from tabletop_rl.baselines.ppo.action_features import ActionFeatures  # noqa: E402
from tabletop_rl.baselines.ppo.config import PPOConfig, apply_overrides  # noqa: E402
from tabletop_rl.baselines.ppo.networks import build_network  # noqa: E402
from tabletop_rl.envs.core.conformance import random_positions  # noqa: E402
from tabletop_rl.envs.core.observation import Field, ObservationLayout  # noqa: E402
from tabletop_rl.envs.errors import ConfigError  # noqa: E402


@pytest.fixture(scope="module")
def qwirkle() -> tuple[object, np.ndarray, np.ndarray]:
    env = make_env("qwirkle_v0", num_players=2, features=True)
    obs, masks = random_positions(env, 1, 5)
    return env.unwrapped, obs, masks


def _net(raw: object, kind: str, action_features: bool) -> torch.nn.Module:
    return build_network(
        kind,
        raw.layout,  # type: ignore[attr-defined]
        raw.action_layout(),  # type: ignore[attr-defined]
        raw.info.num_actions,  # type: ignore[attr-defined]
        [8, 8],
        [16],
        seed=0,
        action_features=action_features,
    )


@pytest.mark.parametrize("kind", ["mlp", "conv", "crop"])
def test_a_fresh_term_changes_nothing_and_a_heavy_one_plays_the_best_turn(
    qwirkle: tuple[object, np.ndarray, np.ndarray], kind: str
) -> None:
    """The term starts at 0 (same policy as without it); with a large weight on
    ``place_best`` the most probable legal placement is one of the best whole turn."""
    raw, obs, masks = qwirkle
    x = torch.as_tensor(obs[:40])
    plain, with_term = _net(raw, kind, False), _net(raw, kind, True)
    with torch.no_grad():
        torch.testing.assert_close(with_term(x)[0], plain(x)[0])
        torch.testing.assert_close(with_term(x)[1], plain(x)[1])
        terms = with_term.action_terms
        names = [f.name for f in raw.layout if f.action_group]  # type: ignore[attr-defined]
        assert names == ["place_legal", "place_points", "turn_points", "place_best"]
        terms.weight[names.index("place_best")] = 100.0
        logits = with_term(x)[0].numpy()
    end = raw.model.codec.end  # type: ignore[attr-defined]
    at = raw.layout.slice("place_best")  # type: ignore[attr-defined]
    best = obs[:40, at]
    checked = 0
    for i in range(40):
        legal = np.flatnonzero(masks[i][:end])
        if legal.size and not masks[i][end]:  # a turn's start: only placements to choose
            choice = legal[np.argmax(logits[i][legal])]
            assert best[i, choice] == best[i, legal].max()
            checked += 1
    assert checked > 0


def test_the_term_needs_fields_that_describe_actions() -> None:
    raw = make_env("qwirkle_v0", num_players=2).unwrapped  # no features
    with pytest.raises(ConfigError, match="turn the game's features on"):
        _net(raw, "crop", True)
    board = Field("board", (1, 2, 2), "cells", spatial=True)
    actions = ObservationLayout((Field("lay", (1, 2, 2), "lay", spatial=True),))
    wrong = Field("gain", (4,), "per lay", action_group="lay")
    with pytest.raises(ConfigError, match="'gain' .* does not match its action group 'lay'"):
        ActionFeatures(ObservationLayout((board, wrong)), actions)
    stray = Field("gain", (1, 2, 2), "per lay", spatial=True, action_group="play")
    with pytest.raises(ConfigError, match="action group 'play', which the game does not"):
        ActionFeatures(ObservationLayout((board, stray)), actions)


def test_the_option_is_a_typed_config_key() -> None:
    assert apply_overrides(PPOConfig(), ["--action_features", "true"]).action_features is True
    with pytest.raises(ConfigError):
        apply_overrides(PPOConfig(), ["--action_features", "maybe"])
