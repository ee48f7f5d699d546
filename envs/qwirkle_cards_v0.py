# The documentation tables below are generated and must stay verbatim, so long lines are allowed.
# ruff: noqa: E501
"""# Qwirkle Cards

| | |
|---|---|
| Import | `from tabletop_rl.envs import qwirkle_cards_v0` |
| Actions | Discrete |
| Parallel API | Yes (`parallel_env()`, turn-based) |
| Manual Control | Yes (`tabletop-rl play`) |
| Agents | `agents= ['player_0', 'player_1']` |
| Players | 2 to 4 (default 2) |
| Action Shape | Discrete(50) |
| Action Values | Discrete(50) |
| Observation Shape | `observation`: (225,), `action_mask`: (50,) |
| Observation Values | [0, 90] |
| Max Game Length | 5018 agent steps |
| Perfect Information | No |

Qwirkle Cards is the card game of Qwirkle (Schmidt Spiele; sold in English as "Qwirkle
Rummy"): 108 cards, the 36 kinds of Qwirkle (6 colours x 6 symbols) three times each. Players
lay cards in *rows* of 3 to 6 different cards that share a colour or a symbol and may take
apart and regroup every row on the table during their turn, as in Rummikub. A row of 6 is a
*Qwirkle*; the player who forms it keeps it, and the most Qwirkles win. Rules:
`docs/rules/qwirkle_cards.md` (the rules engine is `tabletop_rl.envs.qwirkle_cards`; every
**[decision]** of the reference is implemented and documented there).

Because the table may be rearranged freely, only the *multiset* of cards on it matters for
play: the rules engine keeps the table as card counts and decides with an exact validity
solver whether a multiset splits into rows (`tabletop_rl.envs.qwirkle_cards.is_valid_table`).
One concrete arrangement into rows is computed for display only.

```python
from tabletop_rl.envs import qwirkle_cards_v0

env = qwirkle_cards_v0.env(num_players=2, render_mode="ansi")
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

`qwirkle_cards_v0.env(num_players=2, render_mode=None, reward="win", end_rule="finish_round", max_turns=500, engine="compiled", features=False)`

- `num_players`: 2 to 4. Agents are `player_0` ... `player_{n-1}`; the deal, the start tie-break
  and the shuffles of forced redraws are drawn from the seed given to `reset`.
- `reward`: `"win"` or `"score"` (see Rewards).
- `end_rule`: `"finish_round"` (German edition, default) or `"final_turn_each"` (English
  edition; see Termination).
- `max_turns`: turn limit after which the game is truncated (default 500).
- `engine`: `"compiled"` (default: the turn masks and the table-validity solver run as numba
  code, `tabletop_rl.envs.qwirkle_cards.compiled_turns`) or `"reference"` (the readable rules
  engine they are checked against). The same seed gives the same game in both.
- `features`: `True` appends the observation features below (which lines the table leaves
  open, and to whom) to `observation`; `False` (default) leaves the observation as above.

## Turn structure and actions

A turn is a sequence of sub-actions by the same agent. Cards are identified by kind,
`kind = 6 * colour + symbol` (colours R O Y G B P, symbols circle, cross, diamond, square,
star, clover — the notation `Rs`, `Bo`, ... of the rules engine):

| action | meaning |
|---|---|
| `0` ... `35` | play one card of kind `a` from the hand |
| `36` ... `41` | take a Qwirkle of colour `a - 36` (R O Y G B P) |
| `42` ... `47` | take a Qwirkle of symbol `a - 42` (o x d s t c) |
| `48` | end the turn (lay the selection, keep the Qwirkles, draw back up to 9) |
| `49` | cannot play: the forced redraw (hand shuffled into the pile, 9 new cards), or a pass when the pile is empty |

First the Qwirkles the turn will form are taken (announced), one sub-action each; then the
cards are played, one sub-action each; then the turn ends. Once a card is played no further
Qwirkle can be taken. (Qwirkles come first so that their masks are computed once per turn,
not after every card; every legal turn is still reachable.) A Qwirkle may use cards still
in the hand, which then must be played before the turn can end. Several Qwirkles of the
same line can be taken when the table and the hand hold the cards for them (the rules let
several rows of a line lie on the table, and every 6-card row is taken).

The action mask is exact: a sub-action is legal if and only if the turn can still be
completed to a legal turn of the rules (table + played - taken has no negative count and
splits into valid rows, at least one card played). So every sequence of legal sub-actions ends in a legal turn (no
dead ends, no undo), and every legal turn can be reached. Ending the turn is legal exactly
when the selection so far is a legal turn. Action 49 is the only legal action exactly when
the player cannot play any card. A turn takes at most `hand size + Qwirkles taken + 1`
sub-actions (at most hand size + 13 unless more than 12 Qwirkles are taken in one turn,
which needs at least 78 cards on the table and in the hand).

**The first turn** is the start row: the starting player (the largest set of cards sharing
a colour or symbol, identical cards counted once; ties drawn at random; a redeal when nobody
has 3) plays exactly one of their largest sets through the same play actions (only cards
that keep the selection inside one largest set are legal); a 6-card start row is a Qwirkle,
which the player takes first (its take action is then the only legal action), then plays.

## Observation

`observation` is one flat float32 vector; `env.unwrapped.layout.decode(obs)` returns named
views of its fields. Card fields are counts per kind (index `6 * colour + symbol`), line
fields are per line (colours R O Y G B P, then symbols o x d s t c). Players are listed
relative to the observer: the observer first, then the following seats in turn order,
padded with zeros to 4.

| field | shape | offset | values | meaning |
|---|---|---|---|---|
| `hand` | (36,) | 0 | [0, 3] | own cards per kind (played ones excluded) |
| `table` | (36,) | 36 | [0, 3] | cards on the table per kind |
| `played` | (36,) | 72 | [0, 3] | cards played so far this turn per kind |
| `taken` | (12,) | 108 | [0, 3] | Qwirkles taken so far this turn per line |
| `qwirkles` | (4, 12) | 120 | [0, 3] | Qwirkles kept per player (observer first) and line; 0-padded |
| `hand_sizes` | (4,) | 168 | [0, 9] | cards in each hand, observer first; 0-padded |
| `pile_size` | (1,) | 172 | [0, 90] | cards in the draw pile |
| `unseen` | (36,) | 173 | [0, 3] | copies of each kind the observer cannot see (other hands and pile) |
| `to_act` | (4,) | 209 | [0, 1] | seat to act, one-hot, observer first |
| `seated` | (4,) | 213 | [0, 1] | 1 for each seat in play, observer first |
| `starter` | (4,) | 217 | [0, 1] | the starting player, one-hot, observer first |
| `first_turn` | (1,) | 221 | [0, 1] | 1 during the start row turn |
| `end_triggered` | (1,) | 222 | [0, 1] | 1 once the pile ran out after a draw |
| `turns_left` | (1,) | 223 | [0, 4] | turns still to play once the end is triggered, this one included |
| `turn_progress` | (1,) | 224 | [0, 1] | turns played divided by max_turns |

- `hand`: the observer's own cards (those already played this turn excluded).
- `table`: the table as it was at the start of the current turn (a valid multiset).
- `played`, `taken`: the selection of the turn under way (the acting player's; everyone
  sees it). Qwirkles taken this turn leave `table` only when the turn ends.
- `qwirkles`: the Qwirkles every player has kept, by line.
- `hand_sizes`, `pile_size`: card counts (the pile's order is hidden).
- `unseen`: for each kind, the copies the observer cannot see: 3 minus those in their hand,
  on the table, played this turn and in anybody's Qwirkles. These lie in the other hands or
  the pile. Nothing else about hidden cards is in the observation.
- `to_act`, `seated`, `starter`: whose turn it is, which seats play, who started.
- `first_turn`: 1 during the start row turn.
- `end_triggered`, `turns_left`: whether the pile ran out, and how many turns remain then
  (the current one included).
- `turn_progress`: turns played so far divided by `max_turns`.

### Features

With `features=True` these fields follow `turn_progress` (the observation then has 473
entries): what the rules already know about the lines and a network would otherwise have to
rediscover from the card counts. Every player may regroup the whole table, so a line whose
kinds lie on the table but for one or two is completed by the next player whose hand holds
the missing kinds; the scripted `heuristic` agent wins by not leaving such lines.
(`tabletop_rl.envs.qwirkle_cards.features` computes them.)

| field | shape | offset | values | meaning |
|---|---|---|---|---|
| `line_missing` | (12,) | 225 | [0, 6] | kinds of each line missing from the table the selection leaves |
| `line_short` | (12,) | 237 | [0, 6] | of those, kinds the observer does not hold (0: own cards complete the line) |
| `line_unseen` | (12,) | 249 | [0, 6] | of those, kinds with a copy the observer cannot see |
| `line_next_chance` | (12,) | 261 | [0, 1] | probability that the next player's hand holds every missing kind |
| `action_next_qwirkles` | (50,) | 273 | [0, 12] | per legal action: next player's expected completable lines after it |
| `action_own_lines` | (50,) | 323 | [0, 12] | per legal action: lines the observer's kept cards complete after it |
| `action_turn_qwirkles` | (50,) | 373 | [0, 18] | per legal action: most Qwirkles of a legal turn that continues with it |
| `action_turn_value` | (50,) | 423 | [-12, 12] | per legal action: best turn value among those turns (the heuristic's) |

The line fields describe the table *the selection leaves*: the table at the start of the turn
plus the cards played so far this turn minus the cards of the Qwirkles taken so far (at the
start of a turn, the table itself). A Qwirkle's cards that the acting player must still play
from the hand are not on that table and no longer theirs to keep. A kind is *missing* from a
line when no copy of it lies on that table.

- `line_missing`: the line's kinds missing (0: the six kinds lie on the table).
- `line_short`: of the missing kinds, those not in the observer's hand (the cards they keep:
  for the acting player, the hand less the Qwirkles' cards still to play). 0: with the
  table, the observer's cards hold the line's Qwirkle (taking it also needs the rest of the
  table to split into rows; at the start of the observer's turn the take actions' mask says
  exactly which Qwirkles can be taken).
- `line_unseen`: of the missing kinds, those with a copy the observer cannot see (`unseen`:
  in the other hands or the pile). Below `line_missing`, no opponent can complete the line
  before the table changes.
- `line_next_chance`: the probability that the next player's hand (the seat after the
  observer) holds every missing kind, for a hand of their size drawn from the unseen copies:
  inclusion-exclusion over the missing kinds' unseen copies (the `heuristic` agent charges
  this estimate for the lines with at most two missing kinds).
  1 for a line that lies whole on the table; 0 when a missing kind has no unseen copy or the
  next player holds no card.
- `action_next_qwirkles`: for each legal action of the observer (0 for the others, and all 0
  when the observer is not to act), the sum of `line_next_chance` over the lines once the
  action is taken: the Qwirkles the next player is expected to be able to complete. Playing a
  card adds it to the table (or pays a Qwirkle's card), taking a Qwirkle removes its six
  cards, ending the turn and the redraw leave the table as it is.
- The per-action fields are in action order (entry `a` for action `a`, the one action
  group `action` named as their `action_group`, which `action_features: true` in a PPO
  config reads).
- `action_own_lines`: for each legal action, the lines with `line_short` 0 once the action is
  taken (the lines the observer keeps the cards to complete; 0 for the redraw, which returns
  the hand to the pile).

- `action_turn_qwirkles` (features revision 2): for each legal action of the observer, the
  most Qwirkles of a legal turn that continues the selection so far with it (the whole
  turn's, those taken before it included): every legal turn counts, found exactly
  (every sub-multiset of the cards still in hand, every multiset of further Qwirkles while
  no card is played, each table checked with the validity solver; the first turn's start
  rows).
- `action_turn_value` (features revision 2): among those turns, the best *turn value*: the
  value the `heuristic` agent ranks turns by, with its default weights
  (`tabletop_rl.envs.qwirkle_cards.turn_values.TURN_VALUE_WEIGHTS`, which are the agent's
  defaults): minus the next player's chance of holding every missing kind (as
  `line_next_chance`), summed over the lines with at most two kinds missing from the table
  the turn leaves, plus 0.6 per line the kept cards complete (`line_short` 0), 0.1 per line
  they bring within one card, and 0.05 per card the turn plays. So the sub-action of the
  most `action_turn_qwirkles`, then the best `action_turn_value`, plays the heuristic's
  turns one sub-action at a time (the agent spec
  `value:action_turn_qwirkles=10,action_turn_value=1`), and a policy with
  `action_features: true` can weigh the same numbers.

The features are computed from the observer's own observation fields only (hand, table,
the turn's selection, hand sizes, `unseen`), so they show nothing the observer cannot see,
and both engines give the same values. `VectorGames("qwirkle_cards_v0", ..., features=True)`
runs on the compiled batch, which writes them in its compiled step.

Cost (`python benchmarks/qwirkle_cards_features.py --games 10 --rounds 5`: 1,184 agent steps
of random two-player play per round, medians of 5 rounds, on the idle 2-core machine):
`observe` on the compiled engine 5.9 us without features and 134.9 us with, mask + observe +
step per agent step 25.1 us without and 165.6 us with, the compiled batch of 64 games 7.1 us
per game step without and 188.0 us with (the code before the turn values were valued
incrementally, the same run: 186.8, 218.4 and 258.3 us with features). Nearly all of it is
revision 2's turn values: random play leaves many Qwirkles on the table, and every choice of
them is a turn to check. PPO training, which plays learned turns that take their Qwirkles,
made 457,630 learner steps in 10 minutes on the 2 cores with revision 2 (`tabletop-rl train
configs/qwirkle_cards_ppo.yaml`, before the take search's last speed-up and the incremental
valuation).

## Rewards

- `reward="win"` (default): at the end +1 to every player with the most Qwirkles and -1 to
  every other player; 0 to everyone if all players tie. Equal most Qwirkles share the win
  (each gets +1 if not everyone is tied). A truncated game gives 0 to everyone.
- `reward="score"`: +1 for every Qwirkle taken, at the step that takes it.

## Termination

- Once the pile is empty after a draw, `end_rule="finish_round"` finishes the round: the game
  ends after the turn of the player seated just before the starting player.
  `end_rule="final_turn_each"` gives every player, the one who drew the last card included,
  exactly one more turn.
- With an empty pile, as many consecutive passes as there are players end the game.
- Truncation: after `max_turns` turns. The `Max Game Length` above is a true bound on agent
  steps: every turn has at most 9 plays and one end (a redraw or pass is one step), and the
  whole game at most 18 Qwirkles (108 cards / 6): `10 * max_turns + 18`.

## Rendering

- `"ansi"`: the table arranged in rows (symbol rows, then colour rows), the selection of the
  turn under way, the viewer's hand (the agent to act), every player's Qwirkles, the pile.
- `"rgb_array"`: a picture of the same: cards drawn as rounded cards with coloured symbols
  (circle, cross, diamond, square, 8-point star, clover), the hand below the table and the
  Qwirkle counts.
- `"human"`: prints the ansi picture after every step.

## Other methods

- `public_view(agent)`: what `agent` may see (`QwirkleCardsView`: own hand, table, the
  turn's selection, Qwirkles, hand sizes, pile size, unseen counts), for scripted agents;
  `view.legal_turns()` lists the legal turns of the player to act from that view.
- `resample_hidden(agent, rng)`: reshuffles the other hands and the pile (and the future
  shuffles) consistently with what `agent` sees.
- `dump()`: the whole position in the rules engine's text notation (for bug reports).

## Version history

- v0: first release.
- v0, `features=True` added: the line and per-action features above (the default
  observation is unchanged).
- v0, features revision 2: `action_turn_qwirkles` and `action_turn_value` appended after
  `action_own_lines` (the observation with features grows from 373 to 473 entries; the
  fields before them keep their offsets; without features it is unchanged). Policies
  trained on revision 1 no longer load; the shipped `ppo:pretrained/qwirkle_cards_v0` was
  retrained on revision 2.
- v0, observation versions: every saved policy carries the version of the observation it was
  trained on (`tabletop_rl.envs.core.features.observation_version`: the game, the revision of
  the observation without features, the features revision and a digest of the layout's
  fields), and loading one trained on another version fails with an error naming both. The
  current versions are `qwirkle_cards_v0/obs1/1b718d6c` without features and
  `qwirkle_cards_v0/obs1/qwirkle_cards-features2/1716bfeb` with them; the shipped
  `ppo:pretrained/qwirkle_cards_v0` carries the latter.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .core.aec import TabletopAECEnv, wrap
from .core.features import with_features
from .core.model import check_engine
from .errors import ConfigError
from .qwirkle_cards.actions import CANNOT_PLAY, END_TURN, NUM_ACTIONS, TAKE
from .qwirkle_cards.features import QWIRKLE_CARDS_FEATURES
from .qwirkle_cards.game import DEFAULT_MAX_TURNS
from .qwirkle_cards.model import (
    MAX_PILE,
    MAX_PLAYERS,
    MAX_QWIRKLES,
    QwirkleCardsModel,
    QwirkleCardsView,
    game_info,
)


class raw_env(TabletopAECEnv):
    """Qwirkle Cards for 2 to 4 players (see the module docstring); the game is
    :class:`~tabletop_rl.envs.qwirkle_cards.model.QwirkleCardsModel`."""

    info = game_info(DEFAULT_MAX_TURNS)
    metadata = {**TabletopAECEnv.metadata, "name": "qwirkle_cards_v0"}

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        reward: str = "win",
        end_rule: str = "finish_round",
        max_turns: int = DEFAULT_MAX_TURNS,
        engine: str = "compiled",
        features: bool = False,
    ) -> None:
        if not isinstance(features, bool):
            raise ConfigError(f"features must be True or False, got {features!r}")
        model: QwirkleCardsModel
        if check_engine(engine) == "compiled":
            # compiled masks and observations over the engine with the compiled turn builder
            from .qwirkle_cards.compiled_model import QwirkleCardsCompiledModel

            model = QwirkleCardsCompiledModel(num_players, end_rule, max_turns)
        else:
            model = QwirkleCardsModel(num_players, end_rule, max_turns)
        self.engine = engine
        self.end_rule = end_rule
        self.max_turns = max_turns
        self.features = features
        super().__init__(
            with_features(model, QWIRKLE_CARDS_FEATURES if features else None),
            render_mode=render_mode,
            reward=reward,
        )


def parallel_env(**kwargs: Any) -> Any:
    """The parallel API (PettingZoo's ``turn_based_aec_to_parallel``): every step takes an
    action for the agent to act; the other agents' entries are ignored."""
    return turn_based_aec_to_parallel(env(**kwargs))


def env(**kwargs: Any) -> Any:
    """The Qwirkle Cards environment with PettingZoo's standard wrappers (see the module
    docstring for the arguments)."""
    return wrap(raw_env(**kwargs))


__all__ = [
    "CANNOT_PLAY",
    "END_TURN",
    "MAX_PILE",
    "MAX_PLAYERS",
    "MAX_QWIRKLES",
    "NUM_ACTIONS",
    "TAKE",
    "QwirkleCardsView",
    "env",
    "parallel_env",
    "raw_env",
]
