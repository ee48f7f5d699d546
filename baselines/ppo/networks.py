"""Actor-critic networks built from an environment's observation and action layouts.

:class:`ConvActorCritic` reads the observation layout: the spatial fields (shape ``(C, H, W)``,
all over the same board window) are stacked into one image for a convolutional encoder, the
other fields form a vector for an MLP. Pooled board features and the vector features meet
in a trunk MLP whose output feeds the value head and the non-spatial action groups (linear
heads). Pooling forgets *where* a feature is; with ``board_head_channels > 0`` a 1x1
convolution to that many planes is also flattened into the trunk (AlphaZero's value-head
design), so the trunk sees each cell, e.g. the lines of the tile just laid. Spatial action
groups — shape ``(C, H, W)`` over the same window — are scored per
cell by a 1x1 convolution over the board features conditioned on the trunk output, so the
policy is translation-equivariant over the board. :class:`MLPActorCritic` is one MLP over
the whole flat observation. Inputs are scaled by each field's declared bound.

Both return ``(logits, value)`` for a batch of flat observations; logits follow the flat
action index (``env.action_layout()`` order, each spatial group in its declared order: C-order
over ``(planes, H, W)``, or cell by cell for a ``channels_last`` group).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from tabletop_rl.envs.core.observation import ObservationLayout
from tabletop_rl.envs.errors import ConfigError


def _layer(layer: nn.Module, gen: torch.Generator, std: float = float(np.sqrt(2))) -> nn.Module:
    """Orthogonal weights drawn with ``gen``, zero bias (the usual PPO initialisation)."""
    nn.init.orthogonal_(layer.weight, std, generator=gen)  # type: ignore[arg-type]
    nn.init.zeros_(layer.bias)  # type: ignore[arg-type]
    return layer


def _mlp(sizes: Sequence[int], gen: torch.Generator) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        layers += [_layer(nn.Linear(a, b), gen), nn.ReLU()]
    return nn.Sequential(*layers)


def _input_scale(layout: ObservationLayout) -> torch.Tensor:
    """Per-entry 1 / (largest absolute declared bound) of the flat observation."""
    space = layout.space()
    bound = np.maximum(np.abs(space.low), np.abs(space.high))
    return torch.as_tensor(1.0 / np.where(bound > 0, bound, 1.0), dtype=torch.float32)


class MLPActorCritic(nn.Module):
    """One MLP over the whole (scaled) flat observation, linear policy and value heads."""

    def __init__(
        self,
        layout: ObservationLayout,
        num_actions: int,
        hidden_sizes: Sequence[int],
        gen: torch.Generator,
    ) -> None:
        super().__init__()
        self.register_buffer("scale", _input_scale(layout))
        self.trunk = _mlp([layout.size, *hidden_sizes], gen)
        width = hidden_sizes[-1] if hidden_sizes else layout.size
        self.policy = _layer(nn.Linear(width, num_actions), gen, 0.01)
        self.value = _layer(nn.Linear(width, 1), gen, 1.0)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(obs * self.scale)
        return self.policy(h), self.value(h).squeeze(-1)


class ConvActorCritic(nn.Module):
    """Convolutional encoder for board planes, per-cell policy head (see the module docstring)."""

    def __init__(
        self,
        layout: ObservationLayout,
        action_layout: ObservationLayout,
        conv_channels: Sequence[int],
        hidden_sizes: Sequence[int],
        gen: torch.Generator,
        board_head_channels: int = 0,
    ) -> None:
        super().__init__()
        self.register_buffer("scale", _input_scale(layout))
        spatial = layout.spatial_fields()
        boards = {f.board for f in spatial}
        if len(boards) > 1:
            raise ConfigError(f"spatial observation fields cover different windows: {boards}")
        self.board = next(iter(boards)) if boards else None
        self.spatial_fields = [(layout.slice(f.name), f.shape, f.channels_last) for f in spatial]
        spatial_idx, vector_idx = [], []
        for f in layout:
            idx = range(layout.slice(f.name).start, layout.slice(f.name).stop)
            (spatial_idx if f.spatial else vector_idx).extend(idx)
        self.register_buffer("vector_idx", torch.tensor(vector_idx, dtype=torch.long))
        self.in_channels = sum(f.planes for f in spatial)
        self.conv: nn.Sequential | None = None
        self.board_head: nn.Sequential | None = None
        pooled = 0
        if self.board is not None and conv_channels:
            layers: list[nn.Module] = []
            c = self.in_channels
            for out in conv_channels:
                layers += [_layer(nn.Conv2d(c, out, 3, padding=1), gen), nn.ReLU()]
                c = out
            self.conv = nn.Sequential(*layers)
            self.features = c
            pooled = 2 * c
            if board_head_channels > 0:
                self.board_head = nn.Sequential(
                    _layer(nn.Conv2d(c, board_head_channels, 1), gen), nn.ReLU(), nn.Flatten()
                )
                pooled += board_head_channels * self.board[0] * self.board[1]
        elif self.board is not None:  # no conv layers: the planes go to the vector MLP
            vector_idx = spatial_idx + vector_idx
            self.register_buffer("vector_idx", torch.tensor(vector_idx, dtype=torch.long))
        hidden = list(hidden_sizes) or [64]
        self.vector_mlp = _mlp([len(vector_idx), hidden[0]], gen) if vector_idx else None
        trunk_in = pooled + (hidden[0] if vector_idx else 0)
        self.trunk = _mlp([trunk_in, *hidden], gen)
        width = hidden[-1]
        self.value = _layer(nn.Linear(width, 1), gen, 1.0)
        # Action heads, in action-layout order.
        self.heads = nn.ModuleList()
        self.head_spatial: list[bool] = []
        self.head_channels_last: list[bool] = []
        self.condition: nn.Module | None = None
        for group in action_layout:
            if group.spatial and self.conv is not None:
                if group.board != self.board:
                    raise ConfigError(
                        f"spatial action group {group.name!r} covers {group.board}, "
                        f"the observation's board is {self.board}"
                    )
                self.heads.append(_layer(nn.Conv2d(self.features, group.planes, 1), gen, 0.01))
                self.head_spatial.append(True)
                self.head_channels_last.append(group.channels_last)
            else:
                self.heads.append(_layer(nn.Linear(width, group.size), gen, 0.01))
                self.head_spatial.append(False)
                self.head_channels_last.append(False)
        if any(self.head_spatial):
            self.condition = _layer(nn.Linear(width, self.features), gen)

    def _image(self, x: torch.Tensor) -> torch.Tensor:
        """The spatial fields of the scaled batch ``x`` stacked as ``(batch, planes, H, W)``."""
        planes = []
        for sl, shape, channels_last in self.spatial_fields:
            part = x[:, sl].reshape(-1, *shape)
            planes.append(part.permute(0, 3, 1, 2) if channels_last else part)
        return planes[0] if len(planes) == 1 else torch.cat(planes, dim=1)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = obs * self.scale
        parts = []
        fmap = None
        if self.conv is not None:
            fmap = self.conv(self._image(x))
            parts += [fmap.mean(dim=(2, 3)), fmap.amax(dim=(2, 3))]
            if self.board_head is not None:
                parts.append(self.board_head(fmap))
        if self.vector_mlp is not None:
            parts.append(self.vector_mlp(x.index_select(1, self.vector_idx)))
        h = self.trunk(torch.cat(parts, dim=1))
        logits = []
        if self.condition is not None and fmap is not None:
            cell = torch.relu(fmap + self.condition(h)[:, :, None, None])
        for head, spatial, last in zip(
            self.heads, self.head_spatial, self.head_channels_last, strict=True
        ):
            if spatial and last:
                logits.append(head(cell).permute(0, 2, 3, 1).flatten(1))
            elif spatial:
                logits.append(head(cell).flatten(1))
            else:
                logits.append(head(h))
        return torch.cat(logits, dim=1), self.value(h).squeeze(-1)


def build_network(
    kind: str,
    layout: ObservationLayout,
    action_layout: ObservationLayout,
    num_actions: int,
    conv_channels: Sequence[int],
    hidden_sizes: Sequence[int],
    seed: int,
    board_head_channels: int = 0,
) -> nn.Module:
    """The actor-critic named ``kind`` (``"conv"`` or ``"mlp"``), initialised from ``seed``."""
    gen = torch.Generator().manual_seed(seed)
    total = sum(g.size for g in action_layout)
    if total != num_actions:
        raise ConfigError(f"action layout covers {total} actions, the game has {num_actions}")
    if kind == "mlp":
        return MLPActorCritic(layout, num_actions, hidden_sizes, gen)
    if kind == "conv":
        return ConvActorCritic(
            layout, action_layout, conv_channels, hidden_sizes, gen, board_head_channels
        )
    raise ConfigError(f"unknown network {kind!r}; allowed: 'conv', 'mlp'")
