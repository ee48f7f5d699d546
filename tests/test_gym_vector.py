"""The batched Gymnasium vector environment (``make_vec(..., "vector_entry_point")``) equals
the sync vector environment of single-agent wrappers, step for step, and keeps Gymnasium's
vector conventions."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from tabletop_rl.envs import ConfigError, IllegalActionError
from tabletop_rl.envs.core.batch_policy import GameGenerators, RandomPolicy
from tabletop_rl.envs.gym_vector import SingleAgentVectorEnv

IDS = {
    "liniell_v0": "tabletop_rl/Liniell-v0",
    "qwirkle_v0": "tabletop_rl/Qwirkle-v0",
    "qwirkle_cards_v0": "tabletop_rl/QwirkleCards-v0",
}
NEXT, SAME, DISABLED = AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED


def assert_same(a: Any, b: Any, where: str = "") -> None:
    """``a`` and ``b`` are equal: dicts key for key, arrays in dtype, shape and values."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), f"{where}: {sorted(a)} {sorted(b)}"
        for key in a:
            assert_same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, np.ndarray) and a.dtype == object:
        assert isinstance(b, np.ndarray) and b.dtype == object and a.shape == b.shape, where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), f"{where}: {type(b)}"
        assert (a.dtype, a.shape) == (b.dtype, b.shape), f"{where}: {a.dtype}{a.shape} {b.dtype}"
        assert np.array_equal(a, b), f"{where}: differs at {np.argwhere(a != b)[:3].tolist()}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def both(env_name: str, num_envs: int, mode: AutoresetMode, **kwargs: Any) -> tuple[Any, Any]:
    """The sync vector env and the batched one, built through ``gymnasium.make_vec``."""
    sync = gymnasium.make_vec(
        IDS[env_name],
        num_envs=num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        **kwargs,
    )
    batched = gymnasium.make_vec(
        IDS[env_name],
        num_envs=num_envs,
        vectorization_mode="vector_entry_point",
        autoreset_mode=mode,
        **kwargs,
    )
    assert isinstance(batched, SingleAgentVectorEnv)
    return sync, batched


def replay(
    sync: Any, batched: Any, steps: int, seed: int, illegal_every: int = 0
) -> tuple[int, int]:
    """Step both with the same random legal actions (an illegal one in sub-env 0 every
    ``illegal_every`` steps), asserting equal results; returns (episodes ended, illegal
    actions sent)."""
    expected, got = sync.reset(seed=seed), batched.reset(seed=seed)
    assert_same(expected[0], got[0], "reset obs")
    assert_same(expected[1], got[1], "reset info")
    rng = np.random.default_rng(seed)
    info = expected[1]
    ended = illegal = 0
    for t in range(steps):
        masks = info["action_mask"]
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        if illegal_every and t % illegal_every == illegal_every - 1 and masks[0].any():
            actions[0] = int(np.argmin(masks[0]))
            illegal += int(masks[0, actions[0]] == 0)
        expected, got = sync.step(actions), batched.step(actions)
        names = ("obs", "reward", "term", "trunc", "info")
        for name, a, b in zip(names, expected, got, strict=True):
            assert_same(a, b, f"step {t} {name}")
        info = expected[4]
        ended += int(expected[2].sum() + expected[3].sum())
    return ended, illegal


CASES = [
    ("liniell_v0", 2, NEXT),
    ("liniell_v0", 2, SAME),
    ("liniell_v0", 3, SAME),
    ("liniell_v0", 4, NEXT),
    ("qwirkle_cards_v0", 2, SAME),
    ("qwirkle_cards_v0", 3, NEXT),
    ("qwirkle_cards_v0", 4, SAME),
    ("qwirkle_v0", 3, NEXT),
]


@pytest.mark.parametrize(("env_name", "players", "mode"), CASES)
def test_batched_equals_sync_step_for_step(
    env_name: str, players: int, mode: AutoresetMode
) -> None:
    sync, batched = both(env_name, 3, mode, num_players=players, learner_seat=None)
    steps = {"liniell_v0": 90, "qwirkle_cards_v0": 90, "qwirkle_v0": 40}[env_name]
    ended, illegal = replay(sync, batched, steps, seed=players, illegal_every=23)
    assert illegal >= 1 and ended >= illegal
    if env_name != "qwirkle_v0":  # games ended by their rules too (Qwirkle's: next test)
        assert ended > illegal


@pytest.mark.parametrize("env_name", sorted(IDS))
def test_random_opponents_play_inside_the_compiled_step(env_name: str) -> None:
    """Every compiled core plays random opponents inside its own step (the fast path the
    equality tests above replay), with no Python round per opponent move."""
    envs = gymnasium.make_vec(IDS[env_name], num_envs=2, opponent="random", num_players=3)
    assert envs.games.plays_random_opponents and envs._compiled_opponents
    envs.close()


@pytest.mark.parametrize(
    ("env_name", "players", "mode"),
    [("liniell_v0", 3, SAME), ("liniell_v0", 2, NEXT), ("qwirkle_cards_v0", 3, NEXT)],
)
def test_without_copies_the_one_buffer_shows_the_same_games(
    env_name: str, players: int, mode: AutoresetMode
) -> None:
    """``copy=False``: every step returns the same array, rewritten in place, and it shows
    what the sync vector env shows (the learner's last view of a game an opponent ended
    included), step for step."""
    kwargs = {"num_envs": 3, "num_players": players, "learner_seat": None}
    sync = gymnasium.make_vec(
        IDS[env_name], vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}, **kwargs
    )
    batched = gymnasium.make_vec(
        IDS[env_name],
        vectorization_mode="vector_entry_point",
        autoreset_mode=mode,
        copy=False,
        **kwargs,
    )
    ended, _ = replay(sync, batched, 90, seed=players, illegal_every=23)
    assert ended > 0
    masks = batched.action_masks()
    first = batched.step(np.argmax(masks, axis=1))[0]
    again = batched.step(np.argmax(batched.action_masks(), axis=1))[0]
    assert again is first and np.shares_memory(first, batched.games._result.observation)
    with pytest.raises(ConfigError, match="copy"):
        SingleAgentVectorEnv(env_name, 2, copy="no")


def test_qwirkle_games_end_the_same() -> None:
    """Whole Qwirkle games: the end of a game (final observation, win reward) agrees."""
    sync, batched = both("qwirkle_v0", 2, SAME, learner_seat=1)
    ended, _ = replay(sync, batched, 340, seed=7)
    assert ended >= 1


def test_value_opponents_play_inside_the_batch_as_agents_do() -> None:
    spec = "value:lay_turn_margin=1,occupy_turn_margin=1,lay_open_ends=0.5"
    sync, batched = both(
        "liniell_v0", 3, NEXT, num_players=3, opponent=[spec, "random"], features=True
    )
    assert [type(p).__name__ for p, _ in batched._groups] == ["FeatureValuePolicy", "RandomPolicy"]
    ended, _ = replay(sync, batched, 60, seed=1)
    assert ended > 0
    spec = "value:action_turn_value=1,action_next_qwirkles=0.3"
    sync, batched = both("qwirkle_cards_v0", 2, SAME, opponent=spec, features=True, reward="score")
    replay(sync, batched, 60, seed=2)


def test_disabled_autoreset_resets_the_masked_sub_envs() -> None:
    sync, batched = both("liniell_v0", 3, DISABLED)
    rng = np.random.default_rng(0)
    expected, got = sync.reset(seed=3), batched.reset(seed=3)
    info = expected[1]
    for _ in range(80):
        actions = np.argmax(rng.random(info["action_mask"].shape) * info["action_mask"], axis=1)
        expected, got = sync.step(actions), batched.step(actions)
        for a, b in zip(expected, got, strict=True):
            assert_same(a, b)
        info = expected[4]
        done = expected[2] | expected[3]
        if done.any():
            with pytest.raises(IllegalActionError, match="after its episode ended"):
                batched.step(actions)
            expected = sync.reset(options={"reset_mask": done.copy()})
            got = batched.reset(options={"reset_mask": done.copy()})
            assert_same(expected[0], got[0])
            assert_same(expected[1], got[1])
            info = {"action_mask": np.stack(sync.call("action_masks"))}
            assert np.array_equal(batched.action_masks(), info["action_mask"])


def test_masks_seeds_and_spaces_follow_gymnasium() -> None:
    """Gymnasium's checks that apply to a vector env: spaces, seeded determinism, fresh
    returned arrays; and the masks' conventions of the single-agent wrapper."""
    envs = gymnasium.make_vec("tabletop_rl/QwirkleCards-v0", num_envs=4, num_players=3)
    assert isinstance(envs, SingleAgentVectorEnv)  # make_vec's default: the batch
    assert envs.metadata["autoreset_mode"] == NEXT
    obs, info = envs.reset(seed=5)
    assert obs in envs.observation_space and obs.dtype == np.float32
    assert info["action_mask"].dtype == np.int8
    assert np.array_equal(np.stack(envs.call("action_masks")), info["action_mask"])
    first = obs.copy()
    obs[:] = 7  # the env keeps no reference to what it returned
    again, _ = envs.reset(seed=5)
    assert np.array_equal(again, first)
    actions = envs.action_space.sample()
    for i in range(4):  # Discrete.sample(mask) draws a legal action, as for the wrapper
        actions[i] = envs.single_action_space.sample(info["action_mask"][i])
    obs, rewards, terminated, truncated, info = envs.step(actions)
    assert obs in envs.observation_space and rewards.dtype == np.float64
    assert terminated.dtype == truncated.dtype == np.bool_
    with pytest.raises(AttributeError, match="action_masks"):
        envs.call("render")
    envs.close()


def test_illegal_actions_terminate_or_raise() -> None:
    envs = SingleAgentVectorEnv("liniell_v0", 2, illegal_action="raise")
    _obs, info = envs.reset(seed=0)
    actions = np.argmax(info["action_mask"], axis=1)
    actions[1] = int(np.argmin(info["action_mask"][1]))
    with pytest.raises(IllegalActionError, match="sub-environment 1: action"):
        envs.step(actions)
    assert np.array_equal(envs.action_masks(), info["action_mask"])  # nothing was played
    with pytest.raises(IllegalActionError, match="2 integers"):
        envs.step(np.zeros(3, dtype=np.int64))
    terminate = SingleAgentVectorEnv("liniell_v0", 2)
    _obs, info = terminate.reset(seed=0)
    _obs, rewards, terminated, _tr, info = terminate.step(actions)
    assert terminated.tolist() == [False, True] and rewards[1] == -1.0
    assert info["illegal_action"][1].startswith("action") and info["_illegal_action"].tolist() == [
        False,
        True,
    ]
    assert not info["action_mask"][1].any()


def test_bad_options_are_refused_clearly() -> None:
    with pytest.raises(ConfigError, match="autoreset_mode"):
        SingleAgentVectorEnv("liniell_v0", 2, autoreset_mode="sometimes")
    with pytest.raises(ConfigError, match="learner_seat"):
        SingleAgentVectorEnv("liniell_v0", 2, learner_seat=2)
    with pytest.raises(ConfigError, match="needs 2 opponents"):
        SingleAgentVectorEnv("liniell_v0", 2, opponents=["random"], num_players=3)
    with pytest.raises(ConfigError, match="no batch form"):
        SingleAgentVectorEnv("liniell_v0", 2, opponents=[object()])
    with pytest.raises(ConfigError, match="features=True"):
        from tabletop_rl.envs.core.batch_policy import FeatureValuePolicy

        SingleAgentVectorEnv("liniell_v0", 2, opponents=[FeatureValuePolicy({"lay_gain": 1})])
    envs = SingleAgentVectorEnv("liniell_v0", 2)
    with pytest.raises(ConfigError, match="2 seeds"):
        envs.reset(seed=[1, 2, 3])


def test_opponents_without_a_batch_form_take_the_sync_path(caplog: Any) -> None:
    with pytest.warns(UserWarning, match="'heuristic' has no batch form"):
        envs = gymnasium.make_vec("tabletop_rl/Liniell-v0", num_envs=2, opponent="heuristic")
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)
    envs.reset(seed=0)
    with pytest.warns(UserWarning, match="'greedy' has no batch form"):  # features off
        envs = gymnasium.make_vec("tabletop_rl/Liniell-v0", num_envs=2, opponent="greedy")
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)
    with pytest.warns(UserWarning, match="render_mode"):
        envs = gymnasium.make_vec("tabletop_rl/Liniell-v0", num_envs=2, render_mode="ansi")
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)
    envs = gymnasium.make_vec(
        "tabletop_rl/Liniell-v0", num_envs=2, opponent="greedy", features=True
    )
    assert isinstance(envs, SingleAgentVectorEnv)
    obs, _info = envs.reset(seed=0)
    assert obs.shape[1] > 2707  # the features the batch greedy reads


def test_plain_callable_opponents_act_game_by_game() -> None:
    def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[0])

    sync, batched = both("qwirkle_cards_v0", 2, NEXT, opponent=[first_legal])
    replay(sync, batched, 40, seed=4)


@pytest.mark.parametrize("bits", [np.random.PCG64, np.random.MT19937, np.random.Philox])
def test_compiled_draws_are_generator_choice(bits: type) -> None:
    """The batch's draws equal ``Generator.choice`` of the same generators, which they
    advance by as much: the random opponent replays the wrapper's games."""
    source = np.random.default_rng(0)
    ours = [np.random.Generator(bits(s)) for s in range(8)]
    theirs = [np.random.Generator(bits(s)) for s in range(8)]
    generators = GameGenerators(8, 1)
    for game, generator in enumerate(ours):
        generators.set(game, [generator])
    for _ in range(50):
        mask = (source.random((8, 300)) < source.random((8, 1))).astype(np.int8)
        mask[np.arange(8), source.integers(300, size=8)] = 1
        rows = np.flatnonzero(source.random(8) < 0.6)
        draw = generators.drawer(rows, np.zeros(rows.size, dtype=np.int64))
        picks = RandomPolicy().act_batch(np.zeros((8, 1)), mask, rows, draw)
        assert picks.tolist() == [int(theirs[i].choice(np.flatnonzero(mask[i]))) for i in rows]
    for a, b in zip(ours, theirs, strict=True):  # the generators stand at the same place
        assert a.integers(2**62) == b.integers(2**62)
    with pytest.raises(ConfigError, match="no candidate"):
        generators.drawer(np.array([0]), np.array([0]))(np.zeros((1, 4), dtype=np.int8))


def test_compiled_seeding_and_integers_are_numpys() -> None:
    """What a new game draws, compiled: PCG64's state for a seed and Generator.integers."""
    from tabletop_rl.envs.core.compiled_random import (
        bitgen_address,
        draw_integers_each,
        pcg64_seed_states,
        set_pcg64_state,
    )

    source = np.random.default_rng(5)
    seeds = np.concatenate(
        [[0, 1, 2**31 - 1, 2**32 - 1, 2**32, 2**63 - 1], source.integers(2**63, size=200)]
    ).astype(np.uint64)
    states = np.zeros((seeds.size, 4), dtype=np.uint64)
    pcg64_seed_states(seeds, states)
    generator = np.random.default_rng()
    for seed, words in zip(seeds.tolist(), states, strict=True):
        expected = np.random.PCG64(seed).state["state"]
        assert expected == {"state": int(words[0]) << 64 | int(words[1]),
                            "inc": int(words[2]) << 64 | int(words[3])}  # fmt: skip
        set_pcg64_state(generator, words)
        assert generator.bit_generator.state == np.random.default_rng(seed).bit_generator.state
    counts = np.array([3, 2**31, 2**32, 2**32 + 1, 2**63], dtype=np.uint64)
    ours = [np.random.default_rng(s) for s in range(50)]
    theirs = [np.random.default_rng(s) for s in range(50)]
    draws = np.zeros((50, counts.size), dtype=np.int64)
    for _ in range(20):
        draw_integers_each(np.array([bitgen_address(g) for g in ours]), counts, draws)
        expected_draws = [[int(g.integers(int(c))) for c in counts] for g in theirs]
        assert draws.tolist() == expected_draws


def test_compiled_permutations_are_numpys() -> None:
    """Liniell's deal, compiled: Generator.permutation's shuffle, draw for draw."""
    from tabletop_rl.envs.core.compiled_random import bitgen_address, permute_into

    values = np.arange(70, dtype=np.int16) % 23
    out = np.zeros_like(values)
    for seed in range(30):
        ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
        permute_into(bitgen_address(ours), values, out)
        assert out.tolist() == theirs.permutation(values).tolist()
        assert ours.bit_generator.state == theirs.bit_generator.state
