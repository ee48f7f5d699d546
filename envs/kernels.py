"""The compiled kernels' disk cache from the command line: where it is, and cleaning it.

::

    python -m tabletop_rl.envs.kernels              # the folders holding this install's kernels
    python -m tabletop_rl.envs.kernels --clean      # delete the stale files among them
    python -m tabletop_rl.envs.kernels --clean-all  # delete them all: every kernel compiles again

A stale file is one that no kernel of the package's current source will read again (an older
source, an older numba, or a kernel that moved); importing the environments never deletes
anything (:mod:`tabletop_rl.envs.core.kernel_cache` says where the kernels go and why).
"""

from __future__ import annotations

import argparse

from .core.kernel_cache import clean, kernel_files, kernel_folders, sources_digest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tabletop_rl.envs.kernels", description=__doc__.split("\n\n")[0]
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--clean", action="store_true", help="delete the stale kernel files")
    action.add_argument("--clean-all", action="store_true", help="delete every kernel file")
    args = parser.parse_args(argv)
    if args.clean or args.clean_all:
        deleted = clean(everything=args.clean_all)
        print(f"deleted {len(deleted)} kernel file{'s' * (len(deleted) != 1)}")
        return 0
    stamp = sources_digest()
    for folder in kernel_folders():
        fresh, stale = kernel_files(folder, stamp)
        if fresh or stale:
            print(f"{folder}: {len(fresh)} fresh, {len(stale)} stale")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
