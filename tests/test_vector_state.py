"""Saving and restoring the state of batched games (``VectorGames.state_dict``)."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.vector import VectorGames

FIELDS = ("observation", "action_mask", "current_player", "rewards", "terminated", "truncated")


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(axis=1)


@pytest.mark.parametrize(
    ("name", "kwargs", "steps"),
    [
        ("liniell_v0", {}, 150),
        ("qwirkle_cards_v0", {"reward": "score"}, 150),
        ("qwirkle_v0", {}, 200),
    ],
)
def test_restored_games_continue_exactly_as_the_saved_ones(
    name: str, kwargs: dict[str, str], steps: int
) -> None:
    rng = np.random.default_rng(0)
    games = VectorGames(name, 6, seed=3, **kwargs)
    out = games.reset()
    for _ in range(steps):
        out = games.step(_random_actions(out.action_mask, rng))
    state = games.state_dict()
    copy = VectorGames(name, 6, seed=99, **kwargs)  # another seed: all of it comes from state
    copy.reset()
    copy.load_state_dict(state)
    ended = 0
    for _ in range(2 * steps):  # through game ends and new deals
        actions = _random_actions(out.action_mask, rng)
        out, mine = games.step(actions), copy.step(actions)
        ended += int(out.terminated.sum())
        for field in FIELDS:
            assert np.array_equal(getattr(out, field), getattr(mine, field)), field
        for i in np.flatnonzero(out.terminated):
            assert games.outcome(int(i)) == copy.outcome(int(i))
    assert ended > 0  # the comparison went through game ends


def test_a_state_of_other_games_is_refused() -> None:
    games = VectorGames("qwirkle_cards_v0", 4, seed=0)
    games.reset()
    other = VectorGames("qwirkle_cards_v0", 5, seed=0)
    other.reset()
    with pytest.raises(ConfigError, match="5 of 'qwirkle_cards_v0'"):
        games.load_state_dict(other.state_dict())
    reference = VectorGames("qwirkle_cards_v0", 4, seed=0, engine="reference")
    with pytest.raises(ConfigError, match="only the compiled backends"):
        reference.state_dict()
