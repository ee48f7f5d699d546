"""The Python examples of the documentation pages run as written.

Every ``python`` block of every page under ``docs/`` runs, in a fresh namespace, except the
integrations page's, which ``tests/test_readme_libraries.py`` and the library tests run (they
need optional libraries). The environment pages are the modules' docstrings, whose examples
run as doctests (``tests/test_packaging.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
RUN_ELSEWHERE = {"integrations.md"}
EXAMPLES = [
    (path, i, block)
    for path in sorted(DOCS.rglob("*.md"))
    if path.name not in RUN_ELSEWHERE
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(), re.S))
]


def test_the_pages_have_examples() -> None:
    pages = {path.relative_to(DOCS).as_posix() for path, _, _ in EXAMPLES}
    assert {"getting-started.md", "agents/index.md"} <= pages


@pytest.mark.parametrize(
    ("path", "index", "block"),
    EXAMPLES,
    ids=[f"{p.relative_to(DOCS).as_posix()}:{i}" for p, i, _ in EXAMPLES],
)
def test_example_runs(path: Path, index: int, block: str) -> None:
    exec(compile(block, f"{path.name} example {index}", "exec"), {})
