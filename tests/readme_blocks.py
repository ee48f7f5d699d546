"""Code blocks of the README's "Using with other libraries" section, by subsection title."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
SECTION = README.split("## Using with other libraries\n", 1)[1].split("\n## ", 1)[0]


def library_block(title: str, language: str = "python") -> str:
    """The first ``language`` block under ``### title`` of that section."""
    part = SECTION.split(f"### {title}\n", 1)[1].split("\n### ", 1)[0]
    match = re.search(rf"```{language}\n(.*?)```", part, re.S)
    assert match, f"no {language} block under '### {title}'"
    return match.group(1)


def library_titles() -> list[str]:
    return re.findall(r"^### (.+)$", SECTION, re.M)
