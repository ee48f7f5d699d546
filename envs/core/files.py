"""Writing result files atomically, so that a reader never sees half a file.

Every writer goes through :func:`atomic_write`: the data is written to a temporary file in
the target's folder, flushed to disk, and moved over the target with :func:`os.replace`. An
interruption (Ctrl-C, a full disk) leaves either the old file or the new one, never a torn
mix, and no temporary file behind. The arena's summaries, PPO's checkpoints, evaluation
tables, plots and saved games all use these writers, and so do the copies of the compiled
kernels that a read-only install makes into a writable cache folder (:mod:`.kernel_cache`).

>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> atomic_write_text(folder / "a.csv", csv_text([{"x": 1, "y": None}], ["x", "y"]))
>>> (folder / "a.csv").read_text()
'x,y\\n1,\\n'
>>> sorted(p.name for p in folder.iterdir())
['a.csv']
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any


def atomic_write(path: str | Path, write: Callable[[IO[bytes]], None]) -> None:
    """Call ``write`` on a temporary binary file, then move it over ``path``.

    The folder of ``path`` is created if missing; the file is readable by others (0644).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o644)  # mkstemp's 0600 would hide results from others
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    atomic_write(path, lambda f: f.write(data))


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def csv_text(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    """``rows`` as CSV text with a header of ``columns``; ``None`` is written as empty."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row[c] is None else row[c] for c in columns])
    return buf.getvalue()


__all__ = ["atomic_write", "atomic_write_bytes", "atomic_write_text", "csv_text"]
