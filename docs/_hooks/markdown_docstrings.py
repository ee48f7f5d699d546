"""Docstrings as Markdown, for the documentation site.

The project's docstrings mix Markdown with a few reStructuredText habits: ``:class:`~a.b```
roles, ``>>>`` examples without a fence, ``text::`` before an indented block and underlined
section titles. :func:`to_markdown` rewrites those so that MkDocs renders them as the source
reads; :class:`MarkdownDocstrings` applies it to every docstring mkdocstrings collects (a
griffe extension), and the build hook to the environments' module docstrings, which are the
environment pages.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):`~?([^`]+)`")
_UNDERLINE = re.compile(r"^(-{3,}|={3,})$")
_LITERAL_INTRO = re.compile(r"(?<!:)::$")


def _role(match: re.Match[str]) -> str:
    """``:class:`~a.b``` -> ```b``` (``~`` keeps the last part), else the whole target."""
    text = match.group(0)
    target = match.group(1)
    if "`~" in text:
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _fence_examples(lines: list[str]) -> list[str]:
    """Wrap each run of ``>>>`` lines (and the output lines after them, up to a blank line)
    in a ``pycon`` fence, unless it is already inside a fence or an indented block."""
    out: list[str] = []
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith(">>>"):
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out += ["```pycon", *block, "```"]
            continue
        out.append(line)
        i += 1
    return out


def to_markdown(doc: str) -> str:
    """The docstring ``doc`` with its reStructuredText habits written as Markdown."""
    doc = _ROLE.sub(_role, doc)
    lines = _fence_examples(doc.splitlines())
    out: list[str] = []
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced:
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if line.strip() and _UNDERLINE.match(following.strip()) and not line.startswith(" "):
                level = "##" if following.strip()[0] == "-" else "#"
                out.append(f"{level} {line.strip()}")
                continue
            if _UNDERLINE.match(line.strip()) and out and out[-1].startswith("#"):
                continue
            if _LITERAL_INTRO.search(line) and not line.startswith(" "):
                # "text::" introduces an indented literal block: Markdown's indented code
                line = line[:-1] if line.rstrip() != "::" else ""
        out.append(line)
    return "\n".join(out)


class MarkdownDocstrings(griffe.Extension):
    """Rewrite every collected docstring with :func:`to_markdown`."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)
