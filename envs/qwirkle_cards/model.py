"""Qwirkle Cards' game model (the reference engine): masks, steps and observations.

The rules live in :class:`~.game.QwirkleCardsGame` (with its turn builder); the model's state
*is* that game. The observation fields are documented in ``tabletop_rl.envs.qwirkle_cards_v0``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.game_info import GameInfo
from ..core.model import Ending, GameModel, Outcome, StepResult, check_num_players, check_rng
from ..core.observation import Field, ObservationLayout
from ..errors import ArgumentError, ConfigError
from .actions import (
    CANNOT_PLAY,
    END_TURN,
    NUM_ACTIONS,
    TAKE,
    QwirkleCardsAction,
    QwirkleCardsCodec,
)
from .cards import COPIES, LINE_KINDS, NUM_KINDS, NUM_LINES, TOTAL_CARDS, card_name, line_name
from .game import DEFAULT_MAX_TURNS, END_RULES, HAND_SIZE, QwirkleCardsGame, Status
from .turns import Turn, is_valid, legal_turns

MAX_PLAYERS = 4
MAX_QWIRKLES = TOTAL_CARDS // 6
"""Qwirkles in a whole game, at most (each removes 6 of the 108 cards)."""
MAX_PILE = TOTAL_CARDS - 2 * HAND_SIZE


def game_info(max_turns: int) -> GameInfo:
    """Qwirkle Cards' metadata under a turn limit."""
    return GameInfo(
        name="qwirkle_cards_v0",
        min_players=2,
        max_players=MAX_PLAYERS,
        default_players=2,
        num_actions=NUM_ACTIONS,
        max_game_length=(HAND_SIZE + 1) * max_turns + MAX_QWIRKLES,
        perfect_information=False,
        chance=True,
    )


@dataclass(frozen=True)
class QwirkleCardsView:
    """What one player may see of a position (no other hand, no pile order).

    Card multisets are 36 counts; ``qwirkles`` and ``hand_sizes`` are indexed by seat.
    """

    player: int
    to_move: int
    first_turn: bool
    hand: tuple[int, ...]
    """The player's cards, those played this turn excluded."""
    table: tuple[int, ...]
    """The table at the start of the current turn."""
    played: tuple[int, ...]
    taken: tuple[int, ...]
    qwirkles: tuple[tuple[int, ...], ...]
    hand_sizes: tuple[int, ...]
    pile_size: int
    unseen: tuple[int, ...]
    turns_left: int | None

    def legal_turns(self, valid: Callable[[Sequence[int]], bool] = is_valid) -> list[Turn]:
        """The legal turns of the player to act, from the start of their turn (the viewer
        must be that player); ``valid`` checks each table (:func:`.turns.legal_turns`)."""
        if self.player != self.to_move:
            raise ValueError("only the player to act knows their hand's legal turns")
        start_hand = tuple(h + p for h, p in zip(self.hand, self.played, strict=True))
        return legal_turns(self.table, start_hand, first_turn=self.first_turn, valid=valid)


class QwirkleCardsModel(GameModel[QwirkleCardsGame, QwirkleCardsAction]):
    """Qwirkle Cards for 2 to 4 players over the reference rules engine."""

    def __init__(
        self,
        num_players: int = 2,
        end_rule: str = "finish_round",
        max_turns: int = DEFAULT_MAX_TURNS,
        game_class: type[QwirkleCardsGame] = QwirkleCardsGame,
    ) -> None:
        """``game_class`` is the rules engine's game: :class:`QwirkleCardsGame` (reference)
        or its compiled variant (``compiled_turns.CompiledQwirkleCardsGame``)."""
        self.game_class = game_class
        self.state_type = game_class
        if end_rule not in END_RULES:
            raise ConfigError(
                f"end_rule={end_rule!r} is unknown; allowed: " + ", ".join(map(repr, END_RULES))
            )
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ConfigError(f"max_turns must be a positive int, got {max_turns!r}")
        self.num_players = n = check_num_players("qwirkle_cards_v0", num_players, 2, MAX_PLAYERS)
        self.end_rule = end_rule
        self.max_turns = max_turns
        self.info = game_info(max_turns)
        self.codec = QwirkleCardsCodec()
        self.layout = self._build_layout()
        self._orders = [[(p + i) % n for i in range(n)] for p in range(n)]
        self._seated = [1.0] * n + [0.0] * (MAX_PLAYERS - n)

    def _build_layout(self) -> ObservationLayout:
        c = float(COPIES)
        return ObservationLayout(
            (
                Field("hand", (NUM_KINDS,), "own cards per kind (played ones excluded)", high=c),
                Field("table", (NUM_KINDS,), "cards on the table per kind", high=c),
                Field("played", (NUM_KINDS,), "cards played so far this turn per kind", high=c),
                Field("taken", (NUM_LINES,), "Qwirkles taken so far this turn per line", high=c),
                Field(
                    "qwirkles",
                    (MAX_PLAYERS, NUM_LINES),
                    "Qwirkles kept per player (observer first) and line; 0-padded",
                    high=c,
                ),
                Field(
                    "hand_sizes",
                    (MAX_PLAYERS,),
                    "cards in each hand, observer first; 0-padded",
                    high=float(HAND_SIZE),
                ),
                Field("pile_size", (1,), "cards in the draw pile", high=float(MAX_PILE)),
                Field(
                    "unseen",
                    (NUM_KINDS,),
                    "copies of each kind the observer cannot see (other hands and pile)",
                    high=c,
                ),
                Field("to_act", (MAX_PLAYERS,), "seat to act, one-hot, observer first"),
                Field("seated", (MAX_PLAYERS,), "1 for each seat in play, observer first"),
                Field("starter", (MAX_PLAYERS,), "the starting player, one-hot, observer first"),
                Field("first_turn", (1,), "1 during the start row turn"),
                Field("end_triggered", (1,), "1 once the pile ran out after a draw"),
                Field(
                    "turns_left",
                    (1,),
                    "turns still to play once the end is triggered, this one included",
                    high=float(MAX_PLAYERS),
                ),
                Field("turn_progress", (1,), "turns played divided by max_turns"),
            )
        )

    # -------------------------------------------------------------- state
    def new_state(self, rng: np.random.Generator) -> QwirkleCardsGame:
        game_rng = np.random.default_rng(check_rng(rng).integers(2**63))
        return self.game_class(self.num_players, game_rng, self.end_rule, self.max_turns)

    def check_state(self, state: Any) -> None:
        """A game of this model's rules engine with its number of players, else an
        ``ArgumentError``."""
        super().check_state(state)
        if state.state.num_players != self.num_players:
            raise ArgumentError(
                f"the state is a {state.state.num_players}-player game; this model plays "
                f"{self.num_players} players"
            )

    def current_player(self, state: QwirkleCardsGame) -> int:
        return state.to_move

    def copy(self, state: QwirkleCardsGame) -> QwirkleCardsGame:
        return state.copy()

    def is_over(self, state: QwirkleCardsGame) -> bool:
        return state.over

    def scores(self, state: QwirkleCardsGame) -> tuple[float, ...]:
        """Every seat's Qwirkles so far (the final scores once the game is over)."""
        return tuple(float(sum(q)) for q in state.state.qwirkles)

    def outcome(self, state: QwirkleCardsGame) -> Outcome | None:
        self.check_state(state)
        status = state.status
        if status is Status.FINISHED:
            return Outcome(Ending.FINISHED, tuple(state.winners()), self.scores(state))
        if status is Status.TRUNCATED:
            return Outcome(Ending.TRUNCATED, (), self.scores(state))
        return None

    # ------------------------------------------------------------ actions
    def describe_action(self, state: QwirkleCardsGame | None, action: int) -> str:
        action = int(action)
        if 0 <= action < TAKE:
            return f"play {card_name(action)}"
        if action < END_TURN:
            line = action - TAKE
            kind = "colour" if line < 6 else "symbol"
            return f"take a Qwirkle of {kind} {line_name(line)}"
        if action == END_TURN:
            return "end the turn"
        if action == CANNOT_PLAY:
            return "cannot play: redraw (pass when the pile is empty)"
        return f"action {action}"

    def legal_mask_unchecked(self, state: QwirkleCardsGame) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if state.over:
            return mask
        plays, takes, end = state.builder().legal()
        if plays:
            mask[plays] = 1
        if takes:
            mask[[TAKE + line for line in takes]] = 1
        if end:
            mask[END_TURN] = 1
        if not plays and not takes and not end:
            mask[CANNOT_PLAY] = 1
        return mask

    def explain_illegal(self, state: QwirkleCardsGame, action: int) -> str:
        if state.over:
            return "the game is over"
        s = state.state
        if action < TAKE:
            if state.must_redraw():
                return "no card can be played: the only legal action is the redraw (49)"
            return state.why_not_play(action)
        if action < END_TURN:
            return state.why_not_take(action - TAKE)
        if action == END_TURN:
            if not any(s.played):
                return "play at least one card before ending the turn"
            return (
                "the selection is not a legal turn yet (the table would not split into "
                "valid rows, or the start row is incomplete or its Qwirkle not taken)"
            )
        return "the player can play a card; redraw/pass is only for a player who cannot"

    def step_unchecked(self, state: QwirkleCardsGame, action: int) -> StepResult:
        player = state.to_move
        if action < TAKE:
            state.play_card(action)
            return StepResult()
        if action < END_TURN:
            points = state.take_qwirkle(action - TAKE)
            return StepResult(points={player: float(points)})
        if action == END_TURN:
            state.end_turn()
        else:
            state.cannot_play()
        status = state.status
        return StepResult(game_over=status is Status.FINISHED, truncated=status is Status.TRUNCATED)

    # -------------------------------------------------------- observation
    def observe_unchecked(
        self, state: QwirkleCardsGame, player: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        if out is None:
            out = self.layout.zeros()
        else:
            out[:] = 0
        views = self.layout.views(out)
        s = state.state
        order = self._orders[player]
        mover = s.to_move
        hand = s.hands[player]
        played = s.played
        if player == mover:
            hand = [h - p for h, p in zip(hand, played, strict=True)]
        views["hand"][:] = hand
        views["table"][:] = s.table
        views["played"][:] = played
        views["taken"][:] = s.taken
        q = views["qwirkles"]
        seen = np.add(hand, s.table)
        seen += played
        for i, p in enumerate(order):
            qp = s.qwirkles[p]
            q[i] = qp
            for line in range(NUM_LINES):
                if qp[line]:
                    seen[list(LINE_KINDS[line])] += qp[line]
        sizes = views["hand_sizes"]
        for i, p in enumerate(order):
            sizes[i] = sum(s.hands[p]) - (sum(played) if p == mover else 0)
        views["pile_size"][0] = len(s.pile)
        views["unseen"][:] = COPIES - seen
        n = s.num_players
        views["to_act"][(mover - player) % n] = 1
        views["seated"][:] = self._seated
        views["starter"][(s.starter - player) % n] = 1
        views["first_turn"][0] = s.first_turn
        if s.turns_left is not None:
            views["end_triggered"][0] = 1
            views["turns_left"][0] = s.turns_left
        views["turn_progress"][0] = min(1.0, s.turn_count / s.max_turns)
        return out

    # ------------------------------------------------------ scripted agents
    def public_view(self, state: QwirkleCardsGame, player: int) -> QwirkleCardsView:
        self.check_state(state)
        player = self.check_player(player)
        game = state
        s = game.state
        mover = s.to_move
        hand = game.hand(player)
        seen = [h + t + p for h, t, p in zip(hand, s.table, s.played, strict=True)]
        for qs in s.qwirkles:
            for line in range(NUM_LINES):
                for k in LINE_KINDS[line]:
                    seen[k] += qs[line]
        return QwirkleCardsView(
            player=player,
            to_move=mover,
            first_turn=s.first_turn,
            hand=tuple(hand),
            table=tuple(s.table),
            played=tuple(s.played),
            taken=tuple(s.taken),
            qwirkles=tuple(tuple(q) for q in s.qwirkles),
            hand_sizes=tuple(sum(game.hand(p)) for p in range(s.num_players)),
            pile_size=len(s.pile),
            unseen=tuple(COPIES - x for x in seen),
            turns_left=s.turns_left,
        )

    def resample_hidden(
        self, state: QwirkleCardsGame, player: int, rng: np.random.Generator
    ) -> None:
        state.resample_hidden(player, rng)

    def to_text(self, state: QwirkleCardsGame) -> str:
        """The whole position in the rules engine's text notation."""
        return state.to_text()

    # ------------------------------------------------------------ rendering
    def render_ansi(self, state: QwirkleCardsGame, viewer: int) -> str:
        from .render import render_ansi

        return render_ansi(state, viewer)

    def render_rgb(self, state: QwirkleCardsGame, viewer: int) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(state, viewer)


__all__ = [
    "MAX_PILE",
    "MAX_PLAYERS",
    "MAX_QWIRKLES",
    "QwirkleCardsModel",
    "QwirkleCardsView",
    "game_info",
]
