"""The public game model defends itself: every bad call named in the reliability report is
refused with one of the project's errors, and the state is left as it was.

Each case runs on both engines: the compiled engines crashed the interpreter on several of
them (an out-of-range action or seat, a short observation buffer), the reference engines
changed the state or raised Python's own errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tabletop_rl.envs import make
from tabletop_rl.envs.core.model import ENGINES
from tabletop_rl.envs.errors import ArgumentError, GameOverError, IllegalActionError

GAMES = ("liniell_v0", "qwirkle_v0", "qwirkle_cards_v0")


def model_of(game: str, engine: str, num_players: int = 2) -> Any:
    return make(game, engine=engine, num_players=num_players, raw=True).model


def snapshot(model: Any, state: Any) -> tuple[Any, ...]:
    """The whole position as text, the mask and every seat's observation."""
    return (
        model.to_text(state),
        model.legal_mask(state).tobytes(),
        tuple(model.observe(state, p).tobytes() for p in range(model.num_players)),
    )


def play_random(model: Any, state: Any, rng: np.random.Generator, steps: int | None) -> None:
    """Random legal steps (to the end when ``steps`` is None)."""
    done = 0
    while not model.is_over(state) and (steps is None or done < steps):
        model.step(state, int(rng.choice(np.flatnonzero(model.legal_mask(state)))))
        done += 1


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(
    "action",
    [10**12, -1, 1.0, "0", True, None, np.array([0]), np.float64(0.0)],
    ids=["huge", "negative", "float", "str", "bool", "none", "array", "np-float"],
)
def test_step_refuses_actions_that_are_not_ints_in_range(game: str, engine: str, action: Any):
    model = model_of(game, engine)
    state = model.new_state(np.random.default_rng(10**9 + 3))
    before = snapshot(model, state)
    with pytest.raises(IllegalActionError, match="action"):
        model.step(state, action)
    assert snapshot(model, state) == before


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", GAMES)
def test_step_refuses_illegal_actions_and_leaves_the_state(game: str, engine: str) -> None:
    model = model_of(game, engine)
    state = model.new_state(np.random.default_rng(1))
    play_random(model, state, np.random.default_rng(1), steps=6)
    illegal = np.flatnonzero(model.legal_mask(state) == 0)
    before = snapshot(model, state)
    for action in illegal[:: max(1, illegal.size // 25)]:
        with pytest.raises(IllegalActionError, match="is illegal"):
            model.step(state, int(action))
    assert snapshot(model, state) == before


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", GAMES)
def test_a_finished_game_takes_no_action(game: str, engine: str) -> None:
    model = model_of(game, engine)
    state = model.new_state(np.random.default_rng(10**9 + 3))
    play_random(model, state, np.random.default_rng(0), steps=None)
    outcome = model.outcome(state)
    text = model.to_text(state)
    for action in range(0, model.info.num_actions, 7):
        with pytest.raises(GameOverError, match="the game is over"):
            model.step(state, action)
    assert model.is_over(state) and model.outcome(state) == outcome
    assert model.to_text(state) == text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("player", [2, -1, 9, 1.0, True, "0", None])
def test_seats_that_are_not_players_are_refused(game: str, engine: str, player: Any) -> None:
    model = model_of(game, engine)
    state = model.new_state(np.random.default_rng(5))
    before = snapshot(model, state)
    with pytest.raises(ArgumentError, match="player"):
        model.observe(state, player)
    with pytest.raises(ArgumentError, match="player"):
        model.public_view(state, player)
    assert snapshot(model, state) == before


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", GAMES)
def test_observation_buffers_are_checked(game: str, engine: str) -> None:
    model = model_of(game, engine)
    state = model.new_state(np.random.default_rng(5))
    size = model.layout.size
    readonly = np.zeros(size, np.float32)
    readonly.flags.writeable = False
    for out in (
        np.zeros(3, np.float32),
        np.zeros(size, np.float64),
        np.zeros((1, size), np.float32),
        np.zeros(2 * size, np.float32)[::2],
        readonly,
        [0.0] * size,
    ):
        with pytest.raises(ArgumentError, match=rf"float32 array of shape \({size},\)"):
            model.observe(state, 0, out)
    out = np.full(size, np.nan, np.float32)
    assert model.observe(state, 0, out) is out
    assert np.array_equal(out, model.observe(state, 0))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("rng", [None, 42, "seed", np.random.RandomState(0)])
def test_new_state_takes_only_a_generator(game: str, engine: str, rng: Any) -> None:
    with pytest.raises(ArgumentError, match="numpy.random.Generator"):
        model_of(game, engine).new_state(rng)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", GAMES)
def test_states_of_other_models_are_refused(game: str, engine: str) -> None:
    model = model_of(game, engine)
    other_engine = model_of(game, "reference" if engine == "compiled" else "compiled")
    foreign = other_engine.new_state(np.random.default_rng(0))
    if engine == "reference" and game == "qwirkle_cards_v0":
        # the compiled Qwirkle Cards game is a reference game (a subclass with compiled
        # masks): the reference model plays it as its own
        assert isinstance(foreign, model.state_type)
        return
    for call in (model.legal_mask, model.outcome):
        with pytest.raises(ArgumentError, match="state"):
            call(foreign)
    with pytest.raises(ArgumentError, match="state"):
        model.step(foreign, 0)
    with pytest.raises(ArgumentError, match="state"):
        model.observe(foreign, 0)


@pytest.mark.parametrize("game", GAMES)
def test_compiled_states_of_another_player_count_are_refused(game: str) -> None:
    two, three = model_of(game, "compiled", 2), model_of(game, "compiled", 3)
    state = three.new_state(np.random.default_rng(0))
    while three.current_player(state) < 2:  # a seat the 2-player game does not have
        three.step(state, int(np.flatnonzero(three.legal_mask(state))[0]))
    with pytest.raises(ArgumentError):
        two.observe(state, 0)


def test_the_unchecked_fast_path_is_the_same_game() -> None:
    """The suite's hot loops call the unchecked methods: same game as the checked ones."""
    model = model_of("qwirkle_v0", "compiled")
    checked, fast = (model.new_state(np.random.default_rng(3)) for _ in range(2))
    rng = np.random.default_rng(4)
    while not model.is_over(checked):
        mask = model.legal_mask(checked)
        assert np.array_equal(mask, model.legal_mask_unchecked(fast))
        action = int(rng.choice(np.flatnonzero(mask)))
        assert model.step(checked, action) == model.step_unchecked(fast, action)
        player = model.current_player(checked)
        assert np.array_equal(model.observe(checked, player), model.observe_unchecked(fast, player))
    assert model.outcome(checked) == model.outcome(fast)
