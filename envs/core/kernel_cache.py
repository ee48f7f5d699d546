"""Where the compiled kernels' disk cache lives, and how it stays true to the source.

The compiled cores are numba kernels with ``cache=True``: a new process loads their machine
code from files (an index ``*.nbi`` per kernel, a ``*.nbc`` per compiled signature) instead of
compiling them again, which takes seconds of CPU a game. Importing
:mod:`tabletop_rl.envs` registers :class:`PackageCacheLocator` with numba; for the kernels of
this package (and no other code) it decides where those files go and when they are fresh.

**Fresh.** numba stamps a cached kernel with its own file only, not with the files of the
kernels it calls nor of the constants it reads: after an edit, a ``git pull`` or an upgrade
that changes a callee in another file, numba's own locators hand back the caller compiled
against the old callee, and the environments compute with stale code without a word. This
locator stamps every kernel with :func:`sources_digest`, a digest of every source and data
file of the package, taken once per process. After any change to the package every index
reads as stale, so numba compiles each kernel again when it is first used and writes over its
old files. Nothing is deleted on import (a stale cache is numba's to ignore): files that no
index will name again (a kernel whose first line moved is cached under a new name) stay until
``python -m tabletop_rl.envs.kernels --clean`` removes them (:func:`clean`).

**Where.** The first of these folders that the process can write holds the kernels of a
source folder:

1. ``__pycache__`` next to the module (numba's default: a checkout, an editable install or a
   site-packages the user can write);
2. the user's cache folder, where numba keeps its own (``~/.cache/numba`` on Linux);
3. a private temporary folder (mode 0700), removed when the process exits: no cache outlives
   the process, every process compiles what it uses.

numba's ``NUMBA_CACHE_DIR``, when set, takes the place of 1 and 2 (numba's own rule). Before 2
or 3 is used (without ``NUMBA_CACHE_DIR``), the kernels cached beside the module that are fresh
(for this source and this numba) and missing there are copied in: an install made read-only
after whoever installed it ran it once (a system-wide site-packages) starts warm for every
user, including one whose home folder is read-only. Without this locator numba skips a
read-only ``__pycache__`` altogether, every user compiles into ``~/.cache/numba``, and with a
read-only home too the import fails (``cannot cache function ...: no locator available``).
Where not even a temporary folder can be created the import stops with a ``PermissionError``
that says so. Shipping compiled kernels in the wheel is no option: their machine code is
specific to the CPU and to the numba version. (numba's ``NUMBA_CACHE_LOCATOR_CLASSES``, when
set, replaces every locator, this one included.)

**Cost.** Start-up (import, ``make("qwirkle_v0")``, ``reset``, one step) in a new process,
seconds, min / median of 5 alternated runs on a shared, loaded 2-core machine (numba 0.68.1,
Python 3.11), each case a ``pip install --target`` of the package (``python
benchmarks/read_only_start.py --game qwirkle_v0 --runs 5``)::

    case                                  cold CPU       cold wall      warm CPU     warm wall
    writable install (__pycache__)        9.32 / 10.06   18.50 / 19.68  0.85 / 0.89  1.21 / 1.98
    read-only install, read-only home     9.92 / 10.56   19.23 / 21.54  (every process is cold)
    the same, run once by its installer                                 0.88 / 0.99  1.55 / 2.43
    read-only install, writable home                                    0.81 / 0.95  1.18 / 1.51

Registering the locator imports numba with the package: ``import tabletop_rl.envs`` alone
takes 0.39 s of CPU instead of 0.19 s (min of 5, alternated), a cost every environment pays
anyway.

>>> import tempfile
>>> from pathlib import Path
>>> root = Path(tempfile.mkdtemp())
>>> _ = (root / "core.py").write_text("x = 1\\n")
>>> before = sources_digest(root)
>>> _ = (root / "core.py").write_text("x = 2\\n")
>>> sources_digest(root) == before  # any changed file is a new stamp for every kernel
False
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
from numba.core import config
from numba.core.caching import CacheImpl, _CacheLocator
from numba.misc.appdirs import AppDirs

from .files import atomic_write_bytes

PACKAGE = Path(__file__).resolve().parents[1]
"""The environments' package folder (``tabletop_rl/envs``)."""
SOURCE_FILES = ("*.py", "*.json")
"""What :func:`sources_digest` hashes: the package's Python sources and its data files."""
KERNEL_FILES = ("*.nbi", "*.nbc")
"""numba's cache files: an index per kernel and its compiled code, one file per signature."""
PRIVATE_PREFIX = "tabletop-rl-kernels-"
"""The name's start of a process's private temporary cache folder (the last resort)."""


def sources_digest(root: Path = PACKAGE) -> str:
    """SHA-256 of every source and data file under ``root``: relative paths and contents."""
    digest = hashlib.sha256()
    paths = {path for pattern in SOURCE_FILES for path in root.rglob(pattern)}
    for path in sorted(paths):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.cache
def source_stamp() -> str:
    """The stamp of every kernel of the package: :func:`sources_digest`, once per process
    (the code a process runs is the code it imported)."""
    return sources_digest()


def _user_subfolder(source: Path) -> str:
    """The folder, under a cache root, for the kernels of source folder ``source`` (numba's
    own naming: the folder's name and a hash of its path)."""
    return _CacheLocator.get_suitable_cache_subpath(str(source / "__init__.py"))


def user_cache_root() -> Path:
    """Where numba keeps a user's kernels when it cannot keep them beside the module."""
    return Path(AppDirs(appname="numba", appauthor=False).user_cache_dir)


def _writable(folder: Path) -> bool:
    """Whether ``folder`` exists or can be made, and a file can be written in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


@functools.cache
def _private_root() -> Path | None:
    """This process's own temporary cache folder, removed at exit; None if none can be made."""
    try:
        root = Path(tempfile.mkdtemp(prefix=PRIVATE_PREFIX))
    except OSError:
        return None
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


def fresh_data_files(index: Path, stamp: str) -> list[str] | None:
    """The data files that numba index ``index`` lists, if this numba version wrote it for
    source stamp ``stamp``; None when it is stale, from another numba, unreadable or absent."""
    try:
        with index.open("rb") as f:
            if pickle.load(f) != numba.__version__:
                return None
            index_stamp, overloads = pickle.loads(f.read())
    except Exception:  # a torn, foreign or missing index is simply not a fresh one
        return None
    if index_stamp != stamp:
        return None
    return sorted(overloads.values())


def seed(source: Path, target: Path, stamp: str) -> int:
    """Copy into ``target`` the kernels cached fresh in ``source`` that are not fresh in
    ``target``; return how many kernels were copied. Each kernel's data files are written
    before its index, each file atomically, so a reader never sees an index without its data."""
    copied = 0
    for index in sorted(source.glob("*.nbi")):
        data = fresh_data_files(index, stamp)
        if data is None or fresh_data_files(target / index.name, stamp) is not None:
            continue
        try:
            for name in (*data, index.name):
                atomic_write_bytes(target / name, (source / name).read_bytes())
        except OSError:  # the source changed under us, or the target filled up: compile
            continue
        copied += 1
    return copied


@functools.cache
def cache_folder(source: Path) -> Path:
    """The folder that holds the kernels of source folder ``source`` in this process (the
    module docstring has the order), seeded from ``source/__pycache__`` when it is another."""
    in_tree = source / "__pycache__"
    subfolder = _user_subfolder(source)
    if config.CACHE_DIR:
        candidates = [Path(config.CACHE_DIR) / subfolder]
    else:
        candidates = [in_tree, user_cache_root() / subfolder]
    folder = next((c for c in candidates if _writable(c)), None)
    if folder is None:
        private = _private_root()
        if private is None or not _writable(private / subfolder):
            raise PermissionError(
                f"no folder to cache the compiled kernels of {source} in: "
                f"{', '.join(map(str, candidates))} and the temporary folder are read-only"
            )
        folder = private / subfolder
    if folder != in_tree and not config.CACHE_DIR:
        seed(in_tree, folder, source_stamp())
    return folder


class PackageCacheLocator(_CacheLocator):
    """numba's cache locator for the kernels of this package (see the module docstring)."""

    def __init__(self, py_func: Callable[..., Any], py_file: str, folder: Path) -> None:
        self._py_file = py_file  # numba names it in a warning about an uncachable kernel
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(folder)

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        return source_stamp()

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Callable[..., Any], py_file: str) -> PackageCacheLocator | None:
        path = Path(os.path.realpath(py_file))
        if not path.is_relative_to(PACKAGE) or not path.is_file():
            return None  # not this package's: numba's own locators decide
        return cls(py_func, py_file, cache_folder(path.parent))


def register_cache_locator() -> None:
    """Put :class:`PackageCacheLocator` first among numba's cache locators (once)."""
    if PackageCacheLocator not in CacheImpl._locator_classes:
        CacheImpl._locator_classes.insert(0, PackageCacheLocator)


def source_folders(root: Path = PACKAGE) -> list[Path]:
    """Every folder of the package that holds Python modules."""
    return sorted({path.parent for path in root.rglob("*.py")})


def kernel_folders(root: Path = PACKAGE) -> list[Path]:
    """Every existing folder that may hold kernels of the package: ``__pycache__`` beside
    each module, the user's cache folder and ``NUMBA_CACHE_DIR`` (this process's private
    temporary folder goes with the process)."""
    roots = [user_cache_root()] + ([Path(config.CACHE_DIR)] if config.CACHE_DIR else [])
    folders = []
    for source in source_folders(root):
        subfolder = _user_subfolder(source)
        folders += [source / "__pycache__", *(cache_root / subfolder for cache_root in roots)]
    return [folder for folder in folders if folder.is_dir()]


def kernel_files(folder: Path, stamp: str) -> tuple[list[Path], list[Path]]:
    """The kernel files in ``folder``, split into (fresh, stale): an index written by this
    numba for ``stamp`` and the data files it names are fresh, every other one stale."""
    fresh: set[str] = set()
    for index in folder.glob("*.nbi"):
        data = fresh_data_files(index, stamp)
        if data is not None:
            fresh.update((index.name, *data))
    paths = sorted(path for pattern in KERNEL_FILES for path in folder.glob(pattern))
    return [p for p in paths if p.name in fresh], [p for p in paths if p.name not in fresh]


def clean(root: Path = PACKAGE, *, everything: bool = False) -> list[Path]:
    """Delete the package's stale kernel files (every one with ``everything``) from
    :func:`kernel_folders`; return the deleted paths. Files that cannot be deleted (a
    read-only install) are left."""
    deleted = []
    stamp = sources_digest(root)
    for folder in kernel_folders(root):
        fresh, stale = kernel_files(folder, stamp)
        for path in stale + fresh if everything else stale:
            try:
                path.unlink()
            except OSError:
                continue
            deleted.append(path)
    return deleted


__all__ = [
    "KERNEL_FILES",
    "PACKAGE",
    "PRIVATE_PREFIX",
    "SOURCE_FILES",
    "PackageCacheLocator",
    "cache_folder",
    "clean",
    "fresh_data_files",
    "kernel_files",
    "kernel_folders",
    "register_cache_locator",
    "seed",
    "source_folders",
    "source_stamp",
    "sources_digest",
    "user_cache_root",
]
