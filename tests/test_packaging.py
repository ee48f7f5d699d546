"""The installed layout: tabletop_rl.envs / tabletop_rl.baselines, no torch in the envs."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_directory_is_installed() -> None:
    """Every folder with an ``__init__.py`` is a listed package, and so is every data-only
    folder (the shipped weights, Liniell's tile sets), whose files its package data holds."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    tops = {"tabletop_rl.envs": ROOT / "envs", "tabletop_rl.baselines": ROOT / "baselines"}
    found = set()
    for name, top in tops.items():
        for init in top.rglob("__init__.py"):
            found.add(".".join((name, *init.parent.relative_to(top).parts)))
    data_only = set(config["package-data"]) - found
    assert found | data_only == listed
    for package in data_only:
        parent = next(name for name in tops if package.startswith(name + "."))
        folder = tops[parent].joinpath(*package[len(parent) + 1 :].split("."))
        for pattern in config["package-data"][package]:
            assert list(folder.glob(pattern)), f"{package}: nothing matches {pattern!r}"


def test_envs_import_without_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from tabletop_rl.envs import make, available_envs\n"
        "for name in available_envs():\n"
        "    env = make(name); env.reset(seed=0); env.observe(env.agent_selection)\n"
        "assert 'PIL' not in sys.modules, 'rendering was imported eagerly'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _modules(package: str) -> list[str]:
    pkg = importlib.import_module(package)
    return [package] + [m.name for m in pkgutil.walk_packages(pkg.__path__, prefix=package + ".")]


@pytest.mark.parametrize(
    "module_name", _modules("tabletop_rl.envs") + _modules("tabletop_rl.baselines")
)
def test_doctests(module_name: str) -> None:
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:  # optional extras (torch) missing
        pytest.skip(f"{module_name} needs an optional dependency: {exc}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_license_file_is_the_declared_license() -> None:
    """pyproject.toml declares MIT; the LICENSE file is the MIT text with its holder."""
    tomllib = pytest.importorskip("tomllib")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    text = (ROOT / "LICENSE").read_text()
    assert declared == "MIT"
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 tabletop-rl contributors" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
