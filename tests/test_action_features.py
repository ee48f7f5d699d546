"""``action_features``: the policy term read straight off the fields that describe actions."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.ppo.action_features import ActionFeatures  # noqa: E402
from tabletop_rl.baselines.ppo.config import PPOConfig, apply_overrides  # noqa: E402
from tabletop_rl.baselines.ppo.networks import build_network  # noqa: E402
from tabletop_rl.envs import make  # noqa: E402
from tabletop_rl.envs.core.conformance import random_positions  # noqa: E402
from tabletop_rl.envs.core.observation import Field, ObservationLayout  # noqa: E402
from tabletop_rl.envs.errors import ConfigError  # noqa: E402

GAMES = {
    # game: (the fields the term reads, the field that names the best choice)
    "qwirkle_v0": (
        [
            "place_legal",
            "place_points",
            "turn_points",
            "place_best",
            "place_net",
            "turn_net",
            "place_plan",
            "turn_plan",
            "place_endgame",
            "turn_endgame",
        ],
        "place_best",
    ),
    "liniell_v0": (
        [
            "lay_legal",
            "lay_gain",
            "lay_opponent_gain",
            "lay_turn_margin",
            "lay_join",
            "lay_open_ends",
            "lay_merge_points",
            "occupy_open_ends",
            "occupy_merge_points",
            "occupy_turn_margin",
            "skip_turn_margin",
            "lay_turn_value",
            "occupy_turn_value",
            "skip_turn_value",
        ],
        "lay_turn_margin",
    ),
    "qwirkle_cards_v0": (
        ["action_next_qwirkles", "action_own_lines", "action_turn_qwirkles", "action_turn_value"],
        "action_turn_value",
    ),
}


@pytest.fixture(scope="module", params=sorted(GAMES))
def played(request: pytest.FixtureRequest) -> tuple[str, object, np.ndarray, np.ndarray]:
    env = make(request.param, raw=True, num_players=2, features=True)
    obs, masks = random_positions(env, 1, 5)
    return request.param, env.unwrapped, obs[:60], masks[:60]


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
def test_a_fresh_term_changes_nothing_and_a_heavy_one_follows_its_field(
    played: tuple[str, object, np.ndarray, np.ndarray], kind: str
) -> None:
    """The term starts at 0 (same policy as without it); with a large weight on one field
    (Qwirkle's ``place_best``, Liniell's ``lay_turn_margin``, Qwirkle Cards'
    ``action_own_lines``) the most probable legal action of its group is one where that
    field is largest: the term reads each entry for its own action."""
    game, raw, obs, masks = played
    if kind != "mlp" and game == "qwirkle_cards_v0":
        kind = "mlp"  # no board planes for a convolution: the MLP is its network
    names, leading = GAMES[game]
    x = torch.as_tensor(obs)
    plain, with_term = _net(raw, kind, False), _net(raw, kind, True)
    with torch.no_grad():
        torch.testing.assert_close(with_term(x)[0], plain(x)[0])
        torch.testing.assert_close(with_term(x)[1], plain(x)[1])
        assert [f.name for f in raw.layout if f.action_group] == names  # type: ignore[attr-defined]
        with_term.action_terms.weight[names.index(leading)] = 1000.0
        logits = with_term(x)[0].numpy()
    field = next(f for f in raw.layout if f.name == leading)  # type: ignore[attr-defined]
    group = raw.action_layout().slice(field.action_group)  # type: ignore[attr-defined]
    start, size = group.start, group.stop - group.start
    values = obs[:, raw.layout.slice(leading)]  # type: ignore[attr-defined]
    checked = 0
    for i in range(len(obs)):
        legal = np.flatnonzero(masks[i][start : start + size])
        if legal.size < 2 or values[i, legal].max() == values[i, legal].min():
            continue
        choice = legal[np.argmax(logits[i][start + legal])]
        assert values[i, choice] == values[i, legal].max()
        checked += 1
    assert checked > 0


def test_the_term_needs_fields_that_describe_actions() -> None:
    raw = make("qwirkle_v0", raw=True, num_players=2).unwrapped  # no features
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
