"""The compiled Liniell core plays exactly the reference engine's game.

Differential: games from the same seeds are stepped in both models with the same actions
(random, and greedy for the mover's points, which puts pawns on the board, joins occupied
lines and runs into the merge ban); at every position the masks, every player's
observation, the step's points and the end and outcome must be equal.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from tabletop_rl.envs.liniell.compiled_layout import G_GP, G_NG, G_NP, G_SIZE, STATE_SIZE
from tabletop_rl.envs.liniell.compiled_model import LiniellCompiledModel, LiniellCompiledState
from tabletop_rl.envs.liniell.model import LiniellModel

GAMES = 105
"""Games per player count: over 10,000 positions in all (counted in the test)."""
MIN_POSITIONS = {2: 3_400, 3: 3_300, 4: 3_300}


def choose(model: LiniellCompiledModel, state, mask: np.ndarray, rng, greedy: bool) -> int:
    """A random legal action, or (greedy) one that gains the mover most points now."""
    legal = np.flatnonzero(mask)
    if not greedy or rng.random() < 0.2:
        return int(rng.choice(legal))
    mover = model.current_player(state)
    gains = []
    for action in legal:
        clone = model.copy(state)
        gains.append(model.step(clone, int(action)).points.get(mover, 0.0))
    best = np.flatnonzero(np.asarray(gains) == max(gains))
    return int(legal[rng.choice(best)])


def play_both(num_players: int, seed: int, greedy: bool, stats: dict[str, int]) -> None:
    fast, ref = LiniellCompiledModel(num_players), LiniellModel(num_players)
    a, b = fast.new_state(np.random.default_rng(seed)), ref.new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(10_000 + seed)
    out = np.empty(fast.layout.size, dtype=np.float32)
    while True:
        stats["positions"] += 1
        mask = ref.legal_mask(b)
        assert np.array_equal(fast.legal_mask(a), mask), (seed, ref.to_text(b))
        for player in range(num_players):
            expected = ref.observe(b, player)
            fast.observe(a, player, out)
            assert np.array_equal(out, expected), (
                seed,
                player,
                [f.name for f in fast.layout if (out != expected)[fast.layout.slice(f.name)].any()],
            )
        assert fast.current_player(a) == ref.current_player(b)
        assert fast.scores(a) == ref.scores(b)
        assert fast.is_over(a) == ref.is_over(b)
        if ref.is_over(b):
            assert fast.outcome(a) == ref.outcome(b)
            stats["early"] += b.game.ended_early
            break
        action = choose(fast, a, mask, rng, greedy)
        stats["moves"] += b.game.phase.value == "compulsory move"
        assert fast.step(a, action) == ref.step(b, action), (seed, action)
    assert fast.to_text(a) == ref.to_text(b)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_compiled_equals_reference(num_players: int) -> None:
    stats = {"positions": 0, "moves": 0, "early": 0}
    for seed in range(GAMES):
        play_both(num_players, seed, greedy=seed % 2 == 1, stats=stats)
    # the games reach the rare rules: compulsory moves after joins
    assert stats["moves"] > 0, stats
    assert stats["positions"] >= MIN_POSITIONS[num_players], stats


def test_copy_is_independent_and_resample_matches_the_reference() -> None:
    fast, ref = LiniellCompiledModel(3), LiniellModel(3)
    a, b = fast.new_state(np.random.default_rng(5)), ref.new_state(np.random.default_rng(5))
    rng = np.random.default_rng(0)
    for _ in range(7):
        action = int(rng.choice(np.flatnonzero(ref.legal_mask(b))))
        fast.step(a, action)
        ref.step(b, action)
    clone = fast.copy(a)
    fast.step(clone, int(np.flatnonzero(fast.legal_mask(clone))[0]))
    assert fast.to_text(a) == ref.to_text(b) != fast.to_text(clone)
    fast.resample_hidden(a, 0, np.random.default_rng(9))
    ref.resample_hidden(b, 0, np.random.default_rng(9))
    assert fast.to_text(a) == ref.to_text(b)
    while not ref.is_over(b):
        action = int(rng.choice(np.flatnonzero(ref.legal_mask(b))))
        assert fast.step(a, action) == ref.step(b, action)
        assert np.array_equal(fast.observe(a, 1), ref.observe(b, 1))
    assert fast.outcome(a) == ref.outcome(b)


def test_state_vector_layout() -> None:
    """The state is one small int16 vector; the geometry comes from the tile set data."""
    fast = LiniellCompiledModel(2)
    state = fast.new_state(np.random.default_rng(0))
    assert state.data.dtype == np.int16 and state.data.shape == (STATE_SIZE,)
    kinds = len(fast.tile_set.kinds)
    assert fast.geom.shape == (kinds, 4, G_SIZE)
    # every oriented tile's ports are partitioned by its groups
    for k in range(kinds):
        for r in range(4):
            row = fast.geom[k, r]
            ports = sorted(
                int(row[G_GP + 4 * g + i]) for g in range(row[G_NG]) for i in range(row[G_NP + g])
            )
            assert ports == [0, 1, 2, 3]


def test_public_view_replayed_incrementally_is_the_full_replay() -> None:
    """The public view keeps its replayed reference state with the compiled state and replays
    only the actions since; at every step of games that also copy their state (a copy starts
    without it), reshuffle the stack (the deal changes) and go through pickle, the view reads
    exactly as a replay of the whole game."""
    model = LiniellCompiledModel(num_players=2)
    rng = np.random.default_rng(3)

    def full(state: LiniellCompiledState, player: int) -> str:
        return model.reference_state(state).game.public_copy().to_text()

    checked = 0
    for seed in range(4):
        state = model.new_state(np.random.default_rng(seed))
        branch = None
        while not model.is_over(state):
            player = model.current_player(state)
            assert model.public_view(state, player).to_text() == full(state, player)
            checked += 1
            if branch is None and rng.random() < 0.1:
                branch = state.copy()
                assert branch._replayed is None
            if rng.random() < 0.1:
                model.resample_hidden(state, player, rng)
            if rng.random() < 0.05:
                state = pickle.loads(pickle.dumps(state))
                assert state._replayed is None
            model.step(state, int(rng.choice(np.flatnonzero(model.legal_mask(state)))))
        if branch is not None:
            while not model.is_over(branch):
                player = model.current_player(branch)
                assert model.public_view(branch, player).to_text() == full(branch, player)
                model.step(branch, int(rng.choice(np.flatnonzero(model.legal_mask(branch)))))
    assert checked >= 80
