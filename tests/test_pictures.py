"""Pictures a person understands alone: every game's image says the turn, who acts (or who
won) and the scores in text large enough for a notebook figure; GIF frames share one size
and say the last move; replays are written in the play notation."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PIL")

from tabletop_rl.baselines.arena import ArenaConfig, run_arena
from tabletop_rl.baselines.replay import gif_frames, load_game, write_gif
from tabletop_rl.envs import make
from tabletop_rl.envs.core.caption import CAPTION_BG, FONT_PX, LINE_PX, text_width
from tabletop_rl.envs.liniell.render import caption as liniell_caption
from tabletop_rl.envs.qwirkle.render import caption as qwirkle_caption
from tabletop_rl.envs.qwirkle_cards.render import caption as cards_caption

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
run_cli = importlib.import_module("cli_runner").run_cli

CAPTIONS = {
    "liniell_v0": liniell_caption,
    "qwirkle_v0": qwirkle_caption,
    "qwirkle_cards_v0": cards_caption,
}
TITLES = {"liniell_v0": "Liniell", "qwirkle_v0": "Qwirkle", "qwirkle_cards_v0": "Qwirkle Cards"}


def _random_steps(env, steps: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if any(env.terminations.values()) or any(env.truncations.values()):
            return
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))


def _caption(env_name: str, env):
    return CAPTIONS[env_name](env.model.engine_state(env.game_state))


@pytest.mark.parametrize("env_name", sorted(CAPTIONS))
@pytest.mark.parametrize("players", [2, 4])
def test_every_picture_has_a_caption_with_turn_player_and_scores(env_name: str, players: int):
    env = make(env_name, raw=True, num_players=players, render_mode="rgb_array")
    env.reset(seed=2)
    _random_steps(env, 30)
    lines = _caption(env_name, env)
    text = "  |  ".join(lines)
    seat = env.possible_agents.index(env.agent_selection)
    assert text.startswith(f"{TITLES[env_name]}  turn ")
    assert f"player_{seat}" in lines[0] and "to act" in lines[0]
    scores = env.final_scores()
    for p in range(players):
        assert f"player_{p}" in text
        assert f" {scores[p]:g} " in text + " "  # every player's score
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    # the caption band on top, in the caption colour, with light text in it
    band = picture[: 2 * LINE_PX]
    assert (band == CAPTION_BG).all(axis=2).mean() > 0.5
    assert (band.min(axis=2) > 200).any()
    # readable in a notebook figure: text of at least 18 px, and the picture no wider than
    # about 1.5 times a 6-inch figure, so it is not shrunk much
    assert FONT_PX >= 18 and picture.shape[1] <= 900


@pytest.mark.parametrize("env_name", sorted(CAPTIONS))
def test_a_finished_game_names_the_winner(env_name: str) -> None:
    env = make(env_name, raw=True, num_players=2, render_mode="rgb_array")
    env.reset(seed=3)
    _random_steps(env, 5000)
    assert any(env.terminations.values()) or any(env.truncations.values())
    head = _caption(env_name, env)[0]
    assert "game over" in head
    if not any(env.truncations.values()):
        for winner in env.winners():
            assert winner in head


def test_qwirkle_cards_text_is_large() -> None:
    """Qwirkle Cards' labels were 10-pixel bitmap text; now they use the caption font."""
    assert text_width("player_0's hand (9 cards):") > 200  # about 10 px a character


@pytest.fixture(scope="module")
def saved_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("arena")
    run_arena(
        ArenaConfig(env="liniell_v0", agents=("random", "greedy"), games=1),
        out,
        progress=False,
    )
    return out / "games.jsonl"


def test_gif_frames_share_a_size_and_say_the_last_move(saved_game: Path, tmp_path: Path) -> None:
    record = load_game(saved_game)
    frames = gif_frames(record)
    assert len({f.shape for f in frames}) == 1
    gif = tmp_path / "game.gif"
    assert write_gif(record, gif) == len(frames)
    from PIL import Image, ImageSequence

    with Image.open(gif) as image:
        sizes = {frame.size for frame in ImageSequence.Iterator(image)}
    assert sizes == {(frames[0].shape[1], frames[0].shape[0])}
    # a caption band at the bottom of every frame (the last move; the outcome at the end)
    for frame in frames:
        assert (frame[-LINE_PX:] == CAPTION_BG).all(axis=2).mean() > 0.5


def test_replay_in_the_play_notation_without_you(saved_game: Path) -> None:
    done = run_cli(["replay", str(saved_game)])
    assert done.returncode == 0, done.stderr
    assert "(you)" not in done.stdout
    assert "\x1b[" not in done.stdout
    assert "  player_0 (random): " in done.stdout and " r" in done.stdout  # 3,3 r0, skip
    assert "lay on window cell" not in done.stdout  # not describe_action's words
