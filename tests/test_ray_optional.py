"""Without Ray installed, the Ray options say what to install instead of failing obscurely."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tabletop_rl.baselines.arena import ArenaConfig, run_arena
from tabletop_rl.baselines.arena.agent_specs import resolve_agent
from tabletop_rl.envs import ConfigError

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ray") is not None, reason="Ray is installed (see test_rllib.py)"
)


def test_arena_on_ray_without_ray_names_the_extra(tmp_path: Path) -> None:
    config = ArenaConfig(env="liniell_v0", agents=("random", "greedy"), games=2, seed=0)
    with pytest.raises(ConfigError, match=r"rllib"):
        run_arena(config, tmp_path / "run", workers=2, progress=False, ray_address="local")
    assert not (tmp_path / "run").exists(), "a run that played nothing leaves nothing behind"


def test_rllib_agent_without_ray_names_the_extra(tmp_path: Path) -> None:
    import numpy as np

    with pytest.raises(ConfigError, match="rllib extra"):
        resolve_agent(f"rllib:{tmp_path}", "liniell_v0", np.random.default_rng(0))
    with pytest.raises(ConfigError, match="checkpoint folder"):
        resolve_agent("rllib:", "liniell_v0", np.random.default_rng(0))
