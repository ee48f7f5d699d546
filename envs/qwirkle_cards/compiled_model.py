"""Qwirkle Cards' compiled game model: the reference model with its masks and observations
computed by numba-compiled code.

The state is the rules engine's game (:class:`.compiled_turns.CompiledQwirkleCardsGame`,
whose turn builder is compiled), so everything else — steps, notation, rendering, the public
view, hidden-information resampling — is the reference engine's, and one seed gives the same
game, observation for observation, as :class:`.model.QwirkleCardsModel`.

>>> import numpy as np
>>> ref, fast = QwirkleCardsModel(2), QwirkleCardsCompiledModel(2)
>>> a, b = ref.new_state(np.random.default_rng(5)), fast.new_state(np.random.default_rng(5))
>>> rng = np.random.default_rng(0)
>>> while not ref.is_over(a):
...     mask = fast.legal_mask(b)
...     assert (mask == ref.legal_mask(a)).all()
...     assert (fast.observe(b, 1) == ref.observe(a, 1)).all()
...     action = int(rng.choice(np.flatnonzero(mask)))
...     assert fast.step(b, action) == ref.step(a, action)
>>> fast.outcome(b) == ref.outcome(a), fast.to_text(b) == ref.to_text(a)
(True, True)
"""

from __future__ import annotations

import numpy as np

from .actions import CANNOT_PLAY, NUM_ACTIONS
from .cards import NUM_LINES
from .compiled_observation import FIELDS, observe_into
from .compiled_turns import CompiledQwirkleCardsGame
from .game import DEFAULT_MAX_TURNS
from .model import MAX_PLAYERS, QwirkleCardsModel


class QwirkleCardsCompiledModel(QwirkleCardsModel):
    """Qwirkle Cards for 2 to 4 players with compiled masks and observations (same rules,
    states, observations and notation as :class:`.model.QwirkleCardsModel`)."""

    def __init__(
        self,
        num_players: int = 2,
        end_rule: str = "finish_round",
        max_turns: int = DEFAULT_MAX_TURNS,
    ) -> None:
        super().__init__(num_players, end_rule, max_turns, game_class=CompiledQwirkleCardsGame)
        self._offsets = np.array([self.layout.slice(f).start for f in FIELDS], dtype=np.int64)
        if self.layout["qwirkles"].shape != (MAX_PLAYERS, NUM_LINES):
            raise AssertionError("the compiled observation expects 4 x 12 Qwirkle counts")

    def legal_mask_unchecked(self, state: CompiledQwirkleCardsGame) -> np.ndarray:  # type: ignore[override]
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if state.over:
            return mask
        state.builder().mask_into(mask)  # type: ignore[attr-defined]
        if not mask.any():
            mask[CANNOT_PLAY] = 1
        return mask

    def observe_unchecked(
        self,
        state: CompiledQwirkleCardsGame,  # type: ignore[override]
        player: int,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        if out is None:
            out = self.layout.zeros()
        s = state.state
        b = state.builder()
        observe_into(
            out,
            self._offsets,
            np.array(s.hands, dtype=np.int64),
            b.table,  # type: ignore[arg-type]
            b.played,  # type: ignore[arg-type]
            b.taken,  # type: ignore[arg-type]
            np.array(s.qwirkles, dtype=np.int64),
            player,
            s.to_move,
            s.starter,
            len(s.pile),
            s.first_turn,
            -1 if s.turns_left is None else s.turns_left,
            min(1.0, s.turn_count / s.max_turns),
        )
        return out


__all__ = ["QwirkleCardsCompiledModel"]
