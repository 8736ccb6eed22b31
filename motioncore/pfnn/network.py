"""PFNN weights and the numpy runtime (no torch).

A network is a stack of phase-functioned layers (:mod:`motioncore.pfnn.phase`): layer
``l`` has expert weights ``W [K, n_in, n_out]`` and biases ``b [K, n_out]``; at phase
φ it computes ``h @ W(φ) + b(φ)``, followed by an ELU except after the last layer.
Inputs and outputs are normalised with the training set's means and deviations,
which travel with the weights.

The runtime has the original PFNN's three modes (Holden et al. 2017, §7):

* ``"constant"``: :data:`CONSTANT_SAMPLES` blended weight sets precomputed at evenly
  spaced phases; each step uses the nearest (fastest, the most memory);
* ``"linear"``: :data:`LINEAR_SAMPLES` precomputed sets, the two around φ mixed
  linearly;
* ``"cubic"``: the phase function evaluated exactly from the ``K`` experts each step
  (least memory, slowest).

Shapes: one step takes ``x [n_in]`` and φ (radians) and returns ``y [n_out]``;
:func:`Weights.predict` does a batch exactly (``[B, n_in]``, ``[B]``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore.errors import MotionCoreError
from motioncore.pfnn.phase import TAU, Blend, coefficients

FloatArray = NDArray[np.float64]
Array32 = NDArray[np.float32]
Mode = Literal["constant", "linear", "cubic"]
MODES: tuple[Mode, ...] = ("constant", "linear", "cubic")
SHIPPED_WEIGHTS = Path(__file__).resolve().parent / "weights" / "pfnn-v1.npz"
"""The shipped weights (trained on shippable corpus clips only; ``weights/DATA_CARD.md``)."""
CONSTANT_SAMPLES = 50
LINEAR_SAMPLES = 10


def elu(x: Array32) -> Array32:
    """ELU with α = 1, in place."""
    negative = x < 0.0
    x[negative] = np.expm1(x[negative])
    return x


@dataclass(frozen=True)
class Weights:
    """The trained network: expert layers, the phase blend and the normalisation.

    ``layers``: per layer ``(W [K, n_in, n_out], b [K, n_out])`` float32; ``meta``: what
    trained it (data, epochs, metrics), JSON-able.
    """

    layers: tuple[tuple[Array32, Array32], ...]
    blend: Blend
    input_mean: Array32
    input_std: Array32
    output_mean: Array32
    output_std: Array32
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def experts(self) -> int:
        return int(self.layers[0][0].shape[0])

    @property
    def sizes(self) -> tuple[int, ...]:
        """``(n_in, hidden…, n_out)``."""
        return (int(self.layers[0][0].shape[1]), *(int(w.shape[2]) for w, _ in self.layers))

    @property
    def nbytes(self) -> int:
        """Bytes of the expert weights and biases."""
        return sum(w.nbytes + b.nbytes for w, b in self.layers)

    def predict(self, inputs: ArrayLike, phase: ArrayLike) -> FloatArray:
        """Exact outputs ``[B, n_out]`` (de-normalised) of raw ``inputs [B, n_in]``."""
        c = coefficients(phase, self.experts, self.blend).astype(np.float32)
        h = ((np.asarray(inputs, np.float32) - self.input_mean) / self.input_std).astype(np.float32)
        for i, (w, b) in enumerate(self.layers):
            per_expert = np.einsum("bi,kio->bko", h, w) + b[None]
            h = np.einsum("bk,bko->bo", c, per_expert)
            if i < len(self.layers) - 1:
                h = elu(h)
        return np.asarray(h * self.output_std + self.output_mean, dtype=np.float64)

    def save(self, path: str | Path) -> None:
        """Write an ``.npz`` (:meth:`load` reads it back)."""
        arrays: dict[str, NDArray[np.generic]] = {
            "input_mean": self.input_mean,
            "input_std": self.input_std,
            "output_mean": self.output_mean,
            "output_std": self.output_std,
            "config": np.array(json.dumps({"blend": self.blend, "meta": self.meta})),
        }
        for i, (w, b) in enumerate(self.layers):
            arrays[f"W{i}"], arrays[f"b{i}"] = w, b
        np.savez_compressed(path, allow_pickle=False, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> Weights:
        with np.load(path, allow_pickle=False) as f:
            config = json.loads(str(f["config"]))
            count = sum(1 for k in f.files if k.startswith("W"))
            layers = tuple((f[f"W{i}"], f[f"b{i}"]) for i in range(count))
            return cls(
                layers,
                config["blend"],
                f["input_mean"],
                f["input_std"],
                f["output_mean"],
                f["output_std"],
                config.get("meta", {}),
            )


class Runtime:
    """One-step inference in a :data:`MODES` mode (see the module docstring)."""

    def __init__(self, weights: Weights, mode: Mode = "constant") -> None:
        if mode not in MODES:
            raise MotionCoreError(f"unknown runtime mode {mode!r}; use one of {', '.join(MODES)}")
        self.weights = weights
        self.mode = mode
        samples = {"constant": CONSTANT_SAMPLES, "linear": LINEAR_SAMPLES, "cubic": 0}[mode]
        self.samples = samples
        if samples:
            phases = np.arange(samples) * TAU / samples
            c = coefficients(phases, weights.experts, weights.blend).astype(np.float32)
            self.tables = [
                (np.einsum("nk,kio->nio", c, w), np.einsum("nk,ko->no", c, b))
                for w, b in weights.layers
            ]
        else:
            self.tables = [(w, b) for w, b in weights.layers]

    @property
    def nbytes(self) -> int:
        """Bytes of the weights this mode holds."""
        return sum(w.nbytes + b.nbytes for w, b in self.tables)

    def _layer(self, index: int, phase: float) -> tuple[Array32, Array32]:
        w, b = self.tables[index]
        if self.mode == "cubic":
            c = coefficients(phase, self.weights.experts, self.weights.blend)[0].astype(np.float32)
            return np.tensordot(c, w, axes=1), c @ b
        position = (phase % TAU) / TAU * self.samples
        if self.mode == "constant":
            k = round(position) % self.samples
            return w[k], b[k]
        k0 = int(np.floor(position)) % self.samples
        k1 = (k0 + 1) % self.samples
        t = np.float32(position - np.floor(position))
        return (1 - t) * w[k0] + t * w[k1], (1 - t) * b[k0] + t * b[k1]

    def step(self, inputs: NDArray[np.floating[Any]], phase: float) -> FloatArray:
        """Outputs ``[n_out]`` (de-normalised) of raw ``inputs [n_in]`` at ``phase``."""
        ws = self.weights
        h = ((np.asarray(inputs, np.float32) - ws.input_mean) / ws.input_std).astype(np.float32)
        last = len(self.tables) - 1
        for i in range(len(self.tables)):
            w, b = self._layer(i, phase)
            h = h @ w + b
            if i < last:
                h = elu(h)
        return np.asarray(h * ws.output_std + ws.output_mean, dtype=np.float64)
