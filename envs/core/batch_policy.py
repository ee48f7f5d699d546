"""Opponents that move in many games at once: the batch form of a policy.

A batch policy picks one action in each of several games of a batch with one call, where a
scripted agent (``agent.act(observation, view)``) is called once per game and move. The
Gymnasium vector environment over the compiled batch (:mod:`tabletop_rl.envs.gym_vector`)
plays its opponents with them, inside the batch.

The protocol (:class:`BatchPolicy`) is one method::

    actions = policy.act_batch(observation, action_mask, rows, draw)

``observation`` ``(N, size)`` and ``action_mask`` ``(N, A)`` are the whole batch's arrays (read
them, never write); ``rows`` names the games to act in, and the result holds one legal action
per row, in ``rows``' order. ``draw(candidates)`` is the policy's only randomness: given a
``(len(rows), A)`` array whose nonzero entries are each row's candidate actions, it returns
one candidate per row drawn uniformly from that game's own generator for this opponent,
exactly as ``generator.choice(np.flatnonzero(candidates[k]))`` draws it. A scripted agent
that picks with ``self.rng.choice`` among its best actions therefore has a batch form that
replays its games move for move when each game's generator is the agent's (the vector
environment gives every game the generators that the single-agent wrapper reseeds its
agents with).

A policy may also have ``bind(model)``: the vector environment calls it once with its game
model (features included) and plays the policy it returns, so a policy can find its fields
in the observation and refuse an environment that lacks them. A scripted agent offers its
batch form with a ``batch_policy(model)`` method, which returns the bound batch policy, or
None where it has none for that model's observation (:func:`batch_form`).

Batch policies here:

- :class:`RandomPolicy`: uniform among the legal actions (the ``random`` agent's draw).
- :class:`FeatureValuePolicy`: the legal action of the highest weighted sum of feature fields
  that score actions, ties drawn uniformly (the baselines' ``value:FIELD=W,...`` agent; also
  Liniell's ``greedy``, whose values are feature fields).
- :class:`RowPolicy`: a plain ``policy(observation, action_mask) -> action`` called once per
  game in Python (the slow path: as costly as the single-agent wrapper's opponents).

Draws run compiled (:mod:`.compiled_random`): each generator's bit generator is stepped
through numpy's own C interface to it, with numpy's bounded-integer algorithm, so a draw
advances the very generator object that the single-game path would use, by the same amount,
and gives the same action.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numba import njit

from ..errors import ConfigError
from .compiled_random import bitgen_address, choose_legal

Draw = Callable[[np.ndarray], np.ndarray]
"""``draw(candidates)``: one candidate action per row, drawn uniformly (module docstring)."""


@runtime_checkable
class BatchPolicy(Protocol):
    """Acts in many games with one call (module docstring)."""

    def act_batch(
        self, observation: np.ndarray, action_mask: np.ndarray, rows: np.ndarray, draw: Draw
    ) -> np.ndarray: ...


# ------------------------------------------------------------------ compiled draws
@njit(cache=True)
def _choose(candidates: np.ndarray, bitgens: np.ndarray, out: np.ndarray) -> int:
    """Row ``k``'s ``generator.choice(flatnonzero(candidates[k]))`` into ``out[k]``, drawing
    from the bit generator at ``bitgens[k]``; -1, or the first row without a candidate
    (nothing drawn from it or after it)."""
    for k in range(candidates.shape[0]):
        pick = choose_legal(bitgens[k], candidates[k])
        if pick < 0:
            return k
        out[k] = pick
    return -1


class GameGenerators:
    """The generators of a batch's opponents: one ``numpy.random.Generator`` per game and
    opponent, with the addresses of their bit generators that the compiled draws use."""

    def __init__(self, num_games: int, num_opponents: int) -> None:
        self.generators: list[list[np.random.Generator | None]] = [
            [None] * num_opponents for _ in range(num_games)
        ]
        self._bitgens = np.zeros((num_games, max(num_opponents, 1)), dtype=np.intp)

    def set(self, game: int, generators: Sequence[np.random.Generator]) -> None:
        """Game ``game``'s generators, one per opponent (kept alive here while in use)."""
        for k, generator in enumerate(generators):
            if not isinstance(generator, np.random.Generator):
                raise ConfigError(
                    f"opponent generators must be numpy.random.Generator, got {generator!r}"
                )
            self.generators[game][k] = generator
            self._bitgens[game, k] = bitgen_address(generator)

    def bitgens(self, rows: np.ndarray) -> np.ndarray:
        """The bit generator addresses of the games where ``rows`` is set, one column per
        opponent (a compiled backend draws from them; all rows must have generators)."""
        table = self._bitgens
        if not table[rows].all():
            game = int(np.flatnonzero(rows & ~table.all(axis=1))[0])
            raise ConfigError(f"game {game} has no generator for each opponent: reset first")
        return table

    def drawer(self, rows: np.ndarray, opponents: np.ndarray) -> Draw:
        """``draw`` for the games ``rows``, opponent ``opponents[k]`` in game ``rows[k]``."""
        bitgens = self._bitgens[rows, opponents]
        if not bitgens.all():
            k = int(np.flatnonzero(bitgens == 0)[0])
            raise ConfigError(
                f"game {int(rows[k])} has no generator for opponent {int(opponents[k])}: "
                "reset first"
            )

        def draw(candidates: np.ndarray) -> np.ndarray:
            if candidates.shape[0] != rows.size:
                raise ConfigError(
                    f"draw needs one row of candidates per game ({rows.size}), got "
                    f"{candidates.shape[0]}"
                )
            out = np.zeros(rows.size, dtype=np.int64)
            empty = _choose(candidates, bitgens, out)
            if empty >= 0:
                raise ConfigError(f"game {int(rows[empty])}: draw was given no candidate action")
            return out

        return draw


# ------------------------------------------------------------------------ policies
class RandomPolicy:
    """Uniform among the legal actions: the ``random`` agent (``generator.choice`` of the
    legal actions), for every game of a batch.

    >>> from tabletop_rl.envs.core.batch_policy import GameGenerators
    >>> gens = GameGenerators(2, 1)
    >>> for game in range(2):
    ...     gens.set(game, [np.random.default_rng(game)])
    >>> mask = np.array([[0, 1, 1, 0], [1, 0, 0, 1]], dtype=np.int8)
    >>> rows = np.array([0, 1])
    >>> picks = RandomPolicy().act_batch(None, mask, rows, gens.drawer(rows, np.zeros(2, int)))
    >>> picks.tolist() == [int(np.random.default_rng(g).choice(np.flatnonzero(mask[g])))
    ...                    for g in range(2)]
    True
    """

    name = "random"

    def act_batch(
        self, observation: np.ndarray, action_mask: np.ndarray, rows: np.ndarray, draw: Draw
    ) -> np.ndarray:
        return draw(action_mask[rows])


class FeatureValuePolicy:
    """The legal action of the highest weighted sum of the named feature fields, ties drawn
    uniformly: the batch form of the baselines' ``value:FIELD=W,...`` agent, the same values
    computed the same way (so the same choices from the same generators).

    ``weights`` maps fields that score actions (a field with an ``action_group`` in the
    game's observation layout) to their weights. Actions of a group that no named field
    scores are chosen only when no legal action is scored (then uniformly among the legal
    ones). :meth:`bind` finds the fields in an environment's observation.
    """

    name = "value"

    def __init__(self, weights: Mapping[str, float]) -> None:
        if not weights:
            raise ConfigError("a feature value policy needs at least one field and its weight")
        self.weights = {str(f): float(w) for f, w in weights.items()}
        self._parts: list[tuple[slice, slice, float]] = []
        self._size = -1

    def bind(self, model: Any) -> FeatureValuePolicy:
        """This policy over the observation of game model ``model`` (features included)."""
        fields = model.layout.action_fields(model.action_layout())
        scorers = {f.name: (obs, acts) for f, obs, acts in fields}
        missing = [name for name in self.weights if name not in scorers]
        if missing:
            known = ", ".join(scorers) or "none: make the environment with features=True"
            raise ConfigError(
                f"feature value policy: {', '.join(map(repr, missing))} not among the "
                f"observation's fields that score actions ({known})"
            )
        bound = FeatureValuePolicy(self.weights)
        bound._parts = [(*scorers[name], w) for name, w in self.weights.items()]
        bound._size = model.layout.size
        return bound

    def values(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Every action's value in each row (``-inf``: illegal, or legal but unscored while
        another legal action is scored; all legal 0 where no legal action is scored)."""
        if not self._parts:
            raise ConfigError("bind(model) the feature value policy before it acts")
        if observation.shape[1] != self._size:
            raise ConfigError(
                f"feature value policy: the observation has {observation.shape[1]} entries, "
                f"not the {self._size} it was bound to"
            )
        mask = action_mask.astype(bool)
        values = np.full(mask.shape, -np.inf)
        for obs, acts, weight in self._parts:
            scored = values[:, acts]
            scored[np.isinf(scored)] = 0.0
            values[:, acts] = scored + weight * observation[:, obs]
        values[~mask] = -np.inf
        unscored = ~np.isfinite(values.max(axis=1, initial=-np.inf))
        if unscored.any():
            values[unscored] = np.where(mask[unscored], 0.0, -np.inf)
        return values

    def act_batch(
        self, observation: np.ndarray, action_mask: np.ndarray, rows: np.ndarray, draw: Draw
    ) -> np.ndarray:
        values = self.values(observation[rows], action_mask[rows])
        best = values.max(axis=1, initial=-np.inf)
        return draw(values >= best[:, None] - 1e-9)


class RowPolicy:
    """A plain ``policy(observation, action_mask) -> action`` called once per game (the slow
    path: one Python call per game and move, with copies of the game's rows). Its
    randomness is its own; it is called game by game in ``rows``' order."""

    name = "callable"

    def __init__(self, policy: Callable[[np.ndarray, np.ndarray], int]) -> None:
        self.policy = policy

    def act_batch(
        self, observation: np.ndarray, action_mask: np.ndarray, rows: np.ndarray, draw: Draw
    ) -> np.ndarray:
        return np.array(
            [int(self.policy(observation[i].copy(), action_mask[i].copy())) for i in rows],
            dtype=np.int64,
        )


def batch_form(opponent: Any, model: Any) -> BatchPolicy | None:
    """The batch policy that plays ``opponent`` in games of ``model`` (the environment's game
    model, features included): ``"random"``; a batch policy (bound to ``model`` if it has
    ``bind``); an agent's ``batch_policy(model)`` (its batch form, None where it has none
    for this observation); a plain callable ``policy(observation, action_mask)``
    (:class:`RowPolicy`). None for anything else (an agent without a batch form, another
    agent spec)."""
    if isinstance(opponent, str):
        return RandomPolicy() if opponent == "random" else None
    if isinstance(opponent, BatchPolicy):
        bind = getattr(opponent, "bind", None)
        return bind(model) if callable(bind) else opponent
    form = getattr(opponent, "batch_policy", None)
    if callable(form):
        return form(model)  # type: ignore[no-any-return]
    if callable(opponent) and not hasattr(opponent, "act"):
        return RowPolicy(opponent)
    return None


__all__ = [
    "BatchPolicy",
    "Draw",
    "FeatureValuePolicy",
    "GameGenerators",
    "RandomPolicy",
    "RowPolicy",
    "batch_form",
]
