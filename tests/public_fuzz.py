"""Random calls with random arguments to the suite's public surface (run by
``tests/test_public_fuzz.py`` in a subprocess, so that a crash of the interpreter fails that
test instead of killing the test run; the file name keeps pytest from collecting it directly).

Every call either succeeds or raises one of the project's errors
(:class:`~tabletop_rl.envs.errors.TabletopError`), and a call that raises leaves the state it
was given as it was. The surface: the game models of every game and engine (``new_state``,
``step``, ``observe``, ``legal_mask``, ``outcome``, ``public_view``, the codec's ``parse``),
the PettingZoo environments (``reset`` seeds, ``step``), ``VectorGames`` (seeds,
``step`` action arrays), and the text parsers (Qwirkle boards, Liniell positions and their
scoring, Qwirkle Cards positions).

Run alone: ``python tests/public_fuzz.py [EXAMPLES]``.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop_rl.envs import make
from tabletop_rl.envs.core.model import ENGINES
from tabletop_rl.envs.errors import TabletopError
from tabletop_rl.envs.liniell.notation import from_text as liniell_from_text
from tabletop_rl.envs.liniell.scoring import score_position
from tabletop_rl.envs.qwirkle.board import Board
from tabletop_rl.envs.qwirkle_cards.game import QwirkleCardsGame
from tabletop_rl.envs.vector import VectorGames

GAMES = ("liniell_v0", "qwirkle_v0", "qwirkle_cards_v0")
EXAMPLES = int(sys.argv[1]) if len(sys.argv) > 1 and __name__ == "__main__" else 40

SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
    database=None,
)

_MODELS: dict[tuple[str, str, int], Any] = {}


def model_of(game: str, engine: str, players: int) -> Any:
    """The game model (one per options, built once: building compiles nothing new)."""
    key = (game, engine, players)
    if key not in _MODELS:
        _MODELS[key] = make(game, num_players=players, engine=engine, raw=True).model
    return _MODELS[key]


def fingerprint(model: Any, state: Any) -> tuple[Any, ...]:
    """What a failed call must leave unchanged: the whole position as text, the mask and the
    current player's observation."""
    over = model.is_over(state)
    mask = model.legal_mask_unchecked(state).tobytes()
    player = model.current_player(state)
    obs = model.observe_unchecked(state, player).tobytes() if not over else b""
    return model.to_text(state), over, player, mask, obs


def junk() -> st.SearchStrategy[Any]:
    """Arguments of every wrong kind (and a few right ones)."""
    return st.one_of(
        st.integers(-(2**70), 2**70),
        st.integers(-3, 12),
        st.floats(allow_nan=True),
        st.booleans(),
        st.none(),
        st.text(max_size=6),
        st.binary(max_size=4),
        st.lists(st.integers(-2, 5), max_size=3).map(np.array),
        st.sampled_from([np.int64(1), np.int8(-1), np.float32(0.0), np.uint64(2**63), (), {}]),
    )


def buffers(size: int) -> st.SearchStrategy[Any]:
    """Observation buffers, right and wrong: shape, dtype, order, writeability."""

    def make_buffer(kind: str) -> Any:
        if kind == "right":
            return np.zeros(size, np.float32)
        if kind == "short":
            return np.zeros(max(size - 1, 0), np.float32)
        if kind == "long":
            return np.zeros(size + 5, np.float32)
        if kind == "float64":
            return np.zeros(size, np.float64)
        if kind == "2d":
            return np.zeros((1, size), np.float32)
        if kind == "strided":
            return np.zeros(2 * size, np.float32)[::2]
        if kind == "readonly":
            out = np.zeros(size, np.float32)
            out.flags.writeable = False
            return out
        return [0.0] * 3

    kinds = ["right", "short", "long", "float64", "2d", "strided", "readonly", "list"]
    return st.sampled_from(kinds).map(make_buffer)


def expect_clean(call: Any, *args: Any) -> bool:
    """Run ``call``: True if it worked, False if it raised a project error; anything else
    (another exception) fails the fuzz with the call named."""
    try:
        call(*args)
    except TabletopError:
        return False
    return True


@SETTINGS
@given(
    game=st.sampled_from(GAMES),
    engine=st.sampled_from(ENGINES),
    players=st.integers(2, 4),
    seed=st.integers(0, 2**32),
    data=st.data(),
)
def fuzz_model(game: str, engine: str, players: int, seed: int, data: st.DataObject) -> None:
    """A game played by random legal steps, with random calls between them."""
    model = model_of(game, engine, players)
    rng = np.random.default_rng(seed)
    assert not expect_clean(model.new_state, data.draw(junk(), "rng"))
    state = model.new_state(rng)
    for _ in range(data.draw(st.integers(1, 25), "turns")):
        before = fingerprint(model, state)
        what = data.draw(
            st.sampled_from(["step", "observe", "mask", "outcome", "view", "parse", "state"])
        )
        if what == "step":
            action = data.draw(junk(), "action")
            ok = expect_clean(model.step, state, action)
        elif what == "observe":
            player = data.draw(st.one_of(st.integers(0, players - 1), junk()), "player")
            out = data.draw(st.one_of(st.none(), buffers(model.layout.size)), "out")
            ok = expect_clean(model.observe, state, player, out)
        elif what == "mask":
            ok = expect_clean(model.legal_mask, data.draw(st.sampled_from([state, None, 3])))
        elif what == "outcome":
            ok = expect_clean(model.outcome, data.draw(st.sampled_from([state, "x", None])))
        elif what == "view":
            player = data.draw(st.one_of(st.integers(0, players - 1), junk()), "player")
            ok = expect_clean(model.public_view, state, player)
        elif what == "parse":
            text = data.draw(st.text(alphabet="0123456789,;: abcdefgrsnxRBGYOP@", max_size=12))
            ok = expect_clean(model.codec.parse, state, text)
        else:  # another model's state: refused or played there, never touching ours
            other = model_of(game, engine, 2 if players > 2 else 3).new_state(rng)
            expect_clean(model.step, other, int(np.flatnonzero(model.legal_mask(state))[0]))
            ok = False
        if not ok:
            assert fingerprint(model, state) == before, f"a refused {what} changed the state"
        if model.is_over(state):
            assert not expect_clean(model.step, state, 0), "a step after the end was taken"
            return
        if what in ("step", "state") and ok:
            continue
        mask = model.legal_mask(state)
        model.step(state, int(rng.choice(np.flatnonzero(mask))))


@SETTINGS
@given(
    game=st.sampled_from(GAMES),
    seed=junk(),
    actions=st.lists(junk(), min_size=1, max_size=6),
)
def fuzz_env(game: str, seed: Any, actions: list[Any]) -> None:
    """An environment reset with any seed and stepped with any actions."""
    env = make(game)
    if not expect_clean(env.reset, seed):
        env.reset(seed=0)
    for action in actions:
        agent = env.agent_selection
        obs = env.observe(agent)
        before = (obs["observation"].tobytes(), obs["action_mask"].tobytes())
        if not expect_clean(env.step, action):
            after = env.observe(agent)
            assert (after["observation"].tobytes(), after["action_mask"].tobytes()) == before


@SETTINGS
@given(
    game=st.sampled_from(GAMES),
    num_envs=st.integers(1, 3),
    seed=junk(),
    actions=st.one_of(junk(), st.lists(st.integers(-5, 10_000), max_size=4).map(np.array)),
)
def fuzz_vector(game: str, num_envs: int, seed: Any, actions: Any) -> None:
    """``VectorGames`` built with any seed and stepped with any action array."""
    if not expect_clean(VectorGames, game, num_envs, 2, seed):
        seed = 0
    batch = VectorGames(game, num_envs=num_envs, num_players=2, seed=seed)
    out = batch.reset()  # a view of the batch's buffers
    before = out.observation.tobytes(), out.action_mask.tobytes()
    if not expect_clean(batch.step, actions):
        assert (out.observation.tobytes(), out.action_mask.tobytes()) == before


qwirkle_board = st.lists(
    st.text(alphabet="ROYGBPoxdstc. \t", max_size=10), min_size=0, max_size=6
).map("\n".join)
liniell_position = st.lists(
    st.one_of(
        st.sampled_from(["cross", "tee", "star", "bridge", "players: 2", "pawns: 0@0,0:N"]),
        st.text(alphabet="0123456789@,:NESW-+ \nabcdeprstwy", max_size=24),
        st.integers(-(2**70), 2**70).map(lambda n: f"pawns: {n}@0,0:N"),
    ),
    max_size=5,
).map("\n".join)
cards_position = st.lists(
    st.one_of(
        st.text(alphabet="0123456789:,- \nabcdehilnoprstuwy", max_size=24),
        st.integers(-(2**70), 2**70).map(lambda n: f"players: {n}"),
    ),
    max_size=6,
).map("\n".join)


@SETTINGS
@given(board=qwirkle_board, position=liniell_position, cards=cards_position)
def fuzz_parsers(board: str, position: str, cards: str) -> None:
    """Text parsers read anything or refuse it with a project error."""
    expect_clean(Board.from_text, board)
    expect_clean(liniell_from_text, position)
    expect_clean(score_position, position)
    expect_clean(QwirkleCardsGame.from_text, cards)


FUZZERS = (fuzz_model, fuzz_env, fuzz_vector, fuzz_parsers)

if __name__ == "__main__":
    for fuzz in FUZZERS:
        fuzz()
        print(f"{fuzz.__name__}: {EXAMPLES} examples passed", flush=True)
