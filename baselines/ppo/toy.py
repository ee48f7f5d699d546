"""Tic-tac-toe as a tiny :class:`TabletopAECEnv`, for checking the PPO trainer end to end.

Not one of the suite's games: a known, solved game with a board plane and board-indexed
actions, small enough that a trainer bug shows within seconds (a working PPO beats a random
player in nearly every game after a short run). Select it in a config with
``env: "tabletop_rl.baselines.ppo.toy:TicTacToeEnv"``.

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

from tabletop_rl.envs.core.aec import StepResult, TabletopAECEnv
from tabletop_rl.envs.core.game_info import GameInfo
from tabletop_rl.envs.core.observation import Field, ObservationLayout
from tabletop_rl.envs.core.symmetry import Symmetries, dihedral_symmetries

_LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]
)


class TicTacToeEnv(TabletopAECEnv):
    """Two players mark cells of a 3 x 3 board; three in a line wins, a full board draws."""

    info = GameInfo(
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

    def _build_layout(self) -> ObservationLayout:
        return ObservationLayout(
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

    def _new_state(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"cells": np.full(9, -1, dtype=np.int8), "turn": 0}

    def _current_player(self) -> int:
        return self.state["turn"] % 2

    def _legal_mask(self) -> np.ndarray:
        return (self.state["cells"] < 0).astype(np.int8)

    def _apply(self, action: int) -> StepResult:
        self.state["cells"][action] = self._current_player()
        self.state["turn"] += 1
        over = bool(self._line_owner() >= 0 or self.state["turn"] == 9)
        return StepResult(game_over=over)

    def _line_owner(self) -> int:
        marks = self.state["cells"][_LINES]
        full = (marks == marks[:, :1]).all(axis=1) & (marks[:, 0] >= 0)
        return int(marks[full, 0][0]) if full.any() else -1

    def _winners(self) -> list[int]:
        owner = self._line_owner()
        return [owner] if owner >= 0 else [0, 1]

    def _observe_into(self, player: int, views: dict[str, np.ndarray]) -> None:
        cells = self.state["cells"].reshape(3, 3)
        views["board"][0] = cells == player
        views["board"][1] = cells == 1 - player
        views["moves"][0] = self.state["turn"] / 9

    def _explain_illegal(self, action: int) -> str:
        return f"cell {action} is already marked"

    def public_view(self, agent: str) -> np.ndarray:
        return self.state["cells"].copy()
