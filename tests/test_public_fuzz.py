"""The public surface under random calls (``tests/public_fuzz.py``), run in a subprocess: a
call that crashed the interpreter (a compiled kernel reading or writing out of bounds) fails
this test with the signal instead of killing the test run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).with_name("public_fuzz.py")
EXAMPLES = 25
"""Examples per fuzzer in CI (the derandomised draws are the same every run)."""


def test_random_calls_raise_only_project_errors_and_never_crash() -> None:
    proc = subprocess.run(
        [sys.executable, str(FUZZ), str(EXAMPLES)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if proc.returncode < 0:
        pytest.fail(f"the fuzz run was killed by signal {-proc.returncode}:\n{proc.stderr[-4000:]}")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-6000:]
    assert proc.stdout.count("examples passed") == 4, proc.stdout
