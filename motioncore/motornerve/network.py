"""MotorNerve's network and its numpy runtime (seed 001 §3.2; no torch here).

Two branches and two heads:

* **pose encoder**: the last :data:`HISTORY` states (30 Hz, normalised, ``[H, S]``)
  through two valid 1-D convolutions over time (kernel ``k``, ``C`` channels, ELU),
  then a bidirectional GRU (``G`` units each way, PyTorch's gate layout r, z, n) over
  the remaining columns; the last forward and the last backward states, concatenated,
  are the 256-D motion context;
* **intent encoder**: the normalised 12-D intent through three fully connected layers
  (ELU) to 256;
* **fusion**: the two concatenated (512) through 512 → 512 → 256 (ELU);
* **motion head**: linear 256 → ``S``: the next state, or with :attr:`Shape.residual`
  its change from the last one, in ``output_mean``/``output_std`` units;
* **contact head**: linear 256 → 2, per-foot contact logits (left, right).

Parameters are kept under PyTorch's names (``conv1.weight [C, S, k]``,
``gru.weight_ih_l0 [3G, C]``, ``gru.weight_hh_l0_reverse [3G, G]``, ``intent.0.weight
[256, 12]``, ...) so that :mod:`motioncore.motornerve.train` hands its ``state_dict``
over unchanged. :meth:`Weights.forward` runs a batch exactly; :class:`Stepper` runs one
character step by step and keeps what did not change since the last step (the
convolution columns of frames already seen and the GRU's input projections), so a step
costs one new column and the GRU's recurrences.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from motioncore.errors import MotionCoreError

FloatArray = NDArray[np.float64]
Array32 = NDArray[np.float32]

HISTORY = 15
"""States the pose encoder reads (0.5 s at 30 Hz; seed 001 §3.2: the past 15 frames)."""
SHIPPED_WEIGHTS = Path(__file__).resolve().parent / "weights" / "motornerve-v2.npz"
"""The shipped weights (permissive corpus clips only; ``weights/DATA_CARD.md``)."""


@dataclass(frozen=True)
class Shape:
    """Sizes: state ``S``, intent, conv channels ``C`` and kernel, GRU units per
    direction ``G``, the intent encoder's hidden width, fusion widths."""

    state: int = 130
    intent: int = 12
    channels: int = 480
    kernel: int = 5
    gru: int = 128
    intent_hidden: tuple[int, int] = (256, 512)
    fusion: tuple[int, int, int] = (512, 512, 256)
    residual: bool = False
    """Whether the motion head predicts the change to the next state (next = last +
    output) or the next state itself (next = output), in ``output_mean/std`` units. The
    change drifted when the network ate its own output: the feet rose to 0.3-0.6 m
    within 2-4 s; the state itself stays on the ground."""

    @classmethod
    def of(cls, saved: dict[str, Any]) -> Shape:
        """The shape :meth:`Weights.save` wrote (JSON: tuples as lists)."""
        a, b = saved["intent_hidden"]
        f1, f2, f3 = saved["fusion"]
        return cls(
            state=int(saved["state"]),
            intent=int(saved["intent"]),
            channels=int(saved["channels"]),
            kernel=int(saved["kernel"]),
            gru=int(saved["gru"]),
            intent_hidden=(int(a), int(b)),
            fusion=(int(f1), int(f2), int(f3)),
            residual=bool(saved.get("residual", True)),
        )

    @property
    def columns(self) -> int:
        """GRU steps: what two valid convolutions leave of :data:`HISTORY`."""
        return HISTORY - 2 * (self.kernel - 1)


def elu(x: Array32) -> Array32:
    """ELU with α = 1 (a new array)."""
    return np.where(x > 0.0, x, np.expm1(np.minimum(x, 0.0))).astype(np.float32)


def sigmoid(x: Array32) -> Array32:
    with np.errstate(over="ignore"):  # exp(-x) of a very negative x: inf, and 1/inf is 0
        return (1.0 / (1.0 + np.exp(-x))).astype(np.float32)


@dataclass(frozen=True)
class Weights:
    """The trained network: parameters by PyTorch name (float32), the normalisation
    (``state_mean/std [S]``, ``intent_mean/std [12]``, ``output_mean/std [S]``), the
    :class:`Shape` and ``meta`` (what trained it, JSON-able)."""

    params: dict[str, Array32]
    state_mean: Array32
    state_std: Array32
    intent_mean: Array32
    intent_std: Array32
    output_mean: Array32
    output_std: Array32
    shape: Shape = Shape()
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def parameter_count(self) -> int:
        return sum(int(p.size) for p in self.params.values())

    def save(self, path: str | Path | BinaryIO) -> None:
        """Write an ``.npz`` (:meth:`load` reads it back)."""
        shape = {k: getattr(self.shape, k) for k in self.shape.__dataclass_fields__}
        norm = {k: getattr(self, k) for k in _NORMS}
        config = json.dumps({"shape": shape, "meta": self.meta})
        np.savez_compressed(
            path,
            allow_pickle=False,
            config=np.array(config),
            **{f"p:{k}": v for k, v in self.params.items()},
            **norm,
        )

    @classmethod
    def load(cls, path: str | Path | BinaryIO) -> Weights:
        try:
            with np.load(path, allow_pickle=False) as f:
                config = json.loads(str(f["config"]))
                params = {k[2:]: f[k].astype(np.float32) for k in f.files if k.startswith("p:")}
                norm = {k: f[k].astype(np.float32) for k in _NORMS}
        except (OSError, KeyError, ValueError) as error:
            raise MotionCoreError(f"not MotorNerve weights: {path}: {error}") from error
        return cls(params, **norm, shape=Shape.of(config["shape"]), meta=config.get("meta", {}))

    def normalise(self, states: FloatArray, intents: FloatArray) -> tuple[Array32, Array32]:
        """States ``[..., S]`` and intents ``[..., 12]`` in network units."""
        s = (np.asarray(states, np.float32) - self.state_mean) / self.state_std
        i = (np.asarray(intents, np.float32) - self.intent_mean) / self.intent_std
        return s.astype(np.float32), i.astype(np.float32)

    def next_state(self, last: FloatArray, delta: Array32) -> FloatArray:
        """The next raw state ``[..., S]`` from the last one and the motion head."""
        out = delta * self.output_std + self.output_mean
        return np.asarray(last + out if self.shape.residual else out, dtype=np.float64)

    def forward(self, history: Array32, intents: Array32) -> tuple[Array32, Array32]:
        """``(change [B, S], contact logits [B, 2])`` of normalised ``history
        [B, HISTORY, S]`` and ``intents [B, 12]``."""
        p = self.params
        x = np.transpose(history, (0, 2, 1))
        for name in ("conv1", "conv2"):
            x = elu(_conv(x, p[f"{name}.weight"], p[f"{name}.bias"]))
        columns = np.transpose(x, (0, 2, 1))  # [B, L, C]
        forward = _gru_run(columns, p, "")
        backward = _gru_run(columns[:, ::-1], p, "_reverse")
        return self.heads(np.concatenate([forward, backward], axis=-1), self.intent_code(intents))

    def intent_code(self, intents: Array32) -> Array32:
        """The intent encoder's 256-D code of normalised ``intents [..., 12]``."""
        h = intents
        for layer in range(3):
            h = elu(_linear(h, self.params, f"intent.{2 * layer}"))
        return h

    def heads(self, motion: Array32, code: Array32) -> tuple[Array32, Array32]:
        """Fusion and both heads of the motion context and the intent code."""
        h = np.concatenate([motion, code], axis=-1)
        for layer in range(3):
            h = elu(_linear(h, self.params, f"fusion.{2 * layer}"))
        return _linear(h, self.params, "motion"), _linear(h, self.params, "contact")


_NORMS = ("state_mean", "state_std", "intent_mean", "intent_std", "output_mean", "output_std")


def _linear(x: Array32, params: dict[str, Array32], name: str) -> Array32:
    out: Array32 = x @ params[f"{name}.weight"].T + params[f"{name}.bias"]
    return out


def _conv(x: Array32, weight: Array32, bias: Array32) -> Array32:
    """Valid 1-D convolution (cross-correlation) of ``x [B, Cin, T]`` with ``weight
    [Cout, Cin, k]``: ``[B, Cout, T - k + 1]``."""
    k = weight.shape[2]
    windows = np.lib.stride_tricks.sliding_window_view(x, k, axis=2)  # [B, Cin, T', k]
    out: Array32 = np.einsum("bctk,ock->bot", windows, weight, optimize=True)
    return (out + bias[None, :, None]).astype(np.float32)


def _gru_cell(gi: Array32, h: Array32, w_hh: Array32, b_hh: Array32) -> Array32:
    """One GRU step from the input projection ``gi [B, 3G]`` (bias included)."""
    gh = h @ w_hh.T + b_hh
    units = h.shape[-1]
    r = sigmoid(gi[..., :units] + gh[..., :units])
    z = sigmoid(gi[..., units : 2 * units] + gh[..., units : 2 * units])
    n = np.tanh(gi[..., 2 * units :] + r * gh[..., 2 * units :])
    out: Array32 = ((1.0 - z) * n + z * h).astype(np.float32)
    return out


def _gru_run(columns: Array32, params: dict[str, Array32], suffix: str) -> Array32:
    """The last state ``[B, G]`` of one GRU direction over ``columns [B, L, C]``."""
    gi = columns @ params[f"gru.weight_ih_l0{suffix}"].T + params[f"gru.bias_ih_l0{suffix}"]
    return _gru_over(gi, params, suffix)


def _gru_over(gi: Array32, params: dict[str, Array32], suffix: str) -> Array32:
    w_hh, b_hh = params[f"gru.weight_hh_l0{suffix}"], params[f"gru.bias_hh_l0{suffix}"]
    h = np.zeros((*gi.shape[:-2], w_hh.shape[1]), dtype=np.float32)
    for t in range(gi.shape[-2]):
        h = _gru_cell(gi[..., t, :], h, w_hh, b_hh)
    return h


class Stepper:
    """One character, step by step: :meth:`push` a raw state, :meth:`predict` the next
    one for an intent. Needs :data:`HISTORY` pushed states before the first predict
    (:meth:`fill` repeats one)."""

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self.p = weights.params
        shape = weights.shape
        self.states: list[FloatArray] = []
        self._normed: list[Array32] = []
        self._conv1: list[Array32] = []
        self._gi: dict[str, list[Array32]] = {"": [], "_reverse": []}
        self._intent_key: bytes = b""
        self._intent_code: Array32 = np.zeros(shape.intent_hidden[0], np.float32)
        # [Cout, Cin, k] -> [k * Cin, Cout]: a time-major window times this is a column
        self._w1 = self.p["conv1.weight"].transpose(2, 1, 0).reshape(-1, shape.channels).copy()
        self._w2 = self.p["conv2.weight"].transpose(2, 1, 0).reshape(-1, shape.channels).copy()

    def fill(self, state: FloatArray) -> None:
        """Start from ``state`` held for the whole history (standing still)."""
        for _ in range(HISTORY):
            self.push(state)

    def push(self, raw_state: FloatArray) -> None:
        """Append a raw state ``[S]`` (the newest) and compute its new columns."""
        k = self.weights.shape.kernel
        normed, _ = self.weights.normalise(raw_state, np.zeros(self.weights.shape.intent))
        self.states = [*self.states[-HISTORY + 1 :], np.asarray(raw_state, np.float64)]
        self._normed = [*self._normed[-k + 1 :], normed]
        if len(self._normed) < k:
            return
        window = np.concatenate(self._normed)  # [k * S], time-major
        column = elu(window @ self._w1 + self.p["conv1.bias"])
        self._conv1 = [*self._conv1[-k + 1 :], column]
        if len(self._conv1) < k:
            return
        second = elu(np.concatenate(self._conv1) @ self._w2 + self.p["conv2.bias"])
        keep = self.weights.shape.columns
        for suffix, cached in self._gi.items():
            gi = second @ self.p[f"gru.weight_ih_l0{suffix}"].T + self.p[f"gru.bias_ih_l0{suffix}"]
            self._gi[suffix] = [*cached[-keep + 1 :], gi]

    @property
    def ready(self) -> bool:
        return len(self._gi[""]) == self.weights.shape.columns

    def predict(self, raw_intent: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(next raw state [S], contact probabilities [2])`` for ``raw_intent [12]``."""
        if not self.ready:
            raise MotionCoreError(f"the stepper needs {HISTORY} states before it predicts")
        key = np.asarray(raw_intent, np.float32).tobytes()
        if key != self._intent_key:
            _, normed = self.weights.normalise(np.zeros(self.weights.shape.state), raw_intent)
            self._intent_code, self._intent_key = self.weights.intent_code(normed), key
        forward = _gru_over(np.stack(self._gi[""]), self.p, "")
        backward = _gru_over(np.stack(self._gi["_reverse"][::-1]), self.p, "_reverse")
        delta, logits = self.weights.heads(np.concatenate([forward, backward]), self._intent_code)
        return self.weights.next_state(self.states[-1], delta), sigmoid(logits).astype(np.float64)


def parameter_shapes(shape: Shape) -> dict[str, tuple[int, ...]]:
    """Every parameter's PyTorch name and shape for a network of ``shape``."""
    c, k, g = shape.channels, shape.kernel, shape.gru
    out: dict[str, tuple[int, ...]] = {
        "conv1.weight": (c, shape.state, k),
        "conv1.bias": (c,),
        "conv2.weight": (c, c, k),
        "conv2.bias": (c,),
    }
    for suffix in ("", "_reverse"):
        out |= {
            f"gru.weight_ih_l0{suffix}": (3 * g, c),
            f"gru.weight_hh_l0{suffix}": (3 * g, g),
            f"gru.bias_ih_l0{suffix}": (3 * g,),
            f"gru.bias_hh_l0{suffix}": (3 * g,),
        }
    widths = {
        "intent": (shape.intent, *shape.intent_hidden, 256),
        "fusion": (2 * g + 256, *shape.fusion),
    }
    for name, sizes in widths.items():
        for layer, (n_in, n_out) in enumerate(itertools.pairwise(sizes)):
            out[f"{name}.{2 * layer}.weight"] = (n_out, n_in)
            out[f"{name}.{2 * layer}.bias"] = (n_out,)
    last = shape.fusion[-1]
    out |= {
        "motion.weight": (shape.state, last),
        "motion.bias": (shape.state,),
        "contact.weight": (2, last),
        "contact.bias": (2,),
    }
    return out


def random_weights(shape: Shape | None = None, seed: int = 0, scale: float = 1.0) -> Weights:
    """Untrained weights (uniform like PyTorch's default initialisation, times ``scale``)
    with unit normalisation: for tests and parity fixtures."""
    shape = shape or Shape()
    rng = np.random.default_rng(seed)
    params: dict[str, Array32] = {}
    for name, dims in parameter_shapes(shape).items():
        fan_in = dims[1] * (dims[2] if len(dims) == 3 else 1) if len(dims) > 1 else dims[0]
        bound = scale / np.sqrt(fan_in)
        params[name] = rng.uniform(-bound, bound, dims).astype(np.float32)
    ones_s, zeros_s = np.ones(shape.state, np.float32), np.zeros(shape.state, np.float32)
    ones_i, zeros_i = np.ones(shape.intent, np.float32), np.zeros(shape.intent, np.float32)
    return Weights(params, zeros_s, ones_s, zeros_i, ones_i, zeros_s * 0.0, ones_s * 0.01, shape)
