"""Observation features: what the rules engine knows and a network would have to rediscover.

A game's basic observation shows the position; a :class:`FeatureSet` adds named fields computed
from it by the rules (the points a placement would score, the lines an opponent could complete,
...). :class:`FeatureModel` wraps any :class:`~.model.GameModel`: its layout is the base layout
followed by the feature fields, its ``observe`` writes the base observation and then the
features, and everything else (rules, masks, outcomes, rendering) is the base model's. The
environments switch it on with ``features=True``; each environment's docstring documents its
feature fields (a game's feature set is declared next to its model, in ``<game>/features.py``).

Features describe the position as ``player`` sees it: a feature set receives the model, the
state, the observer, the observer's base observation as named views, and the observer's legal
mask when the observer is the player to act (``None`` otherwise: features that depend on the
moves available are then all zeros).

>>> import numpy as np
>>> from tabletop_rl.envs.core.observation import Field
>>> from tabletop_rl.envs.liniell.model import LiniellModel
>>> def count_legal(model, state, player, base, mask, out):
...     out["legal_count"][0] = 0 if mask is None else mask.sum()
>>> legal = FeatureSet(
...     "legal", (Field("legal_count", (1,), "legal actions", high=1e4),), count_legal
... )
>>> model = FeatureModel(LiniellModel(), legal)
>>> state = model.new_state(np.random.default_rng(0))
>>> obs = model.observe(state, model.current_player(state))
>>> int(model.layout.decode(obs)["legal_count"][0]) == int(model.legal_mask(state).sum())
True
>>> model.layout.size == model.base.layout.size + 1
True

Observation versions
--------------------
A trained policy reads the observation of the environment it was trained on; if the
observation has changed since, its weights either no longer fit or, worse, fit and read fields
that moved or mean something else. :func:`observation_version` names the observation a model
writes: the game, the revision of its basic observation (``GameInfo.observation_revision``),
the feature set's revision if features are on (``FeatureSet.revision``: raised with every
change to the feature fields), and the layout's digest (:attr:`.ObservationLayout.digest`),
which changes by itself whenever a field is added, removed, moved, reshaped or rebounded.
Every saved policy carries the version it was trained on, and loading one under another
version fails. Each environment's docstring names its current versions in its version
history (a test keeps them true).

>>> observation_version(model.base)
'liniell_v0/obs1/...'
>>> observation_version(model)
'liniell_v0/obs1/legal-features1/...'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .model import GameModel, Outcome, StepResult
from .observation import Field, ObservationLayout
from .symmetry import Symmetries

FeatureWriter = Callable[
    [GameModel, Any, int, dict[str, np.ndarray], np.ndarray | None, dict[str, np.ndarray]],
    None,
]
"""``write(model, state, player, base_views, mask, out_views)``: fill ``out_views`` (the
feature fields, zeroed beforehand) for ``player``; ``mask`` is ``player``'s legal mask when
``player`` is to act, else ``None``."""


@dataclass(frozen=True)
class FeatureSet:
    """Named feature fields and the function that writes them (see the module docstring)."""

    name: str
    fields: tuple[Field, ...]
    write: FeatureWriter
    revision: int = 1
    """Raised with every change to the fields or to what they mean (the environment's
    version history says what each revision changed); part of the observation version."""


class FeatureModel(GameModel):
    """``base`` with ``features`` appended to every observation (see the module docstring).

    Attributes of the base model that are not part of the game-model interface (a game's
    extras, such as Qwirkle's ``window``) are read through to the base.
    """

    def __init__(self, base: GameModel, features: FeatureSet) -> None:
        clash = {f.name for f in features.fields} & {f.name for f in base.layout}
        if clash:
            raise ValueError(f"feature fields {sorted(clash)} clash with the base observation")
        self.base = base
        self.features = features
        self.info = base.info
        self.num_players = base.num_players
        self.codec = base.codec
        self.layout = ObservationLayout((*base.layout, *features.fields))
        self.state_type = base.state_type
        self._base_size = base.layout.size
        # (name, slice, shape) of every field: the writer's views are cut from these
        self._base_parts = self._parts(base.layout.fields)
        self._feature_parts = self._parts(features.fields)

    def _parts(self, fields: tuple[Field, ...]) -> tuple[tuple[str, slice, tuple[int, ...]], ...]:
        return tuple((f.name, self.layout.slice(f.name), f.shape) for f in fields)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("base", "features"):
            raise AttributeError(name)
        return getattr(self.base, name)

    # ----------------------------------------------------------- the rules
    def new_state(self, rng: np.random.Generator) -> Any:
        return self.base.new_state(rng)

    def current_player(self, state: Any) -> int:
        return self.base.current_player(state)

    def check_state(self, state: Any) -> None:
        self.base.check_state(state)

    def legal_mask_unchecked(self, state: Any) -> np.ndarray:
        return self.base.legal_mask_unchecked(state)

    def step_unchecked(self, state: Any, action: int) -> StepResult:
        return self.base.step_unchecked(state, action)

    def is_over(self, state: Any) -> bool:
        return self.base.is_over(state)

    def outcome(self, state: Any) -> Outcome | None:
        return self.base.outcome(state)

    def scores(self, state: Any) -> tuple[float, ...]:
        return self.base.scores(state)

    def explain_illegal(self, state: Any, action: int) -> str:
        return self.base.explain_illegal(state, action)

    # -------------------------------------------------------- observation
    def observe_unchecked(
        self, state: Any, player: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        if out is None:
            out = np.empty(self.layout.size, dtype=np.float32)
        base_obs = out[: self._base_size]
        self.base.observe_unchecked(state, player, base_obs)
        out[self._base_size :] = 0.0
        mask = None
        if not self.base.is_over(state) and self.base.current_player(state) == player:
            mask = self.base.legal_mask_unchecked(state)
        self.features.write(
            self.base,
            state,
            player,
            _views(out, self._base_parts),
            mask,
            _views(out, self._feature_parts),
        )
        return out

    def action_layout(self) -> ObservationLayout:
        return self.base.action_layout()

    def symmetries(self) -> Symmetries | None:
        """None: feature planes may carry a direction (rows against columns), so the base
        game's symmetries do not carry over to them."""
        return None

    # ------------------------------------------------- hidden information
    def copy(self, state: Any) -> Any:
        return self.base.copy(state)

    def resample_hidden(self, state: Any, player: int, rng: np.random.Generator) -> None:
        self.base.resample_hidden(state, player, rng)

    def determinize(self, state: Any, player: int, rng: np.random.Generator) -> Any:
        return self.base.determinize(state, player, rng)

    def public_view(self, state: Any, player: int) -> Any:
        return self.base.public_view(state, player)

    # ---------------------------------------------------------- invariants
    def engine_state(self, state: Any) -> Any:
        return self.base.engine_state(state)

    def check_invariants(self, state: Any) -> None:
        self.base.check_invariants(state)

    def monotone_scores(self, state: Any) -> tuple[float, ...]:
        return self.base.monotone_scores(state)

    # ------------------------------------------------------------- extras
    def describe_action(self, state: Any, action: int) -> str:
        return self.base.describe_action(state, action)

    def player_info(self, state: Any, player: int) -> dict[str, Any]:
        return self.base.player_info(state, player)

    def to_text(self, state: Any) -> str:
        return self.base.to_text(state)

    def render_ansi(self, state: Any, viewer: int) -> str:
        return self.base.render_ansi(state, viewer)

    def render_rgb(self, state: Any, viewer: int) -> np.ndarray:
        return self.base.render_rgb(state, viewer)


def _views(
    out: np.ndarray, parts: tuple[tuple[str, slice, tuple[int, ...]], ...]
) -> dict[str, np.ndarray]:
    """Named views of the flat observation ``out``, one per ``(name, slice, shape)``."""
    return {name: out[s] if len(shape) == 1 else out[s].reshape(shape) for name, s, shape in parts}


def observation_version(model: GameModel) -> str:
    """The version of the observation ``model`` writes (see the module docstring):
    ``<game>/obs<revision>[/<feature set>-features<revision>]/<layout digest>``."""
    version = f"{model.info.name}/obs{model.info.observation_revision}"
    if isinstance(model, FeatureModel):
        version += f"/{model.features.name}-features{model.features.revision}"
    return f"{version}/{model.layout.digest}"


def with_features(model: GameModel, features: FeatureSet | None) -> GameModel:
    """``model`` with ``features`` appended to its observation (``model`` itself for None)."""
    return model if features is None else FeatureModel(model, features)


__all__ = ["FeatureModel", "FeatureSet", "FeatureWriter", "observation_version", "with_features"]
