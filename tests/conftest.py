"""Fixtures shared by the tests of the results scripts (``docs/results/*.py``): load one as
when run (its folder on the path, for the helpers it imports), or run its ``main()``."""

from __future__ import annotations

import runpy
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
"""The folder of the results scripts."""


@pytest.fixture(scope="session")
def results_script() -> Callable[[str], dict[str, Any]]:
    """``load(NAME)``: the globals of ``docs/results/NAME``, loaded once per session."""
    loaded: dict[str, dict[str, Any]] = {}

    def load(name: str) -> dict[str, Any]:
        if name not in loaded:
            sys.path.insert(0, str(RESULTS))
            try:
                loaded[name] = runpy.run_path(str(RESULTS / name))
            finally:
                sys.path.remove(str(RESULTS))
        return loaded[name]

    return load


@pytest.fixture
def run_results_script(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., str]:
    """``run(NAME, *ARGS)``: what ``python docs/results/NAME ARGS...`` prints (its ``main()``
    run in this process)."""

    def run(name: str, *args: str) -> str:
        monkeypatch.syspath_prepend(str(RESULTS))
        monkeypatch.setattr(sys, "argv", [name, *args])
        capsys.readouterr()
        runpy.run_path(str(RESULTS / name))["main"]()
        return capsys.readouterr().out

    return run
