"""The library snippets of the README and of the integrations page run as written.

The Tianshou snippet runs in ``tests/test_tianshou.py`` (Tianshou compiles its numba kernels
once per process, so its tests share one file) and the RLlib ones in ``tests/test_rllib.py``
(Ray pins an older gymnasium); each other snippet is skipped when its library is not
installed. A page snippet that repeats a README snippet runs once, as the README's.
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
page_blocks, page_titles = readme_blocks.page_blocks, readme_blocks.page_titles

LIBRARIES = ["Gymnasium", "Stable-Baselines3", "Tianshou", "RLlib"]


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


def _run(code: str, name: str) -> dict:
    namespace: dict = {}
    exec(compile(code, name, "exec"), namespace)
    return namespace


def test_every_library_has_a_snippet_in_the_readme_and_a_section_on_the_page() -> None:
    assert library_titles() == LIBRARIES
    assert page_titles() == LIBRARIES
    for title in LIBRARIES:
        assert library_block(title).strip()
        assert page_blocks(title)


def test_readme_shares_its_sb3_tianshou_and_rllib_snippets_with_the_page() -> None:
    """These README snippets are on the page too, word for word (so they run once)."""
    for title in ("Stable-Baselines3", "Tianshou", "RLlib"):
        assert library_block(title) in page_blocks(title), title


def test_gymnasium_readme_snippet() -> None:
    ns = _run(library_block("Gymnasium"), "README: Gymnasium")
    assert ns["info"]["action_mask"].dtype == np.int8
    assert ns["obs"].shape == ns["env"].observation_space.shape
    # the vector env of the snippet is the compiled batch's, and steps all 64 games
    assert type(ns["envs"]).__name__ == "SingleAgentVectorEnv"
    assert ns["batch_obs"].shape == (64, *ns["env"].observation_space.shape)
    assert ns["rewards"].shape == (64,)


def test_gymnasium_page_snippets() -> None:
    """The page's Gymnasium snippets: one learner, the batched vector env, and any later."""
    one, vector, *more = page_blocks("Gymnasium")
    ns = _run(one, "integrations: Gymnasium")
    assert ns["info"]["action_mask"].dtype == np.int8
    ns = _run(vector, "integrations: Gymnasium vector")
    assert type(ns["envs"]).__name__ == "SingleAgentVectorEnv"  # the batched path
    assert ns["masks"].shape == (64, ns["envs"].single_action_space.n)
    assert ns["rewards"].shape == (64,)
    ns["envs"].close()
    for i, block in enumerate(more):
        _run(block, f"integrations: Gymnasium snippet {i + 3}")


def test_sb3_self_play_snippet() -> None:
    pytest.importorskip("sb3_contrib")
    ns = _run(library_block("Stable-Baselines3"), "README: Stable-Baselines3")
    assert ns["model"].num_timesteps >= 512 and ns["env"].num_envs == 8


def test_sb3_one_seat_page_snippet() -> None:
    pytest.importorskip("sb3_contrib")
    one_seat = page_blocks("Stable-Baselines3")[0]
    assert one_seat != library_block("Stable-Baselines3")
    ns = _run(one_seat, "integrations: Stable-Baselines3, one seat")
    assert ns["model"].num_timesteps >= 512
    assert ns["info"]["action_mask"][int(ns["action"])] == 1


def test_sb3_batched_page_snippet() -> None:
    """The page's MaskablePPO snippet trains on the batched vector env of ``make_vec``."""
    pytest.importorskip("sb3_contrib")
    from tabletop_rl.envs.gym_vector import SingleAgentVectorEnv

    batched = page_blocks("Stable-Baselines3")[1]
    assert "GymnasiumVecEnv" in batched
    ns = _run(batched, "integrations: Stable-Baselines3, batched")
    assert isinstance(ns["envs"], SingleAgentVectorEnv)
    assert ns["model"].num_timesteps >= 512 and ns["env"].num_envs == 8
