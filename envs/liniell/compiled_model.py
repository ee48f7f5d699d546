"""Liniell's game model over the compiled core (:mod:`.compiled`).

:class:`LiniellCompiledModel` plays exactly the game of the reference
:class:`~.model.LiniellModel` (the same seed gives the same game, observation for
observation; ``tests/test_liniell_compiled.py`` checks it), with the rules, route scoring and
observation running as numba kernels over a state of one small ``int16`` vector. Text,
pictures and the public view convert the state into the reference engine's
:class:`~.game.Game` by replaying the actions played (each state remembers its deal and its
actions), so they read exactly as the reference's.

>>> model = LiniellCompiledModel(num_players=2)
>>> state = model.new_state(np.random.default_rng(0))
>>> rng = np.random.default_rng(1)
>>> while not model.is_over(state):
...     _ = model.step(state, int(rng.choice(np.flatnonzero(model.legal_mask(state)))))
>>> model.outcome(state) == LiniellModel(2).outcome(model.reference_state(state))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.model import Ending, GameModel, Outcome, StepResult, check_rng
from ..core.observation import ObservationLayout
from ..core.symmetry import Symmetries
from ..errors import ArgumentError
from . import compiled as core
from . import compiled_observation
from .actions import LiniellAction
from .board import Board
from .compiled_layout import (
    CURRENT,
    HIST,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_HIST,
    NUM_LAID,
    OBS_FIELDS,
    OVER,
    PHASE,
    STACK,
    STACK_SIZE,
    START,
    STATE_SIZE,
    TURN,
    WRITTEN_SIZE,
    geometry,
)
from .compiled_lines import player_points, winners_mask
from .game import Game
from .model import LiniellModel, LiniellState
from .tileset import NUM_TILES, TileSet


class LiniellCompiledState:
    """One Liniell game as the compiled core's ``int16`` state vector (see
    :mod:`.compiled` for its layout)."""

    __slots__ = ("_replayed", "data")

    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self._replayed: _Replayed | None = None
        """The reference state last replayed for this one (the model's to keep)."""

    def copy(self) -> LiniellCompiledState:
        return LiniellCompiledState(self.data.copy())

    def __getstate__(self) -> np.ndarray:
        return self.data  # the replayed reference state is a cache: rebuilt when asked

    def __setstate__(self, data: np.ndarray) -> None:
        self.data = data
        self._replayed = None

    def __repr__(self) -> str:
        s = self.data
        return (
            f"LiniellCompiledState(turn={int(s[TURN])}, phase={int(s[PHASE])}, "
            f"to_act={int(s[CURRENT])}, laid={int(s[NUM_LAID])})"
        )


@dataclass
class _Replayed:
    """A reference state replayed from a compiled one, and what it was replayed from."""

    model: LiniellCompiledModel
    deal: np.ndarray
    start: int
    actions: np.ndarray
    state: LiniellState


class LiniellCompiledModel(GameModel[LiniellCompiledState, LiniellAction]):
    """Liniell for 2 to 4 players over the compiled core (same game as
    :class:`~.model.LiniellModel`, which it keeps as ``reference`` for its layout, codec and
    text)."""

    state_type = LiniellCompiledState

    def __init__(self, num_players: int = 2, tile_set: str | Path | TileSet = "default") -> None:
        self.reference = LiniellModel(num_players=num_players, tile_set=tile_set)
        self.num_players = self.reference.num_players
        self.info = self.reference.info
        self.codec = self.reference.codec
        self.tile_set = self.reference.tile_set
        self.layout = self.reference.layout
        self.geom, self.feats = geometry(self.tile_set)
        if tuple(f.name for f in self.layout) != OBS_FIELDS:
            raise ValueError(
                "the compiled observation writer expects the fields "
                f"{OBS_FIELDS} in this order, got {tuple(f.name for f in self.layout)}"
            )
        self.offsets = np.array(
            [self.layout.slice(name).start for name in OBS_FIELDS], dtype=np.int64
        )
        self._tiles = np.array(self.tile_set.stack(), dtype=np.int64)
        self._points = np.zeros(MAX_PLAYERS, dtype=np.int64)
        self._written = np.empty(WRITTEN_SIZE, dtype=np.int16)

    # ----------------------------------------------------------- the rules
    def deal(self, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        """A new game's shuffled stack (``int16`` kinds, drawn from the end) and first
        player: the same draws, in the same order, as the reference's ``Game.new``."""
        stack = rng.permutation(self._tiles).astype(np.int16)
        return stack, int(rng.integers(self.num_players))

    def new_state(self, rng: np.random.Generator) -> LiniellCompiledState:
        stack, start = self.deal(check_rng(rng))
        return LiniellCompiledState(core.new_state(stack, start, self.num_players, self.geom))

    def check_state(self, state: Any) -> None:
        """A :class:`LiniellCompiledState` whose vector the kernels can read (its shape and
        dtype as :func:`.compiled.new_state` makes them), else an ``ArgumentError``."""
        super().check_state(state)
        data = state.data
        if not (
            isinstance(data, np.ndarray)
            and data.dtype == np.int16
            and data.shape == (STATE_SIZE,)
            and data.flags.c_contiguous
            and 0 <= data[CURRENT] < self.num_players
        ):
            raise ArgumentError(
                "state.data must be the int16 vector of shape "
                f"({STATE_SIZE},) that new_state makes for this {self.num_players}-player model"
            )

    def current_player(self, state: LiniellCompiledState) -> int:
        return int(state.data[CURRENT])

    def is_over(self, state: LiniellCompiledState) -> bool:
        return bool(state.data[PHASE] == OVER)

    def legal_mask_unchecked(self, state: LiniellCompiledState) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        core.legal_mask(state.data, self.geom, mask)
        return mask

    def step_unchecked(self, state: LiniellCompiledState, action: int) -> StepResult:
        over = core.step(state.data, self.geom, int(action), self._points)
        points = {p: float(self._points[p]) for p in range(self.num_players) if self._points[p]}
        return StepResult(points=points, game_over=bool(over))

    def scores(self, state: LiniellCompiledState) -> tuple[float, ...]:
        """Every seat's provisional score (as if the game ended now; final once over)."""
        return tuple(float(player_points(state.data, p)) for p in range(self.num_players))

    def outcome(self, state: LiniellCompiledState) -> Outcome | None:
        self.check_state(state)
        if not self.is_over(state):
            return None
        won = winners_mask(state.data)
        winners = tuple(p for p in range(self.num_players) if won >> p & 1)
        return Outcome(Ending.FINISHED, winners, self.scores(state))

    def explain_illegal(self, state: LiniellCompiledState, action: int) -> str:
        return self.reference.explain_illegal(self.reference_state(state), action)

    def describe_action(self, state: LiniellCompiledState | None, action: int) -> str:
        return self.reference.describe_action(None, action)

    # -------------------------------------------------------- observation
    def observe_unchecked(
        self, state: LiniellCompiledState, player: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        if out is None:
            out = np.empty(self.layout.size, dtype=np.float32)
        compiled_observation.observe(
            state.data, self.geom, self.feats, self.offsets, int(player), out, self._written
        )
        return out

    def action_layout(self) -> ObservationLayout:
        return self.reference.action_layout()

    def symmetries(self) -> Symmetries | None:
        return self.reference.symmetries()

    # ------------------------------------------------- hidden information
    def copy(self, state: LiniellCompiledState) -> LiniellCompiledState:
        return state.copy()

    def resample_hidden(
        self, state: LiniellCompiledState, player: int, rng: np.random.Generator
    ) -> None:
        """Reshuffle the order of the stack (nobody can see it), with the reference's draws:
        the new order depends only on the stack's contents and ``rng``."""
        s = state.data
        size = int(s[STACK_SIZE])
        stack = np.sort(s[STACK : STACK + size])
        s[STACK : STACK + size] = stack[rng.permutation(size)]

    # ----------------------------------------- the reference engine's view
    def game_of(self, state: LiniellCompiledState) -> Game:
        """The reference engine's :class:`~.game.Game` of ``state`` (a new object, built by
        replaying the deal and the actions played)."""
        return self.reference_state(state).game

    def reference_state(self, state: LiniellCompiledState) -> LiniellState:
        """The reference model's state of the same game (replayed; for text, pictures and
        checks)."""
        s = state.data
        deal = [int(k) for k in s[STACK : STACK + NUM_TILES]]
        game = Game(Board(self.tile_set, self.num_players), deal, int(s[START]))
        ref = self.reference.state_of(game)
        for action in s[HIST : HIST + s[NUM_HIST]]:
            self.reference.step_unchecked(ref, int(action))
        return ref

    def engine_state(self, state: LiniellCompiledState) -> Game:
        """The reference engine's game of ``state`` (replayed), for its invariant checks."""
        return self.game_of(state)

    def public_view(self, state: LiniellCompiledState, player: int) -> Game:
        """A copy of the game whose stack is sorted (as the reference's public view).

        Replayed incrementally: the state keeps the reference state last replayed for it, and
        a later view replays only the actions played since, as long as the deal, the starting
        player and the earlier actions are still those it was replayed from (else it is
        replayed from the deal again). Scripted agents ask for a view at every decision,
        which a replay of the whole game made the dearest part of their turn."""
        self.check_state(state)
        self.check_player(player)
        return self._replay(state).game.public_copy()

    def _replay(self, state: LiniellCompiledState) -> LiniellState:
        """The reference state of ``state`` kept up to date with it (see :meth:`public_view`);
        read it, do not change it."""
        s = state.data
        deal = s[STACK : STACK + NUM_TILES]
        start = int(s[START])
        actions = s[HIST : HIST + s[NUM_HIST]]
        kept = state._replayed
        if (
            kept is not None
            and kept.model is self
            and kept.start == start
            and len(kept.actions) <= len(actions)
            and np.array_equal(kept.deal, deal)
            and np.array_equal(kept.actions, actions[: len(kept.actions)])
        ):
            for action in actions[len(kept.actions) :]:
                self.reference.step_unchecked(kept.state, int(action))
            kept.actions = actions.copy()
            return kept.state
        ref = self.reference_state(state)
        state._replayed = _Replayed(self, deal.copy(), start, actions.copy(), ref)
        return ref

    def to_text(self, state: LiniellCompiledState) -> str:
        """The whole game state in the engine's text notation, for bug reports."""
        return self.game_of(state).to_text()

    def render_ansi(self, state: LiniellCompiledState, viewer: int) -> str:
        return self.reference.render_ansi(self.reference_state(state), viewer)

    def render_rgb(self, state: LiniellCompiledState, viewer: int) -> np.ndarray:
        return self.reference.render_rgb(self.reference_state(state), viewer)

    def player_info(self, state: LiniellCompiledState, player: int) -> dict[str, Any]:
        return {}


__all__ = ["LiniellCompiledModel", "LiniellCompiledState"]
