"""Training the PFNN with torch (seed 002 §3.1, §4.1): phase-functioned layers in every
layer, L1 loss on normalised outputs, Adam from 1e-3 decaying to 1e-5, gradient
clipping at 1.0, fixed seeds. The result is a :class:`motioncore.pfnn.network.Weights`
(numpy), so nothing after training needs torch.

Per-sample weights are never materialised: a layer computes ``h @ W_k + b_k`` for every
expert ``k`` and mixes the results with the phase coefficients ``c_k(φ)``, which is the
same as ``h @ Σ c_k W_k + Σ c_k b_k``.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch

from motioncore.pfnn.dataset import Dataset
from motioncore.pfnn.network import Weights
from motioncore.pfnn.phase import Blend, coefficients


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters (defaults: the original's blend and 4 experts; the seed's
    simplified size, 3 layers of 256)."""

    experts: int = 4
    blend: Blend = "catmull-rom"
    hidden: int = 256
    hidden_layers: int = 2
    epochs: int = 40
    batch: int = 256
    lr_start: float = 1e-3
    lr_end: float = 1e-5
    clip_norm: float = 1.0
    dropout: float = 0.2
    seed: int = 2017
    threads: int = 2


class PhaseFunctionedLayer(torch.nn.Module):
    """``K`` expert weight sets mixed by the phase coefficients ``c [B, K]``."""

    def __init__(self, n_in: int, n_out: int, experts: int, generator: torch.Generator) -> None:
        super().__init__()
        bound = math.sqrt(6.0 / (n_in + n_out))
        weight = (torch.rand(experts, n_in, n_out, generator=generator) * 2.0 - 1.0) * bound
        self.weight = torch.nn.Parameter(weight)
        self.bias = torch.nn.Parameter(torch.zeros(experts, n_out))

    def forward(self, h: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        per_expert = torch.einsum("bi,kio->bko", h, self.weight) + self.bias
        return torch.einsum("bk,bko->bo", c, per_expert)


class PhaseFunctionedNetwork(torch.nn.Module):
    def __init__(self, sizes: tuple[int, ...], config: TrainConfig) -> None:
        super().__init__()
        generator = torch.Generator().manual_seed(config.seed)
        self.layers = torch.nn.ModuleList(
            PhaseFunctionedLayer(a, b, config.experts, generator)
            for a, b in itertools.pairwise(sizes)
        )
        self.dropout = torch.nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        h = x
        for i, layer in enumerate(self.layers):
            h = layer(self.dropout(h), c)
            if i < len(self.layers) - 1:
                h = torch.nn.functional.elu(h)
        return h


Progress = Callable[[int, dict[str, float]], None]


def train(
    data: Dataset, config: TrainConfig = TrainConfig(), progress: Progress | None = None
) -> Weights:
    """Train on ``data``'s training split; after every epoch ``progress(epoch, row)``
    gets the epoch's mean training L1, the validation L1 (normalised units), the
    learning rate and the seconds so far. The history is in the weights' ``meta``."""
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    torch.use_deterministic_algorithms(True)
    x, y, c = _tensors(data, config)
    train_rows = torch.from_numpy(np.flatnonzero(data.rows("train")))
    validation_rows = torch.from_numpy(np.flatnonzero(data.rows("validation")))
    sizes = (x.shape[1], *[config.hidden] * config.hidden_layers, y.shape[1])
    network = PhaseFunctionedNetwork(sizes, config)
    optimiser = torch.optim.Adam(network.parameters(), lr=config.lr_start)
    gamma = (config.lr_end / config.lr_start) ** (1.0 / max(config.epochs - 1, 1))
    schedule = torch.optim.lr_scheduler.ExponentialLR(optimiser, gamma)
    shuffle = torch.Generator().manual_seed(config.seed)
    history: list[dict[str, float]] = []
    started = time.perf_counter()
    for epoch in range(config.epochs):
        network.train()
        order = train_rows[torch.randperm(len(train_rows), generator=shuffle)]
        total = 0.0
        for start in range(0, len(order), config.batch):
            rows = order[start : start + config.batch]
            loss = torch.mean(torch.abs(network(x[rows], c[rows]) - y[rows]))
            optimiser.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(network.parameters(), config.clip_norm)
            optimiser.step()
            total += float(loss.detach()) * len(rows)
        row = {
            "epoch": epoch + 1,
            "train_l1": total / max(len(order), 1),
            "validation_l1": _l1(network, x, y, c, validation_rows),
            "lr": optimiser.param_groups[0]["lr"],
            "seconds": time.perf_counter() - started,
        }
        history.append(row)
        schedule.step()
        if progress is not None:
            progress(epoch + 1, row)
    return _weights(network, data, config, history)


def _tensors(data: Dataset, config: TrainConfig) -> tuple[torch.Tensor, ...]:
    x = (data.inputs - data.input_mean) / data.input_std
    y = (data.outputs - data.output_mean) / data.output_std
    c = coefficients(data.phase, config.experts, config.blend)
    return tuple(torch.from_numpy(a.astype(np.float32)) for a in (x, y, c))


def _l1(
    network: PhaseFunctionedNetwork,
    x: torch.Tensor,
    y: torch.Tensor,
    c: torch.Tensor,
    rows: torch.Tensor,
) -> float:
    if len(rows) == 0:
        return float("nan")
    network.eval()
    with torch.no_grad():
        return float(torch.mean(torch.abs(network(x[rows], c[rows]) - y[rows])))


def _weights(
    network: PhaseFunctionedNetwork,
    data: Dataset,
    config: TrainConfig,
    history: list[dict[str, float]],
) -> Weights:
    layers = tuple(
        (
            layer.weight.detach().numpy().astype(np.float32),
            layer.bias.detach().numpy().astype(np.float32),
        )
        for layer in network.layers
        if isinstance(layer, PhaseFunctionedLayer)
    )
    meta: dict[str, Any] = {
        "config": asdict(config),
        "history": history,
        "clips": {
            split: [n for n, s in zip(data.clips, data.split, strict=True) if s == split]
            for split in ("train", "validation", "test")
        },
        "samples": {
            split: int(data.rows(split).sum()) for split in ("train", "validation", "test")
        },
        "torch": torch.__version__,
    }
    f32 = np.float32
    return Weights(
        layers,
        config.blend,
        data.input_mean.astype(f32),
        data.input_std.astype(f32),
        data.output_mean.astype(f32),
        data.output_std.astype(f32),
        meta,
    )
