"""Qwirkle's game model (the reference engine): masks, steps, observations, the window.

The rules live in :class:`~.game.GameState`; the turn in progress in :class:`~.turn.TurnBuilder`.
A :class:`QwirkleState` pairs them with the board window that actions and observations index
(recentred on the laid area when it nears an edge) and the parts of the observation kept up
to date step by step. The observation fields are documented in ``tabletop_rl.envs.qwirkle_v0``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from ..core.checks import check_int
from ..core.game_info import GameInfo
from ..core.model import Ending, GameModel, Outcome, StepResult, check_num_players, check_rng
from ..core.observation import Field, ObservationLayout
from ..core.symmetry import Symmetries, dihedral_symmetries
from ..errors import ConfigError
from .actions import QwirkleAction, QwirkleCodec
from .board import QWIRKLE_BONUS, QWIRKLE_LENGTH, Board, Cell, Move
from .game import CENTRE, GameState, TurnKind
from .moves import extensions, first_turn_moves, largest_sets, legal_moves
from .tiles import (
    COPIES,
    HAND_SIZE,
    NUM_COLOURS,
    NUM_KINDS,
    NUM_SHAPES,
    NUM_TILES,
    Tile,
    format_tiles,
    tile_name,
)
from .turn import TurnBuilder

DEFAULT_WINDOW = 39
"""Side of the board window (cells) that actions and observations index."""
DEFAULT_MAX_TURNS = 1000
"""Turn limit after which a game is truncated (exchanges could otherwise repeat forever)."""
MAX_PLAYERS = 4
STEPS_PER_TURN = HAND_SIZE + 1
"""At most 6 placements and an end-turn action; an exchange or a pass is one step."""
MARGIN = HAND_SIZE - 1
"""No legal move reaches more than 5 cells past the laid area's bounding box."""
MAX_SCORE = 24 * NUM_TILES + 6
"""No score exceeds this: a placed tile adds at most 24 points (it can complete two Qwirkle
lines, 12 each), 108 tiles can be placed, and the end bonus is 6."""
NUM_EXCHANGES = (1 << HAND_SIZE) - 1
MAX_REDEALS = 1000
"""Redeals tried for a start row consistent with the announced largest set."""
BOARD_PLANES = NUM_COLOURS + NUM_SHAPES + 2
OCCUPIED_PLANE = NUM_COLOURS + NUM_SHAPES
LAID_PLANE = OCCUPIED_PLANE + 1

_POPCOUNT = np.array([bin(m).count("1") for m in range(1, NUM_EXCHANGES + 1)])
_EXCHANGE_SLOTS = np.array([m.bit_length() for m in range(1, NUM_EXCHANGES + 1)])
_KINDS = np.arange(NUM_KINDS, dtype=np.int64)


@cache
def _codec(window: int) -> QwirkleCodec:
    return QwirkleCodec(window)


@cache
def _exchange_mask(most: int, hand_size: int) -> np.ndarray:
    """Legal exchange bitmasks 1..63: at most ``most`` tiles, only filled slots."""
    return ((most >= _POPCOUNT) & (hand_size >= _EXCHANGE_SLOTS)).astype(np.int8)


def game_info(window: int, max_turns: int) -> GameInfo:
    """Qwirkle's metadata for a board window and turn limit."""
    return GameInfo(
        name="qwirkle_v0",
        min_players=2,
        max_players=MAX_PLAYERS,
        default_players=2,
        num_actions=HAND_SIZE * window * window + 1 + NUM_EXCHANGES + 1,
        max_game_length=STEPS_PER_TURN * max_turns,
        perfect_information=False,
        chance=True,
    )


@dataclass(frozen=True)
class QwirkleView:
    """What one player may see, for scripted agents (no other hand, no bag order)."""

    player: int
    """The viewing player's seat."""
    to_act: int
    """Seat of the player to act."""
    board: Board
    """The laid tiles before this turn (a copy; the tiles laid this turn are not on it)."""
    hand: tuple[Tile, ...]
    """The viewer's hand by slot, tiles laid this turn included."""
    laid_this_turn: tuple[tuple[int, int, int], ...]
    """``(row, col, slot)`` of the tiles the player to act has laid this turn, in order."""
    unseen: tuple[int, ...]
    """Per tile kind, copies the viewer cannot see (bag plus other hands)."""
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    bag_size: int
    first_turn: bool
    """The start row is being laid: only a largest set of the hand, through the centre."""
    max_exchange: int
    """How many tiles may be exchanged now (0 when no exchange is possible)."""
    window_origin: Cell
    """Board cell shown at the window's top-left corner (window cell (0, 0))."""
    window: int
    """The window's side in cells."""

    @property
    def codec(self) -> QwirkleCodec:
        """The action codec of this view's window (typed actions to indices and back)."""
        return _codec(self.window)

    @property
    def end_turn(self) -> int:
        """The action that ends the turn (after the placements)."""
        return self.codec.end

    def window_cell(self, row: int, col: int) -> Cell | None:
        """Window coordinates of board cell ``(row, col)``, or ``None`` if outside."""
        r, c = row - self.window_origin[0], col - self.window_origin[1]
        if 0 <= r < self.window and 0 <= c < self.window:
            return r, c
        return None

    def scored_moves(self) -> list[tuple[Move, int]]:
        """Every legal move of the viewer's hand this turn whose cells all lie in the window,
        with the points the board gives it (end bonus not included): on the first turn the
        start row's choices, each scoring its length (12 for a Qwirkle of 6)."""
        if self.first_turn:
            return [
                (m, len(m) + (QWIRKLE_BONUS if len(m) == QWIRKLE_LENGTH else 0))
                for m in first_turn_moves(self.hand, CENTRE)
            ]
        return [
            (m, self.board.points(m))
            for m in legal_moves(self.board, self.hand)
            if all(self.window_cell(r, c) is not None for r, c, _ in m)
        ]


@dataclass
class QwirkleState:
    """A Qwirkle game, the turn in progress, and the board window with its planes."""

    game: GameState
    """The rules engine's game (hands, bag, board before this turn, scores)."""
    turn: TurnBuilder
    """The tiles laid so far this turn."""
    origin: Cell
    """Board cell at the window's top-left corner."""
    planes: np.ndarray
    """The ``board`` observation planes over the window."""
    unseen_base: list[float]
    """Per kind, copies not on the board (the observer's hand is subtracted per view)."""
    lost: list[int]
    """Per player, legal moves the window could not show (0 in practice)."""
    fit_cache: np.ndarray | None
    """Per tile kind, the window cells where it may be placed alone (built lazily)."""
    start_sets: list[frozenset[Tile]]
    """The largest sets of the start player's hand (the start row's choices)."""

    @property
    def start_tiles(self) -> frozenset[Tile]:
        return frozenset().union(*self.start_sets)

    def copy(self) -> QwirkleState:
        return QwirkleState(
            game=self.game.clone(),
            turn=self.turn.copy(),
            origin=self.origin,
            planes=self.planes.copy(),
            unseen_base=list(self.unseen_base),
            lost=list(self.lost),
            fit_cache=None if self.fit_cache is None else self.fit_cache.copy(),
            start_sets=self.start_sets,
        )


class QwirkleModel(GameModel[QwirkleState, QwirkleAction]):
    """Qwirkle for 2 to 4 players over the reference rules engine."""

    state_type = QwirkleState

    def __init__(
        self,
        num_players: int = 2,
        max_turns: int = DEFAULT_MAX_TURNS,
        window: int = DEFAULT_WINDOW,
    ) -> None:
        # the 108 tiles' laid area spans at most 108 cells each way: a window of 217 cells
        # centred on any tile holds every board, so none needs to be wider
        check_int("max_turns", max_turns, 1, 2**31 - 1)
        check_int("window", window, 13, 2 * NUM_TILES + 1)
        if window % 2 == 0:
            raise ConfigError(f"window={window} must be odd so that it has a centre cell")
        self.num_players = check_num_players("qwirkle_v0", num_players, 2, MAX_PLAYERS)
        self.window = w = int(window)
        self.max_turns = int(max_turns)
        self.info = game_info(w, self.max_turns)
        self.codec = QwirkleCodec(w)
        self._cells = w * w
        self._end = HAND_SIZE * self._cells
        self._pass = self._end + NUM_EXCHANGES + 1
        self.layout = self._build_layout()
        self._symmetries: Symmetries | None = None
        self._offsets = {f.name: self.layout.slice(f.name).start for f in self.layout}

    # ------------------------------------------------------------- layout
    def _build_layout(self) -> ObservationLayout:
        w = self.window
        return ObservationLayout(
            (
                Field(
                    "board",
                    (BOARD_PLANES, w, w),
                    "colour 0-5, shape 6-11, occupied 12, laid now 13",
                    spatial=True,
                ),
                Field("hand_colour", (HAND_SIZE, NUM_COLOURS), "own hand by slot: colour one-hot"),
                Field("hand_shape", (HAND_SIZE, NUM_SHAPES), "own hand by slot: shape one-hot"),
                Field(
                    "unseen",
                    (NUM_KINDS,),
                    "unseen copies of each tile kind (bag and other hands)",
                    high=float(COPIES),
                ),
                Field("bag_size", (1,), "tiles in the bag", high=float(NUM_TILES)),
                Field(
                    "scores",
                    (MAX_PLAYERS,),
                    "scores, observer first; 0-padded",
                    high=float(MAX_SCORE),
                ),
                Field(
                    "hand_sizes",
                    (MAX_PLAYERS,),
                    "hand sizes, observer first; 0-padded",
                    high=float(HAND_SIZE),
                ),
                Field("seated", (MAX_PLAYERS,), "1 for each seat in play, observer first"),
                Field("to_act", (MAX_PLAYERS,), "seat to act, one-hot, observer first"),
                Field(
                    "phase",
                    (3,),
                    "one-hot: start row, start of a turn, tiles laid",
                ),
                Field(
                    "passes",
                    (1,),
                    "consecutive passes so far",
                    high=float(MAX_PLAYERS),
                ),
                Field("turns_used", (1,), "turns played / max_turns"),
            )
        )

    def action_layout(self) -> ObservationLayout:
        """The action groups: placements by (slot, window row, window col), then the rest."""
        w = self.window
        return ObservationLayout(
            (
                Field("place", (HAND_SIZE, w, w), "lay hand slot on window cell", spatial=True),
                Field("end_turn", (1,), "end the turn"),
                Field("exchange", (NUM_EXCHANGES,), "exchange the slots of bitmask 1..63"),
                Field("pass", (1,), "pass"),
            )
        )

    def symmetries(self) -> Symmetries:
        """The 8 rotations and reflections of the window (``board`` planes and placements).

        Qwirkle's rules only know rows and columns, so a rotated or reflected position has the
        rotated or reflected legal moves, scores and value. Hands, bag and scores are not
        affected; neither are the end-turn, exchange and pass actions. The window sits where
        this environment put it (its recentring rounds down), so the transformed observation
        may show the transformed position one cell off from where a game reaching it would
        put its window; no legal move is near the edge either way.
        """
        if self._symmetries is None:
            self._symmetries = dihedral_symmetries(self.layout, self.action_layout())
        return self._symmetries

    # -------------------------------------------------------------- state
    def new_state(self, rng: np.random.Generator) -> QwirkleState:
        return self.state_of(GameState(self.num_players, check_rng(rng), max_turns=self.max_turns))

    def state_of(self, game: GameState) -> QwirkleState:
        """The model state of a rules-engine game at the start of a turn (a dealt or loaded
        position); the window is centred on the laid area."""
        if game.num_players != self.num_players:
            raise ConfigError(
                f"the game has {game.num_players} players; this model plays {self.num_players}"
            )
        w = self.window
        unseen = [float(COPIES)] * NUM_KINDS
        for t in game.board.tiles.values():
            unseen[t] -= 1.0
        st = QwirkleState(
            game=game,
            turn=TurnBuilder(),
            origin=(CENTRE[0] - w // 2, CENTRE[1] - w // 2),
            planes=np.zeros((BOARD_PLANES, w, w), dtype=np.float32),
            unseen_base=unseen,
            lost=[0] * self.num_players,
            fit_cache=None,
            start_sets=largest_sets(game.hand),
        )
        if not game.board.is_empty():
            self._new_turn(st, moved=True)
        return st

    def current_player(self, st: QwirkleState) -> int:
        return st.game.current

    def engine_state(self, st: QwirkleState) -> Any:
        """The rules engine's game inside ``st``."""
        return st.game

    def copy(self, st: QwirkleState) -> QwirkleState:
        return st.copy()

    def is_over(self, st: QwirkleState) -> bool:
        return st.game.finished

    def scores(self, st: QwirkleState) -> tuple[float, ...]:
        """Every seat's points so far (the final scores once the game is over)."""
        return tuple(float(s) for s in st.game.scores)

    def outcome(self, st: QwirkleState) -> Outcome | None:
        self.check_state(st)
        game = st.game
        if game.truncated:
            return Outcome(Ending.TRUNCATED, (), self.scores(st))
        if game.game_over:
            return Outcome(Ending.FINISHED, tuple(game.winners()), self.scores(st))
        return None

    # ------------------------------------------------------------ actions
    def _action_parts(self, action: int) -> tuple[str, Any]:
        if action < self._end:
            slot, cell = divmod(action, self._cells)
            return "place", (slot, *divmod(cell, self.window))
        if action == self._end:
            return "end", None
        if action < self._pass:
            return "exchange", action - self._end
        return "pass", None

    def _board_cell(self, st: QwirkleState, wr: int, wc: int) -> Cell:
        return st.origin[0] + wr, st.origin[1] + wc

    def describe_action(self, st: QwirkleState | None, action: int) -> str:
        kind, arg = self._action_parts(int(action))
        if kind == "place":
            slot, wr, wc = arg
            if st is None:
                return f"place slot {slot} on window cell ({wr}, {wc})"
            hand = st.game.hand
            tile = f" ({tile_name(hand[slot])})" if slot < len(hand) else ""
            cell = self._board_cell(st, wr, wc)
            return f"place slot {slot}{tile} on window cell ({wr}, {wc}) = board cell {cell}"
        if kind == "exchange":
            slots = [s for s in range(HAND_SIZE) if arg >> s & 1]
            return "exchange slots " + ", ".join(str(s) for s in slots)
        return "end turn" if kind == "end" else "pass"

    def legal_mask_unchecked(self, st: QwirkleState) -> np.ndarray:
        mask = np.zeros(self.info.num_actions, dtype=np.int8)
        state = st.game
        if state.finished:
            return mask
        hand = state.hand
        if state.first_turn:
            self._first_turn_mask(st, mask)
        elif st.turn.pending:
            mask[self._end] = 1
            self._extension_mask(st, mask, state.board.tiles)
        else:
            placed_any = self._start_of_turn_mask(st, mask)
            n = state.max_exchange()
            if n:
                mask[self._end + 1 : self._pass] = _exchange_mask(n, len(hand))
            elif not placed_any:
                mask[self._pass] = 1
        return mask

    def _start_of_turn_mask(self, st: QwirkleState, mask: np.ndarray) -> bool:
        """Single placements from the anchors; ``True`` if any lies in the window."""
        hand = st.game.hand
        part = mask[: len(hand) * self._cells]
        part[:] = self.fit_planes(st)[hand].reshape(-1)
        return bool(part.any())

    def fit_planes(self, st: QwirkleState) -> np.ndarray:
        """Per tile kind, the window cells (flat index) where it may be placed alone.

        A ``(36, W * W)`` int8 array built from the board's anchors after a recentring and
        then kept up to date on the cells a placement changes.
        """
        if st.fit_cache is None:
            r0, c0 = st.origin
            w = self.window
            cells: list[int] = []
            fits: list[int] = []
            for (r, c), fit in st.game.board.anchors.items():
                wr, wc = r - r0, c - c0
                if fit and 0 <= wr < w and 0 <= wc < w:
                    cells.append(wr * w + wc)
                    fits.append(fit)
            planes = np.zeros((NUM_KINDS, self._cells), dtype=np.int8)
            if fits:
                planes[:, cells] = ((np.array(fits, dtype=np.int64)[:, None] >> _KINDS) & 1).T
            st.fit_cache = planes
        return st.fit_cache

    def _update_fit_planes(self, st: QwirkleState, cells: set[Cell]) -> None:
        """Refresh the cached fit planes on ``cells`` (anchors changed by a placement)."""
        anchors = st.game.board.anchors
        r0, c0 = st.origin
        w = self.window
        flat: list[int] = []
        fits: list[int] = []
        for r, c in cells:
            wr, wc = r - r0, c - c0
            if 0 <= wr < w and 0 <= wc < w:
                flat.append(wr * w + wc)
                fits.append(anchors.get((r, c), 0))
        if flat:
            bits = (np.array(fits, dtype=np.int64)[:, None] >> _KINDS) & 1
            st.fit_cache[:, flat] = bits.T  # type: ignore[index]

    def _extension_mask(
        self, st: QwirkleState, mask: np.ndarray, tiles: Any, start_sets: Any = None
    ) -> None:
        hand = st.game.hand
        r0, c0 = st.origin
        w = self.window
        laid = frozenset(st.turn.pending.values())
        for (r, c), fit in extensions(tiles, st.turn.pending):
            wr, wc = r - r0, c - c0
            if not (0 <= wr < w and 0 <= wc < w):
                continue
            base = wr * w + wc
            for slot, t in enumerate(hand):
                if fit >> t & 1 and not st.turn.used >> slot & 1:
                    if start_sets is not None and not any(
                        t not in laid and laid <= s and t in s for s in start_sets
                    ):
                        continue
                    mask[slot * self._cells + base] = 1

    def _first_turn_mask(self, st: QwirkleState, mask: np.ndarray) -> None:
        if not st.turn.pending:
            wr, wc = CENTRE[0] - st.origin[0], CENTRE[1] - st.origin[1]
            for slot, t in enumerate(st.game.hand):
                if t in st.start_tiles:
                    mask[slot * self._cells + wr * self.window + wc] = 1
            return
        if len(st.turn.pending) == len(st.start_sets[0]):
            mask[self._end] = 1
            return
        self._extension_mask(st, mask, {}, st.start_sets)

    def explain_illegal(self, st: QwirkleState, action: int) -> str:
        kind, arg = self._action_parts(action)
        state = st.game
        if state.finished:
            return "the game is over"
        if kind == "place":
            slot, wr, wc = arg
            if slot >= len(state.hand):
                return f"slot {slot} is empty; the hand holds {len(state.hand)} tiles"
            if st.turn.used >> slot & 1:
                return f"slot {slot} was already laid this turn"
            cell = self._board_cell(st, wr, wc)
            move = [
                *((r, c, t) for (r, c), t in st.turn.pending.items()),
                (*cell, state.hand[slot]),
            ]
            if state.first_turn:
                return (
                    "the start row is one largest set of the hand laid as a line from the "
                    f"centre cell: {' or '.join(format_tiles(sorted(s)) for s in st.start_sets)}"
                )
            reason = state.board.explain(move)
            return reason or "the tiles laid so far and this one do not form a legal move"
        if kind == "end":
            if state.first_turn and st.turn.pending:
                return f"the start row needs {len(st.start_sets[0])} tiles"
            return "ending the turn needs at least one tile laid this turn"
        if kind == "exchange":
            if st.turn.pending or state.first_turn:
                return "exchange only at the start of a turn, and not on the first turn"
            size = bin(arg).count("1")
            return (
                f"cannot exchange {size} tiles from a hand of {len(state.hand)}: "
                f"at most {state.max_exchange()} (the bag holds {len(state.bag)})"
            )
        return "pass only when no tile can be placed and none exchanged"

    def step_unchecked(self, st: QwirkleState, action: int) -> StepResult:
        kind, arg = self._action_parts(action)
        state = st.game
        player = state.current
        if kind == "place":
            slot, wr, wc = arg
            tile = state.hand[slot]
            cell = self._board_cell(st, wr, wc)
            st.turn.lay(cell, slot, tile)
            self._paint(st, wr, wc, tile)
            st.planes[LAID_PLANE, wr, wc] = 1.0
            return StepResult()
        if kind == "end":
            move = st.turn.move()
            result = state.place_legal(move)
            for _, _, t in move:
                st.unseen_base[t] -= 1.0
        elif kind == "exchange":
            result = state.exchange([state.hand[s] for s in range(HAND_SIZE) if arg >> s & 1])
        else:
            result = state.pass_turn(forced=True)
        st.turn.clear()
        self._new_turn(st, moved=result.kind is TurnKind.PLACE)
        points = {player: result.points} if result.points else {}
        return StepResult(points=points, game_over=result.game_over, truncated=result.truncated)

    # ------------------------------------------------------------- window
    def _paint(self, st: QwirkleState, wr: int, wc: int, tile: Tile) -> None:
        planes = st.planes
        planes[tile // 6, wr, wc] = 1.0
        planes[NUM_COLOURS + tile % 6, wr, wc] = 1.0
        planes[OCCUPIED_PLANE, wr, wc] = 1.0

    def _new_turn(self, st: QwirkleState, moved: bool) -> None:
        """Keep the window on the laid area and count moves it cannot show.

        The window is recentred on the laid area's bounding box only when that box comes
        within ``MARGIN`` cells of an edge, so while it holds the box with a 5-cell margin
        nothing moves (and nothing can be hidden); otherwise it is centred on the box. The
        board planes and the per-kind fit planes are updated in place between recentrings.
        """
        state = st.game
        if moved:
            st.planes[LAID_PLANE] = 0.0
            r0, c0, r1, c1 = state.board.bounds()
            o0, o1 = st.origin
            w = self.window
            if not (
                r0 - MARGIN >= o0
                and c0 - MARGIN >= o1
                and r1 + MARGIN < o0 + w
                and c1 + MARGIN < o1 + w
            ):
                half = w // 2
                origin = ((r0 + r1) // 2 - half, (c0 + c1) // 2 - half)
                if origin != st.origin:
                    st.origin = origin
                    st.fit_cache = None
                    st.planes[:] = 0.0
                    for (r, c), t in state.board.items():
                        self._paint(st, r - origin[0], c - origin[1], t)
            if st.fit_cache is not None:
                self._update_fit_planes(st, state.changed_cells)
        if state.finished:
            return
        lost = self.lost_moves(st)
        st.lost[state.current] += lost

    def lost_moves(self, st: QwirkleState) -> int:
        """Legal moves of the player to act that the window cannot show (0 in practice).

        No legal move reaches more than 5 cells past the laid area, so while the window
        holds the laid area with 5 free cells on every side nothing is lost and nothing is
        enumerated; otherwise every legal move is generated and the hidden ones counted.
        """
        state = st.game
        if state.first_turn or st.turn.pending:
            return 0
        r0, c0, r1, c1 = state.board.bounds()
        o0, o1 = st.origin
        w = self.window
        if (
            r0 - MARGIN >= o0
            and c0 - MARGIN >= o1
            and r1 + MARGIN < o0 + w
            and c1 + MARGIN < o1 + w
        ):
            return 0
        return sum(
            1
            for move in legal_moves(state.board, state.hand)
            if not all(0 <= r - o0 < w and 0 <= c - o1 < w for r, c, _ in move)
        )

    # -------------------------------------------------------- observation
    def observe_unchecked(
        self, st: QwirkleState, player: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        obs = np.empty(self.layout.size, dtype=np.float32) if out is None else out
        self._fill(st, player, obs)
        return obs

    def _fill(self, st: QwirkleState, player: int, obs: np.ndarray) -> None:
        """Write ``player``'s whole observation into the flat vector ``obs``."""
        off = self._offsets
        base = off["hand_colour"]
        obs[:base] = st.planes.reshape(-1)
        tail = [0.0] * (self.layout.size - base)
        state = st.game
        hand = state.hands[player]
        used = st.turn.used if player == state.current else 0
        shape_at = off["hand_shape"] - base
        unseen_at = off["unseen"] - base
        tail[unseen_at : unseen_at + NUM_KINDS] = st.unseen_base
        for slot, t in enumerate(hand):
            tail[unseen_at + t] -= 1.0
            if not used >> slot & 1:
                tail[6 * slot + t // 6] = 1.0
                tail[shape_at + 6 * slot + t % 6] = 1.0
        tail[off["bag_size"] - base] = len(state.bag)
        n = self.num_players
        scores = off["scores"] - base
        sizes = off["hand_sizes"] - base
        seated = off["seated"] - base
        for i in range(n):
            seat = (player + i) % n
            tail[scores + i] = state.scores[seat]
            tail[sizes + i] = len(state.hands[seat])
            tail[seated + i] = 1.0
        tail[off["to_act"] - base + (state.current - player) % n] = 1.0
        phase = 0 if state.first_turn else 2 if st.turn.pending else 1
        tail[off["phase"] - base + phase] = 1.0
        tail[off["passes"] - base] = state.consecutive_passes
        tail[off["turns_used"] - base] = state.turns / self.max_turns
        obs[base:] = tail

    # ------------------------------------------------------------- extras
    def player_info(self, st: QwirkleState, player: int) -> dict[str, Any]:
        return {"lost_moves": st.lost[player]}

    def public_view(self, st: QwirkleState, player: int) -> QwirkleView:
        self.check_state(st)
        player = self.check_player(player)
        state = st.game
        return QwirkleView(
            player=player,
            to_act=state.current,
            board=state.board.copy(),
            hand=tuple(state.hands[player]),
            laid_this_turn=tuple(st.turn.order),
            unseen=tuple(int(x) for x in state.unseen_counts(player)),
            scores=tuple(state.scores),
            hand_sizes=tuple(len(h) for h in state.hands),
            bag_size=len(state.bag),
            first_turn=state.first_turn,
            max_exchange=0 if st.turn.pending else state.max_exchange(),
            window_origin=st.origin,
            window=self.window,
        )

    def resample_hidden(self, st: QwirkleState, player: int, rng: np.random.Generator) -> None:
        """Redeal the other hands and the bag; the game's own generator (future exchanges'
        shuffles) is replaced by one drawn from ``rng``, so the copy cannot foresee them.

        On the start row the player to act has announced the size of its largest set: a
        redeal of its hand is drawn again until it holds a largest set of that size that
        contains the tiles already laid (tried up to ``MAX_REDEALS`` times, then the last
        redeal's own largest sets are the start row's choices).
        """
        state = st.game
        actor = state.current
        keep: list[tuple[int, Tile]] = []
        if actor != player and st.turn.used:
            hand = state.hands[actor]
            keep = [(s, hand[s]) for s in range(len(hand)) if st.turn.used >> s & 1]
            state.hands[actor] = [t for s, t in enumerate(hand) if not st.turn.used >> s & 1]
        announced = len(st.start_sets[0]) if st.start_sets else 0
        laid = frozenset(t for _, t in keep)
        for _ in range(MAX_REDEALS):
            state.resample_hidden(player, rng)
            if not (state.first_turn and actor != player):
                break
            full = [*state.hands[actor], *laid]
            sets = largest_sets(full)
            if len(sets[0]) == announced and any(laid <= s for s in sets):
                break
        for slot, tile in keep:
            state.hands[actor].insert(slot, tile)
        if state.first_turn and actor != player:
            st.start_sets = largest_sets(state.hands[actor])
        state.rng = np.random.default_rng(int(rng.integers(2**63)))

    def to_text(self, st: QwirkleState) -> str:
        """The whole game state as text, for bug reports (reveals every hand)."""
        text = st.game.dump()
        if st.turn.order:
            laid = ", ".join(
                f"slot {s} ({tile_name(st.game.hand[s])}) at {(r, c)}" for r, c, s in st.turn.order
            )
            text += f"\nlaid this turn so far: {laid}"
        return text + f"\nwindow: {self.window}x{self.window} from board cell {st.origin}"

    def render_ansi(self, st: QwirkleState, viewer: int) -> str:
        from .render import render_ansi

        return render_ansi(st, viewer)

    def render_rgb(self, st: QwirkleState, viewer: int) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(st)


__all__ = [
    "BOARD_PLANES",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_WINDOW",
    "MAX_PLAYERS",
    "QwirkleModel",
    "QwirkleState",
    "QwirkleView",
    "game_info",
]
