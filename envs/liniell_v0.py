# The documentation tables below are generated and must stay verbatim, so long lines are allowed.
# ruff: noqa: E501
"""# Liniell

| | |
|---|---|
| Import | `from tabletop_rl.envs import liniell_v0` |
| Actions | Discrete |
| Parallel API | Yes (`parallel_env()`, turn-based) |
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
face-down stack, and the drawn tile is face up. Rules: `docs/rules/liniell.md` (the rules
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

`liniell_v0.env(num_players=2, render_mode=None, reward="win", tile_set="default", engine="compiled", features=False)`

- `num_players`: 2 to 4. Agents are `player_0` ... `player_{n-1}`; the starting player and
  the stack order are drawn from the seed given to `reset`.
- `reward`: `"win"` or `"score"` (see Rewards).
- `tile_set`: the name of a shipped tile set (`"default"`, the set of the rules reference)
  or the path of a JSON tile set file of your own (format: `tabletop_rl.envs.liniell.tileset`).
  It must hold 16 tiles; it is validated on load with errors that say what is wrong.
- `engine`: `"compiled"` (default: the numba core, `tabletop_rl.envs.liniell.compiled`) or
  `"reference"` (the readable rules engine it is checked against). The same seed gives the
  same game, observation for observation, in both.
- `features`: append the feature fields to the observation (see Features); off by default.

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

## Features

With `features=True` the observation continues after `phase` with seven fields that say what
each lay would do, as the rules engine computes it (`tabletop_rl.envs.liniell.features`), two
that say what each occupation would do, one about the lines' open ends, two that give
greedy's value of each action of the occupy step, and three that give the heuristic agent's
value of every action. A lay changes
routes several tiles away (a route is a longest path), which the `routes` planes show only
for the position as it is; the `lay_` fields give every legal lay's consequence, the numbers
the greedy agent reads from the rules engine and the open ends the heuristic agent weighs.
They follow the lay action group: shape (7, 7, 4) (window row, window column, rotation;
`channels_last`, over the window of the `tiles` planes), entry `4 * cell + rotation` for lay
action `4 * cell + rotation`; the `occupy_` fields follow the occupy action group (entry `3 *
port + source`), `skip_turn_margin` and `skip_turn_value` the skip action. Each declares its group as its `action_group`, which `action_features: true`
in a PPO config reads. They are 0 for illegal actions, outside their step and when the
observer is not the player to act. No feature depends on the hidden stack order. Both
engines give the same values.

| field | shape | offset | values | meaning |
|---|---|---|---|---|
| `lay_legal` | (7, 7, 4) | 2707 | [0, 1] | 1 for each legal lay of the drawn tile (cell x rotation) |
| `lay_gain` | (7, 7, 4) | 2903 | [-38, 38] | change of the observer's provisional score that this lay makes |
| `lay_opponent_gain` | (7, 7, 4) | 3099 | [-38, 38] | change of the best opponent's provisional score that this lay makes |
| `lay_turn_margin` | (7, 7, 4) | 3295 | [-38, 38] | observer's score minus the best opponent's after the best turn starting with this lay (best occupation, none, or compulsory moves): greedy's value of the lay |
| `lay_join` | (7, 7, 4) | 3491 | [0, 1] | 1 where this lay joins lines of different players (a compulsory move follows) |
| `lay_open_ends` | (7, 7, 4) | 3687 | [-128, 128] | change of the open-end margin (the observer's open ends less the most of an opponent's) that this lay makes |
| `lay_merge_points` | (7, 7, 4) | 3883 | [-49, 49] | change of the number of merge points at the observer's lines that this lay makes |
| `occupy_open_ends` | (12,) | 4079 | [-128, 128] | change of the open-end margin that this occupation (or compulsory move) makes |
| `occupy_merge_points` | (12,) | 4091 | [-49, 49] | change of the number of merge points at the observer's lines that this occupation (or compulsory move) makes |
| `open_ends` | (4, 7, 7) | 4103 | [0, 4] | plane q: at each empty cell that can still receive a tile (4 x 4 rule), the sides facing a line occupied by player q (observer first): open ends, and merge points where two players' lines meet |
| `occupy_turn_margin` | (12,) | 4299 | [-38, 38] | observer's score minus the best opponent's after the best finish of the turn that starts with this occupation (or compulsory move): greedy's value of it |
| `skip_turn_margin` | (1,) | 4311 | [-38, 38] | observer's score minus the best opponent's if the turn ends now with no occupation (0 where skipping is not legal): greedy's value of skipping |
| `lay_turn_value` | (7, 7, 4) | 4312 | [-76, 76] | the heuristic agent's value of the position after the best turn that starts with this lay: its lines' points and open ends, pawns in reserve and merge risk, less the best opponent's (turn_values.position_value) |
| `occupy_turn_value` | (12,) | 4508 | [-76, 76] | the heuristic agent's value of the position after the best turn that starts with this occupation (or compulsory move): its lines' points and open ends, pawns in reserve and merge risk, less the best opponent's (turn_values.position_value) |
| `skip_turn_value` | (1,) | 4520 | [-76, 76] | the heuristic agent's value of the position after the best turn that starts with this skip: its lines' points and open ends, pawns in reserve and merge risk, less the best opponent's (turn_values.position_value) (0 where skipping is not legal) |

- `lay_gain`, `lay_opponent_gain`: the lay alone, before any occupation: lines through the
  new tile grow, close with a diamond, or change route (a score can fall: a second diamond
  makes a line score diamond to diamond). "Best opponent" is the highest score among the
  other seats, before and after the lay.
- `lay_turn_margin`: the lay followed by the occupation (or none) that leaves the best
  margin, or after a join the best compulsory moves; the highest entry is the greedy
  agent's lay.
- `lay_join`: the lay joins lines occupied by different players, so a compulsory move
  follows: the observer moves a pawn onto the joined line and the pawns on it go home.
- `lay_open_ends`, `occupy_open_ends`: the change the action alone makes (the lay before
  any occupation; the occupation or compulsory move) to the observer's **open-end margin**:
  the `open_ends` planes summed, the observer's plane less the largest of another player's.
  A lay that extends the observer's line towards cells still to fill raises it, one that
  closes it or opens an opponent's line lowers it; occupying a line adds its open ends.
- `lay_merge_points`, `occupy_merge_points`: the change the action makes to the number of
  **merge points** at the observer's lines: cells that can still receive a tile and face both
  a line of the observer and a line of another player, where the next player can join them
  and take the line.
- `occupy_turn_margin`, `skip_turn_margin` (features revision 3): the occupy step's
  counterpart of `lay_turn_margin`, in the same units. An occupation adds its line's points
  to the observer's score (a pawn moved from another line takes that line's away); a
  compulsory move is followed by the best of the moves still due. Skipping leaves the margin
  as it is. The highest entry among the legal actions is the greedy agent's choice; beside
  `occupy_open_ends` and `occupy_merge_points` they let a policy weigh an occupation's points
  against its open ends and merge points as `lay_turn_margin` does for a lay.
- `lay_turn_value`, `occupy_turn_value`, `skip_turn_value` (features revision 4): the
  value the scripted `heuristic` agent gives the position after the best turn that starts
  with the action (`tabletop_rl.envs.liniell.turn_values`, with the heuristic's default
  weights, which are defined there): each of the observer's lines is worth its points plus
  0.8 per open end (at most 3 counted), each pawn in supply 2 x the share of tiles still to
  lay, less 0.6 x its most valuable line at a merge point; less the best opponent's same
  total, whose line at a merge point costs it 0.25 x its value; the final margin once no
  tile is left. The highest entry among the legal actions is the heuristic's choice (the
  tests compare every entry with the heuristic agent's own search), so a weighted sum of
  these and the fields above is a teacher a policy with action features can copy.
- `open_ends`: for every player (observer first), at every empty cell that can still
  receive a tile (the laid area with it fits a 4 x 4 square), how many of its sides face a
  line that player occupies. Every such cell is filled before the game ends, so these are
  the ends where a line's route still grows; a cell facing two players' lines is a merge
  point, where the next player to lay there can join the lines and take the joined one.
  Shown in every step, to every observer.

Cost: one numba kernel tries every legal lay (about 22 per lay step in random play) on a
copy of the state, with the rest of the turn, and counts the open ends after each; another
tries every legal occupation; `open_ends` is one pass over the window.
`python benchmarks/bench_liniell_features.py --games 60 --repeats 7` (best of 7 passes, 2
players, three runs on an idle 2-core machine; figures vary by up to 2x between runs):
`observe` of a lay step 2-4 us without features and 48-73 us with, of an occupy step 2-4 us
and 26-49 us; a model `step` 3-5 us; a whole agent step through `raw_env` (step and next
observation) 22-36 us without, 55-91 us with; a game step of the compiled batch
(`VectorGames(..., features=True)` stays on it; 64 games) 3-8 us without, 20-26 us with.
With the reference engine the same values come from copying and stepping its states
(milliseconds per lay step). Revision 3's two fields finish the turn after each occupation
(the same search as `lay_turn_margin`): the same benchmark, revision 2 and 3 alternately,
twice each on another idle 2-core machine, 2 players: `observe` of an occupy step 51.2-51.7 us
before, 53.9-54.1 us after; a compiled batch game step 35.2-35.7 us before, 33.0-36.0 us after
(within the runs' spread). Revision 4's three fields value the position at every finish of
those searches (`turn_values.compiled_position_value`, two passes over the fillable cells):
the same benchmark, revision 3 and 4 alternately, twice each on the idle machine, 2 players:
`observe` of a lay step 61.6-87.9 us before, 118.4-211.2 us after; of an occupy step
34.9-50.1 us before, 54.5-64.5 us after; a compiled batch game step 23.0-24.6 us before,
58.7-67.6 us after.

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
  2,413-entry observation).
- v0, `features` option: the five lay feature fields and `open_ends` (off by default; the
  observation without them is unchanged).
- v0, features revision 2: `lay_open_ends`, `lay_merge_points`, `occupy_open_ends` and
  `occupy_merge_points` (the observation with features grows from 3,883 to 4,299 entries;
  without features it is unchanged). Policies trained on revision 1 no longer load.
- v0, features revision 3: `occupy_turn_margin` and `skip_turn_margin` appended after
  `open_ends` (4,312 entries; the fields before them keep their offsets). Policies trained
  on revision 2 no longer load; the shipped `ppo:pretrained/liniell_v0` was retrained on
  revision 3.
- v0, features revision 4: `lay_turn_value`, `occupy_turn_value` and `skip_turn_value`
  appended after `skip_turn_margin` (4,521 entries; the fields before them keep their
  offsets). Policies trained on revision 3 no longer load; the shipped
  `ppo:pretrained/liniell_v0` was retrained on revision 4.
- v0, observation versions: every saved policy carries the version of the observation it was
  trained on (`tabletop_rl.envs.core.features.observation_version`: the game, the revision of
  the observation without features, the features revision and a digest of the layout's
  fields), and loading one trained on another version fails with an error naming both. The
  current versions are `liniell_v0/obs1/ba6281ec` without features and
  `liniell_v0/obs1/liniell-features4/98d5f3d1` with them (a tile set of another number of
  kinds gives another digest); the shipped `ppo:pretrained/liniell_v0` carries the latter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .core.aec import TabletopAECEnv, wrap
from .core.features import with_features
from .core.model import GameModel, check_engine
from .errors import ConfigError
from .liniell.actions import NUM_ACTIONS, NUM_LAY, NUM_SOURCES, OCCUPY, SKIP
from .liniell.model import (
    MAX_PLAYERS,
    MAX_ROUTE,
    MAX_SCORE,
    PAIRS,
    TILE_FEATURES,
    LiniellModel,
    game_info,
    tile_features,
)
from .liniell.tileset import TileSet, TileSetError


class raw_env(TabletopAECEnv):
    """Liniell for 2 to 4 players (see the module docstring); the game is
    :class:`~tabletop_rl.envs.liniell.model.LiniellModel`."""

    info = game_info(2)
    metadata = {**TabletopAECEnv.metadata, "name": "liniell_v0"}

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        reward: str = "win",
        tile_set: str | Path | TileSet = "default",
        engine: str = "compiled",
        features: bool = False,
    ) -> None:
        if check_engine(engine) == "compiled":
            from .liniell.compiled_model import LiniellCompiledModel

            model: GameModel = LiniellCompiledModel(num_players=num_players, tile_set=tile_set)
        else:
            model = LiniellModel(num_players=num_players, tile_set=tile_set)
        if not isinstance(features, bool):
            raise ConfigError(f"features must be True or False, got {features!r}")
        self.engine = engine
        self.features = features
        self.tile_set = model.tile_set
        if features:
            from .liniell.features import LINIELL_FEATURES

            model = with_features(model, LINIELL_FEATURES)
        super().__init__(model, render_mode=render_mode, reward=reward)


def parallel_env(**kwargs: Any) -> Any:
    """The parallel API (PettingZoo's ``turn_based_aec_to_parallel``): every step takes an
    action for the agent to act; the other agents' entries are ignored."""
    return turn_based_aec_to_parallel(env(**kwargs))


def env(**kwargs: Any) -> Any:
    """Liniell with PettingZoo's standard wrappers (an illegal action ends the game, -1)."""
    return wrap(raw_env(**kwargs))


__all__ = [
    "MAX_PLAYERS",
    "MAX_ROUTE",
    "MAX_SCORE",
    "NUM_ACTIONS",
    "NUM_LAY",
    "NUM_SOURCES",
    "OCCUPY",
    "PAIRS",
    "SKIP",
    "TILE_FEATURES",
    "TileSetError",
    "env",
    "parallel_env",
    "raw_env",
    "tile_features",
]
