# The documentation tables below are generated and must stay verbatim, so long lines are allowed.
# ruff: noqa: E501
"""# Liniell

| | |
|---|---|
| Import | `from tabletop_rl.envs import liniell_v0` |
| Actions | Discrete |
| Parallel API | No |
| Manual Control | Yes (`tabletop-rl play`) |
| Agents | `agents= ['player_0', 'player_1']` |
| Players | 2 to 4 (default 2) |
| Action Shape | Discrete(209) |
| Action Values | Discrete(209) |
| Observation Shape | `observation`: (2707,), `action_mask`: (209,) |
| Observation Values | [0, 38] |
| Max Game Length | 32 agent steps |
| Perfect Information | Yes |

Liniell is a tile-laying game for 2 to 4 players: 16 square tiles printed with lines are laid
one by one into a 4 x 4 square, and players put their two pawns on lines to score them at
the end. It is the suite's perfect-information game: nothing is hidden but the order of the
face-down stack, and the drawn tile is face up. Rules: `shared/rules/liniell.md` (the rules
engine is `tabletop_rl.envs.liniell`; every **[decision]** of the reference is implemented
and documented there).

```python
from tabletop_rl.envs import liniell_v0

env = liniell_v0.env(num_players=2, render_mode="ansi")
env.reset(seed=42)
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        action = None
    else:
        action = int(observation["action_mask"].nonzero()[0][0])
    env.step(action)
```

## Arguments

`liniell_v0.env(num_players=2, render_mode=None, reward="win", tile_set="default")`

- `num_players`: 2 to 4. Agents are `player_0` ... `player_{n-1}`; the starting player and
  the stack order are drawn from the seed given to `reset`.
- `reward`: `"win"` or `"score"` (see Rewards).
- `tile_set`: the name of a shipped tile set (`"default"`, the set of the rules reference)
  or the path of a JSON tile set file of your own (format: `tabletop_rl.envs.liniell.tileset`).
  It must hold 16 tiles; it is validated on load with errors that say what is wrong.

## Tiles and lines

Every tile edge carries one *port* at its midpoint (N, E, S, W). A tile partitions its ports
into *pieces*: a piece of 2 to 4 ports is a straight, curve, T branch or cross; a one-port
piece is a *stub* ending in a diamond, empty or blue. Pieces on one tile may cross without
joining (a bridge) or lie side by side (two curves). A *line* is a maximal set of pieces
connected across tile sides; at most one pawn stands on a line.

## Turn structure and actions

A turn is two (sometimes three) steps by the same agent:

1. **Lay** the drawn tile: action `4 * cell + rotation` (0 to 195), where `cell = 7 * row
   + col` indexes a 7 x 7 window whose middle cell (3, 3) takes the first tile. The laid area
   always fits in a 4 x 4 square holding the first tile, so every legal placement lies in
   this window. `rotation` k turns the tile k quarter-turns clockwise (port p of the
   unrotated tile lies at (p + k) mod 4, N=0, E=1, S=2, W=3).
2. **Occupy** (optional): action `196 + 3 * port + source` puts a pawn on the line of the
   tile just laid that holds `port` (each line of the tile is named by its first port in
   N, E, S, W order; the other ports of the same line are masked out). `source` 0 takes a
   pawn from the supply, 1 and 2 move the player's first or second placed pawn, numbered by
   the window cell of the piece it stands on (row by row), then by that piece's first port;
   its old line becomes free. Action `208` occupies nothing.
3. **Compulsory move**: when the laid tile joins lines occupied by pawns of different
   colours (joining lines occupied by one colour is illegal and masked out), the second step
   is the compulsory move instead: the same occupy actions, naming the joined line, with a
   pawn not already on it; action 208 is masked. The pawns that stood on the joined lines go
   back to their owners. If one tile joins occupied lines in two places (possible with 3 or
   4 players), a second compulsory step follows for the second joined line if it still holds
   two pawns. A compulsory move is the player's occupation for the turn.

`env.unwrapped.action_layout()` names the action groups: `lay` with shape (7, 7, 4) (window
row, window column, rotation; board-shaped, so a network can score it per cell), `occupy`
(12,) and `skip` (1,).

The action mask is exact: a lay action is legal if and only if the rules engine accepts the
placement (contact, 4 x 4 square, merge ban), and an occupy action if and only if the line
is free (or is the joined line of a compulsory move) and the pawn exists and may move there.

## Observation

`observation` is one flat float32 vector; `env.unwrapped.layout.decode(obs)` returns named
views of its fields (spatial fields are `(planes, 7, 7)` over the same window as the lay
actions). Players are listed relative to the observer: the observer first, then the
following seats in turn order, padded with zeros to 4.

| field | shape | offset | values | meaning |
|---|---|---|---|---|
| `tiles` | (15, 7, 7) | 0 | [0, 1] | laid tiles in the 7 x 7 window: plane 0 occupied; planes 1-6 one piece joins ports NE, NS, NW, ES, EW, SW; planes 7-10 a stub with an empty diamond at N, E, S, W; planes 11-14 a stub with a blue diamond at N, E, S, W |
| `last_laid` | (1, 7, 7) | 735 | [0, 1] | the tile laid this turn (whose lines the occupy actions name) |
| `pawns` | (16, 7, 7) | 784 | [0, 1] | plane 4 q + p: player q (observer first) has a pawn on the piece of this tile that holds port p (N, E, S, W) |
| `lines` | (16, 7, 7) | 1568 | [0, 1] | plane 4 q + p: the line through port p of this tile is occupied by player q (observer first) |
| `routes` | (4, 7, 7) | 2352 | [0, 19] | plane p: points the line through port p of this tile would score a pawn on it now (its route: rules reference, Scoring); 0 where no tile |
| `own_pawns` | (2, 7, 7) | 2548 | [0, 1] | plane i: the observer's pawn that occupy source i + 1 moves stands on this tile |
| `drawn` | (15,) | 2646 | [0, 1] | the tile to lay, unrotated, as the tiles planes (0 when none) |
| `drawn_kind` | (11,) | 2661 | [0, 1] | kind of the tile to lay, one-hot (tile set order) |
| `stack` | (11,) | 2672 | [0, 16] | tiles of each kind still in the stack (the drawn tile excluded) |
| `stack_size` | (1,) | 2683 | [0, 16] | tiles in the stack |
| `supply` | (4,) | 2684 | [0, 2] | pawns in each player's supply, observer first; 0-padded |
| `scores` | (4,) | 2688 | [0, 38] | each player's score as if the game ended now, observer first |
| `blue` | (4,) | 2692 | [0, 4] | blue diamonds at the ends of each player's scored routes (tie-break) |
| `seated` | (4,) | 2696 | [0, 1] | 1 for each seat in play, observer first |
| `to_act` | (4,) | 2700 | [0, 1] | seat to act, one-hot, observer first |
| `phase` | (3,) | 2704 | [0, 1] | phase one-hot: lay, occupy (optional), compulsory move |

- `tiles`: one plane says where tiles lie; for every pair of ports, a plane says whether one
  piece of the tile joins them (a cross sets all six, a bridge NS and EW); the stub planes
  mark diamonds by the port they hang on and their colour.
- `last_laid`: the tile just laid, during the occupy and compulsory steps.
- `pawns` / `lines`: for every player, where their pawns stand (the ports of the piece under
  the pawn) and which lines they occupy (every port of every piece of those lines).
- `routes`: for every port of every laid tile, the points its line would score the player
  whose pawn stood on it if the game ended now (the route a greedy player reads from the
  rules engine; `scores` is the sum of these over each player's occupied lines). Lines whose
  route score would take a search over the whole board to infer are thereby one plane away.
- `own_pawns`: where the observer's placed pawns stand, in the numbering of the occupy
  actions' `source` (plane 0: source 1, plane 1: source 2).
- `drawn`, `drawn_kind`: the tile to lay during the lay step (zeros otherwise).
- `stack`, `stack_size`: the tiles still face down, by kind (their order is hidden).
- `supply`, `scores`, `blue`: pawns in supply; the score every player would get if the game
  ended now (routes of their occupied lines, rules reference "Scoring"), and the blue
  diamonds at their routes' ends (the tie-break).
- `seated`, `to_act`, `phase`: seats in play, the seat to act, and the step.

## Rewards

- `reward="win"` (default): at the end +1 to every winner and -1 to every other player; 0 to
  everyone if all players tie. Ties on points go to the player with more blue diamonds at
  the ends of their scored routes; players still tied share the win (each gets +1 if not
  everyone is tied).
- `reward="score"`: after every step, each player receives the change of their provisional
  score (the `scores` field), so that a player's rewards over a game sum to their final
  score. Occupying, moving and losing a pawn, and tiles that lengthen or close a line all
  change it.

## Termination

The game ends after the turn in which the 16th tile is laid (its occupation or compulsory
move included), or at once when a drawn tile cannot be laid in any position and rotation
(**[decision]**: for any tile, not only the last). Then the ends of lines include the sides
of missing tiles. There is no truncation: a game lasts at most 32 agent steps with 2 players
and 48 with 3 or 4.

## Rendering

- `"ansi"`: the laid area, 3 x 3 characters per tile: every port shows the letter of its line
  (upper case in the occupying player's colour) or its diamond (◇ empty, ◆ blue); the centre
  shows the tile's pieces, or ● where a pawn stands; then scores, supplies, and the tile to lay.
- `"rgb_array"`: a picture of the laid area: tiles with their straights, curves, branches
  and bridges, lines in the occupying player's colour (grey when free), empty and blue
  diamonds, pawns as discs in player colours, and the scores.
- `"human"`: prints the ansi picture after every step.

## Other methods

- `public_view(agent)`: a copy of the rules engine's `Game` with the stack sorted, for
  scripted agents; `resample_hidden(agent, rng)` reshuffles the stack; `dump()` prints the
  whole state in the engine's text notation.

## Version history

- v0: first release (before it, the `routes` and `own_pawns` planes were added to the earlier
  2,413-entry observation; PPO results with and without them: `docs/results/ppo.md`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .core.aec import StepResult, TabletopAECEnv, wrap
from .core.game_info import GameInfo
from .core.observation import Field, ObservationLayout
from .errors import ConfigError
from .liniell.board import NUM_CELLS, PAWNS_PER_PLAYER, WINDOW
from .liniell.game import Game, Occupation, PawnSource, Phase
from .liniell.tiles import Diamond, Orientation, Port
from .liniell.tileset import NUM_TILES, TileSet, TileSetError, load_tile_set

MAX_PLAYERS = 4
NUM_LAY = NUM_CELLS * 4
"""Lay actions: window cell x rotation."""
OCCUPY = NUM_LAY
"""First occupy action: ``OCCUPY + 3 * port + source``."""
NUM_SOURCES = len(PawnSource)
SKIP = OCCUPY + 4 * NUM_SOURCES
NUM_ACTIONS = SKIP + 1
MAX_ROUTE = NUM_TILES + 3
"""A route scores at most 16 tiles + 1 closed + 2 blue."""
MAX_SCORE = PAWNS_PER_PLAYER * MAX_ROUTE
PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
"""Port pairs of the connectivity planes: NE, NS, NW, ES, EW, SW."""
TILE_FEATURES = 1 + len(PAIRS) + 8
"""Per tile: occupied, 6 port pairs joined by one piece, 4 empty stubs, 4 blue stubs."""


def _info(num_players: int) -> GameInfo:
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


class raw_env(TabletopAECEnv):
    """Liniell for 2 to 4 players (see the module docstring)."""

    info = _info(2)
    metadata = {**TabletopAECEnv.metadata, "name": "liniell_v0"}

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        reward: str = "win",
        tile_set: str | Path | TileSet = "default",
    ) -> None:
        if not isinstance(tile_set, str | Path | TileSet):
            raise ConfigError(
                f"tile_set must be a tile set name, a path or a TileSet, got {tile_set!r}"
            )
        self.tile_set = load_tile_set(tile_set)
        self._kinds = len(self.tile_set.kinds)
        # [kind][rotation] -> tile features; [kind][rotation][group] -> ports
        self._features = [
            [tile_features(k.orient(r)) for r in range(4)] for k in self.tile_set.kinds
        ]
        if isinstance(num_players, int) and num_players in (3, 4):
            self.info = _info(num_players)
        super().__init__(num_players=num_players, render_mode=render_mode, reward=reward)
        self._points: list[int] = [0] * self.num_players
        sl = {f.name: self.layout.slice(f.name) for f in self.layout}
        self._slices = sl
        n = self.num_players
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
        self._reset_buffers()

    def _reset_buffers(self) -> None:
        # The observer-independent part of the observation, kept up to date step by step.
        self._base = self.layout.zeros()
        self._base[
            self._slices["seated"].start : self._slices["seated"].start + self.num_players
        ] = 1
        # [pawns | lines][absolute player][port * 49 + cell]
        self._planes = np.zeros((2, MAX_PLAYERS, 4 * NUM_CELLS), dtype=np.float32)
        self._planes_dirty = False
        # [supply | points | blue][absolute player]
        self._numbers = np.zeros((3, MAX_PLAYERS), dtype=np.float32)
        self._numbers_dirty = True
        self._shown_last = -1
        self._shown_head: tuple[int, int] = (-2, -1)

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

    # -------------------------------------------------------------- state
    def _new_state(self, rng: np.random.Generator) -> Game:
        game = Game.new(rng, self.num_players, self.tile_set)
        self.state = game
        self._points = [0] * self.num_players
        self._reset_buffers()
        self._sync()
        return game

    def _current_player(self) -> int:
        return self.state.current

    # ------------------------------------------------------------ actions
    def action_layout(self) -> ObservationLayout:
        """The action groups: lay (window row, window col, rotation), occupy, skip.

        The lay group is board-shaped and cell by cell (``4 * cell + rotation``), so a network
        can score it with a per-cell head over the observation's 7 x 7 window.

        >>> [(g.name, g.shape) for g in raw_env().action_layout()]
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

    def describe_action(self, action: int) -> str:
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

    def _legal_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        game = self.state
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

    def _explain_illegal(self, action: int) -> str:
        game = self.state
        phase = game.phase
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

    def _apply(self, action: int) -> StepResult:
        game = self.state
        board = game.board
        if action < NUM_LAY:
            cell, rotation = divmod(action, 4)
            kind = game.drawn
            game.lay(cell, rotation)
            self._base[self._tile_index[cell]] = self._features[kind][rotation]  # type: ignore[index]
            self._update_routes(cell)
            # pawns return after a join; an occupied line through the new tile changed shape
            find = board.lines.find
            pieces = len(board.cell_orient[cell].groups)  # type: ignore[union-attr]
            new_roots = {find(cell * 4 + g) for g in range(pieces)}
            if game.phase is Phase.MOVE or any(
                find(p) in new_roots for slots in board.pawns for p in slots if p >= 0
            ):
                self._planes_dirty = self._numbers_dirty = True
        elif action == SKIP:
            game.skip()
        else:
            port, source = divmod(action - OCCUPY, NUM_SOURCES)
            game.occupy(Occupation(Port(port), PawnSource(source)), check=False)
            self._planes_dirty = self._numbers_dirty = True
        self._sync()
        points: dict[int, float] = {}
        if self.reward_mode == "score":
            now = self._player_points()
            points = {
                p: float(now[p] - self._points[p])
                for p in range(self.num_players)
                if now[p] != self._points[p]
            }
            self._points = now
        return StepResult(points=points, game_over=game.is_over)

    # -------------------------------------------------------- observation
    def _sync(self) -> None:
        """Bring the observer-independent observation up to date after a step."""
        game, base, sl = self.state, self._base, self._slices
        phase = game.phase
        shown = game.last_cell if phase is Phase.OCCUPY or phase is Phase.MOVE else -1
        if shown != self._shown_last:
            start = sl["last_laid"].start
            if self._shown_last >= 0:
                base[start + self._shown_last] = 0
            if shown >= 0:
                base[start + shown] = 1
            self._shown_last = shown
        drawn = game.drawn if phase is Phase.LAY and game.drawn is not None else -1
        head = (drawn, len(game.stack))
        if head != self._shown_head:
            k = self._kinds
            stack = [0] * k
            for kind in game.stack:
                stack[kind] += 1
            if drawn >= 0:
                tile = [*self._feature_lists[drawn], *self._one_hot[drawn]]
            else:
                tile = [0] * (TILE_FEATURES + k)
            base[self._head_slice] = [*tile, *stack, len(game.stack)]
            self._shown_head = head
        base[sl["phase"]] = (phase is Phase.LAY, phase is Phase.OCCUPY, phase is Phase.MOVE)

    def _update_numbers(self) -> None:
        """Supply, provisional points and blue route ends of every player."""
        board = self.state.board
        find = board.lines.find
        score = board.line_score
        supply, points, blue = [], [], []
        for slots in board.pawns:
            routes = [score(find(p)) for p in slots if p >= 0]
            supply.append(len(slots) - len(routes))
            points.append(sum(r.points for r in routes))
            blue.append(sum(r.blue for r in routes))
        self._numbers[:, : self.num_players] = (supply, points, blue)
        self._numbers_dirty = False

    def _player_points(self) -> list[int]:
        # Scores change only when pawns move or an occupied line grows (then the flag is set).
        if self._numbers_dirty:
            self._update_numbers()
        return [int(x) for x in self._numbers[1, : self.num_players]]

    def _refresh_planes(self) -> None:
        flat = self._planes.reshape(-1)
        flat[:] = 0
        board = self.state.board
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
        self._planes_dirty = False

    def _update_routes(self, cell: int) -> None:
        """The ``routes`` planes after a lay on ``cell``: only the lines through the new tile
        change (every other line keeps its pieces and ends), and every port of theirs, on any
        tile, takes its line's new route score."""
        board = self.state.board
        find, routes = board.lines.find, self._base[self._slices["routes"]]
        for group in range(len(board.cell_orient[cell].groups)):  # type: ignore[union-attr]
            root = find(cell * 4 + group)
            routes[board.line_ports(root)] = board.line_score(root).points

    def _observation(self, player: int) -> np.ndarray:
        if self._planes_dirty:
            self._refresh_planes()
        if self._numbers_dirty:
            self._update_numbers()
        obs = self._base.copy()
        take_planes, take_numbers = self._takes[player]
        np.take(self._planes.reshape(-1), take_planes, out=obs[self._planes_slice])
        np.take(self._numbers.reshape(-1), take_numbers, out=obs[self._numbers_slice])
        board = self.state.board
        start = self._slices["own_pawns"].start
        for i, piece in enumerate(board.placed_pieces(player)):
            obs[start + i * NUM_CELLS + (piece >> 2)] = 1
        obs[self._slices["to_act"].start + (self.state.current - player) % self.num_players] = 1
        return obs

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self._observation(self._agent_index[agent])
        running = not (self.terminations.get(agent) or self.truncations.get(agent))
        if agent == self.agent_selection and running:
            mask = self.action_mask().copy()
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def _observe_into(self, player: int, views: dict[str, np.ndarray]) -> None:
        filled = self.layout.views(self._observation(player))
        for name, view in views.items():
            view[...] = filled[name]

    # ------------------------------------------------------------- extras
    def _winners(self) -> list[int]:
        return self.state.winners()

    def final_scores(self) -> list[float]:
        """Every seat's provisional score (as if the game ended now; final once it is over)."""
        return [float(s.points) for s in self.state.scores()]

    def public_view(self, agent: str) -> Game:
        """A copy of the game whose stack is sorted: everything but the stack order.

        Liniell has no hidden hands; the drawn tile is face up. Agents may simulate moves on
        the copy with the rules engine.
        """
        if agent not in self._agent_index:
            raise ConfigError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        return self.state.public_copy()

    def resample_hidden(self, agent: str, rng: np.random.Generator) -> None:
        """Reshuffle the order of the stack (nobody can see it).

        The new order depends only on the stack's contents and ``rng``, never on the old
        order, so a determinisation carries nothing the player cannot see.
        """
        stack = sorted(self.state.stack)
        self.state.stack[:] = [stack[i] for i in rng.permutation(len(stack))]
        self._mask = None

    def dump(self) -> str:
        """The whole game state as text, for bug reports."""
        return self.state.to_text()

    def _render_ansi(self, viewer: int) -> str:
        from .liniell.render import render_ansi

        return render_ansi(self.state, viewer)

    def _render_rgb(self) -> np.ndarray:
        from .liniell.render import render_rgb

        return render_rgb(self.state)


def env(**kwargs: Any) -> Any:
    """Liniell with PettingZoo's standard wrappers (an illegal action ends the game, -1)."""
    return wrap(raw_env(**kwargs))


__all__ = ["NUM_ACTIONS", "OCCUPY", "SKIP", "TileSetError", "env", "raw_env", "tile_features"]
