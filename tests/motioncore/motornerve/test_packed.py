"""MotorNerve's weights packed for the browser (:mod:`motioncore.motornerve.packed`): a
JSON manifest and a float32 blob that unpack to the same weights, bit for bit."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import pytest

from motioncore.errors import MotionCoreError
from motioncore.motornerve import network, packed, runtime, state
from motioncore.motornerve.network import Shape, Weights

SMALL = Shape(channels=32, kernel=5, gru=16, intent_hidden=(32, 32), fusion=(64, 64, 32))


@pytest.fixture(scope="module")
def weights() -> Weights:
    w = network.random_weights(SMALL, seed=3, scale=1.5)
    rng = np.random.default_rng(3)
    norms = {
        "state_mean": rng.normal(size=SMALL.state),
        "state_std": rng.uniform(0.5, 2.0, SMALL.state),
        "intent_mean": rng.normal(size=SMALL.intent),
        "intent_std": rng.uniform(0.5, 2.0, SMALL.intent),
        "output_mean": rng.normal(size=SMALL.state) * 1e-3,
        "output_std": rng.uniform(0.005, 0.02, SMALL.state),
    }
    start = [*np.tile([1.0, 0.0, 0.0, 0.0, 1.0, 0.0], 21).tolist(), 0.0, 0.0, 0.0, 0.9]
    return Weights(
        w.params,
        **{k: v.astype(np.float32) for k, v in norms.items()},
        shape=SMALL,
        meta={"start_state": start, "trained": "no"},
    )


@pytest.fixture(scope="module")
def packed_weights(weights: Weights) -> tuple[dict[str, Any], bytes]:
    return packed.pack(weights)


def test_the_round_trip_is_bit_exact(
    weights: Weights, packed_weights: tuple[dict[str, Any], bytes]
) -> None:
    manifest, data = packed_weights
    back = packed.unpack(json.loads(json.dumps(manifest)), data)
    assert back.shape == weights.shape
    assert list(back.params) == list(network.parameter_shapes(SMALL))
    for name, value in weights.params.items():
        assert back.params[name].dtype == np.float32
        assert back.params[name].tobytes() == value.tobytes(), name
    for name in ("state_mean", "state_std", "intent_mean", "intent_std", "output_mean"):
        assert getattr(back, name).tobytes() == getattr(weights, name).tobytes(), name
    assert back.output_std.tobytes() == weights.output_std.tobytes()
    assert back.meta == weights.meta
    np.testing.assert_array_equal(runtime.start_state(back), runtime.start_state(weights))


def test_offsets_are_16_byte_aligned_and_inside_the_blob(
    packed_weights: tuple[dict[str, Any], bytes],
) -> None:
    manifest, data = packed_weights
    entries = manifest["tensors"] + manifest["norms"]
    assert len(data) % 16 == 0
    ends = 0
    for entry in entries:
        assert entry["offset"] % 4 == 0, entry["name"]
        assert entry["offset"] >= ends, "entries overlap"
        assert entry["length"] == int(np.prod(entry["shape"]))
        ends = entry["offset"] + entry["length"]
    assert 4 * ends <= len(data)
    assert [e["name"] for e in manifest["norms"]] == [
        "state_mean",
        "state_std",
        "intent_mean",
        "intent_std",
        "output_mean",
        "output_std",
    ]


def test_the_manifest_is_json_and_carries_the_runtime(
    weights: Weights, packed_weights: tuple[dict[str, Any], bytes]
) -> None:
    manifest, _ = packed_weights
    text = packed.dumps(manifest)
    again = json.loads(text)
    assert again == json.loads(json.dumps(manifest))
    assert again["format"] == "motornerve-f32-v1"
    assert again["shape"]["fusion"] == [64, 64, 32]
    np.testing.assert_array_equal(again["start_state"], runtime.start_state(weights))
    constants = again["runtime"]
    assert constants["STEP_S"] == state.STEP_S
    assert constants["BLEND_S"] == runtime.BLEND_S
    assert constants["SHARP_TURN_RAD"] == runtime.SHARP_TURN_RAD
    assert constants["MAX_SPEED_MPS"] == runtime.MAX_SPEED_MPS
    assert constants["state"]["VELOCITY"] == [state.VELOCITY.start, state.VELOCITY.stop]
    assert constants["state"]["TURN"] == state.TURN
    assert len(constants["state"]["JOINTS"]) == 21
    assert constants["intent"]["ACTIONS"] == ["idle", "walk", "run", "interact"]
    assert constants["QUEUED_INTENT"][constants["intent"]["FACING"][1]] == 1.0


def test_a_wrong_format_is_refused(packed_weights: tuple[dict[str, Any], bytes]) -> None:
    manifest, data = packed_weights
    with pytest.raises(MotionCoreError, match="motornerve-f32-v1"):
        packed.unpack({**manifest, "format": "motornerve-f16-v1"}, data)
    with pytest.raises(MotionCoreError):
        packed.unpack({k: v for k, v in manifest.items() if k != "format"}, data)


def test_broken_manifests_are_refused(packed_weights: tuple[dict[str, Any], bytes]) -> None:
    manifest, data = packed_weights
    with pytest.raises(MotionCoreError, match="past the blob"):
        packed.unpack(manifest, data[: len(data) // 2])
    moved = [dict(e) for e in manifest["tensors"]]
    moved[1]["offset"] += 1
    with pytest.raises(MotionCoreError, match="offset"):
        packed.unpack({**manifest, "tensors": moved}, data)
    with pytest.raises(MotionCoreError, match="missing"):
        packed.unpack({**manifest, "tensors": manifest["tensors"][:-1]}, data)
    with pytest.raises(MotionCoreError, match="missing"):
        packed.unpack({**manifest, "norms": manifest["norms"][:-1]}, data)


def test_weights_of_another_shape_are_not_packed(weights: Weights) -> None:
    params = dict(weights.params)
    params["conv1.bias"] = params["conv1.bias"][:-1]
    with pytest.raises(MotionCoreError, match=r"conv1\.bias"):
        packed.pack(dataclasses.replace(weights, params=params))
    del params["conv1.bias"]
    with pytest.raises(MotionCoreError, match="missing"):
        packed.pack(dataclasses.replace(weights, params=params))
