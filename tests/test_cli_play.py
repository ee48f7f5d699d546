"""Whole games driven through the terminal front end with scripted input."""

from __future__ import annotations

import copy
import importlib
import io
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from tabletop_rl.baselines.cli import main as cli_main
from tabletop_rl.baselines.play import GenericParser, TerminalGame, legal_moves
from tabletop_rl.baselines.replay import load_game, resimulate
from tabletop_rl.envs import available_envs

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
importlib.import_module("toy_games")
TOY = "toy_games:raw_env"

BAD_INPUTS = ["", "xyzzy", "play 7", "99", "3", "play 1; play 1; play 1; play 1"]
# one of these is legal on every turn of the toy game; the others are refused
TRY_EVERYTHING = ["play 1", "play 2", "play 3", "pass"] * 30


def _play(argv: list[str], lines: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = cli_main(argv, stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out)
    return code, out.getvalue()


def test_a_whole_game_through_the_cli_with_bad_inputs(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    argv = ["play", "--env", TOY, "--opponents", "random", "--seed", "3", "--hint"]
    argv += ["--hint-agent", "mcts:simulations=10", "--save", str(save)]
    script = ["help", "moves", "board", "hint", *BAD_INPUTS, *TRY_EVERYTHING]
    code, text = _play(argv, script)
    assert code == 0, text
    assert "=== game over ===" in text
    assert ("wins" in text) or ("draw" in text)
    assert "Type a move as its name" in text  # help
    assert "hint (mcts:simulations=10): play" in text
    assert "Cannot read 'xyzzy'" in text
    assert "no legal move is called 'play 7'" in text
    assert "Not legal: action 99 is out of range; allowed: 0 to 3" in text
    assert "Not legal: pass: you may pass only with an empty hand" in text
    assert "Not legal: play 1: you hold no card of value 1" in text
    assert "\x1b[" not in text  # no colour codes outside a terminal
    assert "player_1 (random): play" in text  # the opponent's moves are shown
    assert "Traceback" not in text
    record = load_game(save)
    assert record["agents"] == ["human", "random"]
    resimulate(record)


def test_quit_and_end_of_input_end_the_session_cleanly() -> None:
    argv = ["play", "--env", TOY, "--opponents", "random", "random", "--seat", "1", "--seed", "2"]
    code, text = _play(argv, ["hint", "quit"])
    assert code == 2 and "Game abandoned." in text
    assert "start the game with --hint" in text
    code, text = _play(argv, ["xyzzy"])
    assert code == 2 and "(end of input)" in text


def test_bad_options_are_reported() -> None:
    code = cli_main(
        ["play", "--env", TOY, "--opponents", "nobody"], stdin=io.StringIO(), stdout=io.StringIO()
    )
    assert code == 2
    with pytest.raises(SystemExit):
        cli_main(["play", "--env", "no_such_game_v0"])


class Typist(io.StringIO):
    """Types a bad action number, then the name of a random legal move, on each prompt."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.game: TerminalGame | None = None
        self.rng = np.random.default_rng(seed)
        self.lines = 0

    def readline(self, size: int | None = -1) -> str:
        self.lines += 1
        if self.lines % 4 == 1:
            return "123456\n"
        moves = legal_moves(self.game.env)
        _action, name = moves[int(self.rng.integers(len(moves)))]
        return name + "\n"


@pytest.mark.parametrize("env_name", [*available_envs(), TOY])
def test_generic_notation_plays_a_whole_game_of_every_environment(env_name: str) -> None:
    typist, out = Typist(0), io.StringIO()
    game = TerminalGame(env_name, ["random"], typist, out, seed=1, parser=GenericParser())
    typist.game = game
    assert game.run() == 0, out.getvalue()[-2000:]
    assert "=== game over ===" in out.getvalue()
    assert "out of range" in out.getvalue()


def test_train_and_evaluate_forward_their_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}
    for command in ("train", "evaluate"):
        fake = SimpleNamespace(main=lambda argv, c=command: seen.setdefault(c, argv) and 0)
        monkeypatch.setitem(sys.modules, f"tabletop_rl.baselines.ppo.{command}", fake)
    assert cli_main(["train", "--config", "x.yaml", "--help"]) == 0
    assert cli_main(["evaluate", "ppo.pt", "--games", "3"]) == 0
    assert seen == {
        "train": ["--config", "x.yaml", "--help"],
        "evaluate": ["ppo.pt", "--games", "3"],
    }


class QwirkleTypist(io.StringIO):
    """Types a random legal Qwirkle turn in the rules' notation (placements shuffled), after
    a few inputs that must be refused."""

    BAD = ("Zz@1,1", "Rs@99,99", "swap", "Rs@3", "Ro@0,0 Ro@0,1", "pass")

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.game: TerminalGame | None = None
        self.rng = np.random.default_rng(seed)
        self.lines = 0

    def readline(self, size: int | None = -1) -> str:
        self.lines += 1
        if self.lines <= len(self.BAD):
            return self.BAD[self.lines - 1] + "\n"
        env, parser = self.game.env, self.game.parser
        sim = copy.deepcopy(env)
        words = []
        while sim.agent_selection == env.agent_selection and not any(sim.terminations.values()):
            action = int(self.rng.choice(np.flatnonzero(sim.action_mask())))
            word = parser.format_action(action, sim)
            if word:
                words.append(word)
            sim.step(action)
        self.rng.shuffle(words)
        return " ".join(words) + "\n"


@pytest.mark.skipif("qwirkle_v0" not in available_envs(), reason="Qwirkle is not registered")
def test_a_whole_qwirkle_game_in_the_rules_notation() -> None:
    typist, out = QwirkleTypist(0), io.StringIO()
    game = TerminalGame("qwirkle_v0", ["random"], typist, out, seed=2)
    typist.game = game
    assert game.run() == 0, out.getvalue()[-3000:]
    text = out.getvalue()
    assert "=== game over ===" in text
    assert "Cannot read 'Zz@1,1'" in text
    assert "outside the board window" in text
    assert "name the tiles to swap" in text
    assert "is not a placement" in text
    assert "Not legal" in text
    assert re.search(r"player_0 \(you\): [ROYGBP][oxdstc]@\d+,\d+", text)
    assert re.search(r"player_1 \(random\): ([ROYGBP][oxdstc]@\d+,\d+|swap|pass)", text)


@pytest.mark.skipif("qwirkle_v0" not in available_envs(), reason="Qwirkle is not registered")
def test_qwirkle_notation_maps_to_the_right_actions() -> None:
    from tabletop_rl.baselines.play import QwirkleParser
    from tabletop_rl.envs import make

    env = make("qwirkle_v0", raw=True, num_players=2)
    env.reset(seed=5)
    parser = QwirkleParser()
    for action in np.flatnonzero(env.action_mask()):
        word = parser.format_action(int(action), env)
        tile, cell = word.split("@")
        described = env.describe_action(int(action))
        assert f"({tile})" in described and f"window cell ({cell.replace(',', ', ')})" in described
        parsed = parser.parse(word, env)
        assert parsed[0] == action or tile in env.describe_action(parsed[0])


class NotationTypist(io.StringIO):
    """Types a random legal turn in the game's notation, ';' between moves."""

    def __init__(self, seed: int, bad: Sequence[str] = ()) -> None:
        super().__init__()
        self.game: TerminalGame | None = None
        self.rng = np.random.default_rng(seed)
        self.bad = list(bad)

    def readline(self, size: int | None = -1) -> str:
        if self.bad:
            return self.bad.pop(0) + "\n"
        env, parser = self.game.env, self.game.parser
        sim = copy.deepcopy(env)
        words = []
        while sim.agent_selection == env.agent_selection and not any(sim.terminations.values()):
            action = int(self.rng.choice(np.flatnonzero(sim.action_mask())))
            words.append(parser.format_action(action, sim))
            sim.step(action)
        return "; ".join(w for w in words if w) + "\n"


@pytest.mark.skipif("liniell_v0" not in available_envs(), reason="Liniell is not registered")
def test_a_whole_liniell_game_in_notation() -> None:
    from tabletop_rl.baselines.play import LiniellParser
    from tabletop_rl.envs import make

    parser = LiniellParser()
    env = make("liniell_v0", raw=True, num_players=2)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    while not any(env.terminations.values()):
        for action in np.flatnonzero(env.action_mask()):
            assert parser.parse(parser.format_action(int(action), env), env) == [action]
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))

    bad = ["9,9 r0", "3,3 r7", "occupy Q", "lay here", "0,0 r0", "skip"]
    typist, out = NotationTypist(1, bad), io.StringIO()
    game = TerminalGame("liniell_v0", ["random"], typist, out, seed=3)
    typist.game = game
    assert game.run() == 0, out.getvalue()[-3000:]
    text = out.getvalue()
    assert "outside the window" in text and "r7 does not exist" in text
    assert "is not a Liniell move" in text and "Not legal" in text
    assert re.search(r"player_0 \(you\): \d,\d r\d", text)
    assert "=== game over ===" in text


@pytest.mark.skipif(
    "qwirkle_cards_v0" not in available_envs(), reason="Qwirkle Cards is not registered"
)
def test_a_whole_qwirkle_cards_game_in_notation() -> None:
    bad = ["Zz", "take", "take Q", "Rs Rs Rs Rs Rs Rs Rs", "redraw"]
    typist, out = NotationTypist(2, bad), io.StringIO()
    game = TerminalGame("qwirkle_cards_v0", ["random"], typist, out, seed=5)
    typist.game = game
    assert game.run() == 0, out.getvalue()[-3000:]
    text = out.getvalue()
    assert "Cannot read 'Zz'" in text and "name the Qwirkle to take" in text
    assert "line 'Q' is unknown" in text and "Not legal" in text
    assert re.search(r"player_0 \(you\): ([ROYGBP][oxdstc]|redraw)", text)
    assert "=== game over ===" in text


def test_hint_uses_the_strongest_available_agent() -> None:
    argv = ["play", "--env", TOY, "--opponents", "random", "--seed", "2", "--hint"]
    code, text = _play(argv, ["hint", "quit"])
    assert code == 2 and "hint (mcts): play" in text  # the toy game has no scripted agents
