"""Whole turns for search agents: every legal complete turn of a position, with a prior.

In Qwirkle and Qwirkle Cards a turn is several of the environment's sub-actions (tiles laid
one by one, or Qwirkles taken and cards played one by one, then "end turn"). A search over
sub-actions spends its budget on orderings and partial turns; a search over *whole turns*
compares complete choices. A :class:`TurnModel` lists, for the player to act at the start of
their turn, every legal complete turn as a :class:`TurnOption`: a key that names the turn
independently of hand slots (so that the same turn can be recognised in another
determinisation), the sub-actions that play it, and a prior (the game's scripted heuristic's
value of the turn, used to rank and prune candidates). It also plays a greedy turn in a
playout, one sub-action at a time (:meth:`TurnModel.greedy_actions`). Everything is computed
from a player's public view (their own hand and what is on the table), through the rules
engine's move generators and the scripted agents' evaluations; nothing is re-implemented
here. The one exception is speed: in a playout of Qwirkle's compiled engine the greedy turn
is read off the engine's own arrays (:func:`~tabletop_rl.envs.qwirkle.best_turns.greedy_action`:
the most points of any legal move, the end bonus counted), without building the public
view's board, which made these playouts about five sixths of a whole-turn search's time.

- Qwirkle (:class:`QwirkleTurnModel`): every legal move of the hand (the engine's complete
  generator ``legal_moves``, or the start rows), every exchange of a distinct multiset of
  tiles, or the pass when nothing else is legal; priors are
  :class:`~.qwirkle_heuristic.QwirkleHeuristicAgent`'s values (points, leave, lines of five).
- Qwirkle Cards (:class:`QwirkleCardsTurnModel`): the engine's ``legal_turns`` (every card
  selection that leaves a valid table, with every choice of Qwirkles to take; each table
  checked by the compiled solver, the same list as the reference solver's), or the forced
  redraw; priors are :class:`~.qwirkle_cards_heuristic.QwirkleCardsHeuristicAgent`'s turn
  values plus ``qwirkle_value`` per Qwirkle taken. Its playouts' greedy turns are the greedy
  agent's, searched by the compiled
  :func:`~tabletop_rl.envs.qwirkle_cards.greedy_turns.greedy_turn`.

>>> import numpy as np
>>> from tabletop_rl.envs import qwirkle_v0
>>> env = qwirkle_v0.raw_env()
>>> env.reset(seed=0)
>>> view = env.public_view(env.agent_selection)
>>> options = QwirkleTurnModel().options(view)
>>> all(env.action_mask()[o.actions[0]] for o in options)
True
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from tabletop_rl.envs.errors import ConfigError
from tabletop_rl.envs.games import GAMES, GAMES_BY_NAME, resolve
from tabletop_rl.envs.qwirkle.actions import Exchange, Pass
from tabletop_rl.envs.qwirkle.best_turns import greedy_action
from tabletop_rl.envs.qwirkle.compiled import CompiledQwirkleState
from tabletop_rl.envs.qwirkle_cards.actions import (
    CANNOT_PLAY,
    EndTurn,
    PlayCard,
    QwirkleCardsCodec,
    TakeQwirkle,
)
from tabletop_rl.envs.qwirkle_cards.cards import NUM_KINDS, NUM_LINES
from tabletop_rl.envs.qwirkle_cards.compiled_solver import is_valid_counts
from tabletop_rl.envs.qwirkle_cards.turns import Turn
from tabletop_rl.envs.qwirkle_cards_v0 import QwirkleCardsView
from tabletop_rl.envs.qwirkle_v0 import QwirkleView
from tabletop_rl.envs.registry import game_spec

from .qwirkle import QwirkleGreedyAgent
from .qwirkle_cards import best_turn
from .qwirkle_cards_heuristic import QwirkleCardsHeuristicAgent
from .qwirkle_cards_heuristic import ways_on as cards_ways_on
from .qwirkle_heuristic import QwirkleHeuristicAgent, laid_placements, ways_on

if TYPE_CHECKING:
    from tabletop_rl.envs.core.simulator import Playout


@dataclass(frozen=True)
class TurnOption:
    """One complete turn: its name, its sub-actions in order, and its prior value."""

    key: Hashable
    actions: tuple[int, ...]
    prior: float


class TurnModel(Protocol):
    """Whole turns of one game, from a player's public view (see the module docstring)."""

    def options(self, view: Any) -> list[TurnOption]:
        """Every legal complete turn of the viewer, who is to act at the start of a turn."""
        ...

    def greedy_actions(self, game: Playout, rng: np.random.Generator) -> Iterator[int]:
        """A greedy turn of the player to act in ``game`` (at the start of a turn), one
        sub-action at a time: the caller plays each in ``game`` before asking for the next."""
        ...

    def turn_started(self, view: Any) -> bool:
        """Whether the player to act has already made sub-actions this turn."""
        ...

    def progress(self, view: Any) -> Hashable:
        """What the viewer sees of the turn under way (to check a plan is still followed)."""
        ...

    def continuations(self, view: Any, option: TurnOption, mask: np.ndarray) -> list[int]:
        """The legal sub-actions that go on playing ``option`` from the turn under way, in any
        order of its remaining sub-actions; none when what the viewer has played this turn is
        not part of ``option``."""
        ...


def top_options(options: Sequence[TurnOption], k: int | None) -> list[TurnOption]:
    """The ``k`` options of highest prior (all when ``k`` is None); ties keep list order.

    >>> opts = [TurnOption(i, (i,), p) for i, p in enumerate([1.0, 3.0, 2.0, 3.0])]
    >>> [o.key for o in top_options(opts, 3)]
    [1, 3, 2]
    """
    ranked = sorted(range(len(options)), key=lambda i: -options[i].prior)
    if k is not None:
        ranked = ranked[:k]
    return [options[i] for i in ranked]


class QwirkleTurnModel:
    """Qwirkle's whole turns (see the module docstring)."""

    def __init__(self) -> None:
        # the heuristic's generator breaks ties only in its own act(); options() uses none
        self._heuristic = QwirkleHeuristicAgent(np.random.default_rng(0))

    def options(self, view: QwirkleView) -> list[TurnOption]:
        if view.to_act != view.player or view.laid_this_turn:
            raise ValueError("QwirkleTurnModel.options needs the viewer to act at a turn's start")
        end = view.end_turn
        out: list[TurnOption] = []
        seen: set[Hashable] = set()
        for value, choice in self._heuristic.candidates(view):
            if isinstance(choice, int):  # an exchange: the slots' bits
                tiles = sorted(view.hand[s] for s in range(len(view.hand)) if choice >> s & 1)
                key: Hashable = ("exchange", tuple(tiles))
                actions: tuple[int, ...] = (view.codec.encode(Exchange.from_bits(choice)),)
            else:
                key = ("move", frozenset(choice))
                actions = (*QwirkleGreedyAgent.placements(view, choice), end)
            if key not in seen:
                seen.add(key)
                out.append(TurnOption(key, actions, float(value)))
        if not out:
            out.append(TurnOption(("pass",), (view.codec.encode(Pass()),), 0.0))
        return out

    def greedy_actions(self, game: Playout, rng: np.random.Generator) -> Iterator[int]:
        state = game.state
        if isinstance(state, CompiledQwirkleState):
            end = game.model.codec.end
            grid, fit, meta = state.grid, state.fit, state.meta
            while (action := greedy_action(grid, fit, meta, game.action_mask(), rng)) >= 0:
                yield action
                if action == end:
                    return
        # the reference engine, or nothing to place: the greedy agent's turn (an exchange)
        yield from QwirkleGreedyAgent(rng).turn_actions(game.public_view(game.current_player()))

    def turn_started(self, view: QwirkleView) -> bool:
        return bool(view.laid_this_turn)

    def progress(self, view: QwirkleView) -> Hashable:
        return view.laid_this_turn

    def continuations(self, view: QwirkleView, option: TurnOption, mask: np.ndarray) -> list[int]:
        """The heuristic's ways on with the move (:func:`.qwirkle_heuristic.ways_on`: each
        tile not laid yet from any free slot holding its kind, then "end turn"). An exchange
        or a pass is one sub-action: its own."""
        if option.key[0] != "move":
            return [] if view.laid_this_turn else [a for a in option.actions[:1] if mask[a]]
        planned: frozenset[tuple[int, int, Any]] = option.key[1]
        if not laid_placements(view) <= planned:
            return []
        return list(ways_on(view, sorted(planned), mask))


CARDS_CODEC = QwirkleCardsCodec()


def card_turn_actions(turn: Turn) -> tuple[int, ...]:
    """The sub-actions of a Qwirkle Cards turn in the environment's order: the Qwirkles
    taken, then the cards played, then "end turn".

    >>> from tabletop_rl.envs.qwirkle_cards.cards import parse_cards
    >>> card_turn_actions(Turn(parse_cards("Ro Ro Bx")))
    (0, 0, 25, 48)
    """
    take = [TakeQwirkle(line) for line in range(NUM_LINES) for _ in range(turn.taken[line])]
    play = [PlayCard(k) for k in range(NUM_KINDS) for _ in range(turn.played[k])]
    return tuple(CARDS_CODEC.encode(a) for a in (*take, *play, EndTurn()))


class QwirkleCardsTurnModel:
    """Qwirkle Cards' whole turns (see the module docstring)."""

    def __init__(self, qwirkle_value: float = 10.0) -> None:
        self.qwirkle_value = float(qwirkle_value)
        self._heuristic = QwirkleCardsHeuristicAgent(np.random.default_rng(0))

    def options(self, view: QwirkleCardsView) -> list[TurnOption]:
        if view.to_move != view.player or self.turn_started(view):
            raise ValueError(
                "QwirkleCardsTurnModel.options needs the viewer to act at a turn's start"
            )
        turns = view.legal_turns(valid=is_valid_counts)
        if not turns:
            return [TurnOption("cannot_play", (CANNOT_PLAY,), 0.0)]
        hand = view.hand
        value = self._heuristic.turn_value
        return [
            TurnOption(
                turn,
                card_turn_actions(turn),
                value(view, hand, turn) + self.qwirkle_value * turn.num_qwirkles,
            )
            for turn in turns
        ]

    def greedy_actions(self, game: Playout, rng: np.random.Generator) -> Iterator[int]:
        turn = best_turn(game.public_view(game.current_player()), rng)
        yield from (CANNOT_PLAY,) if turn is None else card_turn_actions(turn)

    def turn_started(self, view: QwirkleCardsView) -> bool:
        return any(view.played) or any(view.taken)

    def progress(self, view: QwirkleCardsView) -> Hashable:
        return view.played, view.taken

    def continuations(
        self, view: QwirkleCardsView, option: TurnOption, mask: np.ndarray
    ) -> list[int]:
        """The heuristic's ways on with the turn (:func:`.qwirkle_cards_heuristic.ways_on`: its
        Qwirkles not taken yet, then its cards not played yet, then "end turn"). The forced
        redraw is its own sub-action."""
        if not isinstance(option.key, Turn):
            return [] if self.turn_started(view) else [a for a in option.actions[:1] if mask[a]]
        return cards_ways_on(view, option.key, mask)


def turn_model_class(env_name: str) -> type[TurnModel]:
    """The whole-turn model of ``env_name``'s game (a registry name, ``"module:factory"`` or
    a game's ``info.name``: its :attr:`~tabletop_rl.envs.games.GameSpec.turn_model`), or a
    ConfigError naming the games that have one.

    >>> turn_model_class("qwirkle_v0").__name__
    'QwirkleTurnModel'
    """
    spec = GAMES_BY_NAME.get(env_name) or (game_spec(env_name) if ":" in env_name else None)
    if spec is None or spec.turn_model is None:
        having = sorted(game.name for game in GAMES if game.turn_model is not None)
        raise ConfigError(
            f"search='turns' needs a whole-turn model; {env_name} has none "
            f"(available: {', '.join(having)}); use search='actions'"
        )
    return resolve(spec.turn_model, "turn model")


__all__ = [
    "QwirkleCardsTurnModel",
    "QwirkleTurnModel",
    "TurnModel",
    "TurnOption",
    "card_turn_actions",
    "top_options",
    "turn_model_class",
]
