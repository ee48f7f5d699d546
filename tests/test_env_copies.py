"""Wrapped environments (``make(name)``) pickle and deep-copy, in this process and another."""

from __future__ import annotations

import copy
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest
from pettingzoo.test import api_test

from tabletop_rl.envs import available_envs, make
from tabletop_rl.envs.core.conformance import random_continuation
from tabletop_rl.envs.errors import ActionOutOfRangeError, IllegalActionError

CASES = [(name, players) for name in available_envs() for players in (2, 3, 4)]


def _mid_game(name: str, players: int, steps: int = 9):
    env = make(name, num_players=players)
    env.reset(seed=players)
    random_continuation(env, seed=100 + players, steps=steps)
    return env


@pytest.mark.parametrize(("name", "players"), CASES)
def test_wrapped_env_pickles_and_deep_copies(name: str, players: int) -> None:
    env = _mid_game(name, players)
    assert env.agents, "the game ended before the copy; take fewer steps"
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for clone in copies:
        assert type(clone) is type(env) and clone.unwrapped is not env.unwrapped
    expected = random_continuation(env, seed=7, steps=40)
    for clone in copies:
        assert random_continuation(clone, seed=7, steps=40) == expected


def test_issue_repro_pickle_right_after_reset() -> None:
    for name in available_envs():
        env = make(name)
        env.reset(seed=1)
        clone = pickle.loads(pickle.dumps(env))
        assert random_continuation(clone, 0, 30) == random_continuation(env, 0, 30)


def test_pickle_before_reset_then_reset_in_the_copy() -> None:
    env = make("qwirkle_cards_v0", num_players=3)
    clone = pickle.loads(pickle.dumps(env))
    with pytest.raises(AttributeError, match="before reset"):
        _ = clone.agent_selection
    clone.reset(seed=2)
    env.reset(seed=2)
    assert random_continuation(clone, 3, 20) == random_continuation(env, 3, 20)


_CHILD = """
import pickle, sys
from tabletop_rl.envs.core.conformance import random_continuation
envs = pickle.load(sys.stdin.buffer)
pickle.dump([random_continuation(e, seed=7, steps=40) for e in envs], sys.stdout.buffer)
"""


def test_pickled_envs_continue_alike_in_another_process() -> None:
    envs = [_mid_game(name, players) for name, players in CASES]
    payload = pickle.dumps(envs)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], input=payload, capture_output=True, timeout=300
    )
    assert done.returncode == 0, done.stderr.decode()
    theirs = pickle.loads(done.stdout)
    ours = [random_continuation(e, seed=7, steps=40) for e in envs]
    assert len(theirs) == len(CASES)
    for (name, players), a, b in zip(CASES, ours, theirs, strict=True):
        assert a and a == b, f"{name} with {players} players continued differently"


@pytest.mark.parametrize("name", available_envs())
def test_out_of_range_action_names_the_action_and_the_range(name: str) -> None:
    env = make(name)
    env.reset(seed=0)
    n = int(env.action_space(env.agent_selection).n)
    for bad in (n, np.int64(n), -1, 2.5, True):
        shown = re.escape(repr(bad.item() if isinstance(bad, np.generic) else bad))
        with pytest.raises(ActionOutOfRangeError, match=rf"action {shown} .* 0 to {n - 1}"):
            env.step(bad)
    # code written against PettingZoo's wrapper catches an AssertionError
    with pytest.raises(AssertionError):
        env.step(n)
    assert env.agents  # nothing happened to the game
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


@pytest.mark.parametrize("name", available_envs())
def test_wrapped_env_passes_pettingzoo_api_test(name: str) -> None:
    api_test(make(name), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("name", available_envs())
def test_step_before_reset_on_a_raw_env_says_to_reset(name: str) -> None:
    env = make(name, raw=True)
    with pytest.raises(RuntimeError, match=r"reset\(\) before step\(\)"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(-1)
