"""Every parser and constructor bounds what it is given: numbers past the rules' limits are
refused before any work that grows with them, sizes are checked first, counts must be whole
numbers, and each refusal is one project error naming what was wrong and what is allowed,
with the state left as it was."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from tabletop_rl.envs import available_envs, liniell_v0, make, make_single_agent
from tabletop_rl.envs.core.checks import check_rng, check_seed
from tabletop_rl.envs.core.self_play import SelfPlayGames
from tabletop_rl.envs.errors import ArgumentError, ConfigError, IllegalMoveError, NotationError
from tabletop_rl.envs.liniell import Board as LiniellBoard
from tabletop_rl.envs.liniell import Game as LiniellGame
from tabletop_rl.envs.liniell import from_text, load_tile_set, score_position
from tabletop_rl.envs.qwirkle.board import Board
from tabletop_rl.envs.qwirkle.game import GameState
from tabletop_rl.envs.qwirkle_cards import (
    QwirkleCardsGame,
    TurnBuilder,
    find_split,
    is_valid_table,
    legal_turns,
    parse_cards,
)
from tabletop_rl.envs.qwirkle_cards import from_text as cards_from_text
from tabletop_rl.envs.qwirkle_cards.compiled_solver import find_split_arrays, is_valid_counts
from tabletop_rl.envs.qwirkle_cards.compiled_turns import CompiledTurnBuilder
from tabletop_rl.envs.vector import VectorGames

SECONDS = 10
"""How long a refusal may take at most (each takes well under a millisecond; the old code
did not answer at all)."""


@contextmanager
def answers_within(seconds: float) -> Iterator[None]:
    """Fail the test if the block does not finish within ``seconds`` (a call that used to
    loop over an input's number instead of refusing it)."""

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------------- Liniell
HUGE = "99999999999999999999"
LONG = "9" * 5000  # more digits than int() converts from text


def test_liniell_pawn_of_a_huge_player_is_refused_at_once() -> None:
    # used to build a board for 10**20 players: no answer
    with (
        answers_within(SECONDS),
        pytest.raises(
            NotationError,
            match=f"player {HUGE} is not allowed; players are numbered 0 to 3 \\(2 to 4 players\\)",
        ),
    ):
        score_position(f"cross\npawns: {HUGE}@0,0:N")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cross\npawns: 4@0,0:N", "player 4 is not allowed; players are numbered 0 to 3"),
        (f"cross\npawns: {LONG}@0,0:N", r"player 9{20}\.\.\. \(5000 digits\) is not allowed"),
        (f"cross\npawns: 0@{LONG},0:N", "stands on no tile: the grid has rows 0 to 0"),
        ("cross .\npawns: 0@0,1:N", r"stands on no tile: cell 0,1 is empty \('\.'\)"),
        ("players: \u00b2\ncross", "'players:' needs a number from 2 to 4, got '\u00b2'"),
        (f"players: {LONG}\ncross", r"'players:' needs a number from 2 to 4, got '9+\.\.\."),
        ("players: 2\ncross\npawns: 3@0,0:N", "has 2 players; their pawns are numbered 0 to 1"),
    ],
)
def test_liniell_player_and_cell_numbers_are_bounded(text: str, message: str) -> None:
    with answers_within(SECONDS), pytest.raises(NotationError, match=message):
        from_text(text)


def test_liniell_four_players_is_the_most() -> None:
    assert len(score_position("cross\npawns: 3@0,0:N")) == 4


@pytest.mark.parametrize("players", [10**20, 1, 5, 2.5, True, "3"])
def test_liniell_board_and_new_game_check_the_player_count_first(players: object) -> None:
    ts = load_tile_set("default")
    with answers_within(SECONDS), pytest.raises(ConfigError, match="num_players"):
        LiniellBoard(ts, players)  # type: ignore[arg-type]
    with answers_within(SECONDS), pytest.raises(ConfigError, match="num_players"):
        LiniellGame.new(np.random.default_rng(0), players)  # type: ignore[arg-type]


def test_liniell_board_wants_a_tile_set() -> None:
    with pytest.raises(ConfigError, match=r"tile_set must be a TileSet \(load_tile_set"):
        LiniellBoard("default")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("liniell_v0", f"{LONG},0", r"cell 9{20}\.\.\. \(5000 digits\),0 is outside the window"),
        ("liniell_v0", "99999999999,0", r"cell 99999999999,0 is outside the window \(0 to 6\)"),
        ("liniell_v0", f"2,3 r{LONG}", r"rotation r9{20}\.\.\. \(5000 digits\) does not exist"),
        ("qwirkle_v0", f"Ro@{LONG},0", r"cell 9{20}\.\.\. \(5000 digits\),0 is outside the board"),
        ("qwirkle_v0", f"Ro@3,-{LONG}", r"cell 3,-9{19}\.\.\. \(5001 digits\) is outside"),
    ],
)
def test_move_text_numbers_are_bounded(name: str, text: str, message: str) -> None:
    # a number of more than 4300 digits was int()'s bare ValueError
    env = make(name, raw=True)
    env.reset(seed=0)
    with pytest.raises(NotationError, match=message):
        env.model.codec.parse(env.game_state, text)


# ------------------------------------------------------------------------ seeds
SEED_MESSAGE = "seed={!r} is not allowed; allowed: an int >= 0"
BAD_SEEDS = [-1, 1.5, "abc", True, None]


@pytest.mark.parametrize("seed", BAD_SEEDS[:-1])
@pytest.mark.parametrize("name", available_envs())
def test_env_reset_checks_the_seed_as_the_batch_does(name: str, seed: object) -> None:
    message = SEED_MESSAGE.format(seed)
    with pytest.raises(ConfigError) as batch:
        VectorGames(name, num_envs=1, seed=seed)  # type: ignore[arg-type]
    assert str(batch.value) == message
    env = make(name)
    env.reset(seed=3)
    state = env.unwrapped.game_state
    with pytest.raises(ConfigError) as refused:
        env.reset(seed=seed)
    assert str(refused.value) == message
    assert env.unwrapped.game_state is state  # the game in progress goes on
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


@pytest.mark.parametrize("seed", BAD_SEEDS[:-1])
def test_parallel_single_agent_and_self_play_resets_check_the_seed(seed: object) -> None:
    message = SEED_MESSAGE.format(seed)
    with pytest.raises(ConfigError) as refused:
        liniell_v0.parallel_env().reset(seed=seed)
    assert str(refused.value) == message
    single = make_single_agent("liniell_v0")
    with pytest.raises(ConfigError) as refused:
        single.reset(seed=seed)  # type: ignore[arg-type]
    assert str(refused.value) == message
    games = SelfPlayGames(lambda: make("liniell_v0", raw=True), num_games=2)
    with pytest.raises(ConfigError) as refused:
        games.reset(seed=seed)  # type: ignore[arg-type]
    assert str(refused.value) == message


def test_none_means_no_seed_where_a_reset_takes_one() -> None:
    env = make("qwirkle_cards_v0")
    env.reset(seed=None)
    make_single_agent("qwirkle_cards_v0").reset(seed=None)
    SelfPlayGames(lambda: make("qwirkle_cards_v0", raw=True)).reset(seed=None)
    with pytest.raises(ConfigError, match=r"seed=None is not allowed"):
        check_seed(None)  # a batch has no "no seed": it needs one to replay


def test_large_seeds_are_seeds() -> None:
    env = make("qwirkle_cards_v0")
    env.reset(seed=2**70)
    assert check_seed(np.int64(5)) == 5


# ----------------------------------------------------------------------- rng
@pytest.mark.parametrize(("rng", "kind"), [(None, "NoneType"), (42, "int"), ("seed", "str")])
def test_rng_must_be_a_generator(rng: object, kind: str) -> None:
    expected = "rng must be a numpy.random.Generator (numpy.random.default_rng(seed)), got " + kind
    builds: list[Callable[[Any], object]] = [check_rng, lambda r: GameState(2, r), LiniellGame.new]
    if rng is not None:  # QwirkleCardsGame takes None for a generator of its own
        builds.append(lambda r: QwirkleCardsGame(2, r))
    for build in builds:
        with pytest.raises(ArgumentError) as refused:
            build(rng)
        assert str(refused.value) == expected
    generator = np.random.default_rng(0)
    assert check_rng(generator) is generator


# ----------------------------------------------------------------------- Qwirkle
@pytest.mark.parametrize(
    "text",
    ["Ro .. Rx", "Ro\n..\nRx", "Ro Rx ..\n.. .. ..\n.. .. Bx"],
)
def test_qwirkle_disconnected_board_is_refused(text: str) -> None:
    with pytest.raises(NotationError, match="the tiles are not connected: the tile at"):
        Board.from_text(text)


def test_qwirkle_board_of_tiles_far_apart_is_refused() -> None:
    # used to be accepted, and writing it out walked a million-by-million box
    with answers_within(SECONDS), pytest.raises(NotationError, match="not connected"):
        Board({(0, 0): "Ro", (10**6, 10**6): "Rx"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Ro Rx\nOo", "row 1 has 1 cells but row 0 has 2; every row has the same number"),
        ("Ro\n\nOo", "row 1 has 0 cells but row 0 has 1"),
        (".. Rx\nOo Ox Yx", "row 1 has 3 cells but row 0 has 2"),
    ],
)
def test_qwirkle_ragged_rows_are_refused(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        Board.from_text(text)


def test_qwirkle_connected_boards_still_read() -> None:
    board = Board.from_text("\n  Ro Rx ..\n  .. Ox Oo\n\n")
    assert Board.from_text(board.to_text()) == board
    assert len(Board.from_text("Ro Rx\n.. Bx")) == 3


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ([("a", 2, "Rx")], r"row 'a' of \('a', 2, 'Rx'\) is not allowed; rows and columns are"),
        ([(0, 1.5, "Rx")], r"column 1\.5 of .* whole numbers \(int\)"),
        ([(0, True, "Rx")], "column True of"),
        ([(0, "1", "Rx")], "column '1' of"),
        (["0 1 Rx"], r"a placement is \(row, col, tile\), got '0 1 Rx'"),
        (5, r"a move is a list of placements \(row, col, tile\), got int"),
    ],
)
def test_qwirkle_placement_coordinates_are_whole_numbers(move: Any, message: str) -> None:
    board = Board.from_text("Ro")
    before = board.to_text()
    for call in (board.score, board.is_legal, board.place):
        with pytest.raises(NotationError, match=message):
            call(move)
    assert board.to_text() == before


def test_qwirkle_numpy_coordinates_are_whole_numbers() -> None:
    assert Board.from_text("Ro").score([(np.int64(0), np.int64(1), "Rx")]) == 2


def test_qwirkle_far_apart_placements_are_refused_at_once() -> None:
    board = Board.from_text("Ro")
    with answers_within(SECONDS), pytest.raises(IllegalMoveError, match="gap between placed"):
        board.score([(0, 1, "Rx"), (0, 10**10, "Rd")])


def test_qwirkle_move_of_more_than_six_tiles_is_refused_first() -> None:
    board = Board.from_text("Ro")
    move = [(0, c, "Rx") for c in range(1, 200_001)]
    with (
        answers_within(SECONDS),
        pytest.raises(IllegalMoveError, match="a move places at most 6 tiles .*got 200000"),
    ):
        board.score(move)
    assert not board.is_legal(move[:7])


def test_qwirkle_board_holds_at_most_the_game_s_tiles() -> None:
    tiles = {(0, c): "Ro" for c in range(109)}
    with pytest.raises(NotationError, match="the board holds 109 tiles; the game has 108 in all"):
        Board(tiles)
    with pytest.raises(NotationError, match=r"a board cell is \(row, col\), got 'a1'"):
        Board({"a1": "Ro"})  # type: ignore[dict-item]


# ------------------------------------------------------------------ Qwirkle Cards
COUNT_CASES = [
    ([0.5] * 36, r"count 0 \(Ro\) is 0\.5, a float; allowed: whole numbers \(int\) from 0 to 3"),
    ([1.0] + [0] * 35, r"count 0 \(Ro\) is 1\.0, a float"),
    ([True] * 3 + [0] * 33, r"count 0 \(Ro\) is True, a bool"),
    ([0] * 35 + [-1], r"count 35 \(Pc\) is -1; allowed: 0 to 3"),
    ([4] + [0] * 35, r"count 0 \(Ro\) is 4; allowed: 0 to 3"),
    ([10**5000] + [0] * 35, r"count 0 \(Ro\) is an int of 16610 bits; allowed: 0 to 3"),
    ([0] * 35, r"expected 36 counts \(one per card kind\), got 35"),
    (None, r"expected 36 counts \(one per card kind\), got NoneType"),
    (np.full(36, 0.5), "counts of dtype float64; allowed: whole numbers"),
    (np.zeros((6, 6), dtype=np.int64), r"expected 36 counts .*got shape \(6, 6\)"),
    (np.array([0] * 35 + [7]), r"count 35 \(Pc\) is 7; allowed: 0 to 3"),
]


@pytest.mark.parametrize(("counts", "message"), COUNT_CASES)
def test_card_counts_are_whole_numbers_from_0_to_3(counts: Any, message: str) -> None:
    checks: list[tuple[str, Callable[[Any], object]]] = [
        ("cards", is_valid_counts),
        ("fixed", find_split_arrays),
        ("fixed", find_split),
        ("table", is_valid_table),
        ("table", lambda c: legal_turns(c, parse_cards("Rs"))),
        ("hand", lambda c: legal_turns(parse_cards("Ro Rx Rd"), c)),
        ("table", lambda c: TurnBuilder(c, parse_cards("Rs"))),
        ("hand", lambda c: CompiledTurnBuilder(parse_cards("Ro Rx Rd"), c)),
    ]
    for name, check in checks:
        with pytest.raises(NotationError, match=f"^{name}: {message}"):
            check(counts)


def test_whole_counts_still_answer() -> None:
    good = parse_cards("Bs Bs Bo Bx Rs Os")
    assert is_valid_counts(good) and is_valid_counts(np.array(good, dtype=np.int8))
    assert find_split(list(good)) is not None and is_valid_table(np.array(good))
    assert is_valid_table([])
    with pytest.raises(NotationError, match=r"count of kind 3 \(Rs\) is 3 \(\+1 optional\)"):
        find_split_arrays(parse_cards("Rs Rs Rs"), parse_cards("Rs"))


def cards_position(**overrides: str) -> str:
    fields = {
        "players": "2", "starter": "0", "to_move": "0", "turn": "4", "first_turn": "no",
        "end_rule": "finish_round", "max_turns": "500", "turns_left": "-", "passes": "0",
        "status": "running", "table": "Ro Rx Rs", "pile": "Bo Bx", "hand 0": "Rd Gc Gc",
        "hand 1": "Yd Yx", "qwirkles 0": "-", "qwirkles 1": "-", "played": "-", "taken": "-",
    }  # fmt: skip
    fields.update({k.replace("_", " ") if k[0] in "hq" else k: v for k, v in overrides.items()})
    return "qwirkle_cards v0\n" + "\n".join(f"{k}: {v}" for k, v in fields.items()) + "\n"


@pytest.mark.parametrize(
    ("key", "value"),
    [("max_turns", "1" + "0" * 19), ("turn", LONG), ("turn", "\u0664"), ("passes", "1_0")],
)
def test_cards_notation_numbers_are_bounded(key: str, value: str) -> None:
    with pytest.raises(NotationError, match=f"^{key}: expected a whole number of at most 18"):
        cards_from_text(cards_position(**{key: value}))
    assert cards_from_text(cards_position(max_turns="9" * 18)).max_turns == 10**18 - 1


def test_cards_state_with_huge_counts_is_refused_at_once() -> None:
    state = cards_from_text(cards_position())
    state.taken[0] = 10**12  # used to write a message of 10**12 letters: no answer
    with answers_within(SECONDS), pytest.raises(ConfigError, match=r"taken: count 0 \(R\) is"):
        QwirkleCardsGame(2, state=state)
    state = cards_from_text(cards_position())
    state.hands[0][0] = 0.5  # type: ignore[call-overload]
    with pytest.raises(ConfigError, match=r"hand 0: count 0 \(Ro\) is 0\.5, a float"):
        QwirkleCardsGame(2, state=state)
    state = cards_from_text(cards_position())
    state.pile = None  # type: ignore[assignment]
    with pytest.raises(ConfigError, match="pile: expected a list of card kinds .*got NoneType"):
        QwirkleCardsGame(2, state=state)
    state = cards_from_text(cards_position())
    state.pile = [0] * 109
    with pytest.raises(ConfigError, match="pile: 109 cards; the game has 108"):
        QwirkleCardsGame(2, state=state)


@pytest.mark.parametrize("players", ["2", 2.5, None])
def test_cards_game_checks_the_player_count_type(players: object) -> None:
    with pytest.raises(ConfigError, match="num_players must be an int"):
        QwirkleCardsGame(players)  # type: ignore[arg-type]
