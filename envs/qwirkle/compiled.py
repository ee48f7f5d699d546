"""Qwirkle's compiled game model: the reference model's interface over numba kernels.

:class:`QwirkleCompiledModel` plays exactly the games of :class:`~.model.QwirkleModel` (the
same seed gives the same deal, masks, observations, points and outcomes; the tests compare
them on thousands of positions) but keeps each game in three numpy arrays
(:mod:`.compiled_kernels`) and runs masks, steps, scoring and observations as compiled code.
The reference engine still deals (so both draw the same random numbers) and still answers the
rare, human-facing questions (text, explanations of illegal actions, rendering, the public
view, hidden-information resampling): those convert the compiled state to a reference
:class:`~.model.QwirkleState` on demand.

>>> import numpy as np
>>> model = QwirkleCompiledModel(num_players=2)
>>> state = model.new_state(np.random.default_rng(0))
>>> rng = np.random.default_rng(1)
>>> while not model.is_over(state):
...     _ = model.step(state, int(rng.choice(np.flatnonzero(model.legal_mask(state)))))
>>> model.outcome(state).ending
<Ending.FINISHED: 'finished'>
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.game_info import GameInfo
from ..core.model import Ending, GameModel, Outcome, StepResult, check_rng
from ..core.observation import ObservationLayout
from ..core.symmetry import Symmetries
from ..errors import ArgumentError, ConfigError
from . import compiled_kernels as K
from .actions import QwirkleAction, QwirkleCodec
from .board import Board
from .game import GameState, TurnKind, redeal_hidden
from .model import DEFAULT_MAX_TURNS, DEFAULT_WINDOW, QwirkleModel, QwirkleState, QwirkleView
from .moves import largest_sets
from .tiles import COPIES, HAND_SIZE, NUM_KINDS
from .turn import TurnBuilder

_NO_UNIFORMS = np.zeros(0, dtype=np.float64)


class CompiledQwirkleState:
    """One Qwirkle game as arrays (see :mod:`.compiled_kernels` for their layout).

    ``game``, ``turn``, ``origin`` and ``planes`` give a read-only reference view of the
    state (rebuilt on every access), for code written against
    :class:`~.model.QwirkleState` such as the action codec's notation and the renderers.
    """

    __slots__ = (
        "_rng",
        "_rng_state",
        "board_cache",
        "fit",
        "grid",
        "log",
        "meta",
        "start_numbers",
        "tiles_at_start",
    )

    def __init__(
        self,
        grid: np.ndarray,
        fit: np.ndarray,
        meta: np.ndarray,
        rng: np.random.Generator | dict[str, Any],
        log: list[tuple[TurnKind, int, Any, int]],
        start_numbers: list[int],
        tiles_at_start: int,
    ) -> None:
        self.grid = grid
        """``(GRID, GRID)`` int8: tile id + 1 on each occupied cell (this turn's included)."""
        self.fit = fit
        """``(W, W)`` int64: per open window cell, the kinds that may be laid there alone."""
        self.meta = meta
        """int64: hands, bag, scores, turn in progress, window origin ... (named offsets)."""
        self._rng: np.random.Generator | None = None
        self._rng_state: dict[str, Any] | None = None
        if isinstance(rng, np.random.Generator):
            self._rng = rng
        else:
            self._rng_state = rng  # a copy's generator, made when first needed
        self.log = log
        """One entry per turn, as the reference engine's ``GameState.log``."""
        self.start_numbers = start_numbers
        self.tiles_at_start = tiles_at_start
        """Tiles in play when the game was set up (108 for a dealt game)."""
        self.board_cache: tuple[int, Board] | None = None
        """The reference view's board and the tile count it holds (see :meth:`reference`)."""

    def copy(self) -> CompiledQwirkleState:
        """An independent copy that continues identically (the generator included)."""
        meta = self.meta
        if meta[K.NTILES]:
            r0, r1 = meta[K.B0R] - 7, meta[K.B1R] + 8
            c0, c1 = meta[K.B0C] - 7, meta[K.B1C] + 8
        else:
            r0 = c0 = K.RADIUS - 7
            r1 = c1 = K.RADIUS + 8
        r0, c0, r1, c1 = max(r0, 0), max(c0, 0), min(r1, K.GRID), min(c1, K.GRID)
        # np.zeros takes fresh zeroed pages: only the box around the tiles is written
        grid = np.zeros((K.GRID, K.GRID), dtype=np.int8)
        grid[r0:r1, c0:c1] = self.grid[r0:r1, c0:c1]
        return CompiledQwirkleState(
            grid,
            self.fit.copy(),
            meta.copy(),
            self._rng_state if self._rng is None else self._rng.bit_generator.state,
            list(self.log),
            self.start_numbers,
            self.tiles_at_start,
        )

    @property
    def rng(self) -> np.random.Generator:
        """The game's generator (exchanges return tiles to random places in the bag).

        A copy holds the generator's state and makes its own generator from it only when it
        first draws (most copies made for search never exchange)."""
        if self._rng is None:
            state = self._rng_state
            assert state is not None
            bit_generator = getattr(np.random, state["bit_generator"])(0)
            bit_generator.state = state
            self._rng = np.random.Generator(bit_generator)
            self._rng_state = None
        return self._rng

    def replace_generator(self, rng: np.random.Generator) -> None:
        """Use ``rng`` as the game's generator from now on (a determinisation must not
        foresee the real game's future shuffles)."""
        self._rng = rng
        self._rng_state = None

    # --------------------------------------------------- the reference view
    def reference(self) -> QwirkleState:
        """The same position as a reference :class:`~.model.QwirkleState` (a new object)."""
        meta = self.meta
        n = int(meta[K.NP])
        pending: dict[tuple[int, int], int] = {}
        order: list[tuple[int, int, int]] = []
        for i in range(int(meta[K.PN])):
            r, c, slot = (int(x) for x in meta[K.PEND + 3 * i : K.PEND + 3 * i + 3])
            cell = (r - K.RADIUS, c - K.RADIUS)
            pending[cell] = int(self.grid[r, c]) - 1
            order.append((*cell, slot))
        game = GameState.__new__(GameState)
        game.num_players = n
        game.rng = self.rng
        game.max_turns = int(meta[K.MAXT])
        game.board = self._board(pending).copy()
        game.bag = [int(t) for t in meta[K.BAG : K.BAG + meta[K.BAGN]]]
        game.hands = [
            [int(t) for t in meta[K.HANDS + 6 * p : K.HANDS + 6 * p + meta[K.HLEN + p]]]
            for p in range(n)
        ]
        game.scores = [int(s) for s in meta[K.SCORES : K.SCORES + n]]
        game.start_numbers = list(self.start_numbers)
        game.start_player = int(meta[K.START])
        game.current = int(meta[K.CUR])
        game.first_turn = bool(meta[K.FIRST])
        game.consecutive_passes = int(meta[K.PASSES])
        game.turns = int(meta[K.TURNS])
        game.game_over = bool(meta[K.OVER])
        game.truncated = bool(meta[K.TRUNC])
        game.end_bonus_player = None if meta[K.BONUSP] < 0 else int(meta[K.BONUSP])
        game.changed_cells = set()
        game.log = list(self.log)
        # the engine's conservation check compares with the count at set-up
        game._tiles_at_start = self.tiles_at_start
        sets = [int(m) for m in meta[K.SETS : K.SETS + meta[K.NSETS]]]
        return QwirkleState(
            game=game,
            turn=TurnBuilder(pending, order, int(meta[K.USED])),
            origin=self.origin,
            planes=self.planes,
            unseen_base=[float(x) for x in meta[K.UNSEEN : K.UNSEEN + NUM_KINDS]],
            lost=[int(x) for x in meta[K.LOST : K.LOST + n]],
            fit_cache=None,
            start_sets=[frozenset(t for t in range(NUM_KINDS) if m >> t & 1) for m in sets],
        )

    def _board(self, pending: dict[tuple[int, int], int]) -> Board:
        """The reference board of the tiles laid before this turn (never handed out: callers
        copy it). Tiles are only ever added, so their count names the board; a later turn
        lays the tiles added since onto the cached board (``Board.lay`` updates only the
        anchors they touch) instead of building a new one, which checks every line."""
        laid = int(self.meta[K.NTILES])
        cache = self.board_cache
        if cache is not None and cache[0] == laid:
            return cache[1]
        tiles: dict[tuple[int, int], int] = {}
        if laid:  # the tiles' bounding box holds every tile laid before this turn
            r0, c0 = int(self.meta[K.B0R]), int(self.meta[K.B0C])
            box = self.grid[r0 : self.meta[K.B1R] + 1, c0 : self.meta[K.B1C] + 1]
            rows, cols = np.nonzero(box)
            tiles = {
                (int(r) + r0 - K.RADIUS, int(c) + c0 - K.RADIUS): int(box[r, c]) - 1
                for r, c in zip(rows, cols, strict=True)
            }
        if cache is None or cache[0] > laid:
            board = Board({cell: t for cell, t in tiles.items() if cell not in pending})
        else:
            board = cache[1]
            added = [
                (r, c, t)
                for (r, c), t in tiles.items()
                if (r, c) not in pending and board.get((r, c)) is None
            ]
            if added:
                board.lay(added)
        self.board_cache = (laid, board)
        return board

    @property
    def game(self) -> GameState:
        return self.reference().game

    @property
    def turn(self) -> TurnBuilder:
        return self.reference().turn

    @property
    def origin(self) -> tuple[int, int]:
        return int(self.meta[K.ORR]) - K.RADIUS, int(self.meta[K.ORC]) - K.RADIUS

    @property
    def planes(self) -> np.ndarray:
        w = int(self.meta[K.WIN])
        out = np.empty(K.NUM_PLANES * w * w, dtype=np.float32)
        K.write_planes(self.grid, self.meta, out)
        return out.reshape(K.NUM_PLANES, w, w)


def load_game(
    game: GameState, window: int, grid: np.ndarray, fit: np.ndarray, meta: np.ndarray
) -> None:
    """Write a reference game at the start of a turn into the arrays of a compiled game
    (``grid`` and ``fit`` zero where the game has no tiles; the window centred on the start
    cell, as :meth:`QwirkleModel.state_of` starts it)."""
    n = game.num_players
    m = [0] * K.META_SIZE  # built as a list and written at once: one conversion, not fifty
    m[K.NP] = n
    m[K.CUR] = game.current
    m[K.TURNS] = game.turns
    m[K.PASSES] = game.consecutive_passes
    m[K.FIRST] = int(game.first_turn)
    m[K.OVER] = int(game.game_over)
    m[K.TRUNC] = int(game.truncated)
    m[K.MAXT] = game.max_turns if game.max_turns is not None else np.iinfo(np.int64).max
    m[K.WIN] = window
    m[K.ORR] = m[K.ORC] = K.RADIUS - window // 2
    m[K.START] = game.start_player
    m[K.BONUSP] = -1 if game.end_bonus_player is None else game.end_bonus_player
    m[K.HANDS : K.HANDS + 24] = [-1] * 24
    for p, hand in enumerate(game.hands):
        m[K.HANDS + 6 * p : K.HANDS + 6 * p + len(hand)] = hand
        m[K.HLEN + p] = len(hand)
    m[K.SCORES : K.SCORES + n] = game.scores
    bag = game.bag
    m[K.BAG : K.BAG + NUM_KINDS * COPIES] = [*bag, *([-1] * (NUM_KINDS * COPIES - len(bag)))]
    m[K.BAGN] = len(bag)
    sets = largest_sets(game.hand)
    m[K.NSETS] = len(sets)
    for i, s in enumerate(sets):
        m[K.SETS + i] = sum(1 << t for t in s)
    m[K.UNSEEN : K.UNSEEN + NUM_KINDS] = [COPIES] * NUM_KINDS
    for (r, c), t in game.board.items():
        grid[r + K.RADIUS, c + K.RADIUS] = t + 1
        m[K.UNSEEN + t] -= 1
    if not game.board.is_empty():
        r0, c0, r1, c1 = game.board.bounds()
        m[K.B0R], m[K.B0C] = r0 + K.RADIUS, c0 + K.RADIUS
        m[K.B1R], m[K.B1C] = r1 + K.RADIUS, c1 + K.RADIUS
        m[K.NTILES] = len(game.board)
    meta[:] = m
    if not game.board.is_empty():
        K.rebuild_fits(grid, fit, meta)


def _load(game: GameState, window: int) -> CompiledQwirkleState:
    """The compiled state of a reference game at the start of a turn."""
    grid = np.zeros((K.GRID, K.GRID), dtype=np.int8)
    fit = np.zeros((window, window), dtype=np.int64)
    meta = np.zeros(K.META_SIZE, dtype=np.int64)
    load_game(game, window, grid, fit, meta)
    return CompiledQwirkleState(
        grid,
        fit,
        meta,
        game.rng,
        list(game.log),
        list(game.start_numbers),
        sum(game.tile_count().values()),
    )


class QwirkleCompiledModel(GameModel[CompiledQwirkleState, QwirkleAction]):
    """Qwirkle for 2 to 4 players, compiled; the same games as :class:`~.model.QwirkleModel`.

    Options and their checks are the reference model's (``num_players``, ``max_turns``,
    ``window``); so are the observation layout, the action codec and the symmetries.
    """

    state_type = CompiledQwirkleState

    def __init__(
        self,
        num_players: int = 2,
        max_turns: int = DEFAULT_MAX_TURNS,
        window: int = DEFAULT_WINDOW,
    ) -> None:
        self.reference = QwirkleModel(num_players, max_turns, window)
        """The reference model, for the text and explanation paths."""
        ref = self.reference
        self.num_players = ref.num_players
        self.window = ref.window
        self.max_turns = ref.max_turns
        self.info: GameInfo = ref.info
        self.codec: QwirkleCodec = ref.codec
        self.layout: ObservationLayout = ref.layout
        self._end = self.codec.end
        self._pass = self.codec.pass_action

    # ------------------------------------------------------------- state
    def new_state(self, rng: np.random.Generator) -> CompiledQwirkleState:
        """A fresh game dealt by the reference engine from ``rng`` (the same deal)."""
        return self.state_of(GameState(self.num_players, check_rng(rng), max_turns=self.max_turns))

    def state_of(self, game: GameState) -> CompiledQwirkleState:
        """The compiled state of a rules-engine game at the start of a turn (the window
        centred as :meth:`QwirkleModel.state_of` centres it)."""
        if game.num_players != self.num_players:
            raise ConfigError(
                f"the game has {game.num_players} players; this model plays {self.num_players}"
            )
        st = _load(game, self.window)
        if not game.board.is_empty():
            self._new_turn(st)
        return st

    def check_state(self, state: Any) -> None:
        """A :class:`CompiledQwirkleState` whose arrays the kernels can read (the shapes and
        dtypes this model's ``new_state`` makes), else an ``ArgumentError``."""
        super().check_state(state)
        w = self.window
        for name, dtype, shape in (
            ("grid", np.int8, (K.GRID, K.GRID)),
            ("fit", np.int64, (w, w)),
            ("meta", np.int64, (K.META_SIZE,)),
        ):
            array = getattr(state, name)
            if not (
                isinstance(array, np.ndarray)
                and array.dtype == dtype
                and array.shape == shape
                and array.flags.c_contiguous
            ):
                raise ArgumentError(
                    f"state.{name} must be the {np.dtype(dtype)} array of shape {shape} that "
                    f"new_state makes for this model (window={w})"
                )
        meta = state.meta
        if (
            meta[K.NP] != self.num_players
            or meta[K.WIN] != w
            or not 0 <= meta[K.CUR] < self.num_players
        ):
            raise ArgumentError(
                f"the state is a {int(meta[K.NP])}-player game; this model plays "
                f"{self.num_players} players (window={w})"
            )

    def current_player(self, st: CompiledQwirkleState) -> int:
        return int(st.meta[K.CUR])

    def copy(self, st: CompiledQwirkleState) -> CompiledQwirkleState:
        return st.copy()

    def is_over(self, st: CompiledQwirkleState) -> bool:
        return bool(st.meta[K.OVER] or st.meta[K.TRUNC])

    def scores(self, st: CompiledQwirkleState) -> tuple[float, ...]:
        return tuple(float(s) for s in st.meta[K.SCORES : K.SCORES + self.num_players])

    def outcome(self, st: CompiledQwirkleState) -> Outcome | None:
        self.check_state(st)
        scores = self.scores(st)
        if st.meta[K.TRUNC]:
            return Outcome(Ending.TRUNCATED, (), scores)
        if st.meta[K.OVER]:
            best = max(scores)
            return Outcome(
                Ending.FINISHED, tuple(p for p, s in enumerate(scores) if s == best), scores
            )
        return None

    # ------------------------------------------------------------- rules
    def legal_mask_unchecked(self, st: CompiledQwirkleState) -> np.ndarray:
        mask = np.zeros(self.info.num_actions, dtype=np.int8)
        K.fill_mask(st.grid, st.fit, st.meta, mask)
        return mask

    def step_unchecked(self, st: CompiledQwirkleState, action: int) -> StepResult:
        action = int(action)
        meta = st.meta
        if action < self._end:
            K.apply(st.grid, st.fit, meta, action, _NO_UNIFORMS)
            return StepResult()
        uniforms = _NO_UNIFORMS
        if action == self._end:
            laid = meta[K.PEND : K.PEND + 3 * meta[K.PN]].reshape(-1, 3)
            move = tuple(
                (int(r) - K.RADIUS, int(c) - K.RADIUS, int(st.grid[r, c]) - 1) for r, c, _ in laid
            )
        elif action < self._pass:
            size = bin(action - self._end).count("1")
            uniforms = st.rng.random(size)
        player, points, count_lost = K.apply(st.grid, st.fit, meta, action, uniforms)
        if action == self._end:
            st.log.append((TurnKind.PLACE, player, move, points))
        elif action < self._pass:
            st.log.append((TurnKind.EXCHANGE, player, size, 0))
        else:
            st.log.append((TurnKind.PASS, player, 0, 0))
        if count_lost:
            meta[K.LOST + meta[K.CUR]] += self.lost_moves(st)
        return StepResult(
            points={player: points} if points else {},
            game_over=bool(meta[K.OVER]),
            truncated=bool(meta[K.TRUNC]),
        )

    def _new_turn(self, st: CompiledQwirkleState) -> None:
        """Recentre the window on a loaded position and count the moves it hides."""
        if K.new_turn(st.grid, st.fit, st.meta, True):
            st.meta[K.LOST + st.meta[K.CUR]] += self.lost_moves(st)

    def lost_moves(self, st: CompiledQwirkleState) -> int:
        """Legal moves of the player to act that the window cannot show (0 in practice;
        counted by the reference engine when the window does not hold the laid area with
        a 5-cell margin)."""
        meta = st.meta
        if meta[K.FIRST] or meta[K.PN] or K.box_has_margin(meta):
            return 0
        return self.reference.lost_moves(st.reference())

    def fit_planes(self, st: CompiledQwirkleState) -> np.ndarray:
        """Per tile kind, the window cells (flat index) where it may be placed alone: the
        ``(36, W * W)`` int8 array of :meth:`QwirkleModel.fit_planes`."""
        kinds = np.arange(NUM_KINDS, dtype=np.int64)[:, None]
        return ((st.fit.reshape(1, -1) >> kinds) & 1).astype(np.int8)

    # -------------------------------------------------------- observation
    def observe_unchecked(
        self, st: CompiledQwirkleState, player: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        obs = np.empty(self.layout.size, dtype=np.float32) if out is None else out
        K.observe(st.grid, st.meta, int(player), obs)
        return obs

    def action_layout(self) -> ObservationLayout:
        return self.reference.action_layout()

    def symmetries(self) -> Symmetries:
        return self.reference.symmetries()

    # -------------------------------------- human-facing paths (reference)
    def describe_action(self, st: CompiledQwirkleState | None, action: int) -> str:
        return self.reference.describe_action(None if st is None else st.reference(), action)

    def explain_illegal(self, st: CompiledQwirkleState, action: int) -> str:
        return self.reference.explain_illegal(st.reference(), action)

    def player_info(self, st: CompiledQwirkleState, player: int) -> dict[str, Any]:
        return {"lost_moves": int(st.meta[K.LOST + player])}

    def public_view(self, st: CompiledQwirkleState, player: int) -> QwirkleView:
        self.check_state(st)
        self.check_player(player)
        return self.reference.public_view(st.reference(), player)

    def resample_hidden(
        self, st: CompiledQwirkleState, player: int, rng: np.random.Generator
    ) -> None:
        """The reference engine's redeal (:meth:`QwirkleModel.resample_hidden`), the same
        hands, bag and generator for the same ``rng``. When nothing the other hands hold is
        on the table (not the start row, and no tiles laid this turn by another player) the
        redeal is the engine's plain one (:func:`~.game.redeal_hidden`), applied here to the
        compiled arrays without rebuilding the reference game."""
        meta = st.meta
        if meta[K.FIRST] or (meta[K.CUR] != player and meta[K.PN]):
            ref = st.reference()
            self.reference.resample_hidden(ref, player, rng)
            hands, bag, generator = ref.game.hands, ref.game.bag, ref.game.rng
        else:
            held = [
                meta[K.HANDS + 6 * p : K.HANDS + 6 * p + meta[K.HLEN + p]].tolist()
                for p in range(int(meta[K.NP]))
            ]
            hidden_bag = meta[K.BAG : K.BAG + meta[K.BAGN]].tolist()
            hands, bag = redeal_hidden(held, hidden_bag, player, rng)
            generator = np.random.default_rng(int(rng.integers(2**63)))
        for p, hand in enumerate(hands):
            meta[K.HANDS + 6 * p : K.HANDS + 6 * p + HAND_SIZE] = -1
            meta[K.HANDS + 6 * p : K.HANDS + 6 * p + len(hand)] = hand
        meta[K.BAG : K.BAG + len(bag)] = bag
        st.replace_generator(generator)

    def engine_state(self, st: CompiledQwirkleState) -> GameState:
        """The position as the reference engine's game (rebuilt: for the invariant checks)."""
        return st.reference().game

    def to_text(self, st: CompiledQwirkleState) -> str:
        return self.reference.to_text(st.reference())

    def render_ansi(self, st: CompiledQwirkleState, viewer: int) -> str:
        return self.reference.render_ansi(st.reference(), viewer)

    def render_rgb(self, st: CompiledQwirkleState, viewer: int) -> np.ndarray:
        return self.reference.render_rgb(st.reference(), viewer)


__all__ = ["CompiledQwirkleState", "QwirkleCompiledModel", "load_game"]
