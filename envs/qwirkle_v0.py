"""Qwirkle (``qwirkle_v0``): 2 to 4 players lay tiles of six colours and six shapes in lines.

| | |
|---|---|
| Import | `from tabletop_rl.envs import qwirkle_v0` |
| Actions | Discrete |
| Parallel API | Yes (`parallel_env()`, turn-based) |
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
The rules engine is :mod:`tabletop_rl.envs.qwirkle`; it implements ``docs/rules/qwirkle.md``
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

Options: ``raw_env(num_players=2, render_mode=None, reward="win", max_turns=1000, window=39,
engine="compiled", features=False)``; ``features=True`` appends the observation features
described under *Features*. ``engine="compiled"`` (the default) runs the numba core
(``tabletop_rl.envs.qwirkle.compiled``); ``engine="reference"`` the readable rules engine it is
checked against. The same seed gives the same game, observation for observation, in both.

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

Features
--------
``raw_env(features=True)`` appends fields that the rules engine knows and a network would
otherwise have to rediscover (:mod:`tabletop_rl.envs.qwirkle.features`). The observation grows
to 83,789 entries at the default window; ``env.layout.decode`` names the new fields too:

| field | shape | offset | values | meaning |
|---|---|---|---|---|
| `place_legal` | (6, 39, 39) | 21424 | [0, 1] | legal placements (slot, row, col); 0 off turn |
| `place_points` | (6, 39, 39) | 30550 | [0, 90] | turn's points if it ended after that placement |
| `line_length` | (2, 39, 39) | 39676 | [0, 13] | line through the cell (row, column), 0 if none |
| `line_open` | (2, 39, 39) | 42718 | [0, 2] | ends of a tile's line that a tile kind fits |
| `cell_kinds` | (1, 39, 39) | 45760 | [0, 36] | tile kinds that fit an empty cell next to tiles |
| `turn_points` | (1,) | 47281 | [0, 90] | points of ending the turn now if legal, else 0 |
| `place_best` | (6, 39, 39) | 47282 | [0, 90] | best whole turn's points after this placement |
| `place_net` | (6, 39, 39) | 56408 | [-84, 90] | best whole turn's points less those it hands on |
| `turn_net` | (1,) | 65534 | [-84, 90] | ending the turn now: points less those handed on |
| `place_plan` | (6, 39, 39) | 65535 | [-84, 126] | place_net plus 0.4 x the kept tiles' next move |
| `turn_plan` | (1,) | 74661 | [-84, 126] | turn_net plus 0.4 x the kept tiles' next move |
| `place_endgame` | (6, 39, 39) | 74662 | [-90, 180] | place_plan; 3-ply search once bag is empty |
| `turn_endgame` | (1,) | 83788 | [-90, 180] | turn_plan; 3-ply search once bag is empty |

- Every spatial field lies over the ``board`` window's cells; ``place_legal``,
  ``place_points``, ``place_best``, ``place_net``, ``place_plan`` and ``place_endgame`` are in
  the placement actions' order (plane ``slot``, row, column: entry ``slot * C + row * W + col``
  belongs to action ``slot * C + row * W + col``), and ``turn_points``, ``turn_net``,
  ``turn_plan`` and ``turn_endgame`` belong to the end-turn action:
  each declares that action group (``Field.action_group``), which ``action_features: true``
  in a PPO config reads.
- ``place_legal``: the placement part of the observer's action mask; all zeros when the
  observer is not the player to act (so are ``place_points``, ``turn_points``,
  ``place_best``, ``place_net``, ``turn_net``, ``place_plan``, ``turn_plan``,
  ``place_endgame`` and ``turn_endgame``).
- ``place_points``: for each legal placement, the points the turn would score if it ended
  right after that tile: the tiles laid so far this turn plus this one scored as one move
  (main line, cross lines, 6 more per Qwirkle), plus the 6-point end bonus when the tile
  empties the hand while the bag is empty (the game then ends). On the start row it is what
  the row laid so far would score (one point per tile, a lone tile 1, a Qwirkle 12), although
  the start row can only end once the whole largest set is down. At most 90: a main line and
  six cross lines, each a Qwirkle, and the bonus.
- ``turn_points``: the points of ending the turn now (the tiles laid this turn as one move,
  the end bonus included) when the mask allows it; 0 otherwise (no tile laid yet, or a start
  row not yet complete).
- ``place_best``: for each legal placement, the most points of a whole turn that makes it
  next: the tiles laid so far, this one, then the best way to go on (more tiles along the
  same line, or none), the end bonus included; the start row counts only complete. At a
  turn's start its maximum is the best move's score and its argmax are the greedy agent's
  choices (the first tile of a best move, in any order the rules allow); during a turn it
  says how to complete the best move. Where ``place_points`` scores the turn ending now,
  ``place_best`` looks ahead to the end of the turn (never further: not at the next
  player's reply).
- ``place_net``: for each legal placement, the most, over the whole turns that make it next
  (as for ``place_best``), of the turn's points less the points it *hands on*: the expected
  points the next player gets by completing a line of five that the turn leaves (seed 001's
  tip: "Sei vorsichtig mit Reihen aus 5 Steinen"). Each line of five through a tile of the
  turn (counted once) whose missing tile kind may be laid alone on one of its two ends hands
  on 12 (the Qwirkle of 6) times the probability that the next player's hand holds a copy of
  that kind: a hand of the next player's size drawn from the tiles the observer cannot see
  (the ``unseen`` counts: bag and other hands). No unseen copy, nothing handed on; a turn
  that ends the game hands on nothing. The turn that maximises ``place_net`` need not be the
  one that maximises ``place_best``. At least -84 (seven lines of five, each surely
  completed, and no points: never reached).
- ``turn_net``: the same for ending the turn now (``turn_points`` less what the laid tiles
  hand on) when the mask allows it; 0 otherwise.
- ``place_plan``: for each legal placement, the most, over the whole turns that make it next,
  of the turn's net value (as for ``place_net``) plus 0.4 times its *follow-up*: the most
  points one legal move of the tiles the turn keeps in hand (before any draw) scores on the
  board the turn leaves, inside the window, the end bonus included when it empties the hand
  with the bag empty; 0 when no kept tile fits or the turn lays the whole hand. It ignores
  the next player's reply and the tiles drawn in between: a plan, not a forecast. Among turns
  of near-equal value it prefers the one whose kept tiles score next.
  **[measured]** The weight (``FOLLOW_UP_WEIGHT`` in
  :mod:`tabletop_rl.envs.qwirkle.follow_ups`) is the one of a screen against the heuristic;
  a weight of 1 was weaker than none.
- ``turn_plan``: the same for ending the turn now (``turn_net`` plus 0.4 times the follow-up
  of the tiles laid so far) when the mask allows it; 0 otherwise.
- ``place_endgame``: ``place_plan``, until the bag is empty in a two-player game. From then on
  the opponent's rack is exactly the tiles the observer cannot see (``unseen``), nothing is
  hidden, and for each legal placement it is the most, over the whole turns that make it
  next, of the turn's *endgame value* (:mod:`tabletop_rl.envs.qwirkle.endgame`): its points
  (end bonus included; a turn that lays the whole hand ends the game and is worth its points),
  less the most points of the opponent's reply (its end bonus included; when a reply of those
  points lays the opponent's whole rack the game ends and the value stops there), plus the
  most points of the observer's next move with the tiles the turn keeps, on the board the
  reply leaves, the reply of those most points assumed that leaves it the fewest (with no
  legal reply, the kept tiles' best move on the turn's own board). Every move lies inside
  the window. Within [-90, 180]: a reply scores at most 90, a turn and the next move at most
  90 each.
- ``turn_endgame``: the same for ending the turn now (``turn_plan`` before the endgame) when
  the mask allows it; 0 otherwise.
- ``line_length`` (plane 0 rows, plane 1 columns): on a tile, the length of its line in that
  direction; on an empty cell, the length of the line a tile laid there would make (the
  tiles on both sides plus itself); 0 when the cell, counted as a tile, would have no
  neighbour in that direction (a line of one is not a line). Up to 13 on an empty cell
  between two full lines (no tile could be laid there).
- ``line_open`` (plane 0 rows, plane 1 columns): on a tile, how many of the two ends of its
  line in that direction (the first empty cell past each end) could take a tile: some tile
  kind may be laid there alone under the rules (every line through it stays valid), whatever
  the hands hold. A complete line of 6 has no open end; an end off the window counts as
  closed. 0 on empty cells.
- ``cell_kinds``: on each empty cell next to a tile, how many of the 36 tile kinds may be laid
  there alone (the same test); 0 elsewhere. A cell where no kind fits is a dead cell.
- All but ``place_best``, ``place_net``, ``turn_net``, ``place_plan``, ``turn_plan``,
  ``place_endgame`` and ``turn_endgame`` are computed from the ``board`` planes (this turn's
  tiles included), ``bag_size``, ``hand_sizes`` and the mask, by one compiled kernel over the
  laid area, so both engines give the same features. The other seven come from one search
  that lays the observer's own tiles
  (:mod:`tabletop_rl.envs.qwirkle.best_turns`: over the compiled engine's masks, or from the
  reference engine's move generator; both tested against a search through the game model; the
  follow-ups of :mod:`tabletop_rl.envs.qwirkle.follow_ups` against a brute force over the
  kept tiles' placements, and the endgame search against the three plies played through the
  game model). The batched games compute them too: ``VectorGames("qwirkle_v0",
  features=True)`` stays on the compiled batch, whose observations with features equal the feature
  model's (tested). Their cost on the compiled engine (``python
  benchmarks/qwirkle_features_cost.py --games 3 --rounds 3 --num-envs 64``: 1,224 positions of
  random games, CPU time, best of 3 rounds, the 2-core machine idle): per observation, the base
  ``observe`` 3.7 us, the legal mask the features read 2.7 us, the feature writer 1,420.2 us,
  ``observe`` with features 1,452.9 us in all; per game step of a batch of 64 games, 2.2 us
  without features and 1,262.0 us with them (before the endgame fields: 884.9 us, 933.1 us and
  1,231.1 us). The follow-ups and the endgame search are most of it: before the follow-ups
  (``place_plan``, ``turn_plan``) the same benchmark (``--games 20 --rounds 5``, the machine
  idle) gave a feature writer of 83.7 us (72.3 us before ``place_net`` and ``turn_net``, 16.0 us
  before ``place_best``) and 103.1 us per batch game step (95.0 us before ``place_net``, 37.7 us
  before ``place_best``). A training step costs more in the network than in the features even
  so: the shipped run made 57,261 learner steps in its 10 minutes (62,610 before revision 5,
  66,862 before revision 4).
- ``env.symmetries()`` is ``None`` with features: under a rotation the row and column planes of
  ``line_length`` and ``line_open`` swap, which the board symmetries do not express.

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
- v0, ``features`` option: ``features=True`` appends the *Features* fields (``place_legal``,
  ``place_points``, ``line_length``, ``line_open``, ``cell_kinds``, ``turn_points``); the
  default observation is unchanged.
- v0, ``features`` option, second revision: ``place_best`` appended after ``turn_points``
  (the observation with features grows from 47,282 to 56,408 entries; the fields before it
  keep their offsets). Policies trained on the first revision no longer load (a clear error
  says so); the shipped ``ppo:pretrained/qwirkle_v0`` was retrained on the second.
- v0, ``features`` option, third revision: ``place_net`` and ``turn_net`` appended after
  ``place_best`` (65,535 entries; the fields before them keep their offsets). Policies trained
  on the second revision no longer load; the shipped ``ppo:pretrained/qwirkle_v0`` was
  retrained on the third.
- v0, ``features`` option, fourth revision: ``place_plan`` and ``turn_plan`` appended after
  ``turn_net`` (74,662 entries; the fields before them keep their offsets). Policies trained
  on the third revision no longer load; the shipped ``ppo:pretrained/qwirkle_v0`` was
  retrained on the fourth.
- v0, ``features`` option, fifth revision: ``place_endgame`` and ``turn_endgame`` appended
  after ``turn_plan`` (83,789 entries; the fields before them keep their offsets). Policies
  trained on the fourth revision no longer load; the shipped ``ppo:pretrained/qwirkle_v0`` was
  retrained on the fifth.
- v0, observation versions: every saved policy carries the version of the observation it was
  trained on (:func:`tabletop_rl.envs.core.features.observation_version`: the game, the
  revision of the observation without features, the features revision and a digest of the
  layout's fields), and loading one trained on another version fails with an error naming
  both. The current versions with the default ``window`` are ``qwirkle_v0/obs1/80af41bc``
  without features and ``qwirkle_v0/obs1/qwirkle-features5/af10ba71`` with them (another
  ``window`` gives another digest); the shipped ``ppo:pretrained/qwirkle_v0`` carries the
  latter.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .core.aec import TabletopAECEnv, wrap
from .core.features import with_features
from .core.model import GameModel, check_engine
from .errors import ConfigError
from .qwirkle.model import (
    DEFAULT_MAX_TURNS,
    DEFAULT_WINDOW,
    MAX_PLAYERS,
    QwirkleModel,
    QwirkleView,
    game_info,
)


class raw_env(TabletopAECEnv):
    """Qwirkle for 2 to 4 players (see the module docstring); the game is
    :class:`~tabletop_rl.envs.qwirkle.model.QwirkleModel`."""

    info = game_info(DEFAULT_WINDOW, DEFAULT_MAX_TURNS)
    metadata = {**TabletopAECEnv.metadata, "name": "qwirkle_v0"}

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        reward: str = "win",
        max_turns: int = DEFAULT_MAX_TURNS,
        window: int = DEFAULT_WINDOW,
        engine: str = "compiled",
        features: bool = False,
    ) -> None:
        if check_engine(engine) == "compiled":
            from .qwirkle.compiled import QwirkleCompiledModel

            model: GameModel = QwirkleCompiledModel(num_players, max_turns, window)
        else:
            model = QwirkleModel(num_players=num_players, max_turns=max_turns, window=window)
        if not isinstance(features, bool):
            raise ConfigError(f"features={features!r} is not allowed; allowed: True or False")
        self.engine = engine
        self.features = features
        self.window = model.window
        self.max_turns = model.max_turns
        if features:
            from .qwirkle.features import qwirkle_features

            model = with_features(model, qwirkle_features(model.window))
        super().__init__(model, render_mode=render_mode, reward=reward)

    def lost_moves(self) -> int:
        """Legal moves of the player to act that the window cannot show (0 in practice)."""
        return self.model.lost_moves(self._require_state())


def parallel_env(**kwargs: Any) -> Any:
    """The parallel API (PettingZoo's ``turn_based_aec_to_parallel``): every step takes an
    action for the agent to act; the other agents' entries are ignored."""
    return turn_based_aec_to_parallel(env(**kwargs))


def env(**kwargs: Any) -> Any:
    """Qwirkle with PettingZoo's standard wrappers (an illegal action ends the game, -1)."""
    return wrap(raw_env(**kwargs))


__all__ = [
    "DEFAULT_MAX_TURNS",
    "DEFAULT_WINDOW",
    "MAX_PLAYERS",
    "QwirkleView",
    "env",
    "parallel_env",
    "raw_env",
]
