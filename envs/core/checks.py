"""The checks of the arguments every game and environment takes: whole numbers in a range,
seeds and random generators. One definition each, so that a value is refused with the same
error wherever it is given: a :class:`~tabletop_rl.envs.errors.ConfigError` for a batch's
``seed=`` or an environment's ``reset(seed=...)``, an
:class:`~tabletop_rl.envs.errors.ArgumentError` for a game model's ``new_state(rng)``.

>>> check_int("threads", 4, 1, 64)
4
>>> check_seed(7)
7
>>> check_seed(-1)
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ConfigError: seed=-1 is not allowed; allowed: an int >= 0
>>> check_seed(True)
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ConfigError: seed=True is not allowed; allowed: an int >= 0
>>> rng = np.random.default_rng(0)
>>> check_rng(rng) is rng
True
>>> check_rng(42)
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ArgumentError: rng must be a numpy.random.Generator ...got int
"""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, ConfigError


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """``value`` as an ``int`` if it is an integer (a Python or numpy int, not a bool) from
    ``low`` to ``high`` (no upper limit when ``high`` is None); else a :class:`ConfigError`
    naming ``name``, the value and what is allowed."""
    if (
        isinstance(value, bool | np.bool_)
        or not isinstance(value, int | np.integer)
        or value < low
        or (high is not None and value > high)
    ):
        allowed = f"an int >= {low}" if high is None else f"an int from {low} to {high}"
        raise ConfigError(f"{name}={brief_repr(value)} is not allowed; allowed: {allowed}")
    return int(value)


def check_seed(seed: object) -> int:
    """A seed as an ``int``: an integer >= 0 (what ``numpy.random.default_rng`` takes as one
    number); anything else (a negative number, a float, a bool, text) is a
    :class:`ConfigError`. Where ``seed=None`` means "do not reseed", the caller skips the
    check for None."""
    return check_int("seed", seed, 0)


def check_rng(rng: object) -> np.random.Generator:
    """``rng`` itself if it is a ``numpy.random.Generator``; else an :class:`ArgumentError`
    saying how to make one (every source of randomness in the suite is a seeded generator
    passed in)."""
    if not isinstance(rng, np.random.Generator):
        raise ArgumentError(
            "rng must be a numpy.random.Generator (numpy.random.default_rng(seed)), got "
            f"{type(rng).__name__}"
        )
    return rng


def bounded_int(digits: str, limit: int) -> int | None:
    """The number written as ``digits`` (decimal digits, as a notation's pattern matched them)
    if it is below ``limit``, else None. A number longer than ``limit`` is refused on its
    length and never converted: ``int()`` refuses text of more than 4300 digits, and what a
    parser does with a number must not grow with it.

    >>> bounded_int("3", 4), bounded_int("004", 4), bounded_int("9" * 5000, 4)
    (3, None, None)
    """
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(limit)):
        return None
    value = int(digits)
    return value if value < limit else None


def brief_number(digits: str) -> str:
    """A number from a text for a message: as written, or its start and its length if long.

    >>> brief_number("12"), brief_number("9" * 5000)
    ('12', '99999999999999999999... (5000 digits)')
    """
    return digits if len(digits) <= 24 else f"{digits[:20]}... ({len(digits)} digits)"


def brief_repr(value: object, limit: int = 40) -> str:
    """``repr(value)`` for a message, cut to about ``limit`` characters: a huge int or a long
    text from the input stays one short line (and an int too long for ``repr`` is named by
    its size).

    >>> brief_repr("9" * 5000)
    "'999999999999999999999999999999999... (5000 characters)"
    >>> brief_repr(10**5000)
    'an int of 16610 bits'
    """
    if isinstance(value, int) and value.bit_length() > 128:
        return f"an int of {value.bit_length()} bits"
    text = repr(value)
    if len(text) <= limit:
        return text
    size = f" ({len(value)} characters)" if isinstance(value, str) else ""
    return f"{text[: limit - 6]}...{size}"


__all__ = ["bounded_int", "brief_number", "brief_repr", "check_int", "check_rng", "check_seed"]
