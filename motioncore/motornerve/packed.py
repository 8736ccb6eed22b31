"""MotorNerve's weights for the browser: a JSON manifest and one float32 blob.

The browser runtime (``static/js/motornerve/``) reads the network from two files: a
manifest (:func:`pack`'s dict, written as JSON) and a blob of little-endian float32
numbers that it views in place (``Float32Array`` over the fetched ``ArrayBuffer``, no
copies). The manifest::

    {
      "format": "motornerve-f32-v1",
      "shape": {...Shape fields, tuples as lists...},
      "tensors": [{"name": "conv1.weight", "shape": [C, S, k], "offset": 0, "length": n}, ...],
      "norms": [{"name": "state_mean", ...}, ...],   # the six normalisation vectors
      "start_state": [S floats],                     # runtime.start_state(weights)
      "runtime": {...},                              # see runtime_constants()
      "meta": {...}                                  # Weights.meta
    }

Offsets and lengths count float32 numbers (not bytes) from the start of the blob; every
offset is a multiple of :data:`ALIGN_FLOATS` (16 bytes) so that a typed array can view
it and SIMD-friendly loads stay aligned; the gaps are zeros. Tensors keep PyTorch's
layout (row-major, ``conv1.weight [C, S, k]``); whatever a runtime transposes, it
transposes at load. ``runtime`` holds every constant the JavaScript controller needs
(:func:`runtime_constants`) so that it copies none of them.

:func:`unpack` reads both back into :class:`~motioncore.motornerve.network.Weights`,
bit for bit.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from motioncore.errors import MotionCoreError
from motioncore.motornerve import intent, runtime, state
from motioncore.motornerve.network import _NORMS, HISTORY, Shape, Weights, parameter_shapes
from motioncore.pfnn.dataset import JOINTS
from motioncore.skeleton import canonical

FORMAT = "motornerve-f32-v1"
"""The manifest's ``format``: float32 little-endian blob, PyTorch tensor layout."""
ALIGN_FLOATS = 4
"""Every offset is a multiple of this many floats (16 bytes)."""
_DTYPE = np.dtype("<f4")


def _span(start: int, stop: int) -> list[int]:
    return [start, stop]


def runtime_constants() -> dict[str, Any]:
    """What ``static/js/motornerve/controller.js`` and ``state.js`` read instead of
    copying: :mod:`~motioncore.motornerve.runtime`'s limits and thresholds, the state
    and intent layouts (slices as ``[start, stop]``), the joints the state rotates (their
    canonical indices and names) and the two fixed intents the controller uses (the one
    it starts from and the one the gate gives while an interaction waits)."""
    idle = intent.ACTIONS.index("idle")
    return {
        "HISTORY": HISTORY,
        "FPS": float(state.FPS),
        "STEP_FRAMES": int(state.STEP_FRAMES),
        "STEP_S": float(state.STEP_S),
        "BLEND_S": float(runtime.BLEND_S),
        "MAX_ACCELERATION_MPS2": float(runtime.MAX_ACCELERATION_MPS2),
        "VELOCITY_STEER": float(runtime.VELOCITY_STEER),
        "STAND_BELOW_MPS": float(runtime.STAND_BELOW_MPS),
        "TURN_STEER": float(runtime.TURN_STEER),
        "HORIZON_S": float(intent.HORIZON_S),
        "MAX_TURN_ACCELERATION_RADPS2": float(runtime.MAX_TURN_ACCELERATION_RADPS2),
        "SHARP_SPEED_MPS": float(runtime.SHARP_SPEED_MPS),
        "SHARP_TURN_RAD": float(runtime.SHARP_TURN_RAD),
        "INTERACT_BELOW_MPS": float(runtime.INTERACT_BELOW_MPS),
        "MAX_SPEED_MPS": float(runtime.MAX_SPEED_MPS),
        "INTERACT": int(runtime.INTERACT),
        "IDLE": idle,
        "INITIAL_INTENT": intent.make(np.zeros(2), 0.0, 0.0, 0).tolist(),
        "QUEUED_INTENT": intent.make(np.zeros(2), 0.0, 0.0, idle).tolist(),
        "state": {
            "SIZE": state.SIZE,
            "ROTATION_SIZE": state.ROTATION_SIZE,
            "ROTATIONS": _span(state.ROTATIONS.start, state.ROTATIONS.stop),
            "VELOCITY": _span(state.VELOCITY.start, state.VELOCITY.stop),
            "TURN": state.TURN,
            "HEIGHT": state.HEIGHT,
            "JOINTS": [int(j) for j in JOINTS],
            "JOINT_NAMES": [canonical.NAMES[j] for j in JOINTS],
        },
        "intent": {
            "SIZE": intent.SIZE,
            "DIRECTION": _span(intent.DIRECTION.start, intent.DIRECTION.stop),
            "SPEED": intent.SPEED,
            "FACING": _span(intent.FACING.start, intent.FACING.stop),
            "ACTION": _span(intent.ACTION.start, intent.ACTION.stop),
            "STRENGTH": intent.STRENGTH,
            "ACTIONS": list(intent.ACTIONS),
        },
    }


def _aligned(n: int) -> int:
    return -(-n // ALIGN_FLOATS) * ALIGN_FLOATS


def _check_params(weights: Weights) -> None:
    expected = parameter_shapes(weights.shape)
    if set(weights.params) != set(expected):
        missing = sorted(set(expected) - set(weights.params))
        extra = sorted(set(weights.params) - set(expected))
        raise MotionCoreError(f"MotorNerve parameters differ: missing {missing}, extra {extra}")
    for name, dims in expected.items():
        if tuple(weights.params[name].shape) != dims:
            raise MotionCoreError(
                f"MotorNerve parameter {name} is {weights.params[name].shape}, not {dims}"
            )


def pack(weights: Weights) -> tuple[dict[str, Any], bytes]:
    """``(manifest, blob)`` of ``weights`` (module docstring): the manifest is JSON-able
    (``json.dumps(manifest, allow_nan=False)`` works when the weights' ``meta`` is); the
    blob is the float32 numbers the manifest's ``tensors`` and ``norms`` point into.

    Raises:
        MotionCoreError: the parameters are not those of ``weights.shape``.
    """
    _check_params(weights)
    arrays = [(name, weights.params[name], "tensors") for name in parameter_shapes(weights.shape)]
    arrays += [(name, getattr(weights, name), "norms") for name in _NORMS]
    entries: dict[str, list[dict[str, Any]]] = {"tensors": [], "norms": []}
    chunks: list[bytes] = []
    offset = 0
    for name, array, group in arrays:
        flat = np.ascontiguousarray(array, dtype=_DTYPE).reshape(-1)
        entries[group].append(
            {
                "name": name,
                "shape": [int(d) for d in np.shape(array)],
                "offset": offset,
                "length": int(flat.size),
            }
        )
        padded = _aligned(flat.size)
        chunks += [flat.tobytes(), bytes(4 * (padded - flat.size))]
        offset += padded
    shape = weights.shape
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "shape": {k: _jsonable(getattr(shape, k)) for k in shape.__dataclass_fields__},
        "tensors": entries["tensors"],
        "norms": entries["norms"],
        "start_state": [float(x) for x in runtime.start_state(weights)],
        "runtime": runtime_constants(),
        "meta": dict(weights.meta),
    }
    return manifest, b"".join(chunks)


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _read(entry: Any, data: bytes, expected: dict[str, tuple[int, ...]]) -> tuple[str, Any]:
    """One ``{"name", "shape", "offset", "length"}`` entry's array, checked against the
    shapes ``expected`` by name."""
    try:
        name, dims = str(entry["name"]), tuple(int(d) for d in entry["shape"])
        offset, length = int(entry["offset"]), int(entry["length"])
    except (KeyError, TypeError, ValueError) as error:
        raise MotionCoreError(f"bad MotorNerve manifest entry {entry!r}: {error}") from error
    if name not in expected:
        raise MotionCoreError(f"unexpected MotorNerve tensor {name!r}")
    if dims != expected[name]:
        raise MotionCoreError(f"MotorNerve tensor {name} is {dims}, not {expected[name]}")
    if length != int(np.prod(dims, dtype=np.int64)) or offset < 0 or offset % ALIGN_FLOATS:
        raise MotionCoreError(f"MotorNerve tensor {name}: bad offset {offset} or length {length}")
    if 4 * (offset + length) > len(data):
        raise MotionCoreError(f"MotorNerve tensor {name} runs past the blob's {len(data)} bytes")
    values = np.frombuffer(data, dtype=_DTYPE, count=length, offset=4 * offset)
    return name, values.astype(np.float32).reshape(dims)


def _read_all(
    entries: Any, data: bytes, expected: dict[str, tuple[int, ...]], what: str
) -> dict[str, Any]:
    """Every entry of one manifest list; exactly the names of ``expected``, once each."""
    if not isinstance(entries, list):
        raise MotionCoreError(f"the manifest's {what} are not a list")
    out = dict(_read(entry, data, expected) for entry in entries)
    if set(out) != set(expected) or len(out) != len(entries):
        missing = sorted(set(expected) - set(out))
        raise MotionCoreError(
            f"the manifest's {what} are not the expected ones ({missing} missing)"
        )
    return out


def unpack(manifest: dict[str, Any], data: bytes) -> Weights:
    """The :class:`~motioncore.motornerve.network.Weights` that :func:`pack` packed into
    ``manifest`` and ``data`` (bit-exact).

    Raises:
        MotionCoreError: not a ``motornerve-f32-v1`` manifest, tensors missing, of the
            wrong shape, misaligned or outside the blob.
    """
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest)
        raise MotionCoreError(f"not a {FORMAT} manifest (format {found!r})")
    try:
        shape = Shape.of(manifest["shape"])
    except (KeyError, TypeError, ValueError) as error:
        raise MotionCoreError(f"bad MotorNerve manifest shape: {error}") from error
    params = _read_all(manifest.get("tensors"), data, parameter_shapes(shape), "tensors")
    sizes = {"state": shape.state, "intent": shape.intent, "output": shape.state}
    norm_shapes: dict[str, tuple[int, ...]] = {
        name: (sizes[name.split("_")[0]],) for name in _NORMS
    }
    norms = _read_all(manifest.get("norms"), data, norm_shapes, "norms")
    meta = manifest.get("meta", {})
    return Weights(params, **norms, shape=shape, meta=dict(meta) if isinstance(meta, dict) else {})


def dumps(manifest: dict[str, Any]) -> str:
    """The manifest's file text (compact JSON, one line, no NaN)."""
    return json.dumps(manifest, separators=(",", ":"), allow_nan=False) + "\n"
