"""A policy term read straight off the observation fields that describe each action.

Some feature fields score every action of a group: Qwirkle's ``place_points`` and
``place_best`` (the points of a placement now, and of the best whole turn after it), its
``turn_points`` (ending the turn), Liniell's ``lay_gain`` and ``lay_turn_margin``. Such a field
is declared with ``action_group`` (:class:`~tabletop_rl.envs.core.observation.Field`): entry
``i`` belongs to action ``i`` of that group. A network can read them through its encoder, but
to prefer "the placement worth the most points" it then has to carry each hand slot's value
through the shared convolution channels to the same slot's logit. :class:`ActionFeatures`
adds the direct path, ``logit[a] += GAIN * sum_f weight[f] * field_f[a]``: one learned
weight per field, starting at 0 (so a fresh network's policy is unchanged), applied to the
field in its own units (points, not scaled by the field's bound). The config option
``action_features: true`` switches it on.

:data:`GAIN` sets how fast the weights learn. Adam moves a parameter by about the learning
rate per step, whatever its gradient's scale, so at the shipped configs' ``lr`` (1e-3) and
the few hundred optimizer steps of a 10-minute run an unscaled weight stays below about 0.3
nats per point (measured: 0.22 on ``place_best`` after 288 steps); a gain of 10 lets it
reach a few nats per point, enough to choose the best of two placements a few points apart.

>>> import torch
>>> from tabletop_rl.envs.core.observation import Field, ObservationLayout
>>> layout = ObservationLayout((
...     Field("board", (1, 2, 2), "cells", spatial=True),
...     Field("gain", (1, 2, 2), "points per lay", high=9, spatial=True, action_group="lay"),
... ))
>>> actions = ObservationLayout((Field("lay", (1, 2, 2), "lay", spatial=True),
...                              Field("skip", (1,), "skip")))
>>> term = ActionFeatures(layout, actions)
>>> with torch.no_grad():
...     _ = term.weight.fill_(0.5 / GAIN)
>>> term(torch.tensor([[1.0, 0.0, 0.0, 0.0, 4.0, 2.0, 0.0, 0.0]])).tolist()
[[2.0, 1.0, 0.0, 0.0, 0.0]]
"""

from __future__ import annotations

import torch
from torch import nn

from tabletop_rl.envs.core.observation import ObservationLayout
from tabletop_rl.envs.errors import ConfigError

GAIN = 10.0
"""The term is ``GAIN`` times the learned weights (their learning rate is ``GAIN`` times the
optimizer's; see the module docstring)."""


class ActionFeatures(nn.Module):
    """``(batch, num_actions)``: per action, the weighted sum of the fields describing it."""

    def __init__(self, layout: ObservationLayout, action_layout: ObservationLayout) -> None:
        super().__init__()
        self.num_actions = action_layout.size
        # (observation start, action offset, size) of every field that describes actions
        self.parts: list[tuple[int, int, int]] = [
            (obs.start, acts.start, f.size) for f, obs, acts in layout.action_fields(action_layout)
        ]
        if not self.parts:
            raise ConfigError(
                "action_features: true needs observation fields that describe actions (an "
                "action_group); this observation has none: turn the game's features on "
                "(env_kwargs: {features: true}) or set action_features: false"
            )
        self.weight = nn.Parameter(torch.zeros(len(self.parts)))
        """One weight per field, in :attr:`parts` order."""

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        out = obs.new_zeros(obs.shape[0], self.num_actions)
        for i, (start, offset, size) in enumerate(self.parts):
            out[:, offset : offset + size] += GAIN * self.weight[i] * obs[:, start : start + size]
        return out


__all__ = ["GAIN", "ActionFeatures"]
