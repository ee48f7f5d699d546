"""The PPO update's observation inputs: sparse rows for a sparse batch, crops cut from the
batch for the crop network; the same function as the dense rows."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.ppo.networks import (  # noqa: E402
    CropRows,
    SparseRows,
    TrainingInputs,
    build_network,
)
from tabletop_rl.envs.registry import make  # noqa: E402
from tabletop_rl.envs.vector import VectorGames  # noqa: E402


def _observations(env: str, count: int, **kwargs: object) -> torch.Tensor:
    """``count`` observations of 16 games played by random legal moves."""
    games = VectorGames(env, 16, seed=3, **kwargs)
    out = games.reset()
    rng = np.random.default_rng(3)
    rows = []
    while len(rows) * 16 < count:
        rows.append(out.observation.copy())
        legal = out.action_mask.astype(bool)
        out = games.step(np.array([rng.choice(np.flatnonzero(row)) for row in legal]))
    return torch.as_tensor(np.concatenate(rows)[:count])


def _network(
    env: str, kind: str = "mlp", action_features: bool = False, **kwargs: object
) -> torch.nn.Module:
    game = make(env, raw=True, **kwargs)
    layout, actions = game.layout, game.action_layout()
    convs, hidden = ([4, 4], [16]) if kind == "crop" else ([], [32, 16])
    net = build_network(
        kind,
        layout,
        actions,
        game.info.num_actions,
        convs,
        hidden,
        seed=0,
        action_features=action_features,
    )
    if action_features:  # a fresh term is 0: give it weights so that it counts
        with torch.no_grad():
            net.action_terms.weight.uniform_(0.5, 1.0, generator=torch.Generator().manual_seed(1))
    return net


def _outputs_and_gradients(net: torch.nn.Module, obs: object) -> list[torch.Tensor]:
    net.zero_grad()
    logits, value = net(obs)
    (logits.square().mean() + value.sum()).backward()
    return [logits.detach(), value.detach()] + [p.grad.clone() for p in net.parameters()]


def _check_rows_as_copied(
    net: torch.nn.Module, obs: torch.Tensor, size: int, kind: type
) -> torch.Tensor:
    """A minibatch of ``size`` rows as :class:`TrainingInputs` hands it (of type ``kind``)
    gives the copied rows' logits, values and gradients; the rows' indices."""
    index = torch.randperm(len(obs), generator=torch.Generator().manual_seed(0))[:size]
    rows = TrainingInputs(net, obs).rows(index)
    assert isinstance(rows, kind)
    handed = _outputs_and_gradients(net, rows)
    copied = _outputs_and_gradients(net, obs[index])
    for a, b in zip(handed, copied, strict=True):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-5)
    return index


@pytest.mark.parametrize("action_features", [False, True])
def test_sparse_rows_give_the_dense_rows_outputs_and_gradients(action_features: bool) -> None:
    """Liniell's observation is mostly zeros: the minibatches go to the MLP as sparse rows,
    and its logits, values and every parameter's gradient are those of the dense rows."""
    kwargs = {"features": True} if action_features else {}
    obs = _observations("liniell_v0", 96, **kwargs)
    net = _network("liniell_v0", "mlp", action_features, **kwargs)
    assert TrainingInputs(net, obs).sparse
    index = _check_rows_as_copied(net, obs, 40, SparseRows)
    # and the scale folded into the first layer is the declared per-entry scale
    first = net.trunk[0]
    h = torch.relu(first(obs[index] * net.scale))
    expected = net.policy(net.trunk[2:](h))
    if net.action_terms is not None:
        expected = expected + net.action_terms(obs[index])
    assert torch.allclose(net(obs[index])[0], expected, rtol=1e-4, atol=1e-5)


def test_a_dense_batch_stays_dense() -> None:
    obs = _observations("qwirkle_cards_v0", 64)
    net = _network("qwirkle_cards_v0")
    inputs = TrainingInputs(net, obs)
    assert not inputs.sparse
    index = torch.tensor([5, 1, 9])
    assert torch.equal(inputs.rows(index), obs[index])


@pytest.mark.parametrize("action_features", [False, True])
def test_crop_rows_give_the_dense_rows_outputs_and_gradients(action_features: bool) -> None:
    """The crop network's minibatches are rows of the batch with their crops found once: its
    logits, values and every parameter's gradient are those of the copied rows."""
    kwargs = {"features": True} if action_features else {}
    obs = _observations("qwirkle_v0", 64, **kwargs)
    net = _network("qwirkle_v0", "crop", action_features, **kwargs)
    _check_rows_as_copied(net, obs, 24, CropRows)
