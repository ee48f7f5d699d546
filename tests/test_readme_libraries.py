"""The README's "Using with other libraries" snippets run as written.

The RLlib snippet needs Ray and runs in ``tests/test_rllib.py``; the Tianshou one runs in
``tests/test_tianshou.py`` (Tianshou compiles its numba kernels once per process, so its
tests share one file); each other snippet is skipped when its library is not installed.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
readme_blocks = importlib.import_module("readme_blocks")
library_block, library_titles = readme_blocks.library_block, readme_blocks.library_titles


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    try:
        import torch
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _run(title: str) -> dict:
    namespace: dict = {}
    exec(compile(library_block(title), f"README: {title}", "exec"), namespace)
    return namespace


def test_every_library_has_a_snippet() -> None:
    titles = library_titles()
    assert len(titles) == 5
    for title in titles:
        assert library_block(title).strip()


def test_gymnasium_snippet() -> None:
    ns = _run("Gymnasium")
    assert ns["masks"].shape == (4, ns["envs"].single_action_space.n)
    assert ns["info"]["action_mask"].dtype == np.int8
    ns["envs"].close()


def test_sb3_one_seat_snippet() -> None:
    pytest.importorskip("sb3_contrib")
    ns = _run("Stable-Baselines3: one seat")
    assert ns["model"].num_timesteps >= 512
    assert ns["info"]["action_mask"][int(ns["action"])] == 1


def test_sb3_self_play_snippet() -> None:
    pytest.importorskip("sb3_contrib")
    ns = _run("Stable-Baselines3: self-play on every seat")
    assert ns["model"].num_timesteps >= 512 and ns["env"].num_envs == 8
