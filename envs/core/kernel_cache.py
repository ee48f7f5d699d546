"""Keep the compiled kernels' on-disk cache true to the source they were compiled from.

The compiled cores are numba kernels cached on disk (``cache=True``: files ``*.nbi`` and
``*.nbc`` in the ``__pycache__`` folder next to each module), so that a new process loads them
instead of compiling for a minute. numba keys a cached kernel on the file that defines it
(its path, size and modification time), not on the files of the kernels it calls: after an
edit, a ``git pull`` or a checkout that changes a called kernel in another file but not the
caller's file, the cache would hand back the caller compiled against the old callee, and the
environments would compute with stale code without a word.

:func:`drop_stale_kernels` closes that gap for the whole package at once. It hashes the
source of every module of ``tabletop_rl.envs`` and compares the digest with the stamp left
beside the cache by the last process that checked; when they differ (or there is no stamp)
it deletes every cached kernel of the package and writes the new stamp, so the kernels
compile afresh from the source as it is. Importing ``tabletop_rl.envs`` runs it once per
process (about 3 ms to hash the sources); nothing is deleted while the source is unchanged.
Where the package folder cannot be written (an install in a read-only place), numba keeps its
cache elsewhere and this check does nothing.

>>> import tempfile
>>> from pathlib import Path
>>> root = Path(tempfile.mkdtemp())
>>> _ = (root / "core.py").write_text("x = 1\\n")
>>> (root / "__pycache__").mkdir()
>>> _ = (root / "__pycache__" / "core.kernel-3.py312.nbi").write_bytes(b"old")
>>> drop_stale_kernels(root), drop_stale_kernels(root)  # no stamp yet: dropped; then fresh
(1, 0)
>>> _ = (root / "core.py").write_text("x = 2\\n")
>>> _ = (root / "__pycache__" / "core.kernel-3.py312.nbc").write_bytes(b"old")
>>> drop_stale_kernels(root)  # the source changed: its kernels go
1
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

from .files import atomic_write_text

PACKAGE = Path(__file__).resolve().parents[1]
"""The environments' package folder (``tabletop_rl/envs``)."""
STAMP = "__pycache__/kernel-sources.sha256"
"""Where, under the package folder, the digest of the source the cache was built from lives."""
KERNEL_FILES = ("*.nbi", "*.nbc")
"""numba's cache files: an index per kernel and its compiled code."""


def sources_digest(root: Path = PACKAGE) -> str:
    """SHA-256 of every Python source under ``root``: relative paths and contents."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def drop_stale_kernels(root: Path = PACKAGE) -> int:
    """Delete the cached kernels under ``root`` unless its stamp matches its source; return
    how many cache files were deleted (see the module docstring)."""
    digest = sources_digest(root)
    stamp = root / STAMP
    with contextlib.suppress(OSError):
        if stamp.read_text() == digest:
            return 0
    dropped = 0
    for pattern in KERNEL_FILES:
        for path in root.rglob(pattern):
            with contextlib.suppress(OSError):  # gone already (another process), or read-only
                path.unlink()
                dropped += 1
    with contextlib.suppress(OSError):  # a read-only install: numba caches elsewhere
        atomic_write_text(stamp, digest)
    return dropped


__all__ = ["KERNEL_FILES", "PACKAGE", "STAMP", "drop_stale_kernels", "sources_digest"]
