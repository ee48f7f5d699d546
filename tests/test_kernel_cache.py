"""The compiled kernels' disk cache: a kernel is taken from it only if it was built from the
package's source as it is (a changed callee in another file included), importing never deletes
anything, stale files go only when asked, and a read-only install (read-only home included)
imports and plays, from the kernels cached beside it where its installer left them."""

from __future__ import annotations

import compileall
import importlib.util
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from numba.core.caching import IndexDataCacheFile

from tabletop_rl.envs.core.kernel_cache import (
    PACKAGE,
    PRIVATE_PREFIX,
    clean,
    kernel_files,
    seed,
    sources_digest,
)

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "read_only_start.py"
spec = importlib.util.spec_from_file_location("read_only_start", SCRIPT)
assert spec is not None and spec.loader is not None
read_only_start = importlib.util.module_from_spec(spec)
spec.loader.exec_module(read_only_start)

GAME = "qwirkle_v0"
"""The game played from the installs (the quickest to compile of the three)."""
DROPPED = "compiled_kernels.observe-*"
"""A kernel of ``GAME``, called from Python, that the read-only installs lack: it compiles."""


def _index(folder: Path, name: str, stamp: str, *data: bytes) -> list[Path]:
    """A numba index ``name.nbi`` in ``folder`` for source stamp ``stamp``, written by numba,
    with one data file per item of ``data``; return the files."""
    cache = IndexDataCacheFile(str(folder), name, stamp)
    for i, item in enumerate(data):
        cache.save(("signature", i), item)
    return sorted(folder.glob(f"{name}.*"))


def test_seeding_copies_the_fresh_kernels_a_folder_lacks(tmp_path: Path) -> None:
    source, target = tmp_path / "source", tmp_path / "target"
    source.mkdir()
    target.mkdir()
    fresh = _index(source, "core.f-1.py311", "now", b"f1", b"f2")
    _index(source, "core.g-9.py311", "before", b"g")  # built from another source
    assert seed(source, target, "now") == 1
    assert sorted(p.name for p in target.iterdir()) == [p.name for p in fresh]
    assert all((target / p.name).read_bytes() == p.read_bytes() for p in fresh)
    assert seed(source, target, "now") == 0  # fresh there already: left as it is
    assert seed(source, target, "later") == 0  # nothing is fresh for another source


def test_cleaning_deletes_stale_kernel_files_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "core.py").write_text("def f():\n    return 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    fresh = _index(cache, "core.f-1.py311", sources_digest(tmp_path), b"f")
    stale = _index(cache, "core.f-7.py311", "an older source", b"f")  # the kernel moved
    orphan = cache / "core.f-1.py311.2.nbc"  # an index no longer names it
    orphan.write_bytes(b"f")
    assert kernel_files(cache, sources_digest(tmp_path)) == (fresh, sorted([*stale, orphan]))
    assert sorted(clean(tmp_path)) == sorted([*stale, orphan])
    assert sorted(cache.iterdir()) == fresh
    assert sorted(clean(tmp_path, everything=True)) == fresh
    assert list(cache.iterdir()) == []


def _install(site: Path, *, kernels: bool) -> Path:
    """Copy the environments' package into ``site`` as a non-editable install lays it out
    (byte-compiled), with this checkout's cached kernels if ``kernels``; return its folder."""
    package = site / "tabletop_rl" / "envs"
    keep = {".py", ".json", *((".nbi", ".nbc") if kernels else ())}
    shutil.copytree(
        PACKAGE,
        package,
        ignore=lambda folder, names: [n for n in names if "." in n and Path(n).suffix not in keep],
    )
    compileall.compile_dir(package, quiet=1)
    return package


def _run(site: Path, *args: str) -> str:
    """What ``python ARGS`` prints, run in a new process with the install in ``site`` (its
    home folder too)."""
    return subprocess.run(
        [sys.executable, *args],
        env={"PYTHONPATH": str(site), "HOME": str(site), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout


CALLEE = "from numba import njit\n\n\n@njit(cache=True)\ndef callee():\n    return {}\n"
CALLER = (
    "from numba import njit\n\nfrom .probe_callee import callee\n\n\n"
    "@njit(cache=True)\ndef caller():\n    return callee() * 10\n"
)
PROBE = "import tabletop_rl.envs.probe_caller as m; print(m.__file__, m.caller())"


def test_a_changed_callee_in_another_file_is_not_served_stale(tmp_path: Path) -> None:
    package = _install(tmp_path, kernels=False)
    (package / "probe_callee.py").write_text(CALLEE.format(1))
    (package / "probe_caller.py").write_text(CALLER)
    assert _run(tmp_path, "-c", PROBE).split() == [str(package / "probe_caller.py"), "10"]
    cached = sorted((package / "__pycache__").glob("probe_caller.caller-*"))
    assert len(cached) == 2  # cached beside the module: its index and its code
    leftover = package / "__pycache__" / "probe_caller.gone-3.py311.nbi"
    leftover.write_bytes(b"a kernel that no longer exists")
    (package / "probe_callee.py").write_text(CALLEE.format(2))  # the caller's file unchanged
    assert _run(tmp_path, "-c", PROBE).split()[1] == "20"
    assert leftover.exists()  # importing deletes nothing
    command = ["-m", "tabletop_rl.envs.kernels"]
    assert _run(tmp_path, *command) == f"{package / '__pycache__'}: 4 fresh, 1 stale\n"
    assert _run(tmp_path, *command, "--clean") == "deleted 1 kernel file\n"
    assert not leftover.exists() and all(path.exists() for path in cached)


@pytest.fixture(scope="module")
def read_only_install(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A read-only install holding the kernels that a game of ``GAME`` uses, ``DROPPED``'s
    excepted, cached beside its modules (as its installer would leave them by running it)."""
    site = tmp_path_factory.mktemp("site")
    home = tmp_path_factory.mktemp("home")
    # a game from this checkout first, so that its cache holds every kernel the game uses
    read_only_start.start(site, home, GAME, 0, read_only=False)
    package = _install(site, kernels=True)
    dropped = list((package / "qwirkle" / "__pycache__").glob(DROPPED))
    assert len(dropped) >= 2, f"no cached kernel named {DROPPED}"
    for path in dropped:
        path.unlink()
    read_only_start.make_read_only(site)
    probe = subprocess.run(
        read_only_start.read_only_command(
            [sys.executable, "-c", f"open({str(site / 'probe')!r}, 'w')"]
        ),
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode == 0 or "cannot drop capability" in probe.stderr:
        reason = probe.stderr.strip() or "its writes succeed"
        pytest.skip(f"cannot make a folder read-only for the tests' user: {reason}")
    assert "PermissionError" in probe.stderr, probe.stderr
    yield site
    for path in [site, *site.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_a_read_only_install_with_a_read_only_home_plays(
    read_only_install: Path, tmp_path: Path
) -> None:
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    read_only_start.make_read_only(home)
    before = _files(read_only_install)
    package, (moves, loaded, compiled, *_), stderr = read_only_start.start(
        read_only_install, home, GAME, 0, read_only=True, tmp=tmp
    )
    assert package.startswith(str(read_only_install))
    assert stderr == ""
    assert moves > 50  # a whole game
    assert compiled == 1  # DROPPED, compiled into the process's private folder
    assert loaded >= 3  # the others, from the kernels cached beside the modules
    assert _files(read_only_install) == before
    assert _files(home) == []
    assert list(tmp.iterdir()) == []  # the private folder went with the process


def test_a_read_only_install_caches_in_the_users_folder(
    read_only_install: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    first = read_only_start.start(read_only_install, home, GAME, 0, read_only=True)
    assert first[1][2] == 1 and first[2] == ""  # DROPPED compiled, into the user's folder
    cache = home / ".cache" / "numba"
    assert any(cache.rglob(DROPPED + ".nbi"))
    second = read_only_start.start(read_only_install, home, GAME, 0, read_only=True)
    assert second[1][2] == 0 and second[1][1] > 0  # every kernel loaded: nothing compiles
    assert not any(p.name.startswith(PRIVATE_PREFIX) for p in home.rglob("*"))


def test_nowhere_to_write_is_a_clear_error(read_only_install: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    read_only_start.make_read_only(home)
    code = (
        f"import tempfile; tempfile.tempdir = {str(home)!r}\n"
        "from tabletop_rl.envs import make\n"
        f"make({GAME!r})\n"
    )
    result = subprocess.run(
        read_only_start.read_only_command([sys.executable, "-c", code]),
        env={"PYTHONPATH": str(read_only_install), "HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("PermissionError: no folder to cache the compiled kernels of ")
    assert "the temporary folder are read-only" in last
