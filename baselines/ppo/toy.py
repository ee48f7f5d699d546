"""Tic-tac-toe as a tiny :class:`TabletopAECEnv`, for checking the PPO trainer end to end.

Not one of the suite's games: a known, solved game with a board plane and board-indexed
actions, small enough that a trainer bug shows within seconds (a working PPO beats a random
player in nearly every game after a short run). Select it in a config with
``env: "tabletop_rl.baselines.ppo.toy:TicTacToeEnv"``. Its :data:`GAME_SPEC` names its
scripted agent, ``tactics`` (:func:`tabletop_rl.envs.registry.game_spec`).

>>> env = TicTacToeEnv()
>>> env.reset(seed=0)
>>> for action in (0, 3, 1, 4, 2):
...     env.step(action)
>>> env.winners(), env.rewards
(['player_0'], {'player_0': 1.0, 'player_1': -1.0})
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_rl.envs.core.aec import TabletopAECEnv
from tabletop_rl.envs.core.game_info import GameInfo
from tabletop_rl.envs.core.model import (
    Ending,
    GameModel,
    IndexCodec,
    Outcome,
    StepResult,
    check_num_players,
    check_rng,
)
from tabletop_rl.envs.core.observation import Field, ObservationLayout
from tabletop_rl.envs.core.symmetry import Symmetries, dihedral_symmetries
from tabletop_rl.envs.games import GameSpec

_LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]
)
INFO = GameInfo(
    name="tictactoe",
    min_players=2,
    max_players=2,
    default_players=2,
    num_actions=9,
    max_game_length=9,
    perfect_information=True,
    chance=False,
    reward_modes=("win",),
)


class TicTacToeModel(GameModel[dict[str, Any], int]):
    """Two players mark cells of a 3 x 3 board; three in a line wins, a full board draws."""

    info = INFO
    state_type = dict

    def __init__(self, num_players: int = 2) -> None:
        self.num_players = check_num_players(INFO.name, num_players, 2, 2)
        self.codec = IndexCodec(9)
        self.layout = ObservationLayout(
            (
                Field("board", (2, 3, 3), "own marks, opponent's marks", spatial=True),
                Field("moves", (1,), "marks on the board / 9"),
            )
        )

    def action_layout(self) -> ObservationLayout:
        return ObservationLayout((Field("mark", (1, 3, 3), "mark this cell", spatial=True),))

    def symmetries(self) -> Symmetries:
        """The 8 rotations and reflections of the board (tic-tac-toe has no direction)."""
        return dihedral_symmetries(self.layout, self.action_layout())

    def new_state(self, rng: np.random.Generator) -> dict[str, Any]:
        check_rng(rng)
        return {"cells": np.full(9, -1, dtype=np.int8), "turn": 0}

    def current_player(self, state: dict[str, Any]) -> int:
        return state["turn"] % 2

    def legal_mask_unchecked(self, state: dict[str, Any]) -> np.ndarray:
        if self.is_over(state):
            return np.zeros(9, dtype=np.int8)
        return (state["cells"] < 0).astype(np.int8)

    def step_unchecked(self, state: dict[str, Any], action: int) -> StepResult:
        state["cells"][action] = self.current_player(state)
        state["turn"] += 1
        return StepResult(game_over=self.is_over(state))

    def _line_owner(self, state: dict[str, Any]) -> int:
        marks = state["cells"][_LINES]
        full = (marks == marks[:, :1]).all(axis=1) & (marks[:, 0] >= 0)
        return int(marks[full, 0][0]) if full.any() else -1

    def is_over(self, state: dict[str, Any]) -> bool:
        return bool(self._line_owner(state) >= 0 or state["turn"] == 9)

    def outcome(self, state: dict[str, Any]) -> Outcome | None:
        if not self.is_over(state):
            return None
        owner = self._line_owner(state)
        return Outcome(Ending.FINISHED, (owner,) if owner >= 0 else (0, 1), self.scores(state))

    def observe_unchecked(
        self, state: dict[str, Any], player: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        out = self.layout.zeros() if out is None else out
        out[:] = 0
        views = self.layout.views(out)
        cells = state["cells"].reshape(3, 3)
        views["board"][0] = cells == player
        views["board"][1] = cells == 1 - player
        views["moves"][0] = state["turn"] / 9
        return out

    def explain_illegal(self, state: dict[str, Any], action: int) -> str:
        return f"cell {action} is already marked"

    def public_view(self, state: dict[str, Any], player: int) -> np.ndarray:
        return state["cells"].copy()


class TicTacToeEnv(TabletopAECEnv):
    """Tic-tac-toe as a PettingZoo AEC environment over :class:`TicTacToeModel`."""

    info = INFO

    def __init__(
        self, num_players: int = 2, render_mode: str | None = None, reward: str = "win"
    ) -> None:
        super().__init__(TicTacToeModel(num_players), render_mode=render_mode, reward=reward)


GAME_SPEC = GameSpec(
    name=INFO.name,
    env=f"{__name__}:TicTacToeEnv",
    model=f"{__name__}:TicTacToeModel",
    agents={"tactics": "tabletop_rl.baselines.agents.tictactoe:TicTacToeTacticsAgent"},
)
"""The game's description: its scripted agent (the other entries are the defaults)."""
