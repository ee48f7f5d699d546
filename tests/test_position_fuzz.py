"""Property: a position written in a game's text notation either loads and plays on (random
legal steps, every engine invariant checked after each) or is refused with a NotationError or
ConfigError, never another exception.

Positions come from real games (random sub-actions, so turns under way appear too) whose text
is then changed at random: a field or a cell replaced, a line dropped or repeated, so both
possible and impossible positions are drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop_rl.envs.errors import ConfigError, NotationError
from tabletop_rl.envs.liniell import Game, from_text, to_text
from tabletop_rl.envs.liniell.game import Occupation, Phase
from tabletop_rl.envs.qwirkle.board import Board
from tabletop_rl.envs.qwirkle.game import GameState
from tabletop_rl.envs.qwirkle.tiles import tile_name
from tabletop_rl.envs.qwirkle_cards import QwirkleCardsGame

SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
NAMES = [c + s for c in "ROYGBP" for s in "oxdstc"]
LINIELL_KINDS = [
    "cross", "tee", "tee_blue", "double_curve", "bridge", "curve_ee", "curve_eb", "curve_bb",
    "straight_ee", "straight_eb", "star",
]  # fmt: skip

junk = st.text(alphabet="RObxs:.-0123@, ", max_size=6)


def _mutate(draw: Callable, lines: list[str], value: st.SearchStrategy[str]) -> list[str]:
    """Change 0 to 2 lines: replace a ``key: value`` line's value, drop or repeat a line."""
    for _ in range(draw(st.integers(0, 2))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["value", "value", "value", "drop", "repeat"]))
        if how == "drop":
            del lines[i]
        elif how == "repeat":
            lines.insert(i, lines[i])
        else:
            key = lines[i].split(":", 1)[0] if ":" in lines[i] else lines[i]
            lines[i] = f"{key}: {draw(value)}"
    return lines


def _outcome(load: Callable[[], Any], play: Callable[[Any, np.random.Generator], None]) -> str:
    """Load; on success play a few steps. Only the project's two refusals may escape."""
    try:
        game = load()
    except (NotationError, ConfigError):
        return "refused"
    game.check_invariants()
    rng = np.random.default_rng(0)
    before = game.monotone_scores()
    for _ in range(8):
        if play(game, rng) is None:
            break
        game.check_invariants()
        after = game.monotone_scores()
        assert all(a >= b for a, b in zip(after, before, strict=True)), (before, after)
        before = after
    return "played"


# ------------------------------------------------------------------- Qwirkle Cards
def _cards_step(game: QwirkleCardsGame, rng: np.random.Generator) -> bool | None:
    if game.over:
        return None
    if game.must_redraw():
        game.cannot_play()
        return True
    plays, takes, end = game.builder().legal()
    options = [("play", k) for k in plays] + [("take", L) for L in takes]
    options += [("end", 0)] if end else []
    assert options, f"no legal sub-action in a running position:\n{game.to_text()}"
    what, x = options[int(rng.integers(len(options)))]
    if what == "play":
        game.play_card(x)
    elif what == "take":
        game.take_qwirkle(x)
    else:
        game.end_turn()
    return True


card_list = st.lists(st.sampled_from(NAMES), max_size=12).map(lambda c: " ".join(c) or "-")
cards_value = st.one_of(
    st.integers(-3, 600).map(str),
    card_list,
    st.sampled_from(["-", "yes", "no", "running", "finished", "truncated", "final_turn_each"]),
    st.sampled_from(["R", "s", "R s", "B B", "x"]),
    junk,
)


@st.composite
def cards_texts(draw: Callable) -> str:
    players, seed = draw(st.integers(2, 4)), draw(st.integers(0, 2**16))
    game = QwirkleCardsGame(players, np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    for _ in range(draw(st.integers(0, 120))):
        if _cards_step(game, rng) is None:
            break
    lines = game.to_text().splitlines()
    return "\n".join([lines[0], *_mutate(draw, lines[1:], cards_value)])


@SETTINGS
@given(cards_texts())
def test_cards_positions_load_and_play_or_are_refused(text: str) -> None:
    _outcome(lambda: QwirkleCardsGame.from_text(text, np.random.default_rng(1)), _cards_step)


# ------------------------------------------------------------------------ Qwirkle
def _qwirkle_step(game: GameState, rng: np.random.Generator) -> bool | None:
    if game.finished:
        return None
    moves = game.legal_moves()
    if moves:
        game.place(moves[int(rng.integers(len(moves)))])
    elif game.max_exchange():
        game.exchange(game.hand[:1])
    else:
        game.pass_turn()
    return True


@st.composite
def qwirkle_positions(draw: Callable) -> tuple[int, str, list[list[str]]]:
    players, seed = draw(st.integers(2, 4)), draw(st.integers(0, 2**16))
    game = GameState(players, np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    for _ in range(draw(st.integers(0, 25))):
        if _qwirkle_step(game, rng) is None or game.finished:
            break
    rows = [row.split() for row in game.board.to_text().splitlines()]
    for _ in range(draw(st.integers(0, 3))):  # change cells (a tile, an empty cell, junk)
        if rows:
            r = draw(st.integers(0, len(rows) - 1))
            c = draw(st.integers(0, len(rows[r]) - 1))
            rows[r][c] = draw(st.one_of(st.sampled_from([*NAMES, ".."]), junk))
    if draw(st.booleans()) and rows:
        rows.append([draw(st.sampled_from(NAMES))])
    hands = [[tile_name(t) for t in h] for h in game.hands]
    for _ in range(draw(st.integers(0, 2))):  # add or remove a tile of a hand
        h = hands[draw(st.integers(0, players - 1))]
        if draw(st.booleans()) or not h:
            h.append(draw(st.one_of(st.sampled_from(NAMES), junk)))
        else:
            h.pop()
    return players, "\n".join(" ".join(r) for r in rows), hands


@SETTINGS
@given(qwirkle_positions())
def test_qwirkle_positions_load_and_play_or_are_refused(
    position: tuple[int, str, list[list[str]]],
) -> None:
    players, text, hands = position

    def load() -> GameState:
        board = Board.from_text(text)
        return GameState(players, np.random.default_rng(2), hands=hands, board=board)

    _outcome(load, _qwirkle_step)


# ------------------------------------------------------------------------ Liniell
def _liniell_step(game: Game, rng: np.random.Generator) -> bool | None:
    if game.is_over:
        return None
    if game.phase is Phase.LAY:
        placements = game.legal_placements()
        assert placements, "a tile waits to be laid but has no legal placement"
        game.lay(*placements[int(rng.integers(len(placements)))])
        return True
    options: list[Occupation | None] = list(game.occupations())
    if game.phase is Phase.OCCUPY:
        options.append(None)
    assert options, "a compulsory move is due but none is possible"
    choice = options[int(rng.integers(len(options)))]
    if choice is None:
        game.skip()
    else:
        game.occupy(choice)
    return True


liniell_cell = st.one_of(
    st.tuples(st.sampled_from(LINIELL_KINDS), st.integers(0, 3)).map(lambda t: f"{t[0]}:{t[1]}"),
    st.just("."),
    junk,
)
pawn = st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4), st.sampled_from("NESW"))


@st.composite
def liniell_positions(draw: Callable) -> tuple[str, list[str], int]:
    players, seed = draw(st.integers(2, 4)), draw(st.integers(0, 2**16))
    game = Game.new(np.random.default_rng(seed), players)
    rng = np.random.default_rng(seed)
    for _ in range(draw(st.integers(0, 30))):
        if _liniell_step(game, rng) is None:
            break
    while game.phase is not Phase.LAY and not game.is_over:  # a between-turns position
        _liniell_step(game, rng)
    lines = to_text(game.board).splitlines()
    grid = [ln.split() for ln in lines[1:] if not ln.startswith("pawns:")]
    pawns = [ln for ln in lines if ln.startswith("pawns:")]
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):  # change cells
        r = draw(st.integers(0, len(grid) - 1))
        c = draw(st.integers(0, len(grid[r]) - 1))
        grid[r][c] = draw(liniell_cell)
    if draw(st.integers(0, 3)) == 0:  # add a pawn
        p, r, c, port = draw(pawn)
        pawns = [(pawns[0] if pawns else "pawns:") + f" {p}@{r},{c}:{port}"]
    header = lines[0] if draw(st.integers(0, 5)) else f"players: {draw(st.integers(1, 5))}"
    text = "\n".join([header, *(" ".join(r) for r in grid), *pawns])
    kinds = game.board.tile_set.kinds
    stack = [kinds[k].name for k in game.stack]
    if draw(st.integers(0, 3)) == 0:
        stack.append(draw(st.one_of(st.sampled_from(LINIELL_KINDS), junk)))
    seat = draw(st.one_of(st.integers(0, players - 1), st.sampled_from([-1, players])))
    return text, stack, seat


@SETTINGS
@given(liniell_positions())
def test_liniell_positions_load_and_play_or_are_refused(
    position: tuple[str, list[str], int],
) -> None:
    text, stack, current = position
    _outcome(lambda: Game.from_board(from_text(text), stack, current), _liniell_step)


def test_the_generators_draw_both_outcomes() -> None:
    """The properties above are only worth something if both outcomes occur."""
    seen: dict[str, set[str]] = {"cards": set(), "qwirkle": set(), "liniell": set()}

    @settings(max_examples=40, deadline=None, database=None, derandomize=True)
    @given(cards_texts(), qwirkle_positions(), liniell_positions())
    def collect(cards: str, qwirkle: tuple, liniell: tuple) -> None:
        seen["cards"].add(_outcome(lambda: QwirkleCardsGame.from_text(cards), lambda g, r: None))
        players, text, hands = qwirkle
        seen["qwirkle"].add(
            _outcome(
                lambda: GameState(
                    players, np.random.default_rng(0), hands=hands, board=Board.from_text(text)
                ),
                lambda g, r: None,
            )
        )
        text, stack, current = liniell
        seen["liniell"].add(
            _outcome(lambda: Game.from_board(from_text(text), stack, current), lambda g, r: None)
        )

    collect()
    assert all(s == {"refused", "played"} for s in seen.values()), seen
