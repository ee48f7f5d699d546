"""An agent that plays the highest weighted sum of observation features: ``value:FIELD=W,...``.

With ``features: true`` every environment's observation holds fields that score its actions
(``action_group`` in the game's observation layout: Qwirkle's ``place_net`` scores every
placement, Liniell's ``occupy_turn_margin`` every occupation). This agent takes, at each
decision, the legal action whose weighted sum of the named fields is highest, ties broken by
its generator:

    value(a) = sum of weight(f) * f[a] over the named fields f that score a's group

Actions of a group that no named field scores are never chosen while another legal action is
scored; when none is, the agent plays uniformly among the legal actions (Qwirkle's exchanges
when no tile fits, for example).

A policy trained with ``action_features: true`` adds one learned weight per such field to its
logits, so this agent is a teacher such a policy can copy exactly (``teacher:
"value:lay_turn_margin=1,lay_open_ends=1.2"``); it also gives a linear baseline to compare
learned play with. The agent reads the observation with the environment's default layout and
features on: the arena, ``evaluate`` and training turn features on for it
(:func:`~tabletop_rl.baselines.arena.agent_specs.observation_kwargs`).

>>> import numpy as np
>>> from tabletop_rl.envs import liniell_v0
>>> env = liniell_v0.raw_env(features=True)
>>> env.reset(seed=3)
>>> agent = FeatureValueAgent(np.random.default_rng(0), "liniell_v0",
...                           {"lay_turn_margin": 1.0, "lay_open_ends": 1.2})
>>> obs = env.observe(env.agent_selection)
>>> action = agent.act(obs)
>>> bool(obs["action_mask"][action]), action in agent.best_actions(obs)
(True, True)
>>> FeatureValueAgent(np.random.default_rng(0), "liniell_v0", {"lay_points": 1.0})
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ConfigError: value agent: 'lay_points' is not a feature field ...
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from numbers import Real
from typing import Any

import numpy as np

from tabletop_rl.envs.core.batch_policy import FeatureValuePolicy
from tabletop_rl.envs.errors import ConfigError

from .base import SeededAgent

Scorers = dict[str, tuple[slice, slice]]


@cache
def action_scorers(env_name: str) -> tuple[int, Scorers]:
    """The observation size of ``env_name`` with features on (default options), and for each
    field that scores actions its ``(observation slice, action slice)``."""
    from tabletop_rl.envs import make

    model = make(env_name, raw=True, features=True).model
    fields = model.layout.action_fields(model.action_layout())
    return model.layout.size, {f.name: (obs, acts) for f, obs, acts in fields}


def scoring_fields(env_name: str, names: list[str]) -> list[tuple[slice, slice]]:
    """``(observation slice, action slice)`` of each named field of ``env_name``; a clear
    error for a field its observation lacks or one that does not score actions."""
    scorers = action_scorers(env_name)[1]
    for name in names:
        if name not in scorers:
            raise ConfigError(
                f"value agent: {name!r} is not a feature field that scores actions in "
                f"{env_name}; its fields: {', '.join(scorers) or 'none'}"
            )
    return [scorers[name] for name in names]


class FeatureValueAgent(SeededAgent):
    """The legal action of the highest weighted sum of the named feature fields (module
    docstring); ``weights`` maps field names to their weights."""

    name = "value"
    needs_view = False

    def __init__(
        self, rng: np.random.Generator, env_name: str, weights: Mapping[str, float]
    ) -> None:
        super().__init__(rng)
        if not weights:
            raise ConfigError(
                f"value agent: name at least one field and its weight, e.g. "
                f"value:{next(iter(action_scorers(env_name)[1]), 'FIELD')}=1"
            )
        for field, weight in weights.items():
            if isinstance(weight, bool) or not isinstance(weight, Real):
                raise ConfigError(
                    f"value agent: the weight of {field!r} must be a number, got {weight!r}"
                )
        self.env_name = env_name
        self.weights = {field: float(w) for field, w in weights.items()}
        self._size = action_scorers(env_name)[0]
        self._parts = list(
            zip(scoring_fields(env_name, list(self.weights)), self.weights.values(), strict=True)
        )

    def values(self, observation: Mapping[str, np.ndarray]) -> np.ndarray:
        """Every action's value; ``-inf`` for illegal actions and for legal ones that no named
        field scores (all legal actions 0 when no named field scores any of them)."""
        flat = np.asarray(observation["observation"]).reshape(-1)
        if flat.size != self._size:
            raise ConfigError(
                f"value agent: the observation has {flat.size} entries, not the {self._size} "
                f"of {self.env_name} with features on and its default layout; make the "
                "environment with features=True"
            )
        mask = np.asarray(observation["action_mask"]).astype(bool)
        values = np.full(mask.size, -np.inf)
        for (obs, acts), weight in self._parts:
            scored = values[acts]
            scored[np.isinf(scored)] = 0.0
            values[acts] = scored + weight * flat[obs]
        values[~mask] = -np.inf
        if not np.isfinite(values.max(initial=-np.inf)):
            values[mask] = 0.0
        return values

    def best_actions(self, observation: Mapping[str, np.ndarray], view: Any = None) -> list[int]:
        values = self.values(observation)
        best = values.max(initial=-np.inf)
        if best == -np.inf:
            raise ValueError("value agent: the action mask has no legal action")
        return [int(a) for a in np.flatnonzero(values >= best - 1e-9)]

    def act(self, observation: Mapping[str, np.ndarray], view: Any = None) -> int:
        return int(self.rng.choice(self.best_actions(observation, view)))

    def batch_policy(self, model: Any) -> FeatureValuePolicy:
        """The batch form over the observation of game model ``model`` (features on): the
        same values and the same draw among the best, in many games at once
        (:mod:`tabletop_rl.envs.core.batch_policy`)."""
        return FeatureValuePolicy(self.weights).bind(model)


def make_value_agent(rng: np.random.Generator, env_name: str, **weights: Any) -> FeatureValueAgent:
    """The agent of the spec ``value:FIELD=W,...`` (options are the field weights)."""
    return FeatureValueAgent(rng, env_name, weights)


__all__ = ["FeatureValueAgent", "action_scorers", "make_value_agent", "scoring_fields"]
