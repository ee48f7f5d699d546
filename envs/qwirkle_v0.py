"""Qwirkle (``qwirkle_v0``): 2 to 4 players lay tiles of six colours and six shapes in lines.

| | |
|---|---|
| Import | `from tabletop_rl.envs import qwirkle_v0` |
| Actions | Discrete |
| Parallel API | No |
| Manual Control | Yes (`tabletop-rl play`) |
| Agents | `agents= ['player_0', 'player_1']` |
| Players | 2 to 4 (default 2) |
| Action Shape | Discrete(9191) |
| Action Values | Discrete(9191) |
| Observation Shape | `observation`: (21424,), `action_mask`: (9191,) |
| Observation Values | [0, 2598] |
| Max Game Length | 7000 agent steps |
| Perfect Information | No |

Qwirkle has 108 tiles: six colours (red, orange, yellow, green, blue, purple) times six shapes
(circle, cross, diamond, square, star, clover), three copies of each. Every player holds six
tiles hidden from the others; the rest lie in the bag. On a turn a player either lays one or
more tiles in one line, scoring every line those tiles build or extend (a completed line of
six, a *Qwirkle*, scores 12), or exchanges tiles with the bag. The game ends when a player
empties their hand once the bag is empty (+6 bonus) or when every player passes in a row.
The rules engine is :mod:`tabletop_rl.envs.qwirkle`; it implements ``shared/rules/qwirkle.md``
exactly, every decision included:

- Start: the player whose largest set of tiles sharing a colour or a shape is biggest
  (identical tiles counted once) starts; **[decision]** ties are broken uniformly at random.
  The starter must lay exactly one such largest set as one line; the first tile goes on the
  window's centre cell. A lone start tile scores 1 (**[boxed game]**).
- Exchange: draw first, then return the tiles to the bag; **[decision]** at most as many tiles
  as the bag holds, none with an empty bag.
- **[decision]** Pass only when no tile can be placed and none exchanged; the game ends, without
  a bonus, after as many consecutive passes as there are players.
- **[boxed game]** Emptying the hand after a placement (and the refill, as far as the bag
  allows) ends the game at once with a 6-point bonus.
- **[decision]** Equal highest scores share the win.
- **[decision]** Nothing in the rules stops players exchanging forever, so a game is
  *truncated* after ``max_turns`` turns (default 1000; masked random play needs about 270
  turns on average, so the limit is rarely reached).

Options: ``raw_env(num_players=2, render_mode=None, reward="win", max_turns=1000, window=39)``.

Board window
------------
The engine's board is unbounded; actions and observations index a fixed ``window`` x
``window`` square of it (39 x 39 by default). The game starts with the window centred on the
first tile's cell. No legal move reaches more than 5 cells past the laid area (a line holds
at most 6 tiles and touches a laid tile), so while the window holds the laid area's bounding
box with 5 free cells on every side no move can be hidden. Between turns, whenever the box
comes closer than that to an edge, the window is recentred on the box (its centre cell is the
box's centre, rounded down); during a turn it never moves. Should the box ever outgrow the
window minus that margin, the environment generates every legal move and counts those the
window cannot show in ``infos[agent]["lost_moves"]`` (per player, summed over the game).
``benchmarks/qwirkle_window_coverage.py`` measures this. In 10,000 two-player games of masked
random play no legal move was lost: the laid area's longest side reached 30 cells (99th
percentile 26) and only 10 turn starts came close enough to an edge to need the exact count.
In 10,000 games of greedy self-play none was lost either: longest side 28 (99th percentile
23), no exact count ever needed.
If a player's only legal placements were ever hidden and no exchange were possible, the mask
would offer ``pass`` so that it is never empty.

Observation
-----------
``observe(agent)`` returns ``{"observation": float32 vector, "action_mask": int8 vector}``. The
vector is made of named fields; ``env.layout.decode(obs)`` returns them as named arrays, so a
network never indexes magic numbers:

| field | shape | offset | values | meaning |
|---|---|---|---|---|
| `board` | (14, 39, 39) | 0 | [0, 1] | colour 0-5, shape 6-11, occupied 12, laid now 13 |
| `hand_colour` | (6, 6) | 21294 | [0, 1] | own hand by slot: colour one-hot |
| `hand_shape` | (6, 6) | 21330 | [0, 1] | own hand by slot: shape one-hot |
| `unseen` | (36,) | 21366 | [0, 3] | unseen copies of each tile kind (bag and other hands) |
| `bag_size` | (1,) | 21402 | [0, 108] | tiles in the bag |
| `scores` | (4,) | 21403 | [0, 2598] | scores, observer first; 0-padded |
| `hand_sizes` | (4,) | 21407 | [0, 6] | hand sizes, observer first; 0-padded |
| `seated` | (4,) | 21411 | [0, 1] | 1 for each seat in play, observer first |
| `to_act` | (4,) | 21415 | [0, 1] | seat to act, one-hot, observer first |
| `phase` | (3,) | 21419 | [0, 1] | one-hot: start row, start of a turn, tiles laid |
| `passes` | (1,) | 21422 | [0, 4] | consecutive passes so far |
| `turns_used` | (1,) | 21423 | [0, 1] | turns played / max_turns |

- ``board`` (spatial, ``(14, window, window)``): the window on the board, tiles laid so far this
  turn included. Planes 0-5 are the colour one-hot (red, orange, yellow, green, blue,
  purple), planes 6-11 the shape one-hot (circle, cross, diamond, square, star, clover),
  plane 12 is 1 on occupied cells, plane 13 on the tiles laid this turn. Row and column ``i``
  of a plane are window cell ``i``, the same cell the actions name.
- ``hand_colour``, ``hand_shape``: the observer's own hand by slot (slot ``i`` is row ``i``);
  a slot whose tile was laid this turn, or an empty slot (bag exhausted), is all zeros.
- ``unseen``: per tile kind (id ``6 * colour + shape``), how many of its 3 copies the observer
  cannot see: those in the bag or in other players' hands (3 minus the copies on the board
  minus those in the observer's hand). This is what a careful player tracks (seed 001's tip).
- ``bag_size``; ``scores`` and ``hand_sizes`` of every player, observer first and then the
  following seats in order, padded with zeros to 4 so that the space does not depend on
  ``num_players``; ``seated`` marks the seats in play; ``to_act`` is the seat to act.
- ``phase``: one-hot, the start row is being laid / start of a turn (exchange possible) /
  tiles already laid this turn. ``passes``: consecutive passes. ``turns_used``: turns played
  over ``max_turns``.

Nothing hidden leaks: no other hand, no bag order (``resample_hidden`` redeals them and the
tests check the observation does not change).

Actions
-------
With ``W = window`` and ``C = W * W`` cells, ``Discrete(6 * C + 65)``:

- ``slot * C + row * W + col`` (``slot`` 0-5): lay the tile in hand slot ``slot`` on window cell
  ``(row, col)``. A turn's tiles are laid one action at a time.
- ``6 * C``: end the turn (score the tiles laid and refill the hand).
- ``6 * C + m`` for ``m`` in 1..63: exchange the hand slots whose bits are set in ``m`` (only
  at the start of a turn).
- ``6 * C + 64``: pass (only when nothing else is possible).

The masks are exact. Every legal move can be laid one tile at a time so that each prefix is
itself a legal move, so a placement is unmasked exactly when the tiles laid so far this turn
plus that tile form a legal move (on the first turn: a line from the centre cell within one
of the largest sets); every unmasked placement can therefore be completed (end the turn at
once), ending the turn is unmasked whenever a legal move is on the board (on the first turn:
when the whole largest set is down), and the turns reachable through the masks are exactly
the rules engine's legal moves (the tests compare them with a brute-force oracle). A placement
that would only become legal with a later tile (laying both ends of a gap before its middle)
is reached in the other order instead.

Rewards
-------
``reward="win"`` (default): at the end +1 to every winner and -1 to every other player; if all
players tie, 0 to everyone; a shared win between some players gives each of them +1. A
truncated game gives 0. ``reward="score"``: the points of each turn as they are scored,
delivered on the end-turn action (end bonus included).

Termination and length
----------------------
The game terminates when a player empties their hand (bonus) or after a full round of passes,
and is truncated after ``max_turns`` turns. A turn takes at most 7 agent steps (six
placements and the end-turn action; an exchange or a pass is one step), so no game exceeds
``7 * max_turns`` agent steps (7000 by default), the ``Max Game Length`` above.

``infos[agent]["lost_moves"]``: legal moves of that player the window could not show (see
above).

Rendering
---------
``"ansi"``: the laid area in colour with window coordinates (the tiles laid this turn bold and
underlined), the viewer's hand by slot and the scores. ``"rgb_array"``: a picture of the laid
area, coloured shapes on dark tiles, the acting player's hand below. ``"human"``: prints the
``"ansi"`` text.

Symmetries
----------
``env.symmetries()`` returns the 8 rotations and reflections of the window as permutations of
the observation vector and of the actions (:mod:`tabletop_rl.envs.core.symmetry`): only the
``board`` planes and the placements move. The rules know only rows and columns, so the
transformed mask is the mask of the transformed position (tested against the rules engine).
PPO's ``symmetry_augmentation`` uses them.

>>> env = raw_env()
>>> env.reset(seed=0)
>>> obs = env.observe(env.agent_selection)
>>> env.layout.decode(obs["observation"])["board"].shape
(14, 39, 39)
>>> int(obs["action_mask"].sum()) > 0
True

Version history
---------------
- v0: initial release.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from .core.aec import StepResult, TabletopAECEnv, wrap
from .core.game_info import GameInfo
from .core.observation import Field, ObservationLayout
from .core.symmetry import Symmetries, dihedral_symmetries
from .errors import ConfigError
from .qwirkle.board import Board, Cell
from .qwirkle.game import CENTRE, GameState, TurnKind
from .qwirkle.moves import extensions, largest_sets, legal_moves
from .qwirkle.tiles import (
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
BOARD_PLANES = NUM_COLOURS + NUM_SHAPES + 2
OCCUPIED_PLANE = NUM_COLOURS + NUM_SHAPES
LAID_PLANE = OCCUPIED_PLANE + 1

_POPCOUNT = np.array([bin(m).count("1") for m in range(1, NUM_EXCHANGES + 1)])
_EXCHANGE_SLOTS = np.array([m.bit_length() for m in range(1, NUM_EXCHANGES + 1)])
_KINDS = np.arange(NUM_KINDS, dtype=np.int64)


@cache
def _exchange_mask(most: int, hand_size: int) -> np.ndarray:
    """Legal exchange bitmasks 1..63: at most ``most`` tiles, only filled slots."""
    return ((most >= _POPCOUNT) & (hand_size >= _EXCHANGE_SLOTS)).astype(np.int8)


def _info(window: int, max_turns: int) -> GameInfo:
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
    def end_turn(self) -> int:
        """The action that ends the turn (after the placements); ``end_turn + m`` exchanges
        the slots of bitmask ``m`` (1 to 63) and ``end_turn + 64`` passes."""
        return HAND_SIZE * self.window * self.window

    def window_cell(self, row: int, col: int) -> Cell | None:
        """Window coordinates of board cell ``(row, col)``, or ``None`` if outside."""
        r, c = row - self.window_origin[0], col - self.window_origin[1]
        if 0 <= r < self.window and 0 <= c < self.window:
            return r, c
        return None


class raw_env(TabletopAECEnv):
    """Qwirkle for 2 to 4 players (see the module docstring)."""

    info = _info(DEFAULT_WINDOW, DEFAULT_MAX_TURNS)
    metadata = {**TabletopAECEnv.metadata, "name": "qwirkle_v0"}

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        reward: str = "win",
        max_turns: int = DEFAULT_MAX_TURNS,
        window: int = DEFAULT_WINDOW,
    ) -> None:
        for name, value, low in (("max_turns", max_turns, 1), ("window", window, 13)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise ConfigError(f"{name} must be an int, got {type(value).__name__}")
            if value < low:
                raise ConfigError(f"{name}={value} is too small; allowed: {low} or more")
        if window % 2 == 0:
            raise ConfigError(f"window={window} must be odd so that it has a centre cell")
        self.window = int(window)
        self.max_turns = int(max_turns)
        if (self.window, self.max_turns) != (DEFAULT_WINDOW, DEFAULT_MAX_TURNS):
            self.info = _info(self.window, self.max_turns)
        w = self.window
        self._cells = w * w
        self._end = HAND_SIZE * self._cells
        self._pass = self._end + NUM_EXCHANGES + 1
        super().__init__(num_players=num_players, render_mode=render_mode, reward=reward)
        self._planes = np.zeros((BOARD_PLANES, w, w), dtype=np.float32)
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
    def _new_state(self, rng: np.random.Generator) -> GameState:
        state = GameState(self.num_players, rng, max_turns=self.max_turns)
        self.state = state
        self._pending: dict[Cell, Tile] = {}
        self._order: list[tuple[int, int, int]] = []
        self._used = 0
        self._origin: Cell = (CENTRE[0] - self.window // 2, CENTRE[1] - self.window // 2)
        self._planes = np.zeros_like(self._planes)
        self._unseen_base = [float(COPIES)] * NUM_KINDS
        """Per kind, copies not on the board (the observer's hand is subtracted per view)."""
        self._lost = [0] * self.num_players
        self._fit_cache: np.ndarray | None = None
        self._start_sets = largest_sets(state.hand)
        self._start_tiles = frozenset().union(*self._start_sets)
        return state

    def _current_player(self) -> int:
        return self.state.current

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

    def _board_cell(self, wr: int, wc: int) -> Cell:
        return self._origin[0] + wr, self._origin[1] + wc

    def describe_action(self, action: int) -> str:
        kind, arg = self._action_parts(int(action))
        if kind == "place":
            slot, wr, wc = arg
            hand = self.state.hand if self.state is not None else []
            tile = f" ({tile_name(hand[slot])})" if slot < len(hand) else ""
            cell = self._board_cell(wr, wc)
            return f"place slot {slot}{tile} on window cell ({wr}, {wc}) = board cell {cell}"
        if kind == "exchange":
            slots = [s for s in range(HAND_SIZE) if arg >> s & 1]
            return "exchange slots " + ", ".join(str(s) for s in slots)
        return "end turn" if kind == "end" else "pass"

    def _legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.info.num_actions, dtype=np.int8)
        state = self.state
        hand = state.hand
        if state.first_turn:
            self._first_turn_mask(mask)
        elif self._pending:
            mask[self._end] = 1
            self._extension_mask(mask, state.board.tiles)
        else:
            placed_any = self._start_of_turn_mask(mask)
            n = state.max_exchange()
            if n:
                mask[self._end + 1 : self._pass] = _exchange_mask(n, len(hand))
            elif not placed_any:
                mask[self._pass] = 1
        return mask

    def _start_of_turn_mask(self, mask: np.ndarray) -> bool:
        """Single placements from the anchors; ``True`` if any lies in the window."""
        hand = self.state.hand
        part = mask[: len(hand) * self._cells]
        part[:] = self._fit_planes()[hand].reshape(-1)
        return bool(part.any())

    def _fit_planes(self) -> np.ndarray:
        """Per tile kind, the window cells (flat index) where it may be placed alone.

        A ``(36, W * W)`` int8 array built from the board's anchors after a recentring and
        then kept up to date on the cells a placement changes.
        """
        if self._fit_cache is None:
            r0, c0 = self._origin
            w = self.window
            cells: list[int] = []
            fits: list[int] = []
            for (r, c), fit in self.state.board.anchors.items():
                wr, wc = r - r0, c - c0
                if fit and 0 <= wr < w and 0 <= wc < w:
                    cells.append(wr * w + wc)
                    fits.append(fit)
            planes = np.zeros((NUM_KINDS, self._cells), dtype=np.int8)
            if fits:
                planes[:, cells] = ((np.array(fits, dtype=np.int64)[:, None] >> _KINDS) & 1).T
            self._fit_cache = planes
        return self._fit_cache

    def _update_fit_planes(self, cells: set[Cell]) -> None:
        """Refresh the cached fit planes on ``cells`` (anchors changed by a placement)."""
        anchors = self.state.board.anchors
        r0, c0 = self._origin
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
            self._fit_cache[:, flat] = bits.T  # type: ignore[index]

    def _extension_mask(self, mask: np.ndarray, tiles: Any, start_sets: Any = None) -> None:
        hand = self.state.hand
        r0, c0 = self._origin
        w = self.window
        laid = frozenset(self._pending.values())
        for (r, c), fit in extensions(tiles, self._pending):
            wr, wc = r - r0, c - c0
            if not (0 <= wr < w and 0 <= wc < w):
                continue
            base = wr * w + wc
            for slot, t in enumerate(hand):
                if fit >> t & 1 and not self._used >> slot & 1:
                    if start_sets is not None and not any(
                        t not in laid and laid <= s and t in s for s in start_sets
                    ):
                        continue
                    mask[slot * self._cells + base] = 1

    def _first_turn_mask(self, mask: np.ndarray) -> None:
        if not self._pending:
            wr, wc = CENTRE[0] - self._origin[0], CENTRE[1] - self._origin[1]
            for slot, t in enumerate(self.state.hand):
                if t in self._start_tiles:
                    mask[slot * self._cells + wr * self.window + wc] = 1
            return
        if len(self._pending) == len(self._start_sets[0]):
            mask[self._end] = 1
            return
        self._extension_mask(mask, {}, self._start_sets)

    def _explain_illegal(self, action: int) -> str:
        kind, arg = self._action_parts(action)
        state = self.state
        if kind == "place":
            slot, wr, wc = arg
            if slot >= len(state.hand):
                return f"slot {slot} is empty; the hand holds {len(state.hand)} tiles"
            if self._used >> slot & 1:
                return f"slot {slot} was already laid this turn"
            cell = self._board_cell(wr, wc)
            move = [*((r, c, t) for (r, c), t in self._pending.items()), (*cell, state.hand[slot])]
            if state.first_turn:
                return (
                    "the start row is one largest set of the hand laid as a line from the "
                    f"centre cell: {' or '.join(format_tiles(sorted(s)) for s in self._start_sets)}"
                )
            reason = state.board.explain(move)
            return reason or "the tiles laid so far and this one do not form a legal move"
        if kind == "end":
            if state.first_turn and self._pending:
                return f"the start row needs {len(self._start_sets[0])} tiles"
            return "ending the turn needs at least one tile laid this turn"
        if kind == "exchange":
            if self._pending or state.first_turn:
                return "exchange only at the start of a turn, and not on the first turn"
            size = bin(arg).count("1")
            return (
                f"cannot exchange {size} tiles from a hand of {len(state.hand)}: "
                f"at most {state.max_exchange()} (the bag holds {len(state.bag)})"
            )
        return "pass only when no tile can be placed and none exchanged"

    def _apply(self, action: int) -> StepResult:
        kind, arg = self._action_parts(action)
        state = self.state
        player = state.current
        if kind == "place":
            slot, wr, wc = arg
            tile = state.hand[slot]
            cell = self._board_cell(wr, wc)
            self._pending[cell] = tile
            self._order.append((*cell, slot))
            self._used |= 1 << slot
            self._paint(wr, wc, tile)
            self._planes[LAID_PLANE, wr, wc] = 1.0
            return StepResult()
        if kind == "end":
            move = tuple((r, c, state.hand[s]) for r, c, s in self._order)
            result = state.place_legal(move)
            for _, _, t in move:
                self._unseen_base[t] -= 1.0
        elif kind == "exchange":
            result = state.exchange([state.hand[s] for s in range(HAND_SIZE) if arg >> s & 1])
        else:
            result = state.pass_turn(forced=True)
        self._pending = {}
        self._order = []
        self._used = 0
        self._new_turn(moved=result.kind is TurnKind.PLACE)
        points = {player: result.points} if result.points else {}
        return StepResult(points=points, game_over=result.game_over, truncated=result.truncated)

    # ------------------------------------------------------------- window
    def _paint(self, wr: int, wc: int, tile: Tile) -> None:
        planes = self._planes
        planes[tile // 6, wr, wc] = 1.0
        planes[NUM_COLOURS + tile % 6, wr, wc] = 1.0
        planes[OCCUPIED_PLANE, wr, wc] = 1.0

    def _new_turn(self, moved: bool) -> None:
        """Keep the window on the laid area and count moves it cannot show.

        The window is recentred on the laid area's bounding box only when that box comes
        within ``MARGIN`` cells of an edge, so while it holds the box with a 5-cell margin
        nothing moves (and nothing can be hidden); otherwise it is centred on the box. The
        board planes and the per-kind fit planes are updated in place between recentrings.
        """
        state = self.state
        if moved:
            self._planes[LAID_PLANE] = 0.0
            r0, c0, r1, c1 = state.board.bounds()
            o0, o1 = self._origin
            w = self.window
            if not (
                r0 - MARGIN >= o0
                and c0 - MARGIN >= o1
                and r1 + MARGIN < o0 + w
                and c1 + MARGIN < o1 + w
            ):
                half = w // 2
                origin = ((r0 + r1) // 2 - half, (c0 + c1) // 2 - half)
                if origin != self._origin:
                    self._origin = origin
                    self._fit_cache = None
                    self._planes[:] = 0.0
                    for (r, c), t in state.board.items():
                        self._paint(r - origin[0], c - origin[1], t)
            if self._fit_cache is not None:
                self._update_fit_planes(state.changed_cells)
        if state.finished:
            return
        lost = self.lost_moves()
        self._lost[state.current] += lost

    def lost_moves(self) -> int:
        """Legal moves of the player to act that the window cannot show (0 in practice).

        No legal move reaches more than 5 cells past the laid area, so while the window
        holds the laid area with 5 free cells on every side nothing is lost and nothing is
        enumerated; otherwise every legal move is generated and the hidden ones counted.
        """
        state = self.state
        if state.first_turn or self._pending:
            return 0
        r0, c0, r1, c1 = state.board.bounds()
        o0, o1 = self._origin
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
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observation dict; a fast path equal to the base class's (see ``_fill``)."""
        player = self._agent_index[agent]
        obs = np.empty(self.layout.size, dtype=np.float32)
        self._fill(player, obs)
        game_running = not (self.terminations.get(agent) or self.truncations.get(agent))
        if agent == self.agent_selection and game_running:
            mask = self.action_mask().copy()
        else:
            mask = np.zeros(self.info.num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def _observe_into(self, player: int, views: dict[str, np.ndarray]) -> None:
        obs = np.empty(self.layout.size, dtype=np.float32)
        self._fill(player, obs)
        for name, view in self.layout.views(obs).items():
            views[name][...] = view

    def _fill(self, player: int, obs: np.ndarray) -> None:
        """Write ``player``'s whole observation into the flat vector ``obs``."""
        off = self._offsets
        base = off["hand_colour"]
        obs[:base] = self._planes.reshape(-1)
        tail = [0.0] * (self.layout.size - base)
        state = self.state
        hand = state.hands[player]
        used = self._used if player == state.current else 0
        shape_at = off["hand_shape"] - base
        unseen_at = off["unseen"] - base
        tail[unseen_at : unseen_at + NUM_KINDS] = self._unseen_base
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
        phase = 0 if state.first_turn else 2 if self._pending else 1
        tail[off["phase"] - base + phase] = 1.0
        tail[off["passes"] - base] = state.consecutive_passes
        tail[off["turns_used"] - base] = state.turns / self.max_turns
        obs[base:] = tail

    # ------------------------------------------------------------- extras
    def _winners(self) -> list[int]:
        return self.state.winners()

    def final_scores(self) -> list[float]:
        """Every seat's points so far (the final scores once the game is over)."""
        return [float(s) for s in self.state.scores]

    def _player_info(self, player: int) -> dict[str, Any]:
        return {"lost_moves": self._lost[player] if self.state is not None else 0}

    def public_view(self, agent: str) -> QwirkleView:
        state = self.state
        player = self._agent_index[agent]
        return QwirkleView(
            player=player,
            to_act=state.current,
            board=state.board.copy(),
            hand=tuple(state.hands[player]),
            laid_this_turn=tuple(self._order),
            unseen=tuple(int(x) for x in state.unseen_counts(player)),
            scores=tuple(state.scores),
            hand_sizes=tuple(len(h) for h in state.hands),
            bag_size=len(state.bag),
            first_turn=state.first_turn,
            max_exchange=0 if self._pending else state.max_exchange(),
            window_origin=self._origin,
            window=self.window,
        )

    def resample_hidden(self, agent: str, rng: np.random.Generator) -> None:
        state = self.state
        player = self._agent_index[agent]
        actor = state.current
        keep: list[tuple[int, Tile]] = []
        if actor != player and self._used:
            hand = state.hands[actor]
            keep = [(s, hand[s]) for s in range(len(hand)) if self._used >> s & 1]
            state.hands[actor] = [t for s, t in enumerate(hand) if not self._used >> s & 1]
        state.resample_hidden(player, rng)
        for slot, tile in keep:
            state.hands[actor].insert(slot, tile)
        self._mask = None

    def dump(self) -> str:
        """The whole game state as text, for bug reports (reveals every hand)."""
        text = self.state.dump()
        if self._order:
            laid = ", ".join(
                f"slot {s} ({tile_name(self.state.hand[s])}) at {(r, c)}" for r, c, s in self._order
            )
            text += f"\nlaid this turn so far: {laid}"
        return text + f"\nwindow: {self.window}x{self.window} from board cell {self._origin}"

    def _render_ansi(self, viewer: int) -> str:
        from .qwirkle.render import render_ansi

        return render_ansi(self, viewer)

    def _render_rgb(self) -> np.ndarray:
        from .qwirkle.render import render_rgb

        return render_rgb(self)


def env(**kwargs: Any) -> Any:
    """Qwirkle with PettingZoo's standard wrappers (an illegal action ends the game, -1)."""
    return wrap(raw_env(**kwargs))


__all__ = ["DEFAULT_MAX_TURNS", "DEFAULT_WINDOW", "QwirkleView", "env", "raw_env"]
