"""MotorNerve's ONNX exports (``motioncore/motornerve/onnx_export.py``) in onnxruntime
against the numpy network, on small random weights: the whole-history graph (matrix
products and ONNX ``Conv``) against ``Weights.forward``, and the incremental graphs,
driven by ``OnnxStepper``, against ``Weights.forward`` on the same history after every
push. Skipped without ``torch``, ``onnxscript`` (the exporter) or ``onnxruntime``:
``pip install -e '.[onnx]'``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from motioncore.errors import MotionCoreError
from motioncore.motornerve import network
from motioncore.motornerve.network import HISTORY, Shape, Weights

for _module in ("torch", "onnxscript", "onnxruntime"):
    pytest.importorskip(_module, reason=f"{_module} is not installed (pip install -e '.[onnx]')")

import onnxruntime  # noqa: E402

from motioncore.motornerve import onnx_export  # noqa: E402

SMALL = Shape(channels=24, kernel=3, gru=8, intent_hidden=(16, 16), fusion=(32, 32, 16))
"""Small, and a kernel of 3 (not the default 5): 11 GRU columns, so the window and cache
lengths are not the default's."""
TOL = 1e-5
"""The issue's bound between an ONNX export and numpy (float32 sums in another order)."""


@pytest.fixture(scope="module")
def small() -> Weights:
    return network.random_weights(SMALL, seed=11, scale=2.0)


def _session(model: bytes) -> Any:
    return onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])


@pytest.fixture(scope="module")
def stepper_sessions(small: Weights) -> dict[str, Any]:
    return {k: _session(v) for k, v in onnx_export.export_stepper(small).items()}


@pytest.mark.parametrize("convolution", onnx_export.CONVOLUTIONS)
def test_the_whole_history_graph_matches_numpy_forward(small: Weights, convolution: str) -> None:
    session = _session(onnx_export.export_forward(small, convolution=convolution))
    rng = np.random.default_rng(0)
    for _ in range(3):
        history = rng.normal(size=(1, HISTORY, SMALL.state)).astype(np.float32)
        intent = rng.normal(size=(1, SMALL.intent)).astype(np.float32)
        motion, contact = session.run(None, {"history": history, "intent": intent})
        want_motion, want_contact = small.forward(history, intent)
        np.testing.assert_allclose(motion, want_motion, rtol=0, atol=TOL)
        np.testing.assert_allclose(contact, want_contact, rtol=0, atol=TOL)


def test_the_incremental_graphs_match_numpy_forward_after_every_push(
    small: Weights, stepper_sessions: dict[str, Any]
) -> None:
    rng = np.random.default_rng(1)
    raw = rng.normal(size=(HISTORY + 12, SMALL.state))
    wants = rng.normal(size=(4, SMALL.intent))
    stepper = onnx_export.OnnxStepper(small, stepper_sessions["step"], stepper_sessions["intent"])
    predicted = 0
    for t, state in enumerate(raw):
        stepper.push(state)
        if t + 1 < HISTORY or t % 4 == 3:  # some pushes are not followed by a prediction
            continue
        for want in (wants[t % 4], wants[t % 4], wants[(t + 1) % 4]):  # the code cached, then not
            motion, logits = stepper.predict(want)
            history, normed = small.normalise(raw[t + 1 - HISTORY : t + 1], want)
            ref_motion, ref_logits = small.forward(history[None], normed[None])
            np.testing.assert_allclose(motion, ref_motion[0], rtol=0, atol=TOL)
            np.testing.assert_allclose(logits, ref_logits[0], rtol=0, atol=TOL)
            predicted += 1
    assert predicted == 30


def test_the_stepper_refuses_to_predict_before_a_full_history(
    small: Weights, stepper_sessions: dict[str, Any]
) -> None:
    stepper = onnx_export.OnnxStepper(small, stepper_sessions["step"], stepper_sessions["intent"])
    for _ in range(HISTORY - 1):
        stepper.push(np.zeros(SMALL.state))
    with pytest.raises(MotionCoreError, match="needs 15 states"):
        stepper.predict(np.zeros(SMALL.intent))


def test_an_unknown_convolution_is_refused(small: Weights) -> None:
    with pytest.raises(MotionCoreError, match="convolution is one of"):
        onnx_export.export_forward(small, convolution="winograd")
