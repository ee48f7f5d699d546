"""The terminal game as a newcomer meets it: hints mid-turn, help that matches what happens,
legal moves in the notation with their points, messages in the coordinates on screen, a
Liniell board with a legend and stable line letters, and no colour codes in a pipe.

The games are played with the ``tabletop-rl`` command in a subprocess, input piped in.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np

from tabletop_rl.baselines.play import QwirkleParser
from tabletop_rl.envs import make
from tabletop_rl.envs.liniell.render import LineLabels

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
run_cli = importlib.import_module("cli_runner").run_cli


def _play(args: list[str], typed: str) -> str:
    done = run_cli(["play", *args], stdin=typed)
    assert "Traceback" not in done.stderr and "error" not in done.stderr, done.stderr
    assert done.returncode == 2  # the input ended before the game did
    assert "\x1b[" not in done.stdout  # no colour codes: the output is not a terminal
    return done.stdout


def test_hint_in_the_middle_of_a_qwirkle_cards_turn() -> None:
    text = _play(
        ["--env", "qwirkle_cards_v0", "--opponents", "greedy", "--hint", "--seed", "5"],
        "Ox\nhint\n",
    )
    assert "player_0 (you): Ox\nYour turn goes on" in text  # one card left the turn open
    assert "hint (heuristic): " in text


def test_hint_in_the_middle_of_a_qwirkle_turn() -> None:
    """The heuristic continues a turn someone else began: the hint is the rest of the start
    row the human began with Oo, not a whole turn from the turn's start."""
    text = _play(
        ["--env", "qwirkle_v0", "--opponents", "greedy", "--hint", "--seed", "3"],
        "Oo@19,19\nhint\n",
    )
    assert "Your turn goes on" in text
    assert "hint (heuristic): Go@20,19 Yo@21,19\n" in text


def test_qwirkle_cards_help_says_when_the_turn_ends() -> None:
    text = _play(["--env", "qwirkle_cards_v0", "--opponents", "greedy", "--seed", "5"], "help\n")
    assert "the turn ends when the table" in text and "is valid again" in text


def test_seat_help_says_who_moves_first() -> None:
    done = run_cli(["play", "--help"])
    assert "seat 0 does not always move first" in " ".join(done.stdout.split())


def test_qwirkle_moves_and_refusals_in_the_board_coordinates() -> None:
    typed = "Oo@19,19 Rx@19,20\nOo@19,19 Go@19,20\nmoves\n"
    text = _play(["--env", "qwirkle_v0", "--opponents", "greedy", "--seed", "3"], typed)
    assert "Not legal: Rx@19,20: the start row is one largest set" in text
    assert "board cell" not in text and "action " not in text
    assert (
        "2 legal moves (points if the turn ended right after):\n  Yo@ 19,18 (+3)  19,21 (+3)"
        in text
    )


def test_qwirkle_reasons_use_the_window_coordinates() -> None:
    env = make("qwirkle_v0", raw=True, num_players=2)
    env.reset(seed=3)
    origin = env.public_view(env.agent_selection).window_origin
    reason = "cell (0, 1) is already occupied by Rs (row -3)"
    assert QwirkleParser().explain(reason, env) == (
        f"cell {0 - origin[0]},{1 - origin[1]} is already occupied by Rs (row {-3 - origin[0]})"
    )


def test_liniell_board_has_a_legend() -> None:
    text = _play(["--env", "liniell_v0", "--opponents", "greedy", "--seed", "3"], "moves\n")
    assert "legend: a-z a free line" in text
    assert "(+0)" in text  # moves with their points


def test_line_letters_stay_with_their_lines() -> None:
    labels = LineLabels()
    assert labels.assign({10: [10, 11]}) == {10: "a"}
    # a new line drawn before it in reading order does not take its letter
    assert labels.assign({5: [5], 10: [10, 11, 12]}) == {5: "b", 10: "a"}
    # joined lines keep the older letter, and the freed letter is given again
    assert labels.assign({5: [5, 10, 11, 12], 40: [40]}) == {5: "a", 40: "b"}


def test_liniell_letters_are_stable_over_a_whole_game() -> None:
    """Through a random game, every piece whose line did not join another keeps its letter."""
    from tabletop_rl.envs.liniell.render import render_ansi

    env = make("liniell_v0", raw=True, num_players=2)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    labels = LineLabels()
    previous: dict[int, tuple[str, frozenset[int]]] = {}
    while not any(env.terminations.values()):
        game = env.model.engine_state(env.game_state)
        render_ansi(game, 0, labels=labels)
        lines = game.board.lines
        current = {}
        for piece, label in labels._by_piece.items():
            root = lines.find(piece)
            current[piece] = (
                label,
                frozenset(p for p in labels._by_piece if lines.find(p) == root),
            )
        for piece, (label, members) in previous.items():
            if piece in current and current[piece][1] == members:
                assert current[piece][0] == label
        previous = current
        legal = np.flatnonzero(env.action_mask())
        env.step(int(rng.choice(legal)))
