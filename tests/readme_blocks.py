"""Code blocks of the README's "Library integrations" section, by subsection title, and of
the documentation's integrations page (``docs/integrations.md``), by section title."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
SECTION = README.split("## Library integrations\n", 1)[1].split("\n## ", 1)[0]
INTEGRATIONS = (ROOT / "docs" / "integrations.md").read_text()


def library_block(title: str, language: str = "python") -> str:
    """The first ``language`` block under ``### title`` of the README's section."""
    part = SECTION.split(f"### {title}\n", 1)[1].split("\n### ", 1)[0]
    match = re.search(rf"```{language}\n(.*?)```", part, re.S)
    assert match, f"no {language} block under '### {title}'"
    return match.group(1)


def library_titles() -> list[str]:
    """The README section's subsection titles (one per library)."""
    return re.findall(r"^### (.+)$", SECTION, re.M)


def page_titles() -> list[str]:
    """The integrations page's section titles (one per library)."""
    return re.findall(r"^## (.+)$", INTEGRATIONS, re.M)


def page_blocks(title: str, language: str = "python") -> list[str]:
    """Every ``language`` block under ``## title`` of the integrations page, in order."""
    part = INTEGRATIONS.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", part, re.S)
