"""Start-up of the environments from a read-only install, against a writable one.

Start-up is the time, in a new Python process, to import ``tabletop_rl.envs``, make a game,
reset it and make one step (wall-clock and CPU seconds; on a busy machine the CPU figure is
the one to compare). The package is installed with ``pip install --target`` (a non-editable
install, byte-compiled as pip does) into a temporary folder, once per case:

- ``writable``: numba caches the kernels beside the modules (``__pycache__``), as in a
  checkout or an editable install; cold runs start with no kernel file, warm runs after one;
- ``read-only``: the install and the home folder are read-only: every process compiles into
  its private temporary folder (there is no warm run);
- ``read-only, warmed``: the same, but the installer ran the game once before making the
  install read-only: every process copies the kernels cached beside the modules;
- ``read-only, home``: the install is read-only, the home folder writable: the first process
  compiles into ``~/.cache/numba``, the later ones load from there (warm runs).

Runs of the cases alternate. Read-only means read-only for root too: run as root, each process
starts without the capabilities that let root write where the permissions forbid it (see
:func:`read_only_command`)::

    python benchmarks/read_only_start.py --game qwirkle_v0 --runs 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_WRITE_OVERRIDES = (1, 2, 3)
"""CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER: what lets root ignore permissions."""

_LAUNCHER = f"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
for cap in {_WRITE_OVERRIDES!r}:
    if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
        sys.exit(f"cannot drop capability {{cap}}: {{os.strerror(ctypes.get_errno())}}")
os.execv(sys.argv[1], sys.argv[1:])
"""
"""Runs its arguments as a command without the capabilities in :data:`_WRITE_OVERRIDES`
(dropped from the bounding set, so the command, executed afresh, never has them)."""

START = """
import sys, time
t0, c0 = time.perf_counter(), time.process_time()
import numpy as np
import tabletop_rl.envs
from tabletop_rl.envs import make
game = sys.argv[1]
env = make(game)
env.reset(seed=0)
rng = np.random.default_rng(0)
moves = 0
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    action = None
    if not (terminated or truncated):
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
    env.step(action)
    moves += 1
    if moves == 1:
        seconds = time.perf_counter() - t0, time.process_time() - c0
    if moves == int(sys.argv[2]):
        break
hits = misses = 0
for name, module in list(sys.modules.items()):
    if name.startswith("tabletop_rl.envs."):
        for value in vars(module).values():
            stats = getattr(value, "stats", None)
            if getattr(value, "py_func", None) is not None and stats is not None:
                hits += sum(stats.cache_hits.values())
                misses += sum(stats.cache_misses.values())
print(tabletop_rl.envs.__file__)
print(moves, hits, misses, *seconds)
"""
"""A new process's start-up: argv ``GAME MOVES``; plays ``MOVES`` random legal moves (0: a
whole game), then prints the package's file, then the moves made, the kernels loaded from the
cache and compiled (numba's counts over the package's modules), and the wall and CPU seconds
until the first move was made."""


def read_only_command(argv: Sequence[str]) -> list[str]:
    """``argv`` as a command that file permissions bind even when run as root."""
    if os.geteuid() != 0:
        return list(argv)
    return [sys.executable, "-c", _LAUNCHER, *argv]


def start(
    site: Path, home: Path, game: str, moves: int = 1, *, read_only: bool, tmp: Path | None = None
) -> tuple[str, list[float], str]:
    """Run :data:`START` with ``site`` (an install's folder) first on the path, ``home`` as
    the home folder and ``tmp`` as the temporary folder (the system's when None); return its
    package file, its figures (moves, kernels loaded, kernels compiled, wall s, CPU s) and
    what it wrote to stderr."""
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("NUMBA_", "XDG_"))
    }
    env.update(PYTHONPATH=str(site), HOME=str(home))
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    argv = [sys.executable, "-c", START, game, str(moves)]
    result = subprocess.run(
        read_only_command(argv) if read_only else argv,
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"start-up failed ({result.returncode}):\n{result.stderr}")
    package, figures = result.stdout.splitlines()[-2:]
    return package, [float(x) for x in figures.split()], result.stderr


def pip_install(target: Path) -> None:
    """A non-editable install of this checkout into ``target``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", target, ROOT],
        check=True,
    )


def make_read_only(*folders: Path) -> None:
    """Take the write permissions off everything under ``folders``."""
    for folder in folders:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)


def drop_kernels(site: Path) -> None:
    """Delete every cached kernel file under ``site``."""
    for pattern in ("*.nbi", "*.nbc"):
        for path in site.rglob(pattern):
            path.unlink()


def summary(label: str, runs: list[list[float]]) -> str:
    walls, cpus = [r[3] for r in runs], [r[4] for r in runs]
    return (
        f"{label:<28} wall min {min(walls):6.2f} s median {statistics.median(walls):6.2f} s, "
        f"CPU min {min(cpus):6.2f} s median {statistics.median(cpus):6.2f} s "
        f"({len(runs)} runs; kernels loaded {runs[-1][1]:.0f}, compiled {runs[-1][2]:.0f})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="qwirkle_v0")
    parser.add_argument("--runs", type=int, default=5, help="runs of each case")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        writable, read_only, warmed = folder / "writable", folder / "read-only", folder / "warmed"
        ro_home, rw_home = folder / "ro-home", folder / "rw-home"
        for path in (writable, read_only, warmed):
            pip_install(path)
        ro_home.mkdir()
        rw_home.mkdir()
        start(warmed, rw_home, args.game, read_only=False)  # the installer's run
        make_read_only(read_only, warmed, ro_home)
        cases: dict[str, list[list[float]]] = {}
        start(read_only, rw_home, args.game, read_only=True)  # fills ~/.cache/numba
        for _ in range(args.runs):
            drop_kernels(writable)
            runs = [
                ("writable, cold", writable, rw_home, False),
                ("writable, warm", writable, rw_home, False),
                ("read-only, cold", read_only, ro_home, True),
                ("read-only, warmed", warmed, ro_home, True),
                ("read-only, home: warm", read_only, rw_home, True),
            ]
            for label, site, home, ro in runs:
                package, figures, _ = start(site, home, args.game, read_only=ro)
                assert package.startswith(str(site)), package
                cases.setdefault(label, []).append(figures)
        for label, runs in cases.items():
            print(summary(label, runs))
        for path in (read_only, warmed, ro_home):  # so that the folder can be removed
            for sub in [path, *path.rglob("*")]:
                if sub.is_dir():
                    sub.chmod(0o755)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
