"""The compiled kernels' disk cache is dropped when the package's source changes, anywhere in
it, and kept while it does not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tabletop_rl.envs.core.kernel_cache import (
    PACKAGE,
    STAMP,
    drop_stale_kernels,
    sources_digest,
)


def _package(root: Path) -> list[Path]:
    """A package with two modules in two folders, each with a cached kernel."""
    (root / "game").mkdir()
    (root / "core.py").write_text("def callee():\n    return 1\n")
    (root / "game" / "rules.py").write_text("def caller():\n    return callee()\n")
    kernels = []
    for folder, name in ((root, "core.callee-1.py312"), (root / "game", "rules.caller-1.py312")):
        (folder / "__pycache__").mkdir()
        for suffix in (".nbi", ".1.nbc"):
            kernels.append(folder / "__pycache__" / (name + suffix))
            kernels[-1].write_bytes(b"compiled")
    return kernels


def test_a_changed_callee_drops_its_callers_kernels_too(tmp_path: Path) -> None:
    kernels = _package(tmp_path)
    drop_stale_kernels(tmp_path)  # the first check stamps the source
    for path in kernels:
        path.write_bytes(b"compiled")
    assert drop_stale_kernels(tmp_path) == 0 and all(p.exists() for p in kernels)
    (tmp_path / "core.py").write_text("def callee():\n    return 2\n")  # the caller is unchanged
    assert drop_stale_kernels(tmp_path) == len(kernels)
    assert not any(p.exists() for p in kernels)
    assert (tmp_path / STAMP).read_text() == sources_digest(tmp_path)


def test_importing_the_environments_stamps_their_source() -> None:
    import tabletop_rl.envs  # noqa: F401  (runs the check)

    if not os.access(PACKAGE, os.W_OK):
        pytest.skip("the package folder is read-only: numba caches elsewhere")
    assert (PACKAGE / STAMP).read_text() == sources_digest()
