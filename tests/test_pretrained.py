"""Policy files: exporting a run's policy, and loading the policies shipped with the package."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_rl.baselines.arena.agent_specs import resolve_agent  # noqa: E402
from tabletop_rl.baselines.ppo import evaluate, export, train  # noqa: E402
from tabletop_rl.baselines.ppo.checkpoint import load_checkpoint  # noqa: E402
from tabletop_rl.baselines.ppo.rollout import TOY_ENV  # noqa: E402
from tabletop_rl.envs.errors import ConfigError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SMOKE = str(ROOT / "configs" / "smoke.yaml")


def test_an_exported_policy_is_small_and_plays_like_its_checkpoint(tmp_path: Path) -> None:
    run = tmp_path / "run"
    args = ["--env", TOY_ENV, "--opponents", "{self: 1.0}", "--eval_opponents", "[random]"]
    args += ["--total_steps", "300", "--num_workers", "0", "--run_dir", str(run)]
    assert train.main([SMOKE, *args]) == 0
    out = tmp_path / "policy.pt"
    assert export.main([str(run), str(out)]) == 0
    policy, full = load_checkpoint(out), load_checkpoint(run)
    assert set(policy) < set(full) and "optimizer" not in policy
    assert out.stat().st_size < (run / "checkpoint.pt").stat().st_size
    a = resolve_agent(f"ppo:{out}", TOY_ENV, np.random.default_rng(0))
    b = resolve_agent(f"ppo:{run}", TOY_ENV, np.random.default_rng(0))
    mask = np.ones(9, dtype=np.int8)
    for seed in range(5):
        obs = np.random.default_rng(seed).integers(0, 2, size=19).astype(np.float32)
        assert a.act({"observation": obs, "action_mask": mask}) == b.act(
            {"observation": obs, "action_mask": mask}
        )
    assert evaluate.main([str(out), "--games", "4", "--opponents", "random", "--workers", "0"]) == 0
    with pytest.raises(SystemExit):
        export.main([str(tmp_path / "nothing"), str(tmp_path / "x.pt")])


def test_an_unknown_shipped_policy_names_the_shipped_ones() -> None:
    with pytest.raises(ConfigError, match="no pretrained policy 'chess_v0'; shipped: "):
        resolve_agent("ppo:pretrained/chess_v0", "liniell_v0", np.random.default_rng(0))
