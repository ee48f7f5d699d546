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
the whole flat observation. Inputs are scaled by each field's declared bound. With
``action_features`` (``build_network``), every kind's logits also get the direct term of
:mod:`.action_features`: a learned weighted sum of the fields that describe each action.

Both return ``(logits, value)`` for a batch of flat observations; logits follow the flat
action index (``env.action_layout()`` order, each spatial group in its declared order: C-order
over ``(planes, H, W)``, or cell by cell for a ``channels_last`` group).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from tabletop_rl.envs.core.observation import ObservationLayout
from tabletop_rl.envs.errors import ConfigError

from .action_features import ActionFeatures
from .config import NETWORK_KINDS

OUTSIDE_LOGIT = -1e9
"""The logit :class:`CropConvActorCritic` gives the cells outside its crop (never legal)."""


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
    """One MLP over the whole (scaled) flat observation, linear policy and value heads.

    The input scale is folded into the first layer's weights (a ``hidden x inputs`` product
    per call instead of a ``batch x inputs`` one). :meth:`forward` also takes
    :class:`SparseRows` (see :class:`TrainingInputs`): the first layer then reads only the
    nonzero entries."""

    def __init__(
        self,
        layout: ObservationLayout,
        num_actions: int,
        hidden_sizes: Sequence[int],
        gen: torch.Generator,
        action_terms: ActionFeatures | None = None,
    ) -> None:
        super().__init__()
        self.register_buffer("scale", _input_scale(layout))
        self.trunk = _mlp([layout.size, *hidden_sizes], gen)
        width = hidden_sizes[-1] if hidden_sizes else layout.size
        self.policy = _layer(nn.Linear(width, num_actions), gen, 0.01)
        self.value = _layer(nn.Linear(width, 1), gen, 1.0)
        self.action_terms = action_terms

    def forward(self, obs: torch.Tensor | SparseRows) -> tuple[torch.Tensor, torch.Tensor]:
        if not len(self.trunk):  # no hidden layer: the heads read the scaled observation
            raw = obs.dense if isinstance(obs, SparseRows) else obs
            assert raw is not None
            h = raw * self.scale
        else:
            first = self.trunk[0]
            assert isinstance(first, nn.Linear)
            if isinstance(obs, SparseRows):
                raw = obs.dense
                pre = _SparseLinear.apply(first.weight, obs.x, obs.xt) + first.bias
            else:
                raw = obs
                pre = nn.functional.linear(obs, first.weight * self.scale, first.bias)
            h = self.trunk[1:](pre)
        logits = self.policy(h)
        if self.action_terms is not None:
            assert raw is not None
            logits = logits + self.action_terms(raw)
        return logits, self.value(h).squeeze(-1)


SPARSE_DENSITY = 0.1
""":class:`TrainingInputs` hands an MLP sparse rows when fewer than this fraction of the
batch's observation entries are nonzero. Forward and backward of the first layer (2707 x 256)
over a 1860-row minibatch of Liniell self-play observations (3.6% nonzero), one torch
thread, on a shared loaded machine: dense 145 ms (plus 20 ms to gather the rows), sparse
37 ms (plus about 10 to gather the rows' nonzero entries and sort them by column). At
Qwirkle Cards' 33% (225 inputs) the dense product is the faster."""


class SparseRows:
    """A minibatch of observations by their nonzero entries, already scaled.

    ``x``: ``(rows, inputs)`` sparse CSR; ``xt``: its transpose, ``(inputs, rows)`` CSR (the
    first layer's weight gradient is ``xt @ grad``); ``dense``: the raw rows, only where the
    network reads raw entries too (its action-feature term), else None."""

    def __init__(self, x: torch.Tensor, xt: torch.Tensor, dense: torch.Tensor | None) -> None:
        self.x, self.xt, self.dense = x, xt, dense


class _SparseLinear(torch.autograd.Function):
    """``x @ weight.T`` for a sparse CSR ``x`` (no gradient to ``x``)."""

    @staticmethod
    def forward(
        ctx: torch.autograd.function.FunctionCtx,
        weight: torch.Tensor,
        x: torch.Tensor,
        xt: torch.Tensor,
    ) -> torch.Tensor:
        ctx.xt = xt  # type: ignore[attr-defined]
        return x @ weight.t()

    @staticmethod
    def backward(  # type: ignore[override]
        ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor
    ) -> tuple[torch.Tensor, None, None]:
        return (ctx.xt @ grad).t(), None, None  # type: ignore[attr-defined]


class CropRows:
    """A minibatch for :class:`CropConvActorCritic`: rows ``index`` of the ``batch`` of raw
    observations, with every row's input crop (``regions``, :meth:`~CropConvActorCritic.
    regions`) found once for the whole batch; the network cuts each crop straight from the
    batch, never copying the minibatch's whole observations."""

    def __init__(self, batch: torch.Tensor, index: torch.Tensor, regions: torch.Tensor) -> None:
        self.batch, self.index, self.regions = batch, index, regions


class TrainingInputs:
    """A batch's observations as ``net`` reads them minibatch by minibatch (:meth:`rows`).

    For an :class:`MLPActorCritic` and a batch where fewer than :data:`SPARSE_DENSITY` of the
    entries are nonzero (Liniell's board planes), the nonzero entries are found and scaled
    once per batch, and each minibatch is handed over as :class:`SparseRows`. For a
    :class:`CropConvActorCritic` every row's crop is found once per batch and each minibatch
    is handed over as :class:`CropRows` (the network cuts the crops from the batch). Otherwise
    as the dense rows. Either way the network computes the same function (to float rounding).
    """

    def __init__(self, net: nn.Module, obs: torch.Tensor) -> None:
        self.obs = obs
        self.sparse = False
        self.regions: torch.Tensor | None = None
        if isinstance(net, CropConvActorCritic):
            self.regions = net.regions(obs)
            return
        if not isinstance(net, MLPActorCritic) or not len(net.trunk) or obs.numel() == 0:
            return
        nonzero = obs.nonzero()
        if len(nonzero) >= SPARSE_DENSITY * obs.numel():
            return
        self.sparse = True
        self.reads_raw = net.action_terms is not None
        rows, self.cols = nonzero[:, 0], nonzero[:, 1]
        self.values = obs[rows, self.cols] * net.scale[self.cols]
        self.counts = torch.bincount(rows, minlength=obs.shape[0])
        self.starts = torch.cumsum(self.counts, 0) - self.counts
        # a stable sort by column of a minibatch's entries; int16 keys sort by radix
        self.key_dtype = torch.int16 if obs.shape[1] <= torch.iinfo(torch.int16).max else None

    def rows(self, index: torch.Tensor) -> torch.Tensor | SparseRows | CropRows:
        """The observations of rows ``index``, as the network takes them."""
        if self.regions is not None:
            return CropRows(self.obs, index, self.regions)
        if not self.sparse:
            return self.obs[index]
        size, width = len(index), self.obs.shape[1]
        counts = self.counts[index]
        crow = counts.new_zeros(size + 1)
        torch.cumsum(counts, 0, out=crow[1:])
        total = int(crow[-1])
        at = torch.repeat_interleave(self.starts[index] - crow[:-1], counts, output_size=total)
        at += torch.arange(total)
        cols, values = self.cols[at], self.values[at]
        keys = cols if self.key_dtype is None else cols.to(self.key_dtype)
        by_col = torch.argsort(keys, stable=True)
        tcrow = counts.new_zeros(width + 1)
        torch.cumsum(torch.bincount(cols, minlength=width), 0, out=tcrow[1:])
        row_of = torch.repeat_interleave(torch.arange(size), counts, output_size=total)
        with warnings.catch_warnings():  # torch's notice that its CSR support is in beta
            warnings.filterwarnings("ignore", "Sparse CSR tensor support", UserWarning)
            x = torch.sparse_csr_tensor(crow, cols, values, (size, width), check_invariants=False)
            xt = torch.sparse_csr_tensor(
                tcrow, row_of[by_col], values[by_col], (width, size), check_invariants=False
            )
        return SparseRows(x, xt, self.obs[index] if self.reads_raw else None)


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
        action_terms: ActionFeatures | None = None,
    ) -> None:
        super().__init__()
        self.register_buffer("scale", _input_scale(layout))
        self.action_terms = action_terms
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
        policy = _with_action_terms(torch.cat(logits, dim=1), self.action_terms, obs)
        return policy, self.value(h).squeeze(-1)


class CropConvActorCritic(ConvActorCritic):
    """:class:`ConvActorCritic` evaluated on the occupied part of the board only.

    Each observation's *box* is the bounding box of the cells where any spatial input plane
    is nonzero (with nothing on the board: the window's centre cell, where Qwirkle and
    Liniell lay their first tile). The input crop is the box grown on every side by
    ``REACH + len(conv_channels)`` cells (cells past the window read as empty); the
    convolutions run on it unpadded, each layer one cell smaller on every side, so the last
    layer covers exactly the box grown by ``REACH``, every cell with its whole receptive field.
    The board features are pooled (mean and max) over those cells, and the spatial action
    heads score them; every other cell gets the logit :data:`OUTSIDE_LOGIT`. The assumption
    this rests on: a legal spatial action lies at most ``REACH`` (one) cell from a nonzero
    cell, as in games whose moves touch what is laid (Qwirkle, Liniell); there its logit is
    what the convolutions over an unbounded board give. The network is translation-invariant
    (values) and -equivariant (logits): shifting a position inside the window shifts the
    logits with it and changes nothing else.

    Samples are cropped one by one (the batch's common box grows with every sample), and
    cropped samples of similar size are stacked into one convolution call (see
    :meth:`_buckets`). The parameters are
    :class:`ConvActorCritic`'s, so the two load each other's weights.
    """

    REACH = 1
    """How far (in cells) a legal spatial action may lie from a nonzero cell."""
    BUCKET_COST = 5000
    """The overhead of one more convolution call, counted in cropped cells: a tuning constant
    of :meth:`_buckets`. Forward and backward over 256 Qwirkle positions took 168, 141, 127
    and 115 CPU-ms with 0, 500, 1,500 and 5,000 (21, 12, 7 and 5 calls), 166 with one call
    for all (the shipped config's layers, one thread, medians of 5)."""

    def __init__(
        self,
        layout: ObservationLayout,
        action_layout: ObservationLayout,
        conv_channels: Sequence[int],
        hidden_sizes: Sequence[int],
        gen: torch.Generator,
        action_terms: ActionFeatures | None = None,
    ) -> None:
        if not conv_channels:
            raise ConfigError("network 'crop' needs at least one conv layer (conv_channels)")
        super().__init__(
            layout, action_layout, conv_channels, hidden_sizes, gen, action_terms=action_terms
        )
        if self.conv is None or self.board is None:
            raise ConfigError("network 'crop' needs spatial observation fields")
        self.margin = self.REACH + len(conv_channels)
        self.num_actions = sum(g.size for g in action_layout)
        offsets = itertools.accumulate((g.size for g in action_layout), initial=0)
        self.head_offsets = list(offsets)[:-1]

    def _views(self, obs: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Each spatial field of the raw batch as ``(batch, planes, H, W)`` (channels last:
        ``(batch, H, W, planes)``), with its input scale."""
        views = []
        for sl, shape, last in self.spatial_fields:
            part = obs[:, sl].reshape(-1, *shape)
            views.append((part.permute(0, 3, 1, 2) if last else part, self.scale[sl.start]))
        return views

    def _view_regions(self, views: list[tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        """``(batch, 4)`` int64 rows ``top, bottom, left, right`` (inclusive) of each input
        crop."""
        occupied = (views[0][0] != 0).any(dim=1)
        for view, _ in views[1:]:
            occupied |= (view != 0).any(dim=1)
        height, width = occupied.shape[1:]
        rows, cols = occupied.any(dim=2), occupied.any(dim=1)
        empty = ~rows.any(dim=1)

        def bounds(hit: torch.Tensor, size: int) -> tuple[torch.Tensor, torch.Tensor]:
            at = torch.arange(size)
            low = torch.where(hit, at, size).amin(dim=1)
            high = torch.where(hit, at, -1).amax(dim=1)
            centre = torch.full_like(low, size // 2)
            return torch.where(empty, centre, low), torch.where(empty, centre, high)

        top, bottom = bounds(rows, height)
        left, right = bounds(cols, width)
        m = self.margin
        return torch.stack([top - m, bottom + m, left - m, right + m], dim=1)

    def regions(self, obs: torch.Tensor) -> torch.Tensor:
        """``(batch, 4)`` rows ``top, bottom, left, right``: the inclusive window rows and
        columns (possibly past the window's edges) of each observation's input crop."""
        return self._view_regions(self._views(obs))

    def _buckets(self, regions: torch.Tensor) -> list[torch.Tensor]:
        """Sample indices grouped so that each group's crops are stacked into one convolution.

        Samples sorted by their input crop's longer side are cut into runs minimising the total
        of ``samples x longest side ** 2 + BUCKET_COST`` over the runs (exact, by dynamic
        programming over the distinct sides).
        """
        side = torch.maximum(regions[:, 1] - regions[:, 0], regions[:, 3] - regions[:, 2]) + 1
        values, inverse, counts = torch.unique(side, return_inverse=True, return_counts=True)
        sides, number = values.tolist(), counts.tolist()
        best = [0.0] + [float("inf")] * len(sides)
        start = [0] * (len(sides) + 1)
        for j in range(1, len(sides) + 1):
            n = 0
            for i in range(j, 0, -1):  # the run of distinct sides i - 1 .. j - 1
                n += number[i - 1]
                cost = best[i - 1] + n * sides[j - 1] ** 2 + self.BUCKET_COST
                if cost < best[j]:
                    best[j], start[j] = cost, i - 1
        groups = []
        j = len(sides)
        while j > 0:
            i = start[j]
            groups.append(torch.nonzero((inverse >= i) & (inverse < j)).squeeze(1))
            j = i
        return groups

    def forward(self, obs: torch.Tensor | CropRows) -> tuple[torch.Tensor, torch.Tensor]:
        assert self.conv is not None and self.board is not None
        height, width = self.board
        if isinstance(obs, CropRows):  # rows of a larger batch, their regions already found
            source, source_rows = obs.batch, obs.index
            views = self._views(source)
            regions = obs.regions[source_rows]
        else:
            source, source_rows = obs, None
            views = self._views(source)
            regions = self._view_regions(views)
        batch = regions.shape[0]
        pooled = source.new_zeros(batch, 2 * self.features)
        crops = []  # per bucket: sample indices, window cells, which are scored, fmap
        for idx in self._buckets(regions):
            reg = regions[idx]
            h = int((reg[:, 1] - reg[:, 0]).max()) + 1
            w = int((reg[:, 3] - reg[:, 2]).max()) + 1
            rows = (reg[:, 0:1] + torch.arange(h))[:, :, None]  # (n, h, 1)
            cols = (reg[:, 2:3] + torch.arange(w))[:, None, :]  # (n, 1, w)
            inside = (rows <= reg[:, 1, None, None]) & (cols <= reg[:, 3, None, None])
            in_window = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
            src = idx if source_rows is None else source_rows[idx]
            at = (src[:, None, None], rows.clamp(0, height - 1), cols.clamp(0, width - 1))
            # Advanced indices around the planes' slice put the planes last: (n, h, w, planes).
            image = torch.cat([v[at[0], :, at[1], at[2]] * s for v, s in views], dim=3)
            fmap = (image * in_window[..., None]).permute(0, 3, 1, 2)
            for layer in self.conv:  # unpadded: each layer drops one cell on every side
                if isinstance(layer, nn.Conv2d):
                    fmap = nn.functional.conv2d(fmap, layer.weight, layer.bias)
                else:
                    fmap = layer(fmap)
            depth = len(self.conv) // 2
            rows, cols = rows[:, depth : h - depth], cols[:, :, depth : w - depth]
            # A sample's cells: its input crop less ``depth`` cells on every side (anchored
            # at the crop's top left corner; a larger sample of the bucket sets the size).
            inside = (rows <= reg[:, 1, None, None] - depth) & (
                cols <= reg[:, 3, None, None] - depth
            )
            mask = inside[:, None].to(fmap.dtype)
            fmap = fmap * mask
            mean = fmap.sum(dim=(2, 3)) / mask.sum(dim=(2, 3))
            pooled = pooled.index_copy(0, idx, torch.cat([mean, fmap.amax(dim=(2, 3))], dim=1))
            crops.append(
                (idx, rows, cols, inside & in_window[:, depth : h - depth, depth : w - depth], fmap)
            )
        parts = [pooled]
        if self.vector_mlp is not None:
            if source_rows is None:
                vector = source.index_select(1, self.vector_idx)
            else:
                vector = source[source_rows[:, None], self.vector_idx]
            parts.append(self.vector_mlp(vector * self.scale[self.vector_idx]))
        h = self.trunk(torch.cat(parts, dim=1))
        # Every head's scores go into the logits in one scatter (one gather backward).
        samples: list[torch.Tensor] = []
        columns: list[torch.Tensor] = []
        values: list[torch.Tensor] = []
        cond = self.condition(h) if self.condition is not None else None
        for head, spatial, last, offset in zip(
            self.heads, self.head_spatial, self.head_channels_last, self.head_offsets, strict=True
        ):
            if not spatial:
                scores = head(h)
                size = scores.shape[1]
                samples.append(torch.arange(batch)[:, None].expand(batch, size).flatten())
                columns.append((offset + torch.arange(size)).expand(batch, size).flatten())
                values.append(scores.flatten())
                continue
            assert isinstance(head, nn.Conv2d) and cond is not None
            planes = torch.arange(head.out_channels)
            for idx, rows, cols, shown, fmap in crops:
                cell = torch.relu(fmap + cond[idx][:, :, None, None])
                scored = head(cell).permute(0, 2, 3, 1)  # (n, h, w, planes)
                cell_index = (rows * width + cols)[..., None]
                if last:
                    flat = cell_index * head.out_channels + planes
                else:
                    flat = planes * (height * width) + cell_index
                sample = idx[:, None, None, None].expand_as(flat)
                samples.append(sample[shown].flatten())
                columns.append(flat[shown].flatten() + offset)
                values.append(scored[shown].flatten())
        base = source.new_full((batch, self.num_actions), OUTSIDE_LOGIT)
        logits = base.index_put((torch.cat(samples), torch.cat(columns)), torch.cat(values))
        if self.action_terms is not None:
            raw = source if source_rows is None else source[source_rows]
            logits = _with_action_terms(logits, self.action_terms, raw)
        return logits, self.value(h).squeeze(-1)


def _with_action_terms(
    logits: torch.Tensor, terms: ActionFeatures | None, obs: torch.Tensor
) -> torch.Tensor:
    """``logits`` plus the action-feature term (see :mod:`.action_features`), if any."""
    return logits if terms is None else logits + terms(obs)


def build_network(
    kind: str,
    layout: ObservationLayout,
    action_layout: ObservationLayout,
    num_actions: int,
    conv_channels: Sequence[int],
    hidden_sizes: Sequence[int],
    seed: int,
    board_head_channels: int = 0,
    action_features: bool = False,
) -> nn.Module:
    """The actor-critic named ``kind`` (one of ``config.NETWORK_KINDS``), initialised from
    ``seed``; with ``action_features``, its logits get the :class:`ActionFeatures` term."""
    gen = torch.Generator().manual_seed(seed)
    total = sum(g.size for g in action_layout)
    if total != num_actions:
        raise ConfigError(f"action layout covers {total} actions, the game has {num_actions}")
    terms = ActionFeatures(layout, action_layout) if action_features else None
    if kind == "mlp":
        return MLPActorCritic(layout, num_actions, hidden_sizes, gen, terms)
    if kind == "conv":
        return ConvActorCritic(
            layout, action_layout, conv_channels, hidden_sizes, gen, board_head_channels, terms
        )
    if kind == "crop":
        if board_head_channels:
            raise ConfigError(
                "network 'crop' pools over the occupied cells only; board_head_channels must "
                f"be 0, got {board_head_channels}"
            )
        return CropConvActorCritic(layout, action_layout, conv_channels, hidden_sizes, gen, terms)
    raise ConfigError(f"unknown network {kind!r}; allowed: {', '.join(map(repr, NETWORK_KINDS))}")
