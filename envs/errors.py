"""Exception classes shared by every game of the suite.

Every error is a :class:`ValueError` subclass (except :class:`TabletopError` itself),
so callers that only know the standard library can still catch them, and every
message says what was wrong and what is allowed.
"""

from __future__ import annotations


class TabletopError(Exception):
    """Base class of all errors raised by tabletop-rl."""


class IllegalMoveError(TabletopError, ValueError):
    """A move breaks a rule of the game; the message names the broken rule."""


class IllegalActionError(TabletopError, ValueError):
    """An environment action is not legal now (its action-mask entry is 0)."""


class NotationError(TabletopError, ValueError):
    """Text in one of the games' notations could not be parsed."""


class ConfigError(TabletopError, ValueError):
    """An option or configuration value is unknown or has the wrong type."""


class ObservationVersionError(ConfigError):
    """A saved policy was trained on another version of the environment's observation than
    the one it would read now; the message names both versions."""


class ActionOutOfRangeError(IllegalActionError, AssertionError):
    """An action outside the action space was given to a wrapped environment.

    Also an ``AssertionError``: PettingZoo's ``AssertOutOfBoundsWrapper`` raises one there, and
    code written against PettingZoo catches that.
    """


class InvariantError(TabletopError, AssertionError):
    """An engine invariant is broken: a bug in the engine, never a problem of the input.

    Raised by the games' ``check_invariants()``, which the conformance check and the fuzz
    benchmark call after every step; the message names the broken invariant.
    """


class GameOverError(IllegalActionError):
    """An action was given for a game that is already over: no action is legal then."""


class ArgumentError(TabletopError, ValueError):
    """An argument of a public call has the wrong type, shape or range: a seat that is not a
    player, an observation buffer of the wrong shape or dtype, a state of another model, a
    random generator that is not a ``numpy.random.Generator``. Nothing was changed."""
