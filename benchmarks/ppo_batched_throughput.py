"""Learner steps per wall-second of the self-play trainer beside a plain PPO loop.

    python benchmarks/ppo_batched_throughput.py [--games liniell qwirkle_cards qwirkle]
        [--seconds 60]

For each game, in one process and one after the other: the trainer on
``configs/<game>_selfplay.yaml`` for ``--seconds`` of training (its ``max_minutes``; the
figure is ``global_step / time`` of the last row of its ``progress.csv``), then a plain
CleanRL-style loop of about 100 lines over :class:`~tabletop_rl.envs.vector.VectorGames` for
as long: self-play, a 2 x 256 MLP, 256 games x 32 steps, 4 epochs x 4 minibatches. The plain
loop is a throughput reference, not a correct learner: it treats each game as one stream of
decisions whatever seat acts (no per-seat returns, no pool, no checkpoints). Both run with one
torch thread; on a shared machine only their ratio is meaningful, since both saw the same
load. ``--plain-settings`` runs the trainer with the plain loop's network and batch sizes too
(the liniell and qwirkle_cards configs already use them), so the two do the same work.
The last columns split the trainer's mean update into its games, its network decisions and
its PPO update (seconds, from ``progress.csv``'s ``env_time_s``, ``network_time_s`` and
``update_time_s``).
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from tabletop_rl.baselines.ppo import train
from tabletop_rl.baselines.ppo.config import apply_overrides, load_config
from tabletop_rl.envs.vector import VectorGames

ROOT = Path(__file__).resolve().parents[1]
GAMES = {"liniell": "liniell_v0", "qwirkle_cards": "qwirkle_cards_v0", "qwirkle": "qwirkle_v0"}
PLAIN = ["--network", "mlp", "--hidden_sizes", "[256, 256]", "--num_envs", "256"]
PLAIN += ["--rollout_steps", "32", "--update_epochs", "4", "--num_minibatches", "4"]


def trainer_steps_per_s(
    game: str, seconds: float, plain_settings: bool
) -> tuple[float, dict[str, float]]:
    """Learner steps per wall-second of the trainer on the game's self-play config, and its
    mean seconds per update in games, network decisions and the PPO update."""
    with tempfile.TemporaryDirectory() as tmp:
        args = ["--run_dir", tmp, "--max_minutes", str(seconds / 60), "--eval_opponents", "[]"]
        args += ["--progress_bar", "false", "--torch_threads", "1"]
        if plain_settings:
            args += PLAIN
        cfg = apply_overrides(load_config(ROOT / "configs" / f"{game}_selfplay.yaml"), args)
        train.train(cfg)
        with open(Path(tmp) / "progress.csv", newline="") as f:
            rows = list(csv.DictReader(f))
    if not rows:
        return 0.0, {}  # not one update finished in the time given
    split = {key: float(np.mean([float(r[key]) for r in rows])) for key in SPLIT}
    return float(rows[-1]["global_step"]) / float(rows[-1]["time"]), split


SPLIT = ["env_time_s", "network_time_s", "update_time_s"]
"""The ``progress.csv`` columns of the trainer's per-update split."""


class _Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int) -> None:
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Linear(obs_size, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh()
        )
        self.actor, self.critic = nn.Linear(256, num_actions), nn.Linear(256, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(obs)
        logits = self.actor(h).masked_fill(~mask, -1e9)
        return torch.log_softmax(logits, dim=-1), self.critic(h).squeeze(-1)


def plain_steps_per_s(env: str, seconds: float, n: int = 256, steps: int = 32) -> float:
    """Learner steps per wall-second of the plain loop (module docstring)."""
    games = VectorGames(env, n, seed=0)
    out = games.reset()
    agent = _Agent(out.observation.shape[1], out.action_mask.shape[1])
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
    obs_buf = torch.zeros((steps, n, out.observation.shape[1]))
    mask_buf = torch.zeros((steps, n, out.action_mask.shape[1]), dtype=torch.bool)
    act_buf = torch.zeros((steps, n), dtype=torch.long)
    logp_buf, val_buf = torch.zeros((steps, n)), torch.zeros((steps, n))
    rew_buf, done_buf = torch.zeros((steps, n)), torch.zeros((steps, n))
    start, learner_steps = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        for t in range(steps):  # collect
            obs = torch.from_numpy(out.observation.copy())
            mask = torch.from_numpy(out.action_mask.astype(np.bool_))
            with torch.no_grad():
                logp_all, value = agent(obs, mask)
                action = torch.multinomial(logp_all.exp(), 1).squeeze(-1)
            player = out.current_player.copy()
            out = games.step(action.numpy())
            obs_buf[t], mask_buf[t], act_buf[t], val_buf[t] = obs, mask, action, value
            logp_buf[t] = logp_all.gather(1, action[:, None]).squeeze(-1)
            rew_buf[t] = torch.from_numpy(out.rewards[np.arange(n), player])
            done_buf[t] = torch.from_numpy(out.terminated | out.truncated)
        with torch.no_grad():  # GAE over each game's stream of decisions
            next_value = agent(
                torch.from_numpy(out.observation.copy()),
                torch.from_numpy(out.action_mask.astype(np.bool_)),
            )[1]
            adv, last = torch.zeros((steps, n)), torch.zeros(n)
            for t in reversed(range(steps)):
                nxt = next_value if t == steps - 1 else val_buf[t + 1]
                live = 1.0 - done_buf[t]
                delta = rew_buf[t] + nxt * live - val_buf[t]
                last = delta + 0.95 * live * last
                adv[t] = last
            ret = adv + val_buf
        b_obs, b_mask = obs_buf.reshape(steps * n, -1), mask_buf.reshape(steps * n, -1)
        b_act, b_logp = act_buf.reshape(-1), logp_buf.reshape(-1)
        b_adv, b_ret = adv.reshape(-1), ret.reshape(-1)
        size = steps * n // 4
        for _epoch in range(4):  # update
            order = torch.randperm(steps * n)
            for lo in range(0, steps * n, size):
                mb = order[lo : lo + size]
                logp_all, value = agent(b_obs[mb], b_mask[mb])
                ratio = (logp_all.gather(1, b_act[mb, None]).squeeze(-1) - b_logp[mb]).exp()
                a = b_adv[mb]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg = torch.max(-a * ratio, -a * ratio.clamp(0.8, 1.2)).mean()
                entropy = -(logp_all.exp() * logp_all.clamp(min=-30)).sum(-1).mean()
                loss = pg + 0.5 * ((value - b_ret[mb]) ** 2).mean() - 0.01 * entropy
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        learner_steps += steps * n
    return learner_steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", choices=sorted(GAMES), default=list(GAMES))
    parser.add_argument("--seconds", type=float, default=60.0, help="each measurement's time")
    parser.add_argument("--plain-settings", action="store_true", help="see the docstring")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print(
        "| game | trainer steps / s | plain loop steps / s | trainer / plain "
        "| games s | decisions s | update s |"
    )
    print("|---|---|---|---|---|---|---|")
    for game in args.games:
        mine, split = trainer_steps_per_s(game, args.seconds, args.plain_settings)
        plain = plain_steps_per_s(GAMES[game], args.seconds)
        parts = " | ".join(f"{split[k]:.3f}" if split else "-" for k in SPLIT)
        print(f"| {game} | {mine:,.0f} | {plain:,.0f} | {mine / plain:.2f} | {parts} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
