"""Running ``tabletop-rl`` as a user would: the installed command, in a subprocess.

Tests import this module after putting ``tests/`` on ``sys.path``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

COMMAND = Path(sys.executable).with_name("tabletop-rl")
"""The console script ``pip install -e .`` put next to this interpreter."""


def command_line(args: Sequence[str], python_prelude: str | None = None) -> list[str]:
    """The argv that runs ``tabletop-rl ARGS``; with ``python_prelude``, the same command
    through ``python -c`` after running the prelude (to hide an optional library)."""
    if python_prelude is not None:
        code = (
            f"{python_prelude}\nimport sys\nfrom tabletop_rl.baselines.cli import main\n"
            "sys.exit(main(sys.argv[1:]))"
        )
        return [sys.executable, "-c", code, *args]
    if COMMAND.exists():
        return [str(COMMAND), *args]
    return [sys.executable, "-m", "tabletop_rl.baselines.cli", *args]


def run_cli(
    args: Sequence[str],
    cwd: Path | None = None,
    stdin: str = "",
    timeout: float = 120,
    python_prelude: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``tabletop-rl ARGS`` to completion and capture what it printed."""
    return subprocess.run(
        command_line(args, python_prelude),
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@contextmanager
def cli_process(args: Sequence[str]) -> Iterator[subprocess.Popen[str]]:
    """``tabletop-rl ARGS`` started in a process group of its own (as a terminal's foreground
    job: ``os.killpg(proc.pid, SIGINT)`` is a Ctrl-C), its output piped; when the block ends
    with the command still running, its whole group is killed, so that no worker process it
    started outlives the test."""
    proc = subprocess.Popen(
        command_line(args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
