"""The command-line parser every ``tabletop-rl`` command uses.

Two things a newcomer relies on: ``--help`` shows each option's default, and a mistake is one
line that names it and points to ``--help`` (no usage block to read past).

>>> import contextlib, io
>>> parser = CommandParser(prog="tabletop-rl demo")
>>> _ = parser.add_argument("--games", type=int, default=100, help="games per pairing")
>>> "(default: 100)" in parser.format_help()
True
>>> err = io.StringIO()
>>> with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
...     parser.parse_args(["--games", "many"])
>>> print(err.getvalue().strip())
tabletop-rl demo: error: argument --games: invalid int value: 'many' (see tabletop-rl demo --help)
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Defaults shown after every option's help (unless the help already says it, or there
    is none to show: ``None``, a flag's ``False``); descriptions keep their line breaks."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "default" in text
            or default is None
            or default is False
            or default is argparse.SUPPRESS
            or not action.option_strings
        ):
            return text
        shown = " ".join(map(str, default)) if isinstance(default, list | tuple) else str(default)
        shown = shown.replace("%", "%%")  # help strings are %-formatted by argparse
        return f"{text} (default: {shown})" if text else f"(default: {shown})"


class CommandParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line and whose help shows the defaults."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def fail(prog: str, message: str) -> NoReturn:
    """End a command with a one-line error (exit status 2)."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


__all__ = ["CommandParser", "HelpFormatter", "fail"]
