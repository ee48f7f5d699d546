"""Symmetries of a game as index permutations of its observation vector and its actions.

A symmetry ``g`` maps every position to an equivalent one (same legal moves up to renaming,
same value). When the observation and the actions are laid out on a board, ``g`` is a
permutation of the observation's entries and one of the action indices, and that is all a
learner needs for data augmentation: it observes ``obs[g.obs]`` and ``mask[g.actions]``,
picks an action ``a`` in that transformed frame, and plays ``g.actions[a]`` in the real game.

:func:`dihedral_symmetries` builds the eight symmetries of the square (rotations and
reflections) for layouts whose spatial fields are square boards with direction-free planes:
every plane of every spatial field moves cell by cell, every other field stays put. Qwirkle
declares them (``raw_env.symmetries()``); a game whose planes or action names carry a
direction (Liniell's ports, its pawn numbering) would need more than a cell map and declares
none.

>>> from tabletop_rl.envs.core.observation import Field, ObservationLayout
>>> cells = Field("board", (1, 2, 2), "cells", spatial=True)
>>> board = ObservationLayout((cells, Field("x", (1,), "x")))
>>> acts = ObservationLayout((Field("cell", (1, 2, 2), "cell", spatial=True),))
>>> sym = dihedral_symmetries(board, acts)
>>> len(sym), sym.names[1]
(8, 'rot90')
>>> obs = np.array([1.0, 2.0, 3.0, 4.0, 9.0])  # the board [[1, 2], [3, 4]], then x
>>> sym.transform_obs(1, obs)  # a quarter-turn anticlockwise: [[2, 4], [1, 3]]
array([2., 4., 1., 3., 9.])
>>> sym.to_env_action(1, 0)  # the transformed frame's cell (0, 0) is the real cell (0, 1)
1
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .observation import ObservationLayout

_SQUARE_OPS: tuple[tuple[str, Callable[[np.ndarray], np.ndarray]], ...] = (
    ("identity", lambda a: a),
    ("rot90", lambda a: np.rot90(a, 1, axes=(-2, -1))),
    ("rot180", lambda a: np.rot90(a, 2, axes=(-2, -1))),
    ("rot270", lambda a: np.rot90(a, 3, axes=(-2, -1))),
    ("flip_rows", lambda a: a[..., ::-1, :]),
    ("flip_cols", lambda a: a[..., :, ::-1]),
    ("transpose", lambda a: np.swapaxes(a, -2, -1)),
    ("anti_transpose", lambda a: np.rot90(np.swapaxes(a, -2, -1), 2, axes=(-2, -1))),
)
"""The dihedral group of the square, each as an operation on the last two (board) axes; the
image's cell (i, j) shows the cell of the original that the operation moved there."""


@dataclass(frozen=True)
class Symmetries:
    """A symmetry group: element ``g`` transforms observations with ``obs[g]`` (the
    transformed entry ``i`` is the original entry ``obs[g][i]``) and actions with
    ``actions[g]`` (the transformed frame's action ``a`` is the real action ``actions[g][a]``).
    Element 0 is the identity."""

    names: tuple[str, ...]
    obs: np.ndarray
    """``(len(names), observation size)`` int64 permutations."""
    actions: np.ndarray
    """``(len(names), number of actions)`` int64 permutations."""

    def __post_init__(self) -> None:
        g = len(self.names)
        for kind, perms in (("obs", self.obs), ("actions", self.actions)):
            if perms.ndim != 2 or perms.shape[0] != g:
                raise ValueError(f"{kind} permutations must have shape ({g}, n), got {perms.shape}")
            n = perms.shape[1]
            for name, p in zip(self.names, perms, strict=True):
                if not np.array_equal(np.sort(p), np.arange(n)):
                    raise ValueError(f"symmetry {name!r}: its {kind} map is not a permutation")
            if not np.array_equal(perms[0], np.arange(n)):
                raise ValueError(f"symmetry 0 must be the identity ({kind} is not)")

    def __len__(self) -> int:
        return len(self.names)

    def transform_obs(self, g: int, obs: np.ndarray) -> np.ndarray:
        """The observation(s) ``obs`` (last axis: the vector) as seen in symmetry ``g``'s frame."""
        return obs[..., self.obs[g]]

    def transform_mask(self, g: int, mask: np.ndarray) -> np.ndarray:
        """The action mask(s) ``mask`` in symmetry ``g``'s frame."""
        return mask[..., self.actions[g]]

    def to_env_action(self, g: int, action: int) -> int:
        """The real action that the action ``action`` of symmetry ``g``'s frame names."""
        return int(self.actions[g, action])


def _board_permutation(
    layout: ObservationLayout, op: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    perm = np.arange(layout.size, dtype=np.int64)
    for field in layout.spatial_fields():
        h, w = field.board
        if h != w:
            raise ValueError(f"field {field.name!r} is {h} x {w}; rotations need a square board")
        view = perm[layout.slice(field.name)].reshape(field.shape)
        if field.channels_last:  # (h, w, planes): move the planes first and back
            moved = np.moveaxis(op(np.moveaxis(view, -1, 0)), 0, -1)
        else:
            moved = op(view)
        perm[layout.slice(field.name)] = np.ascontiguousarray(moved).reshape(-1)
    return perm


def dihedral_symmetries(
    obs_layout: ObservationLayout, action_layout: ObservationLayout
) -> Symmetries:
    """The 8 rotations and reflections of square boards whose planes carry no direction.

    Every spatial field of both layouts (observation and actions) is transformed plane by
    plane; the other fields are left as they are. ``action_layout`` must cover the actions
    exactly (its size is the number of actions).
    """
    if not obs_layout.spatial_fields() or not action_layout.spatial_fields():
        raise ValueError("dihedral symmetries need spatial fields in both layouts")
    names = tuple(name for name, _ in _SQUARE_OPS)
    obs = np.stack([_board_permutation(obs_layout, op) for _, op in _SQUARE_OPS])
    actions = np.stack([_board_permutation(action_layout, op) for _, op in _SQUARE_OPS])
    return Symmetries(names, obs, actions)
