"""PPO update time of the ``conv`` network against the ``crop`` network on real Qwirkle positions.

    python benchmarks/ppo_network_speed.py [--games 8] [--repeats 3] [--config FILE] [--batch N]
        [--kinds conv crop] [--profile]

Plays two-player Qwirkle games with masked random moves (seeded), keeps every decision's
observation and action mask, and draws a batch of the size the config's rollout collects
(``num_envs * rollout_steps`` decisions) from them, so the positions spread over the whole
game as in training. For each network kind (the config's layers, ``conv`` and ``crop``) it
times :func:`~tabletop_rl.baselines.ppo.ppo.ppo_update` on that batch (the config's epochs and
minibatches, forward and backward, one torch thread), the network's own forward and backward
pass over one minibatch (what the update spends outside the masked distribution, the losses
and the optimiser), and the rollout's forward pass (one decision for each of ``num_envs``
games, no gradient). Times are CPU seconds of this process
(one thread), which do not depend on what else runs on the machine; medians over
``--repeats``; the ratios compare kinds measured in the same run. Also prints the crop sizes
the positions need. ``--profile`` then prints where one update of the last kind spends its
CPU time, by torch operator (the torch profiler's table, sorted by own time), with each
operator's share.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from tabletop_rl.baselines.ppo.checkpoint import make_network
from tabletop_rl.baselines.ppo.config import PPOConfig, load_config
from tabletop_rl.baselines.ppo.distributions import MaskedCategorical
from tabletop_rl.baselines.ppo.networks import CropConvActorCritic
from tabletop_rl.baselines.ppo.ppo import ppo_update
from tabletop_rl.baselines.ppo.selfplay import Batch, padded_labels
from tabletop_rl.envs import make
from tabletop_rl.envs.core.conformance import random_positions

ROOT = Path(__file__).resolve().parents[1]


def played_positions(
    env_name: str, env_kwargs: dict, games: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Observations and action masks of every decision of ``games`` masked random games."""
    return random_positions(make(env_name, raw=True, **env_kwargs), games, seed)


def make_batch(
    net: torch.nn.Module, obs: np.ndarray, masks: np.ndarray, size: int, seed: int
) -> Batch:
    """A PPO batch of ``size`` positions drawn from ``obs``/``masks``, with the network's own
    sampled actions, log-probabilities and values, and random rewards."""
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(obs), size=size, replace=len(obs) < size)
    o, m = obs[pick], masks[pick]
    with torch.no_grad():
        logits, values = net(torch.as_tensor(o))
        dist = MaskedCategorical(logits, torch.as_tensor(m))
        actions = dist.sample(torch.Generator().manual_seed(seed))
        logps = dist.log_prob(actions)
    return Batch(
        obs=o,
        masks=m,
        actions=actions.numpy(),
        logps=logps.numpy(),
        values=values.numpy(),
        rewards=rng.normal(0.0, 0.2, size).astype(np.float32),
        dones=(rng.random(size) < 0.01).astype(np.float32),
        next_values=values.numpy(),
        cont=(rng.random(size) > 0.01).astype(np.float32),
        teacher_actions=padded_labels([()] * size),
    )


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    """Median CPU time of ``repeats`` calls of ``fn`` (after one untimed warm-up call)."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


@torch.no_grad()
def decide(net: torch.nn.Module, obs: torch.Tensor) -> None:
    """One rollout step's forward pass."""
    net(obs)


def network_pass(net: torch.nn.Module, obs: torch.Tensor, actions: torch.Tensor) -> None:
    """The network's own share of a minibatch step: forward, and backward from the taken
    actions' logits and the values (no distribution, no optimiser)."""
    net.zero_grad()
    logits, values = net(obs)
    (logits.gather(1, actions[:, None]).sum() + values.sum()).backward()


def crop_sides(net: CropConvActorCritic, obs: np.ndarray) -> np.ndarray:
    """The longer side of each observation's crop region (cells)."""
    with torch.no_grad():
        regions = net.regions(torch.as_tensor(obs))
    regions = regions.numpy()
    return np.maximum(regions[:, 1] - regions[:, 0], regions[:, 3] - regions[:, 2]) + 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "qwirkle_ppo.yaml"))
    parser.add_argument("--games", type=int, default=8, help="random games to draw positions from")
    parser.add_argument("--repeats", type=int, default=3, help="timed updates per network")
    parser.add_argument(
        "--batch", type=int, default=0, help="decisions per update (0: the config's rollout)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--kinds", nargs="+", choices=("conv", "crop"), default=["conv", "crop"],
        help="network kinds to time",
    )  # fmt: skip
    parser.add_argument(
        "--profile", action="store_true", help="profile one update of the last kind by operator"
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    base = load_config(args.config)
    obs, masks = played_positions(base.env, base.env_kwargs, args.games, args.seed)
    size = args.batch or base.num_envs * base.rollout_steps
    print(
        f"{base.env}: {len(obs)} decisions from {args.games} random games; batch {size}, "
        f"{base.update_epochs} epochs x {base.num_minibatches} minibatches, "
        f"conv_channels {base.conv_channels}, hidden_sizes {base.hidden_sizes}, 1 thread"
    )
    results: dict[str, tuple[float, float, float]] = {}
    update_once: Callable[[], object] | None = None
    for kind in args.kinds:
        cfg: PPOConfig = dataclasses.replace(base, network=kind, board_head_channels=0)
        net = make_network(cfg)
        if isinstance(net, CropConvActorCritic):
            sides = crop_sides(net, obs)
            print(
                f"crop side (cells): median {np.median(sides):.0f}, 90th percentile "
                f"{np.percentile(sides, 90):.0f}, max {sides.max()} (window "
                f"{net.board})"
            )
        batch = make_batch(net, obs, masks, size, args.seed)
        optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5)
        gen = torch.Generator().manual_seed(args.seed)
        update = median_seconds(
            functools.partial(ppo_update, net, optimizer, batch, cfg, gen), args.repeats
        )
        forward = median_seconds(
            functools.partial(decide, net, torch.as_tensor(batch.obs[: cfg.num_envs])),
            5 * args.repeats,
        )
        mb = -(-size // cfg.num_minibatches)
        own = median_seconds(
            functools.partial(
                network_pass,
                net,
                torch.as_tensor(batch.obs[:mb]),
                torch.as_tensor(batch.actions[:mb]).long(),
            ),
            5 * args.repeats,
        )
        results[kind] = (update, own, forward)
        update_once = functools.partial(ppo_update, net, optimizer, batch, cfg, gen)
        print(
            f"{kind}: update {update:.3f} CPU-s ({size / update:.0f} learner steps / CPU-s); "
            f"network forward+backward of a {mb}-row minibatch {1000 * own:.0f} CPU-ms "
            f"(x {cfg.update_epochs * cfg.num_minibatches} per update); rollout forward of "
            f"{cfg.num_envs} decisions {1000 * forward:.1f} CPU-ms"
        )
    if {"conv", "crop"} <= set(results):
        (cu, co, cf), (ku, ko, kf) = results["conv"], results["crop"]
        print(
            f"crop vs conv: update {cu / ku:.2f}x faster, network forward+backward "
            f"{co / ko:.2f}x, rollout forward {cf / kf:.2f}x"
        )
    if args.profile and update_once is not None:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            update_once()
        print(f"one update of {args.kinds[-1]!r} by operator:")
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
