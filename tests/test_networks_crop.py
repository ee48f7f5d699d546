"""The ``crop`` network: the convolutional actor-critic run on the occupied part of the board."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.ppo import train  # noqa: E402
from tabletop_rl.baselines.ppo.agent import load_ppo_agent  # noqa: E402
from tabletop_rl.baselines.ppo.checkpoint import (  # noqa: E402
    load_checkpoint,
    network_from_checkpoint,
)
from tabletop_rl.baselines.ppo.config import PPOConfig, apply_overrides  # noqa: E402
from tabletop_rl.baselines.ppo.distributions import MaskedCategorical  # noqa: E402
from tabletop_rl.baselines.ppo.networks import (  # noqa: E402
    OUTSIDE_LOGIT,
    ConvActorCritic,
    CropConvActorCritic,
    build_network,
)
from tabletop_rl.baselines.ppo.rollout import TOY_ENV  # noqa: E402
from tabletop_rl.envs import make  # noqa: E402
from tabletop_rl.envs.core.conformance import random_positions  # noqa: E402
from tabletop_rl.envs.errors import ConfigError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SMOKE = str(ROOT / "configs" / "smoke.yaml")


def _played(env_name: str, games: int, seed: int) -> tuple[object, np.ndarray, np.ndarray]:
    """The environment and the observations and masks of every decision of masked random
    games (two players), the first decision of each game included."""
    env = make(env_name, raw=True, num_players=2)
    obs, masks = random_positions(env, games, seed)
    return env, obs, masks


@pytest.fixture(scope="module")
def qwirkle() -> tuple[object, np.ndarray, np.ndarray]:
    return _played("qwirkle_v0", games=1, seed=3)


def _network(env: object, kind: str, channels: list[int]) -> torch.nn.Module:
    raw = env.unwrapped  # type: ignore[attr-defined]
    return build_network(
        kind, raw.layout, raw.action_layout(), raw.info.num_actions, channels, [32], seed=0
    )


@pytest.mark.parametrize("channels", [[8, 8], [8, 8, 8]])
def test_every_legal_action_of_real_qwirkle_positions_gets_a_finite_logit(
    qwirkle: tuple[object, np.ndarray, np.ndarray], channels: list[int]
) -> None:
    env, obs, masks = qwirkle
    net = _network(env, "crop", channels)
    assert isinstance(net, CropConvActorCritic)
    with torch.no_grad():
        logits, values = net(torch.as_tensor(obs))
    assert logits.shape == masks.shape and values.shape == (len(obs),)
    legal = torch.as_tensor(masks).bool()
    assert torch.isfinite(values).all()
    assert (logits[legal] > OUTSIDE_LOGIT / 2).all(), "a legal action fell outside the crop"
    # The crop really is smaller than the window: most cells get the outside logit.
    assert (logits == OUTSIDE_LOGIT).float().mean() > 0.5
    # The first decision of the game (an empty board) is among the positions.
    assert not obs[0, : 14 * 39 * 39].any() and masks[0].any()


def test_every_legal_action_of_real_liniell_positions_gets_a_finite_logit() -> None:
    env, obs, masks = _played("liniell_v0", games=2, seed=5)
    net = _network(env, "crop", [8, 8])
    with torch.no_grad():
        logits, _ = net(torch.as_tensor(obs))
    assert (logits[torch.as_tensor(masks).bool()] > OUTSIDE_LOGIT / 2).all()


def test_legal_cells_see_what_the_full_window_convolutions_see(
    qwirkle: tuple[object, np.ndarray, np.ndarray],
) -> None:
    """With the trunk's conditioning switched off, a legal cell's logit is a function of its
    receptive field only, which the crop holds whole: the full-window network agrees there."""
    env, obs, masks = qwirkle
    conv = _network(env, "conv", [8, 8])
    crop = _network(env, "crop", [8, 8])
    assert isinstance(conv, ConvActorCritic) and conv.condition is not None
    for net in (conv, crop):
        torch.nn.init.zeros_(net.condition.weight)
        torch.nn.init.zeros_(net.condition.bias)
    crop.load_state_dict(conv.state_dict())  # the same parameters
    placements = 6 * 39 * 39
    legal = torch.as_tensor(masks[:, :placements]).bool()
    with torch.no_grad():
        full = conv(torch.as_tensor(obs))[0][:, :placements]
        cropped = crop(torch.as_tensor(obs))[0][:, :placements]
    assert legal.sum() > 1000
    torch.testing.assert_close(cropped[legal], full[legal], rtol=1e-5, atol=1e-5)


def _shifted(obs: np.ndarray, dr: int, dc: int) -> np.ndarray:
    """Qwirkle observations with the board planes moved ``dr`` rows and ``dc`` columns."""
    out = obs.copy()
    board = obs[:, : 14 * 39 * 39].reshape(-1, 14, 39, 39)
    out[:, : 14 * 39 * 39] = np.roll(board, (dr, dc), axis=(2, 3)).reshape(len(obs), -1)
    return out


def test_the_crop_network_is_translation_invariant(
    qwirkle: tuple[object, np.ndarray, np.ndarray],
) -> None:
    env, obs, _ = qwirkle
    net = _network(env, "crop", [8, 8])
    occupied = obs[:, 12 * 39 * 39 : 13 * 39 * 39].reshape(-1, 39, 39)
    # Positions whose crop (tiles + 3 cells) stays inside the window when moved 4 cells.
    rows, cols = occupied.any(axis=2), occupied.any(axis=1)
    ok = [
        i
        for i in range(len(obs))
        if rows[i].any() and not (rows[i][:7].any() or rows[i][-7:].any())
        if not (cols[i][:7].any() or cols[i][-7:].any())
    ]
    assert len(ok) > 50
    base = obs[ok[::3]]
    with torch.no_grad():
        logits, values = net(torch.as_tensor(base))
        for dr, dc in [(4, 0), (0, -4), (-3, 2), (4, 4)]:
            moved_logits, moved_values = net(torch.as_tensor(_shifted(base, dr, dc)))
            torch.testing.assert_close(moved_values, values, rtol=1e-5, atol=1e-5)
            place = logits[:, : 6 * 39 * 39].reshape(-1, 6, 39, 39)
            moved = moved_logits[:, : 6 * 39 * 39].reshape(-1, 6, 39, 39)
            back = torch.roll(moved, (-dr, -dc), dims=(2, 3))
            torch.testing.assert_close(back, place, rtol=1e-5, atol=1e-4)
            torch.testing.assert_close(
                moved_logits[:, 6 * 39 * 39 :], logits[:, 6 * 39 * 39 :], rtol=1e-5, atol=1e-5
            )


def test_a_position_scores_the_same_alone_and_in_any_batch(
    qwirkle: tuple[object, np.ndarray, np.ndarray],
) -> None:
    env, obs, _ = qwirkle
    net = _network(env, "crop", [8, 8])
    with torch.no_grad():
        together = net(torch.as_tensor(obs))
        for i in (0, len(obs) // 2, len(obs) - 1):
            alone = net(torch.as_tensor(obs[i : i + 1]))
            torch.testing.assert_close(alone[0][0], together[0][i], rtol=1e-5, atol=1e-5)
            torch.testing.assert_close(alone[1][0], together[1][i], rtol=1e-5, atol=1e-5)


def test_masked_sampling_and_gradients(qwirkle: tuple[object, np.ndarray, np.ndarray]) -> None:
    env, obs, masks = qwirkle
    net = _network(env, "crop", [8, 8])
    pick = np.random.default_rng(0).choice(len(obs), 64, replace=False)
    legal = torch.as_tensor(masks[pick]).bool()
    logits, values = net(torch.as_tensor(obs[pick]))
    dist = MaskedCategorical(logits, legal)
    actions = dist.sample(torch.Generator().manual_seed(0))
    assert legal[torch.arange(64), actions].all()
    logp = dist.log_prob(actions)
    assert torch.isfinite(logp).all() and torch.isfinite(dist.entropy()).all()
    (dist.entropy().mean() - logp.mean() + values.pow(2).mean()).backward()
    for name, p in net.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), name
    assert net.conv is not None and net.conv[0].weight.grad.abs().sum() > 0


def test_the_config_accepts_crop_and_rejects_unknown_networks() -> None:
    assert apply_overrides(PPOConfig(), ["--network", "crop"]).network == "crop"
    with pytest.raises(ConfigError, match="'network' must be one of 'conv', 'crop', 'mlp'"):
        apply_overrides(PPOConfig(), ["--network", "cropped"])
    with pytest.raises(ConfigError, match="board_head_channels' must be 0 with network 'crop'"):
        apply_overrides(PPOConfig(), ["--network", "crop", "--board_head_channels", "2"])
    env = make("qwirkle_v0", raw=True)
    with pytest.raises(ConfigError, match="needs at least one conv layer"):
        _network(env, "crop", [])
    with pytest.raises(ConfigError, match="unknown network 'cnn'; allowed: 'conv', 'crop'"):
        _network(env, "cnn", [8])


def test_crop_trains_on_the_toy_game_and_its_checkpoint_round_trips(tmp_path: Path) -> None:
    run_dir = tmp_path / "crop"
    toy = ["--env", TOY_ENV, "--opponents", "{self: 0.5, pool: 0.2, random: 0.3}"]
    args = [SMOKE, *toy, "--network", "crop", "--total_steps", "300", "--run_dir", str(run_dir)]
    assert train.main(args) == 0
    state = load_checkpoint(run_dir)
    cfg, net = network_from_checkpoint(state)
    assert cfg.network == "crop" and isinstance(net, CropConvActorCritic)
    for key, value in state["model"].items():
        assert torch.equal(net.state_dict()[key], value), key
    env = make(TOY_ENV, raw=True)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    with torch.no_grad():
        logits, _ = net(torch.as_tensor(obs["observation"])[None])
    assert torch.isfinite(logits).all()  # 3 x 3: the crop always holds the whole board
    agent = load_ppo_agent(str(run_dir), TOY_ENV, np.random.default_rng(0))
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        env.step(agent.act(env.observe(env.agent_selection)))


def test_the_speed_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    path = ROOT / "benchmarks" / "ppo_network_speed.py"
    spec = importlib.util.spec_from_file_location("ppo_network_speed", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--games", "1", "--repeats", "1", "--batch", "16"]) == 0
    out = capsys.readouterr().out
    assert "crop side (cells): median" in out and "crop vs conv: update" in out
