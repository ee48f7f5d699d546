"""The masked categorical distribution and the networks' output shapes."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.ppo.agent import load_ppo_agent  # noqa: E402
from tabletop_rl.baselines.ppo.distributions import MaskedCategorical  # noqa: E402
from tabletop_rl.baselines.ppo.networks import build_network  # noqa: E402
from tabletop_rl.baselines.ppo.toy import TicTacToeEnv  # noqa: E402
from tabletop_rl.envs.core.observation import Field, ObservationLayout  # noqa: E402
from tabletop_rl.envs.errors import ConfigError  # noqa: E402
from tabletop_rl.envs.vector import VectorGames  # noqa: E402


def _random_case(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    logits = torch.randn(64, 12, generator=gen) * 5
    mask = torch.rand(64, 12, generator=gen) < 0.3
    mask[torch.arange(64), torch.randint(0, 12, (64,), generator=gen)] = True
    return logits, mask


def test_illegal_actions_have_zero_probability_and_are_never_sampled() -> None:
    logits, mask = _random_case(0)
    logits[~mask] += 100.0  # illegal actions would dominate without the mask
    dist = MaskedCategorical(logits, mask)
    assert torch.all(dist.probs[~mask] == 0)
    assert torch.allclose(dist.probs.sum(-1), torch.ones(64))
    gen = torch.Generator().manual_seed(1)
    for _ in range(20):
        actions = dist.sample(gen)
        assert mask[torch.arange(64), actions].all()
    assert mask[torch.arange(64), dist.mode()].all()


def test_probabilities_are_the_softmax_over_legal_actions() -> None:
    logits, mask = _random_case(2)
    dist = MaskedCategorical(logits, mask)
    for row in range(8):
        legal = mask[row].nonzero().squeeze(-1)
        expected = torch.softmax(logits[row, legal], dim=0)
        assert torch.allclose(dist.probs[row, legal], expected, atol=1e-6)
        k = len(legal)
        row_dist = MaskedCategorical(logits[row].expand(k, -1), mask[row].expand(k, -1))
        log_probs = row_dist.log_prob(legal)
        assert torch.allclose(log_probs, expected.log(), atol=1e-5)


def test_entropy_counts_legal_actions_only() -> None:
    mask = torch.zeros(4, 10, dtype=torch.bool)
    for k in range(1, 5):
        mask[k - 1, :k] = True
    dist = MaskedCategorical(torch.zeros(4, 10), mask)
    expected = torch.tensor([math.log(k) for k in range(1, 5)])
    assert torch.allclose(dist.entropy(), expected, atol=1e-6)
    logits, mask = _random_case(3)
    dist = MaskedCategorical(logits, mask)
    assert torch.isfinite(dist.entropy()).all()
    p = dist.probs
    manual = -(p * p.clamp_min(1e-30).log()).sum(-1)
    assert torch.allclose(dist.entropy(), manual, atol=1e-5)


def test_gradients_stay_finite_through_masked_logits() -> None:
    logits, mask = _random_case(4)
    logits.requires_grad_(True)
    dist = MaskedCategorical(logits, mask)
    (dist.entropy().sum() + dist.log_prob(dist.mode()).sum()).backward()
    assert torch.isfinite(logits.grad).all()
    assert torch.all(logits.grad[~mask] == 0)


def test_a_row_without_legal_action_is_an_error() -> None:
    with pytest.raises(ValueError, match="no legal action"):
        MaskedCategorical(torch.zeros(2, 3), torch.tensor([[1, 0, 0], [0, 0, 0]]))


@pytest.mark.parametrize("kind", ["conv", "mlp"])
def test_networks_score_every_action(kind: str) -> None:
    env = TicTacToeEnv()
    net = build_network(kind, env.layout, env.action_layout(), 9, [8, 8], [16], seed=0)
    logits, value = net(torch.zeros(5, env.layout.size))
    assert logits.shape == (5, 9) and value.shape == (5,)
    again = build_network(kind, env.layout, env.action_layout(), 9, [8, 8], [16], seed=0)
    assert all(
        torch.equal(a, b)
        for a, b in zip(net.state_dict().values(), again.state_dict().values(), strict=True)
    )


def test_conv_network_mixes_spatial_and_flat_action_groups() -> None:
    layout = ObservationLayout(
        (
            Field("board", (3, 4, 5), "planes", spatial=True),
            Field("hand", (6,), "hand", high=3.0),
        )
    )
    actions = ObservationLayout(
        (
            Field("place", (2, 4, 5), "place here", spatial=True),
            Field("other", (3,), "swap, pass, end"),
        )
    )
    net = build_network("conv", layout, actions, 43, [8], [16], seed=0)
    obs = torch.zeros(2, layout.size)
    obs[0, 0] = 1.0  # a mark on cell (0, 0) of plane 0
    logits, _ = net(obs)
    assert logits.shape == (2, 43)
    with pytest.raises(ConfigError, match="covers"):
        bad = ObservationLayout((Field("place", (1, 3, 3), "", spatial=True), Field("x", (3,), "")))
        build_network("conv", layout, bad, 12, [8], [16], seed=0)
    with pytest.raises(ConfigError, match="action layout covers"):
        build_network("conv", layout, actions, 44, [8], [16], seed=0)


def test_per_cell_head_follows_the_groups_declared_order() -> None:
    """A channels-last group (Liniell's ``4 * cell + rotation``) is scored cell by cell."""
    layout = ObservationLayout(
        (
            Field("board", (2, 3, 4), "planes", spatial=True),
            Field("cells", (3, 4, 2), "planes, cell by cell", spatial=True, channels_last=True),
        )
    )
    actions = ObservationLayout(
        (
            Field("chw", (2, 3, 4), "plane-major", spatial=True),
            Field("hwc", (3, 4, 5), "cell-major", spatial=True, channels_last=True),
        )
    )
    net = build_network("conv", layout, actions, 84, [4], [8], seed=0)
    outputs: list[torch.Tensor] = []
    for head in net.heads:
        head.register_forward_hook(lambda _m, _i, out: outputs.append(out))
    logits, _ = net(torch.rand(3, layout.size, generator=torch.Generator().manual_seed(1)))
    chw, hwc = outputs  # each (batch, planes, 3, 4)
    row, col = 2, 1
    for plane in range(2):
        assert logits[0, plane * 12 + row * 4 + col] == chw[0, plane, row, col]
    for plane in range(5):
        assert logits[0, 24 + (row * 4 + col) * 5 + plane] == hwc[0, plane, row, col]


def test_board_head_lets_the_value_see_where_a_feature_lies() -> None:
    """Pooled features cannot tell a mark at (1, 1) from one at (3, 3) of a 5 x 5 board (each
    lies wholly inside the board for a 3x3 convolution); the flattened board head can."""
    layout = ObservationLayout((Field("board", (1, 5, 5), "planes", spatial=True),))
    actions = ObservationLayout((Field("other", (2,), "two actions"),))
    obs = torch.zeros(2, layout.size)
    obs[0, 1 * 5 + 1] = obs[1, 3 * 5 + 3] = 1.0
    pooled = build_network("conv", layout, actions, 2, [4], [8], seed=0)
    assert torch.allclose(pooled(obs)[1][0], pooled(obs)[1][1])
    located = build_network("conv", layout, actions, 2, [4], [8], seed=0, board_head_channels=2)
    logits, value = located(obs)
    assert not torch.allclose(value[0], value[1]) and logits.shape == (2, 2)
    extra = sum(p.numel() for p in located.parameters()) - sum(
        p.numel() for p in pooled.parameters()
    )
    assert extra == (4 * 2 + 2) + 2 * 25 * 8  # the 1x1 conv, and 2 x 25 more trunk inputs


def test_liniell_lay_group_is_board_shaped() -> None:
    from tabletop_rl.envs import liniell_v0

    env = liniell_v0.raw_env()
    net = build_network(
        "conv", env.layout, env.action_layout(), env.info.num_actions, [8], [16], seed=0
    )
    per_cell = [h for h, spatial in zip(net.heads, net.head_spatial, strict=True) if spatial]
    assert len(per_cell) == 1 and per_cell[0].out_channels == 4  # one logit per rotation
    logits, _ = net(torch.zeros(2, env.layout.size))
    assert logits.shape == (2, env.info.num_actions)


def test_channels_last_needs_a_spatial_field() -> None:
    with pytest.raises(ValueError, match="spatial fields only"):
        Field("x", (4,), "flat", channels_last=True)
    with pytest.raises(ValueError, match="3-d shape"):
        Field("x", (4, 4), "flat", spatial=True)


def _former_distribution(logits: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Probabilities and log-probabilities as ``MaskedCategorical`` computed them before it
    moved to a fill and a log-softmax (the formula the shipped policies were trained and
    checked with)."""
    masked = torch.where(mask, logits, torch.full_like(logits, -1e9))
    shifted = torch.where(mask, logits - masked.amax(dim=-1, keepdim=True), 0.0)
    unnormalised = shifted.exp() * mask
    total = unnormalised.sum(dim=-1, keepdim=True)
    return unnormalised / total, torch.where(mask, shifted - total.log(), -1e9)


def _positions(env: str, env_kwargs: dict, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` observations and masks from 32 games played by random legal moves (every
    third position, so they spread over the games' course)."""
    games = VectorGames(env, 32, seed=7, **env_kwargs)
    out = games.reset()
    rng = np.random.default_rng(7)
    observations, masks = [], []
    for step in range(3 * -(-count // 32)):
        legal = out.action_mask.astype(bool)
        if step % 3 == 0:
            observations.append(out.observation.copy())
            masks.append(legal)
        out = games.step(np.array([rng.choice(np.flatnonzero(row)) for row in legal]))
    return np.concatenate(observations)[:count], np.concatenate(masks)[:count]


@pytest.mark.parametrize("env", ["liniell_v0", "qwirkle_cards_v0", "qwirkle_v0"])
def test_shipped_policies_play_as_with_the_former_formula(env: str) -> None:
    """The shipped policies' greedy actions over 300 positions are those the former formula
    gives, the probabilities agree to float tolerance, and sampling with the same seed draws
    the same actions wherever the draw is not within float tolerance of a step of the CDF."""
    agent = load_ppo_agent(f"pretrained/{env}", env, np.random.default_rng(0))
    kwargs = {"num_players": 2, **agent.env_kwargs}
    obs, legal = _positions(env, kwargs, 300)
    mask = torch.as_tensor(legal)
    with torch.no_grad():
        logits, _ = agent.net(torch.as_tensor(obs[:, : agent.obs_size]))
    dist = MaskedCategorical(logits, mask)
    probs, log_probs = _former_distribution(logits, mask)
    assert torch.equal(dist.mode(), log_probs.argmax(dim=-1))
    assert torch.all(dist.probs[~mask] == 0)
    assert torch.allclose(dist.probs, probs, atol=1e-6)
    assert torch.allclose(dist.logits[mask], log_probs[mask], atol=1e-4)
    assert mask.sum(dim=1).gt(1).float().mean() > 0.75  # the positions offer choices
    drawn = dist.sample(torch.Generator().manual_seed(3))
    u = 1.0 - torch.rand((len(obs), 1), generator=torch.Generator().manual_seed(3))
    cdf = probs.cumsum(dim=-1)
    former = torch.searchsorted(cdf, u * cdf[:, -1:]).squeeze(-1).clamp_max(cdf.shape[1] - 1)
    clear = (cdf - u * cdf[:, -1:]).abs().amin(dim=-1) > 1e-5
    assert clear.float().mean() > 0.95
    assert torch.equal(drawn[clear], former[clear])
    assert mask[torch.arange(len(obs)), drawn].all()
