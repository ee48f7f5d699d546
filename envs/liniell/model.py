"""Liniell's game model (the reference engine): states, masks, steps and observations.

The rules live in :class:`~.game.Game`; a :class:`LiniellState` pairs a game with the parts
of the observation that do not depend on the observer, kept up to date step by step (the
tile planes, the route planes, the pawn planes and the per-player numbers). The observation
fields are documented in ``tabletop_rl.envs.liniell_v0``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.game_info import GameInfo
from ..core.model import Ending, GameModel, Outcome, StepResult, check_num_players, check_rng
from ..core.observation import Field, ObservationLayout
from ..errors import ConfigError
from .actions import NUM_ACTIONS, NUM_LAY, NUM_SOURCES, OCCUPY, SKIP, LiniellAction, LiniellCodec
from .board import NUM_CELLS, PAWNS_PER_PLAYER, WINDOW
from .game import Game, Occupation, PawnSource, Phase
from .tiles import Diamond, Orientation, Port
from .tileset import NUM_TILES, TileSet, load_tile_set

MAX_PLAYERS = 4
MAX_ROUTE = NUM_TILES + 3
"""A route scores at most 16 tiles + 1 closed + 2 blue."""
MAX_SCORE = PAWNS_PER_PLAYER * MAX_ROUTE
PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
"""Port pairs of the connectivity planes: NE, NS, NW, ES, EW, SW."""
TILE_FEATURES = 1 + len(PAIRS) + 8
"""Per tile: occupied, 6 port pairs joined by one piece, 4 empty stubs, 4 blue stubs."""


def game_info(num_players: int) -> GameInfo:
    """Liniell's metadata for ``num_players`` players."""
    # A turn is a lay and one occupation step, or one compulsory move per joined line. With
    # two players one tile triggers at most one compulsory move (both joined lines would
    # need one of the mover's two pawns, and the first move takes the second one away);
    # with three or four a tile can join occupied lines in two places.
    steps_per_turn = 2 if num_players == 2 else 3
    return GameInfo(
        name="liniell_v0",
        min_players=2,
        max_players=MAX_PLAYERS,
        default_players=2,
        num_actions=NUM_ACTIONS,
        max_game_length=NUM_TILES * steps_per_turn,
        perfect_information=True,
        chance=True,
    )


def tile_features(orient: Orientation) -> np.ndarray:
    """The 15 features of a laid tile (see the ``tiles`` field): occupied, pairs, stubs.

    >>> from tabletop_rl.envs.liniell import load_tile_set
    >>> bridge = load_tile_set().kinds[4]
    >>> tile_features(bridge.orient(0)).astype(int).tolist()
    [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    """
    out = np.zeros(TILE_FEATURES, dtype=np.float32)
    out[0] = 1
    for group in orient.groups:
        if group.diamond is not None:
            base = 1 + len(PAIRS) + (4 if group.diamond is Diamond.BLUE else 0)
            out[base + group.ports[0]] = 1
        for i, (a, b) in enumerate(PAIRS):
            if a in group.ports and b in group.ports:
                out[1 + i] = 1
    return out


@dataclass
class LiniellState:
    """A Liniell game and its observer-independent observation, kept up to date."""

    game: Game
    """The rules engine's game."""
    base: np.ndarray
    """The observation's observer-independent part (tiles, last laid, routes, head, phase)."""
    planes: np.ndarray
    """``[pawns | lines][absolute player][port * 49 + cell]``."""
    planes_dirty: bool
    numbers: np.ndarray
    """``[supply | points | blue][absolute player]``."""
    numbers_dirty: bool
    shown_last: int
    shown_head: tuple[int, int]

    def copy(self) -> LiniellState:
        return LiniellState(
            self.game.copy(),
            self.base.copy(),
            self.planes.copy(),
            self.planes_dirty,
            self.numbers.copy(),
            self.numbers_dirty,
            self.shown_last,
            self.shown_head,
        )


class LiniellModel(GameModel[LiniellState, LiniellAction]):
    """Liniell for 2 to 4 players over the reference rules engine."""

    state_type = LiniellState

    def __init__(self, num_players: int = 2, tile_set: str | Path | TileSet = "default") -> None:
        if not isinstance(tile_set, str | Path | TileSet):
            raise ConfigError(
                f"tile_set must be a tile set name, a path or a TileSet, got {tile_set!r}"
            )
        self.num_players = n = check_num_players("liniell_v0", num_players, 2, MAX_PLAYERS)
        self.info = game_info(n)
        self.codec = LiniellCodec()
        self.tile_set = load_tile_set(tile_set)
        self._kinds = len(self.tile_set.kinds)
        self._features = [
            [tile_features(k.orient(r)) for r in range(4)] for k in self.tile_set.kinds
        ]
        self.layout = self._build_layout()
        sl = {f.name: self.layout.slice(f.name) for f in self.layout}
        self._slices = sl
        perms = [[*((p + i) % n for i in range(n)), *range(n, MAX_PLAYERS)] for p in range(n)]
        # flat indices that put the observer's rows first, for np.take
        planes_grid = np.arange(2 * MAX_PLAYERS * 4 * NUM_CELLS).reshape(2, MAX_PLAYERS, -1)
        numbers_grid = np.arange(3 * MAX_PLAYERS).reshape(3, MAX_PLAYERS)
        self._takes = [
            (planes_grid[:, perm].reshape(-1), numbers_grid[:, perm].reshape(-1)) for perm in perms
        ]
        self._one_hot = [[int(i == k) for i in range(self._kinds)] for k in range(self._kinds)]
        self._feature_lists = [f[0].tolist() for f in self._features]
        self._tile_index = [
            sl["tiles"].start + np.arange(TILE_FEATURES) * NUM_CELLS + cell
            for cell in range(NUM_CELLS)
        ]
        self._planes_slice = slice(sl["pawns"].start, sl["lines"].stop)
        self._head_slice = slice(sl["drawn"].start, sl["stack_size"].stop)
        self._numbers_slice = slice(sl["supply"].start, sl["blue"].stop)

    # ------------------------------------------------------------- layout
    def _build_layout(self) -> ObservationLayout:
        w, k = WINDOW, self._kinds
        return ObservationLayout(
            (
                Field(
                    "tiles",
                    (TILE_FEATURES, w, w),
                    "laid tiles in the 7 x 7 window: plane 0 occupied; planes 1-6 one piece "
                    "joins ports NE, NS, NW, ES, EW, SW; planes 7-10 a stub with an empty "
                    "diamond at N, E, S, W; planes 11-14 a stub with a blue diamond at N, E, "
                    "S, W",
                    spatial=True,
                ),
                Field(
                    "last_laid",
                    (1, w, w),
                    "the tile laid this turn (whose lines the occupy actions name)",
                    spatial=True,
                ),
                Field(
                    "pawns",
                    (4 * MAX_PLAYERS, w, w),
                    "plane 4 q + p: player q (observer first) has a pawn on the piece of "
                    "this tile that holds port p (N, E, S, W)",
                    spatial=True,
                ),
                Field(
                    "lines",
                    (4 * MAX_PLAYERS, w, w),
                    "plane 4 q + p: the line through port p of this tile is occupied by "
                    "player q (observer first)",
                    spatial=True,
                ),
                Field(
                    "routes",
                    (4, w, w),
                    "plane p: points the line through port p of this tile would score a "
                    "pawn on it now (its route: rules reference, Scoring); 0 where no tile",
                    high=float(MAX_ROUTE),
                    spatial=True,
                ),
                Field(
                    "own_pawns",
                    (PAWNS_PER_PLAYER, w, w),
                    "plane i: the observer's pawn that occupy source i + 1 moves stands on "
                    "this tile",
                    spatial=True,
                ),
                Field(
                    "drawn",
                    (TILE_FEATURES,),
                    "the tile to lay, unrotated, as the tiles planes (0 when none)",
                ),
                Field("drawn_kind", (k,), "kind of the tile to lay, one-hot (tile set order)"),
                Field(
                    "stack",
                    (k,),
                    "tiles of each kind still in the stack (the drawn tile excluded)",
                    high=float(NUM_TILES),
                ),
                Field("stack_size", (1,), "tiles in the stack", high=float(NUM_TILES)),
                Field(
                    "supply",
                    (MAX_PLAYERS,),
                    "pawns in each player's supply, observer first; 0-padded",
                    high=float(PAWNS_PER_PLAYER),
                ),
                Field(
                    "scores",
                    (MAX_PLAYERS,),
                    "each player's score as if the game ended now, observer first",
                    high=float(MAX_SCORE),
                ),
                Field(
                    "blue",
                    (MAX_PLAYERS,),
                    "blue diamonds at the ends of each player's scored routes (tie-break)",
                    high=float(2 * PAWNS_PER_PLAYER),
                ),
                Field("seated", (MAX_PLAYERS,), "1 for each seat in play, observer first"),
                Field("to_act", (MAX_PLAYERS,), "seat to act, one-hot, observer first"),
                Field("phase", (3,), "phase one-hot: lay, occupy (optional), compulsory move"),
            )
        )

    def action_layout(self) -> ObservationLayout:
        """The action groups: lay (window row, window col, rotation), occupy, skip.

        The lay group is board-shaped and cell by cell (``4 * cell + rotation``), so a network
        can score it with a per-cell head over the observation's 7 x 7 window.

        >>> [(g.name, g.shape) for g in LiniellModel().action_layout()]
        [('lay', (7, 7, 4)), ('occupy', (12,)), ('skip', (1,))]
        """
        return ObservationLayout(
            (
                Field(
                    "lay",
                    (WINDOW, WINDOW, 4),
                    "lay the drawn tile on window cell (row, col) with rotation",
                    spatial=True,
                    channels_last=True,
                ),
                Field("occupy", (4 * NUM_SOURCES,), "occupy: 3 * port + source"),
                Field("skip", (1,), "occupy nothing"),
            )
        )

    # -------------------------------------------------------------- state
    def new_state(self, rng: np.random.Generator) -> LiniellState:
        return self.state_of(Game.new(check_rng(rng), self.num_players, self.tile_set))

    def state_of(self, game: Game) -> LiniellState:
        """The model state of a rules-engine game (e.g. one read from text)."""
        if game.num_players != self.num_players:
            raise ConfigError(
                f"the game has {game.num_players} players; this model plays {self.num_players}"
            )
        base = self.layout.zeros()
        start = self._slices["seated"].start
        base[start : start + self.num_players] = 1
        state = LiniellState(
            game=game,
            base=base,
            planes=np.zeros((2, MAX_PLAYERS, 4 * NUM_CELLS), dtype=np.float32),
            planes_dirty=True,
            numbers=np.zeros((3, MAX_PLAYERS), dtype=np.float32),
            numbers_dirty=True,
            shown_last=-1,
            shown_head=(-2, -1),
        )
        board = game.board
        for cell, orient in enumerate(board.cell_orient):
            if orient is not None:
                base[self._tile_index[cell]] = tile_features(orient)
                self._update_routes(state, cell)
        self._sync(state)
        return state

    def current_player(self, state: LiniellState) -> int:
        return state.game.current

    def engine_state(self, state: LiniellState) -> Any:
        """The rules engine's game inside ``state``."""
        return state.game

    def copy(self, state: LiniellState) -> LiniellState:
        return state.copy()

    def is_over(self, state: LiniellState) -> bool:
        return state.game.is_over

    def scores(self, state: LiniellState) -> tuple[float, ...]:
        """Every seat's provisional score (as if the game ended now; final once over)."""
        return tuple(float(s.points) for s in state.game.scores())

    def outcome(self, state: LiniellState) -> Outcome | None:
        self.check_state(state)
        game = state.game
        if not game.is_over:
            return None
        return Outcome(Ending.FINISHED, tuple(game.winners()), self.scores(state))

    # ------------------------------------------------------------ actions
    def describe_action(self, state: LiniellState | None, action: int) -> str:
        action = int(action)
        if action < NUM_LAY:
            cell, rotation = divmod(action, 4)
            return f"lay on window cell {divmod(cell, WINDOW)} rotated {rotation}"
        if action < SKIP:
            port, source = divmod(action - OCCUPY, NUM_SOURCES)
            return (
                f"occupy the laid tile's line at port {Port(port).name} with {PawnSource(source)}"
            )
        if action == SKIP:
            return "occupy nothing"
        return f"action {action}"

    def legal_mask_unchecked(self, state: LiniellState) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        game = state.game
        phase = game.phase
        if phase is Phase.LAY:
            mask[[cell * 4 + rot for cell, rot in game.legal_placements()]] = 1
        elif phase is not Phase.OVER:
            pairs = game.occupation_pairs()
            if pairs:
                mask[[OCCUPY + port * NUM_SOURCES + source for port, source in pairs]] = 1
            if phase is Phase.OCCUPY:
                mask[SKIP] = 1
        return mask

    def explain_illegal(self, state: LiniellState, action: int) -> str:
        game = state.game
        phase = game.phase
        if phase is Phase.OVER:
            return "the game is over"
        if action < NUM_LAY:
            if phase is not Phase.LAY:
                return f"the tile is laid already; now is the {phase.value} step"
            cell, rotation = divmod(action, 4)
            reason = game.board.check(cell, game.drawn, rotation)[1]  # type: ignore[arg-type]
            return reason or "the placement breaks a rule"
        if phase is Phase.LAY:
            return "the drawn tile must be laid first"
        if action == SKIP:
            return "a compulsory pawn move is due after joining occupied lines; no skipping"
        port, source = divmod(action - OCCUPY, NUM_SOURCES)
        allowed = ", ".join(str(o) for o in game.occupations()) or "none (skip)"
        return (
            f"occupying at port {Port(port).name} with {PawnSource(source)} is not possible; "
            f"allowed: {allowed}"
        )

    def step_unchecked(self, state: LiniellState, action: int) -> StepResult:
        game = state.game
        board = game.board
        before = self._player_points(state)
        if action < NUM_LAY:
            cell, rotation = divmod(action, 4)
            kind = game.drawn
            game.lay(cell, rotation)
            state.base[self._tile_index[cell]] = self._features[kind][rotation]  # type: ignore[index]
            self._update_routes(state, cell)
            # pawns return after a join; an occupied line through the new tile changed shape
            find = board.lines.find
            pieces = len(board.cell_orient[cell].groups)  # type: ignore[union-attr]
            new_roots = {find(cell * 4 + g) for g in range(pieces)}
            if game.phase is Phase.MOVE or any(
                find(p) in new_roots for slots in board.pawns for p in slots if p >= 0
            ):
                state.planes_dirty = state.numbers_dirty = True
        elif action == SKIP:
            game.skip()
        else:
            port, source = divmod(action - OCCUPY, NUM_SOURCES)
            game.occupy(Occupation(Port(port), PawnSource(source)), check=False)
            state.planes_dirty = state.numbers_dirty = True
        self._sync(state)
        now = self._player_points(state)
        points = {
            p: float(now[p] - before[p]) for p in range(self.num_players) if now[p] != before[p]
        }
        return StepResult(points=points, game_over=game.is_over)

    # -------------------------------------------------------- observation
    def _sync(self, state: LiniellState) -> None:
        """Bring the observer-independent observation up to date after a step."""
        game, base, sl = state.game, state.base, self._slices
        phase = game.phase
        shown = game.last_cell if phase is Phase.OCCUPY or phase is Phase.MOVE else -1
        if shown != state.shown_last:
            start = sl["last_laid"].start
            if state.shown_last >= 0:
                base[start + state.shown_last] = 0
            if shown >= 0:
                base[start + shown] = 1
            state.shown_last = shown
        drawn = game.drawn if phase is Phase.LAY and game.drawn is not None else -1
        head = (drawn, len(game.stack))
        if head != state.shown_head:
            k = self._kinds
            stack = [0] * k
            for kind in game.stack:
                stack[kind] += 1
            if drawn >= 0:
                tile = [*self._feature_lists[drawn], *self._one_hot[drawn]]
            else:
                tile = [0] * (TILE_FEATURES + k)
            base[self._head_slice] = [*tile, *stack, len(game.stack)]
            state.shown_head = head
        base[sl["phase"]] = (phase is Phase.LAY, phase is Phase.OCCUPY, phase is Phase.MOVE)

    def _update_numbers(self, state: LiniellState) -> None:
        """Supply, provisional points and blue route ends of every player."""
        board = state.game.board
        find = board.lines.find
        score = board.line_score
        supply, points, blue = [], [], []
        for slots in board.pawns:
            routes = [score(find(p)) for p in slots if p >= 0]
            supply.append(len(slots) - len(routes))
            points.append(sum(r.points for r in routes))
            blue.append(sum(r.blue for r in routes))
        state.numbers[:, : self.num_players] = (supply, points, blue)
        state.numbers_dirty = False

    def _player_points(self, state: LiniellState) -> list[int]:
        # Scores change only when pawns move or an occupied line grows (then the flag is set).
        if state.numbers_dirty:
            self._update_numbers(state)
        return [int(x) for x in state.numbers[1, : self.num_players]]

    def _refresh_planes(self, state: LiniellState) -> None:
        flat = state.planes.reshape(-1)
        flat[:] = 0
        board = state.game.board
        find = board.lines.find
        size = 4 * NUM_CELLS
        index: list[int] = []
        for p, slots in enumerate(board.pawns):
            for piece in slots:
                if piece >= 0:
                    off = p * size
                    index += [off + i for i in board.piece_ports(piece)]
                    off = (MAX_PLAYERS + p) * size
                    index += [off + i for i in board.line_ports(find(piece))]
        if index:
            flat[index] = 1
        state.planes_dirty = False

    def _update_routes(self, state: LiniellState, cell: int) -> None:
        """The ``routes`` planes after a lay on ``cell``: only the lines through the new tile
        change (every other line keeps its pieces and ends), and every port of theirs, on any
        tile, takes its line's new route score."""
        board = state.game.board
        find, routes = board.lines.find, state.base[self._slices["routes"]]
        for group in range(len(board.cell_orient[cell].groups)):  # type: ignore[union-attr]
            root = find(cell * 4 + group)
            routes[board.line_ports(root)] = board.line_score(root).points

    def observe_unchecked(
        self, state: LiniellState, player: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        if state.planes_dirty:
            self._refresh_planes(state)
        if state.numbers_dirty:
            self._update_numbers(state)
        if out is None:
            obs = state.base.copy()
        else:
            obs = out
            obs[:] = state.base
        take_planes, take_numbers = self._takes[player]
        np.take(state.planes.reshape(-1), take_planes, out=obs[self._planes_slice])
        np.take(state.numbers.reshape(-1), take_numbers, out=obs[self._numbers_slice])
        board = state.game.board
        start = self._slices["own_pawns"].start
        for i, piece in enumerate(board.placed_pieces(player)):
            obs[start + i * NUM_CELLS + (piece >> 2)] = 1
        obs[self._slices["to_act"].start + (state.game.current - player) % self.num_players] = 1
        return obs

    # ------------------------------------------------------------- extras
    def public_view(self, state: LiniellState, player: int) -> Game:
        """A copy of the game whose stack is sorted: everything but the stack order.

        Liniell has no hidden hands; the drawn tile is face up. Agents may simulate moves on
        the copy with the rules engine.
        """
        self.check_state(state)
        self.check_player(player)
        return state.game.public_copy()

    def resample_hidden(self, state: LiniellState, player: int, rng: np.random.Generator) -> None:
        """Reshuffle the order of the stack (nobody can see it).

        The new order depends only on the stack's contents and ``rng``, never on the old
        order, so a determinisation carries nothing the player cannot see.
        """
        stack = sorted(state.game.stack)
        state.game.stack[:] = [stack[i] for i in rng.permutation(len(stack))]

    def to_text(self, state: LiniellState) -> str:
        """The whole game state in the engine's text notation, for bug reports."""
        return state.game.to_text()

    def render_ansi(self, state: LiniellState, viewer: int) -> str:
        from .render import render_ansi

        return render_ansi(state.game, viewer)

    def render_rgb(self, state: LiniellState, viewer: int) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(state.game)


__all__ = [
    "MAX_PLAYERS",
    "MAX_ROUTE",
    "MAX_SCORE",
    "PAIRS",
    "TILE_FEATURES",
    "LiniellModel",
    "LiniellState",
    "game_info",
    "tile_features",
]
