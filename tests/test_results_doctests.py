"""The examples in the docstrings of the results scripts (docs/results/*.py) hold."""

from __future__ import annotations

import doctest
import importlib.util
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
WITH_EXAMPLES = sorted(p for p in RESULTS.glob("*.py") if ">>>" in p.read_text())


def test_some_scripts_have_examples() -> None:
    assert {p.name for p in WITH_EXAMPLES} >= {"decisions.py", "hand_calibration.py"}


@pytest.mark.parametrize("path", WITH_EXAMPLES, ids=lambda p: p.name)
def test_doctests(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(RESULTS))  # as when run: the script's folder on the path
    spec = importlib.util.spec_from_file_location(f"results_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
