"""The layers: the environments never import the baselines (agents, arena, training); agent
specs reach them through the ``tabletop_rl.agent_specs`` entry point."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.registry import AGENT_SPECS_GROUP, agent_resolver

ENVS = Path(__file__).resolve().parents[1] / "envs"


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` or ``from ... import`` in ``path`` names (absolute)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_no_environment_module_imports_the_baselines() -> None:
    offenders = {
        str(path.relative_to(ENVS)): sorted(
            name for name in imported_modules(path) if name.startswith("tabletop_rl.baselines")
        )
        for path in ENVS.rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_environments_play_without_loading_the_baselines() -> None:
    script = """
import sys
import numpy as np
from tabletop_rl.envs import make, make_single_agent
from tabletop_rl.envs.vector import VectorGames

class FirstLegal:
    needs_view = False
    def act(self, observation, view):
        return int(np.flatnonzero(observation["action_mask"])[0])

for name in ("liniell_v0", "qwirkle_cards_v0"):
    env = make_single_agent(name, opponent=[FirstLegal()])
    obs, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    VectorGames(name, num_envs=2).reset()
loaded = sorted(m for m in sys.modules if m.startswith("tabletop_rl.baselines") or m == "torch")
print(loaded)
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout


def test_agent_specs_resolve_through_the_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop_rl.baselines.arena.agent_specs import resolve_agent

    assert agent_resolver() is resolve_agent
    monkeypatch.setattr("tabletop_rl.envs.registry.entry_points", lambda group: ())
    with pytest.raises(ConfigError, match="pass agent objects"):
        agent_resolver()
    pyproject = (ENVS.parent / "pyproject.toml").read_text()
    assert f'[project.entry-points."{AGENT_SPECS_GROUP}"]' in pyproject
