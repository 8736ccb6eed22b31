"""MotorNerve's network as ONNX, for onnxruntime (``bench/motornerve_browser.py`` runs
it in the browser with onnxruntime-web and compares it with the hand-written kernel of
``static/js/motornerve/network.js``).

Every tensor is float32, batch one, in network units (normalised as
:meth:`~motioncore.motornerve.network.Weights.normalise` does; the motion head's output
in ``output_mean``/``output_std`` units). ``S`` is the state size, ``k`` the kernel,
``C`` the convolution channels, ``G`` the GRU units per direction and ``L`` the GRU steps
(:attr:`~motioncore.motornerve.network.Shape.columns`). Two exports of one
:class:`~motioncore.motornerve.network.Weights`, both through the torch module of
:mod:`motioncore.motornerve.train` and torch's ``torch.export``-based exporter (it needs
``onnx`` and ``onnxscript``: ``pip install -e '.[onnx]'``):

* :func:`export_forward`, the whole history each step, as
  :meth:`~motioncore.motornerve.network.Weights.forward` computes it: ``history [1, HISTORY,
  S]`` and ``intent [1, 12]`` → ``motion [1, S]`` and ``contact [1, 2]`` (logits).
* :func:`export_stepper`, an incremental step like
  :class:`~motioncore.motornerve.network.Stepper`'s (and ``network.js``'s), which keeps
  the convolution columns of states already seen, as two graphs:

  - the **step** graph pushes the newest state and predicts: ``window [1, k, S]`` (the
    last k states, oldest first, the newest last), ``conv1 [1, k - 1, C]`` and ``conv2
    [1, L - 1, C]`` (the first and second convolution's columns of the pushes before the
    newest, oldest first) and ``code [1, 256]`` (the intent code) → ``motion``,
    ``contact`` and both caches with the newest push in (``conv1_next``,
    ``conv2_next``). The GRUs are ONNX's ``GRU`` over the L columns, so they recompute
    the input projections that the numpy and JavaScript steppers cache (2.6 M of the
    step's 5.4 M multiply-adds, against 3.2 M in those); an unrolled graph over cached
    projections (129 nodes instead of 51) measured the same in onnxruntime-web.
  - the **intent** graph: ``intent [1, 12]`` → ``code [1, 256]``, run only when the
    intent changes.

  The graphs are pure: :class:`OnnxStepper` holds the window and the caches between
  calls.

Both write the convolutions as matrix products of stacked windows (:func:`_columns`), not
ONNX ``Conv``: onnxruntime-web's WASM ``Conv`` is slow for one-dimensional columns this
size. ``export_forward(weights, convolution="conv")`` keeps torch's ``Conv1d`` (for the
bench's comparison).

torch is imported here as in the training modules; the runtime needs numpy only.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import torch
from numpy.typing import NDArray

from motioncore.errors import MotionCoreError
from motioncore.motornerve.network import HISTORY, Weights
from motioncore.motornerve.train import MotorNerve

Array32 = NDArray[np.float32]
OPSET = 18
"""The ONNX opset of both exports (what torch's exporter targets by default)."""
FORWARD_INPUTS = ("history", "intent")
FORWARD_OUTPUTS = ("motion", "contact")
STEP_INPUTS = ("window", "conv1", "conv2", "code")
STEP_OUTPUTS = ("motion", "contact", "conv1_next", "conv2_next")
CACHES = ("conv1", "conv2")
CONVOLUTIONS = ("gemm", "conv")
INTENT_INPUTS = ("intent",)
INTENT_OUTPUTS = ("code",)
CODE = 256
"""The intent code's width (fixed by the architecture: ``network.parameter_shapes``)."""


def torch_module(weights: Weights) -> MotorNerve:
    """The torch module of ``weights`` (eval mode, the parameters copied in)."""
    model = MotorNerve(weights.shape, gru_dropout=0.0)
    model.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in weights.params.items()})
    return model.eval()


def _columns(conv: torch.nn.Conv1d, x: torch.Tensor) -> torch.Tensor:
    """A valid convolution and ELU of time-major ``x [1, T, Cin]``: ``[1, T - k + 1,
    Cout]``, as one matrix product of the stacked windows (each flattened ``[Cin, k]``,
    the weight's own layout) with ``weight [Cout, Cin * k]``. onnxruntime-web's WASM
    ``Conv`` took 1.1 ms for one 480-channel column that a ``Gemm`` of the same numbers
    does in 0.07 ms."""
    k = conv.kernel_size[0]
    windows = [x[:, t : t + k].transpose(1, 2).reshape(1, -1) for t in range(x.shape[1] - k + 1)]
    weight = conv.weight.reshape(conv.weight.shape[0], -1)
    return torch.nn.functional.elu(
        torch.nn.functional.linear(torch.stack(windows, dim=1), weight, conv.bias)
    )


class _Forward(torch.nn.Module):
    """:func:`export_forward`'s graph: the network on the whole history, its
    convolutions as matrix products (``gemm``) or as torch's ``Conv1d`` (``conv``)."""

    def __init__(self, net: MotorNerve, convolution: str) -> None:
        super().__init__()
        self.net, self.convolution = net, convolution

    def forward(self, history: torch.Tensor, intent: torch.Tensor) -> tuple[torch.Tensor, ...]:
        net = self.net
        if self.convolution == "conv":
            motion, contact = net(history, intent)
            return motion, contact
        columns = _columns(net.conv2, _columns(net.conv1, history))
        _, last = net.gru(columns)  # [2, 1, G]: forward's last, backward's last
        h = net.fusion(torch.cat([last[0], last[1], net.intent(intent)], dim=-1))
        return net.motion(h), net.contact(h)


class _Step(torch.nn.Module):
    """The step graph of :func:`export_stepper` (module docstring)."""

    def __init__(self, net: MotorNerve) -> None:
        super().__init__()
        self.net = net

    def forward(
        self, window: torch.Tensor, conv1: torch.Tensor, conv2: torch.Tensor, code: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        net = self.net
        first = torch.cat([conv1, _columns(net.conv1, window)], dim=1)  # [1, k, C]
        second = torch.cat([conv2, _columns(net.conv2, first)], dim=1)  # [1, L, C]
        _, last = net.gru(second)
        h = net.fusion(torch.cat([last[0], last[1], code], dim=-1))
        return net.motion(h), net.contact(h), first[:, 1:], second[:, 1:]


class _Intent(torch.nn.Module):
    def __init__(self, net: MotorNerve) -> None:
        super().__init__()
        self.net = net

    def forward(self, intent: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.net.intent(intent)
        return out


def _onnx(
    module: torch.nn.Module,
    args: tuple[torch.Tensor, ...],
    inputs: Sequence[str],
    outputs: Sequence[str],
) -> bytes:
    """The serialised ONNX model of ``module`` on example ``args`` (static shapes, the
    weights inside the file)."""
    # The exporter's own notices (deprecations inside torch, torchvision's ops it cannot
    # register, the GRU's flat weights) say nothing about this model: silenced here only.
    registration = logging.getLogger("torch.onnx._internal.exporter._registration")
    level = registration.level
    registration.setLevel(logging.ERROR)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", UserWarning)
            program = torch.onnx.export(
                module,
                args,
                dynamo=True,
                input_names=list(inputs),
                output_names=list(outputs),
                opset_version=OPSET,
                external_data=False,
                optimize=True,
                verbose=False,
            )
    finally:
        registration.setLevel(level)
    if program is None:
        raise MotionCoreError("torch.onnx.export returned no program")
    out: bytes = program.model_proto.SerializeToString()
    return out


def export_forward(weights: Weights, convolution: str = "gemm") -> bytes:
    """The ONNX model of one step from the whole history (module docstring); its
    convolutions as matrix products (``"gemm"``) or ONNX ``Conv`` (``"conv"``)."""
    if convolution not in CONVOLUTIONS:
        raise MotionCoreError(f"convolution is one of {CONVOLUTIONS}, not {convolution!r}")
    shape = weights.shape
    args = (torch.zeros(1, HISTORY, shape.state), torch.zeros(1, shape.intent))
    module = _Forward(torch_module(weights), convolution).eval()
    return _onnx(module, args, FORWARD_INPUTS, FORWARD_OUTPUTS)


def cache_shapes(weights: Weights) -> dict[str, tuple[int, ...]]:
    """The step graph's inputs and their shapes (module docstring)."""
    shape = weights.shape
    return {
        "window": (1, shape.kernel, shape.state),
        "conv1": (1, shape.kernel - 1, shape.channels),
        "conv2": (1, shape.columns - 1, shape.channels),
        "code": (1, CODE),
    }


def export_stepper(weights: Weights) -> dict[str, bytes]:
    """``{"step": ONNX model, "intent": ONNX model}``, the incremental step (module
    docstring)."""
    net = torch_module(weights)
    step_args = tuple(torch.zeros(dims) for dims in cache_shapes(weights).values())
    intent_args = (torch.zeros(1, weights.shape.intent),)
    return {
        "step": _onnx(_Step(net).eval(), step_args, STEP_INPUTS, STEP_OUTPUTS),
        "intent": _onnx(_Intent(net).eval(), intent_args, INTENT_INPUTS, INTENT_OUTPUTS),
    }


class Session(Protocol):
    """What :class:`OnnxStepper` needs of an ``onnxruntime.InferenceSession``."""

    def run(self, output_names: Any, input_feed: Mapping[str, Array32]) -> Sequence[Any]: ...


class OnnxStepper:
    """:class:`~motioncore.motornerve.network.Stepper`'s :meth:`push` and
    :meth:`predict` over the two graphs of :func:`export_stepper` (their sessions).

    The step graph pushes and predicts in one call, so :meth:`predict` calls it for the
    state pushed last and keeps the caches it returns; :meth:`push` commits them (calling
    the graph first if nothing was predicted since the last push) and slides the window.
    Before :data:`HISTORY` pushes the window and caches still hold zeros, as the numpy
    stepper's lists are still short; from then on the two compute the same."""

    def __init__(self, weights: Weights, step: Session, intent: Session) -> None:
        self.weights, self.step, self.intent = weights, step, intent
        zeros = {k: np.zeros(v, np.float32) for k, v in cache_shapes(weights).items()}
        self.window = zeros.pop("window")
        self.code = zeros.pop("code")
        self.caches = zeros
        self._next: dict[str, Array32] | None = None
        self._intent_key = b""
        self.pushed = 0
        self.last = np.zeros(weights.shape.state)

    def fill(self, state: NDArray[np.float64]) -> None:
        """Start from ``state`` held for the whole history (standing still)."""
        for _ in range(HISTORY):
            self.push(state)

    def push(self, raw_state: NDArray[np.float64]) -> None:
        """Append a raw state ``[S]`` (the newest)."""
        if self.pushed and self._next is None:
            self._run()
        if self._next is not None:
            self.caches = self._next
        self._next = None
        normed, _ = self.weights.normalise(raw_state, np.zeros(self.weights.shape.intent))
        self.window = np.concatenate([self.window[:, 1:], normed[None, None]], axis=1)
        self.last = np.asarray(raw_state, np.float64)
        self.pushed += 1

    def _run(self) -> tuple[Array32, Array32]:
        feeds = {"window": self.window, **self.caches, "code": self.code}
        motion, contact, *caches = self.step.run(None, feeds)
        self._next = dict(zip(CACHES, caches, strict=True))
        return np.asarray(motion[0], np.float32), np.asarray(contact[0], np.float32)

    def predict(self, raw_intent: NDArray[np.float64]) -> tuple[Array32, Array32]:
        """``(motion head [S], contact logits [2])`` for ``raw_intent [12]`` after the
        states pushed (network units, as :meth:`Weights.forward` gives them)."""
        if self.pushed < HISTORY:
            raise MotionCoreError(f"the stepper needs {HISTORY} states before it predicts")
        key = np.asarray(raw_intent, np.float32).tobytes()
        if key != self._intent_key:
            _, normed = self.weights.normalise(np.zeros(self.weights.shape.state), raw_intent)
            (self.code,) = self.intent.run(None, {"intent": normed[None]})
            self._intent_key = key
        return self._run()
