"""The public game model: the one way any caller simulates a game of the suite.

A :class:`GameModel` is a stateless description of one game under fixed options (number of
players, tile set, turn limit ...). Game *states* are separate objects the model creates and
advances, in the spirit of OpenSpiel's ``State`` and Pgx's ``init``/``step``::

    model = qwirkle_model(num_players=2)          # or liniell_model(...), ...
    state = model.new_state(rng)
    while not model.is_over(state):
        mask = model.legal_mask(state)             # int8, one entry per action
        action = int(rng.choice(np.flatnonzero(mask)))
        event = model.step(state, action)          # points scored, game over, truncated
    model.outcome(state)                           # Outcome(ending, winners, scores)

States are mutable and advanced in place (the fast path for environments and search);
:meth:`GameModel.copy` is a cheap copy for search and planning. The PettingZoo environments
(:mod:`.aec`) and the batched stepper (:mod:`tabletop_rl.envs.vector`) are adapters over a
model; scripted agents, search and the terminal game use the model and its
:class:`ActionCodec` instead of environment internals or action index arithmetic.

>>> import numpy as np
>>> from tabletop_rl.envs.liniell.model import LiniellModel
>>> model = LiniellModel(num_players=2)
>>> state = model.new_state(np.random.default_rng(0))
>>> rng = np.random.default_rng(1)
>>> while not model.is_over(state):
...     _ = model.step(state, int(rng.choice(np.flatnonzero(model.legal_mask(state)))))
>>> model.outcome(state).ending
<Ending.FINISHED: 'finished'>
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Generic, TypeVar

import numpy as np

from ..errors import (
    ArgumentError,
    ConfigError,
    GameOverError,
    IllegalActionError,
    NotationError,
)
from .checks import brief_repr, check_rng
from .game_info import GameInfo
from .observation import Field, ObservationLayout
from .symmetry import Symmetries

S = TypeVar("S")
"""A game's state type."""
A = TypeVar("A")
"""A game's typed action."""


@dataclass
class StepResult:
    """What applying one action did."""

    points: dict[int, float] = field(default_factory=dict)
    """Points scored by each player index during this action (``reward="score"``)."""
    game_over: bool = False
    """The game ended by its rules with this action."""
    truncated: bool = False
    """The game was cut off by a turn limit with this action (no winner)."""


class Ending(Enum):
    """How a game ended."""

    FINISHED = "finished"
    """By the rules: the winners are those with the best result (all players on a full tie)."""
    TRUNCATED = "truncated"
    """Cut off by a turn limit before the rules ended it: nobody won."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended, shared by all games.

    >>> Outcome(Ending.FINISHED, winners=(1,), scores=(3.0, 7.0)).win_rewards()
    (-1.0, 1.0)
    >>> Outcome(Ending.FINISHED, winners=(0, 1), scores=(5.0, 5.0)).is_draw
    True
    """

    ending: Ending
    winners: tuple[int, ...]
    """Seats of the winners (several on a shared win, all on a full tie; none if truncated)."""
    scores: tuple[float, ...]
    """Every seat's final score in the game's own points."""

    @property
    def is_draw(self) -> bool:
        """Every player shares the win (a full tie)."""
        return self.ending is Ending.FINISHED and len(self.winners) == len(self.scores)

    def win_rewards(self) -> tuple[float, ...]:
        """The ``reward="win"`` rewards: +1 to each winner and -1 to every other player; 0 to
        all on a full tie or a truncated game."""
        n = len(self.scores)
        if self.ending is Ending.TRUNCATED or self.is_draw:
            return (0.0,) * n
        won = set(self.winners)
        return tuple(1.0 if p in won else -1.0 for p in range(n))


ENGINES = ("compiled", "reference")
"""``engine`` options of the environments: the compiled core (the default) or the readable
reference engine it is checked against."""


def check_engine(engine: Any) -> str:
    """``engine`` if it names one of :data:`ENGINES`, or a clear :class:`ConfigError`."""
    if engine not in ENGINES:
        raise ConfigError(
            f"engine={engine!r} is unknown; allowed: " + ", ".join(repr(e) for e in ENGINES)
        )
    return engine


def check_num_players(game: str, value: Any, low: int, high: int) -> int:
    """``value`` as a player count for ``game``, or a clear :class:`ConfigError`.

    >>> check_num_players("liniell_v0", 3, 2, 4)
    3
    >>> try:
    ...     check_num_players("liniell_v0", 5, 2, 4)
    ... except ConfigError as exc:
    ...     print(exc)
    num_players=5 is not allowed for liniell_v0; allowed: 2 to 4
    """
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ConfigError(f"num_players must be an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise ConfigError(
            f"num_players={brief_repr(value)} is not allowed for {game}; allowed: {low} to {high}"
        )
    return int(value)


class ActionCodec(ABC, Generic[S, A]):
    """Translates between action indices, typed actions and the game's text notation.

    Every caller uses the codec instead of index arithmetic. ``encode``/``decode`` need no
    state; the notation may (a Qwirkle tile is named by the tile in a hand slot).
    """

    num_actions: int

    @abstractmethod
    def decode(self, action: int) -> A:
        """The typed action of index ``action``."""

    @abstractmethod
    def encode(self, action: A) -> int:
        """The index of a typed action (the inverse of :meth:`decode`)."""

    @abstractmethod
    def to_text(self, state: S, action: int) -> str:
        """``action`` in the game's notation, as a player types it in ``state``."""

    @abstractmethod
    def parse(self, state: S, text: str) -> int:
        """The action that ``text`` (one sub-action in the game's notation) names in
        ``state``; raises :class:`~tabletop_rl.envs.errors.NotationError` if it names none.
        The action need not be legal: the model explains why it is not."""

    def check_index(self, action: Any) -> int:
        """``action`` as an int in range, or a clear :class:`IllegalActionError`."""
        if action is None or isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalActionError(
                f"action must be an int in [0, {self.num_actions}), got {action!r}"
            )
        action = int(action)
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(
                f"action {action} is out of range; allowed: 0 to {self.num_actions - 1}"
            )
        return action


class IndexCodec(ActionCodec[Any, int]):
    """The codec of a game whose actions are plain numbers (its typed action is the index).

    >>> codec = IndexCodec(9)
    >>> codec.parse(None, " 4 "), codec.to_text(None, 4), codec.decode(4)
    (4, '4', 4)
    """

    def __init__(self, num_actions: int) -> None:
        self.num_actions = num_actions

    def decode(self, action: int) -> int:
        return self.check_index(action)

    def encode(self, action: int) -> int:
        return self.check_index(action)

    def to_text(self, state: Any, action: int) -> str:
        return str(self.check_index(action))

    def parse(self, state: Any, text: str) -> int:
        if not isinstance(text, str) or not text.strip().isdigit():
            raise NotationError(
                f"{text!r} is not an action number; allowed: 0 to {self.num_actions - 1}"
            )
        try:
            return self.check_index(int(text))
        except IllegalActionError as exc:
            raise NotationError(str(exc)) from None


class GameModel(ABC, Generic[S, A]):
    """One game under fixed options: creates, advances, observes and judges its states.

    **Checked calls and the fast path.** The public calls check their arguments and raise the
    project's errors (:mod:`tabletop_rl.envs.errors`) without changing the state:
    :meth:`step` refuses an action that is not an int, out of range, illegal now
    (:class:`~tabletop_rl.envs.errors.IllegalActionError`) or given after the game ended
    (:class:`~tabletop_rl.envs.errors.GameOverError`); :meth:`observe`, :meth:`legal_mask`,
    :meth:`outcome`, :meth:`public_view` and :meth:`new_state` refuse a seat that is not a
    player, a buffer of the wrong shape or dtype, a state of another model or a generator that
    is not a ``numpy.random.Generator``
    (:class:`~tabletop_rl.envs.errors.ArgumentError`). The suite's own hot loops (the batch,
    search, the environments once they have checked an action) call :meth:`step_unchecked`,
    :meth:`observe_unchecked` and :meth:`legal_mask_unchecked`: the same calls without the
    checks, which trust their caller completely (an illegal action there may corrupt the
    state, and a compiled engine may crash the interpreter). Use them only with an action
    taken from the legal mask of the same state and a seat in range.

    >>> import numpy as np
    >>> from tabletop_rl.envs.liniell.model import LiniellModel
    >>> model = LiniellModel(num_players=2)
    >>> state = model.new_state(np.random.default_rng(0))
    >>> model.observe(state, 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tabletop_rl.envs.errors.ArgumentError: player 2 is not a seat of this 2-player game; ...
    """

    info: GameInfo
    """Players, actions, maximum game length, utilities (OpenSpiel style)."""
    num_players: int
    layout: ObservationLayout
    """The named fields of the flat ``float32`` observation."""
    codec: ActionCodec[S, A]
    state_type: type = object
    """The class of this model's states (what :meth:`check_state` accepts)."""

    # ---------------------------------------------------- argument checks
    def check_state(self, state: Any) -> None:
        """Raise :class:`~tabletop_rl.envs.errors.ArgumentError` unless ``state`` is a state
        of this model (made by its :meth:`new_state`)."""
        if not isinstance(state, self.state_type):
            raise ArgumentError(
                f"state must be a {self.state_type.__name__} made by this model's new_state(rng), "
                f"got {type(state).__name__}"
            )

    def check_player(self, player: Any) -> int:
        """``player`` as an int seat of this game, or a clear
        :class:`~tabletop_rl.envs.errors.ArgumentError`."""
        if isinstance(player, bool) or not isinstance(player, int | np.integer):
            raise ArgumentError(
                f"player must be an int seat from 0 to {self.num_players - 1}, "
                f"got {type(player).__name__} {player!r}"
            )
        if not 0 <= player < self.num_players:
            raise ArgumentError(
                f"player {int(player)} is not a seat of this {self.num_players}-player game; "
                f"allowed: 0 to {self.num_players - 1}"
            )
        return int(player)

    def check_buffer(self, out: Any) -> np.ndarray:
        """``out`` if it can take an observation (a writeable, contiguous ``float32`` vector
        of ``layout.size``), else a clear :class:`~tabletop_rl.envs.errors.ArgumentError`."""
        size = self.layout.size
        if (
            not isinstance(out, np.ndarray)
            or out.dtype != np.float32
            or out.shape != (size,)
            or not out.flags.c_contiguous
            or not out.flags.writeable
        ):
            got = (
                f"{out.dtype} array of shape {out.shape}"
                + ("" if out.flags.writeable else ", read-only")
                + ("" if out.flags.c_contiguous else ", not contiguous")
                if isinstance(out, np.ndarray)
                else type(out).__name__
            )
            raise ArgumentError(
                f"out must be a writeable, contiguous float32 array of shape ({size},), got {got}"
            )
        return out

    # ----------------------------------------------------------- the rules
    @abstractmethod
    def new_state(self, rng: np.random.Generator) -> S:
        """A fresh game; all randomness (deal, stack order, first player) comes from ``rng``
        (checked with :func:`check_rng`)."""

    @abstractmethod
    def current_player(self, state: S) -> int:
        """The seat to act (meaningless once the game is over)."""

    def legal_mask(self, state: S) -> np.ndarray:
        """A fresh ``int8`` mask of the legal actions of the player to act (all 0 once over)."""
        self.check_state(state)
        return self.legal_mask_unchecked(state)

    @abstractmethod
    def legal_mask_unchecked(self, state: S) -> np.ndarray:
        """:meth:`legal_mask` without checking ``state`` (the suite's fast path)."""

    def step(self, state: S, action: Any) -> StepResult:
        """Apply ``action`` to ``state`` in place, if it is legal now.

        Raises :class:`~tabletop_rl.envs.errors.IllegalActionError` (naming the rule broken)
        for an action that is not an int in range or not legal now, and
        :class:`~tabletop_rl.envs.errors.GameOverError` once the game is over; the state is
        unchanged then."""
        self.check_state(state)
        if self.is_over(state):
            raise GameOverError(
                f"the game is over, so action {action!r} cannot be played; "
                "no action is legal after the end (start a new game with new_state(rng))"
            )
        return self.step_unchecked(state, self.check_legal(state, action))

    @abstractmethod
    def step_unchecked(self, state: S, action: int) -> StepResult:
        """:meth:`step` without any check: the suite's fast path for an action already known
        to be legal in ``state`` (taken from its legal mask). Anything else may corrupt the
        state, and a compiled engine may crash the interpreter."""

    @abstractmethod
    def is_over(self, state: S) -> bool:
        """The game has finished or been truncated."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """How the game ended, or ``None`` while it runs."""

    def scores(self, state: S) -> tuple[float, ...]:
        """Every seat's score so far, in the game's points (final once the game is over).

        A game without points keeps this default: every seat at 0."""
        return (0.0,) * self.num_players

    def explain_illegal(self, state: S, action: int) -> str:
        """Why ``action`` (mask entry 0) is illegal in ``state``: the rule it breaks."""
        return "its action-mask entry is 0"

    def check_legal(self, state: S, action: Any, mask: np.ndarray | None = None) -> int:
        """``action`` as an int if it is legal now, else a clear :class:`IllegalActionError`
        naming the action and the rule it breaks."""
        action = self.codec.check_index(action)
        if mask is None:
            mask = self.legal_mask_unchecked(state)
        if not mask[action]:
            raise IllegalActionError(
                f"action {action} ({self.describe_action(state, action)}) is illegal: "
                f"{self.explain_illegal(state, action)}"
            )
        return action

    # -------------------------------------------------------- observation
    def observe(self, state: S, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """``player``'s observation (the documented layout), written into ``out`` when given
        (a writeable, contiguous ``float32`` vector of ``layout.size``) and returned.

        Raises :class:`~tabletop_rl.envs.errors.ArgumentError` for a seat that is not a player
        or a buffer that cannot take the observation."""
        self.check_state(state)
        player = self.check_player(player)
        if out is not None:
            self.check_buffer(out)
        return self.observe_unchecked(state, player, out)

    @abstractmethod
    def observe_unchecked(self, state: S, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """:meth:`observe` without checking its arguments (the suite's fast path: ``player``
        in range and ``out`` a ``float32`` vector of ``layout.size`` or None)."""

    def action_layout(self) -> ObservationLayout:
        """How the flat action index splits into named groups (one flat group by default).

        Groups with ``spatial=True`` have shape ``(channels, height, width)`` over the same
        board window as the observation's spatial planes, so a network can score them with a
        per-cell convolutional head. The groups' sizes add up to ``info.num_actions``.
        """
        return ObservationLayout(
            (Field("action", (self.info.num_actions,), "every action", high=1.0),)
        )

    def symmetries(self) -> Symmetries | None:
        """The game's symmetries as observation and action permutations (None: none)."""
        return None

    # ------------------------------------------------- hidden information
    def copy(self, state: S) -> S:
        """An independent copy of ``state`` (cheap: what search and planning copy).

        Games override this with a copy of exactly what changes; the default deep-copies."""
        return copy.deepcopy(state)

    def resample_hidden(self, state: S, player: int, rng: np.random.Generator) -> None:
        """Redeal in place everything ``player`` cannot see, consistently with what it can.

        The redeal depends only on what ``player`` sees and on ``rng``, never on the hidden
        order it replaces, so a determinisation carries nothing the player cannot see. A
        game without hidden information keeps this default, which changes nothing.
        """
        if not self.info.perfect_information:
            raise NotImplementedError(f"{self.info.name} cannot resample hidden information")

    def determinize(self, state: S, player: int, rng: np.random.Generator) -> S:
        """A copy of ``state`` with the hidden information redrawn for ``player``."""
        clone = self.copy(state)
        self.resample_hidden(clone, player, rng)
        return clone

    def public_view(self, state: S, player: int) -> Any:
        """What ``player`` may see of ``state``, for scripted agents; no hidden information.

        Games check ``state`` and ``player`` (:meth:`check_state`, :meth:`check_player`)."""
        raise NotImplementedError(f"{self.info.name} has no public view")

    # ---------------------------------------------------------- invariants
    def engine_state(self, state: S) -> Any:
        """The rules engine's object inside ``state`` (the state itself by default)."""
        return state

    def check_invariants(self, state: S) -> None:
        """Raise :class:`~tabletop_rl.envs.errors.InvariantError` naming any broken engine
        invariant (conservation, counters in range ...): the engine's ``check_invariants()``
        where it has one."""
        hook = getattr(self.engine_state(state), "check_invariants", None)
        if hook is not None:
            hook()

    def monotone_scores(self, state: S) -> tuple[float, ...]:
        """Scores the rules never decrease (empty where a score may fall)."""
        hook = getattr(self.engine_state(state), "monotone_scores", None)
        return tuple(hook()) if hook is not None else ()

    # ------------------------------------------------------------- extras
    def describe_action(self, state: S | None, action: int) -> str:
        """A readable name for ``action`` (in ``state`` where names depend on it)."""
        return str(action)

    def player_info(self, state: S, player: int) -> dict[str, Any]:
        """Extra per-player entries for a PettingZoo ``infos`` dict."""
        return {}

    def to_text(self, state: S) -> str:
        """The whole state as text (every hand revealed), for bug reports and tests."""
        return repr(state)

    def render_ansi(self, state: S, viewer: int) -> str:
        """A coloured text picture of ``state`` as ``viewer`` sees it."""
        raise NotImplementedError(f"{self.info.name} has no text rendering")

    def render_rgb(self, state: S, viewer: int) -> np.ndarray:
        """An ``(H, W, 3)`` ``uint8`` picture of ``state``."""
        raise NotImplementedError(f"{self.info.name} has no image rendering")


__all__ = [
    "ENGINES",
    "ActionCodec",
    "Ending",
    "GameModel",
    "IndexCodec",
    "Outcome",
    "StepResult",
    "check_engine",
    "check_num_players",
    "check_rng",
]
