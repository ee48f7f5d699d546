"""Named observation layouts: one flat float32 vector made of named fields.

Every environment's observation is a flat ``float32`` vector so that it fits a single
``gymnasium.spaces.Box``; a :class:`ObservationLayout` names its parts. Board planes are
fields with ``spatial=True`` and shape ``(planes, height, width)``, so a network can
reshape them for a convolution without magic numbers. A spatial field with
``channels_last=True`` has shape ``(height, width, planes)`` instead: its entries run cell by
cell (the order of action groups such as Liniell's ``4 * cell + rotation``); ``planes`` and
``board`` read either order.

>>> layout = ObservationLayout((
...     Field("board", (2, 3, 3), "occupancy planes", spatial=True),
...     Field("score", (2,), "scores, own first", high=500.0),
... ))
>>> layout.size
20
>>> buf = layout.zeros()
>>> views = layout.views(buf)
>>> views["score"][:] = (12, 7)
>>> layout.decode(buf)["score"].tolist()
[12.0, 7.0]

A layout's :attr:`~ObservationLayout.digest` is a hash of what a trained network depends on:
every field's name, shape, bounds, plane order and action group, in order. It enters the
environment's observation version (:func:`~.features.observation_version`), so a layout
that changes can never keep its version.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from functools import cached_property
from math import prod

import numpy as np
from gymnasium import spaces

from ..errors import ConfigError


@dataclass(frozen=True)
class Field:
    """One named part of an observation vector."""

    name: str
    shape: tuple[int, ...]
    description: str
    low: float = 0.0
    high: float = 1.0
    spatial: bool = False
    channels_last: bool = False
    """Spatial fields only: the shape is ``(height, width, planes)``, entries cell by cell."""
    action_group: str | None = None
    """The action group whose actions this field describes, one entry per action in the
    group's order (same shape), e.g. the points each placement would score; ``None`` for a
    field that describes the position."""

    def __post_init__(self) -> None:
        if self.spatial and len(self.shape) != 3:
            raise ValueError(f"spatial field {self.name!r} needs a 3-d shape, got {self.shape}")
        if self.channels_last and not self.spatial:
            raise ValueError(f"field {self.name!r}: channels_last applies to spatial fields only")

    @property
    def size(self) -> int:
        return prod(self.shape)

    @property
    def planes(self) -> int:
        """Number of planes of a spatial field.

        >>> Field("lay", (7, 7, 4), "cell x rotation", spatial=True, channels_last=True).planes
        4
        """
        return self.shape[-1] if self.channels_last else self.shape[0]

    @property
    def board(self) -> tuple[int, int]:
        """``(height, width)`` of a spatial field."""
        h, w = self.shape[:2] if self.channels_last else self.shape[1:]
        return (h, w)


class ObservationLayout:
    """An ordered set of :class:`Field` s laid end to end in one flat vector."""

    def __init__(self, fields: tuple[Field, ...]) -> None:
        names = [f.name for f in fields]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate field names in observation layout: {names}")
        self.fields = tuple(fields)
        self._slices: dict[str, slice] = {}
        offset = 0
        for f in self.fields:
            self._slices[f.name] = slice(offset, offset + f.size)
            offset += f.size
        self.size = offset

    def __iter__(self) -> Iterator[Field]:
        return iter(self.fields)

    def __getitem__(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"no field {name!r}; fields: {[f.name for f in self.fields]}")

    def slice(self, name: str) -> slice:
        """The slice of the flat vector that holds field ``name``."""
        return self._slices[name]

    def field_at(self, index: int) -> Field:
        """The field that holds entry ``index`` of the flat vector (for an action layout:
        the action group of action ``index``).

        >>> layout = ObservationLayout((Field("lay", (196,), "lays"), Field("skip", (1,), "")))
        >>> layout.field_at(195).name, layout.field_at(196).name
        ('lay', 'skip')
        """
        for f in self.fields:
            s = self._slices[f.name]
            if s.start <= index < s.stop:
                return f
        raise IndexError(f"entry {index} lies outside the layout's {self.size} entries")

    def action_fields(self, actions: ObservationLayout) -> list[tuple[Field, slice, slice]]:
        """``(field, observation slice, action slice)`` of every field that describes the
        actions of a group (``action_group``), entry ``i`` of the field belonging to action
        ``i`` of the group; ``actions`` is the game's action layout. A clear error for a
        group the game lacks or a field whose shape is not the group's.

        >>> layout = ObservationLayout((Field("board", (4,), "cells"),
        ...                             Field("gain", (3,), "points", action_group="lay")))
        >>> actions = ObservationLayout((Field("skip", (1,), "skip"), Field("lay", (3,), "lays")))
        >>> [(f.name, o, a) for f, o, a in layout.action_fields(actions)]
        [('gain', slice(4, 7, None), slice(1, 4, None))]
        """
        groups = {g.name: g for g in actions}
        out = []
        for f in self.fields:
            if f.action_group is None:
                continue
            group = groups.get(f.action_group)
            if group is None:
                raise ConfigError(
                    f"observation field {f.name!r} describes action group {f.action_group!r}, "
                    f"which the game does not have; its groups: {', '.join(groups)}"
                )
            if (f.shape, f.channels_last) != (group.shape, group.channels_last):
                raise ConfigError(
                    f"observation field {f.name!r} (shape {f.shape}) does not match its "
                    f"action group {group.name!r} (shape {group.shape}) entry for entry"
                )
            out.append((f, self._slices[f.name], actions.slice(group.name)))
        return out

    @cached_property
    def digest(self) -> str:
        """8 hex digits of a hash of every field's name, shape, bounds, plane order and action
        group, in order (not the descriptions: rewording one keeps the layout); any change to
        those gives another digest.

        >>> a = ObservationLayout((Field("board", (2, 3, 3), "planes", spatial=True),))
        >>> b = ObservationLayout((Field("board", (2, 3, 3), "the planes", spatial=True),))
        >>> c = ObservationLayout((Field("board", (2, 3, 3), "planes", high=2.0, spatial=True),))
        >>> a.digest == b.digest != c.digest, len(a.digest)
        (True, 8)
        """
        parts = [
            [
                f.name,
                [int(d) for d in f.shape],
                float(f.low),
                float(f.high),
                bool(f.spatial),
                bool(f.channels_last),
                f.action_group,
            ]
            for f in self.fields
        ]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:8]

    def zeros(self) -> np.ndarray:
        """A new all-zero observation vector."""
        return np.zeros(self.size, dtype=np.float32)

    def views(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Writable views of ``obs`` (flat, or batched with a leading axis), one per field."""
        obs = np.asarray(obs)
        lead = obs.shape[:-1]
        if obs.shape[-1] != self.size:
            raise ValueError(
                f"observation has {obs.shape[-1]} entries, the layout expects {self.size}"
            )
        if not lead:  # one observation (every observe call): plain slices, reshaped if needed
            return {
                f.name: obs[s] if len(f.shape) == 1 else obs[s].reshape(f.shape)
                for f, s in zip(self.fields, self._slices.values(), strict=True)
            }
        return {
            f.name: obs[..., self._slices[f.name]].reshape(*lead, *f.shape) for f in self.fields
        }

    def decode(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Named views of an observation vector (or a batch of them)."""
        return self.views(obs)

    def space(self) -> spaces.Box:
        """The Box space of the flat vector, with per-entry bounds from the fields."""
        low = np.concatenate([np.full(f.size, f.low, dtype=np.float32) for f in self.fields])
        high = np.concatenate([np.full(f.size, f.high, dtype=np.float32) for f in self.fields])
        return spaces.Box(low=low, high=high, dtype=np.float32)

    def spatial_fields(self) -> list[Field]:
        return [f for f in self.fields if f.spatial]

    def markdown_table(self, names: Collection[str] | None = None) -> str:
        """The table that each environment's module docstring must contain verbatim (the
        rows of the fields in ``names`` only, if given: an environment's optional feature
        fields, with their offsets in the whole observation)."""
        rows = ["| field | shape | offset | values | meaning |", "|---|---|---|---|---|"]
        for f in self.fields:
            if names is not None and f.name not in names:
                continue
            s = self._slices[f.name]
            shape = "(" + ", ".join(str(d) for d in f.shape) + ("," if len(f.shape) == 1 else "")
            rows.append(
                f"| `{f.name}` | {shape}) | {s.start} | [{f.low:g}, {f.high:g}] | {f.description} |"
            )
        return "\n".join(rows)
