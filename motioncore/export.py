"""Ready-to-play arrays for the browser viewer (the browser does no kinematics).

:func:`viewer_arrays` gives a JSON-able dict: joint ``names`` and ``parents``,
``fps``, ``times`` (seconds, ``[F]``), world ``positions`` flattened frame-major
(``[F * J * 3]``, metres, Y up), local rotations as flat ``x, y, z, w``
quaternions (``[F * J * 4]``, three.js order) and ``offsets`` (``[J * 3]``).
Values are rounded to float32 precision to keep the payload small.

Long clips (:func:`viewer_levels`) come in two levels, so that an hour of capture does
not become gigabytes of JSON:

* the **preview**: the same dict at every ``stride``-th frame, ``stride`` the smallest
  integer that keeps ``frames × joints`` within a budget (``max_preview_samples``).
  Its ``frames``, ``fps`` (the clip's rate / ``stride``) and ``times`` describe the
  frames it holds, so a player that knows nothing of levels plays it at the right
  speed. When ``stride > 1`` it also says ``stride`` and ``full`` (below); a clip
  within the budget gets exactly :func:`viewer_arrays`.
* the **full rate**: every frame's world positions as raw little-endian float32,
  ``[F, J, 3]`` metres in C order (frame, joint, axis), ``J * 12`` bytes a frame, so
  that frame ``f`` starts at byte ``f * J * 12`` and a player fetches any window by an
  HTTP range. ``full`` describes it: ``name``, ``dtype`` (``"<f4"``), ``shape``,
  ``bytes_per_frame``, ``frames`` and ``fps`` (the clip's).

Conventions: metres, seconds, Y up; quaternions stored ``x, y, z, w`` (three.js).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from motioncore import fk
from motioncore.clip import Clip

PREVIEW_MAX_SAMPLES = 100_000
"""The preview's budget, frames × joints. A sample is 7 values (a position and a
rotation), about 18 characters each in JSON: about 13 MB at the budget, at most
:data:`JSON_VALUE_MAX_CHARS` × 7 ≈ 17 MB (more than 5,000 frames of a 20-joint rig at
full rate)."""

JSON_VALUE_MAX_CHARS = 24
"""The longest a float32 value is in the JSON, its separator included
(``-1.2345678901234567e-05,``): Python writes the shortest float64 that reads back."""

FULL_RATE_DTYPE = "<f4"
"""The full-rate positions' element type (numpy's name): little-endian float32."""

AXES = 3
"""Values per position (x, y, z)."""


@dataclass(frozen=True)
class ViewerLevels:
    """A clip's viewer arrays in two levels (see the module docstring).

    Attributes:
        arrays: the JSON-able preview (:func:`viewer_arrays`' layout at every
            ``stride``-th frame; with ``stride`` and ``full`` when ``stride > 1``).
        full: the full-rate world positions, ``[F, J, 3]`` little-endian float32
            metres in C order, ``F * J * 12`` bytes.
        stride: source frames per preview frame (1: the preview is the full rate).
    """

    arrays: dict[str, Any]
    full: bytes
    stride: int


def preview_stride(frames: int, joints: int, *, max_samples: int = PREVIEW_MAX_SAMPLES) -> int:
    """The smallest stride ``s ≥ 1`` with ``ceil(frames / s) × joints ≤ max_samples``
    (one frame at least: a rig over the budget keeps its first frame).

    Args:
        frames: ``F``, the clip's frames.
        joints: ``J``, end sites included.
        max_samples: the budget, frames × joints.
    """
    frames_allowed = max(1, max_samples // max(joints, 1))
    return max(1, -(-frames // frames_allowed))


def preview_frames(frames: int, stride: int) -> int:
    """Frames the preview holds, ``ceil(frames / stride)`` (frames ``0, s, 2s, …``)."""
    return -(-frames // stride)


def viewer_arrays(clip: Clip, *, decimals: int | None = None) -> dict[str, Any]:
    """The clip as flat arrays for playback at every frame (see the module docstring);
    ``decimals``: round positions (metres) and rotations to that many decimals (a
    smaller JSON; ``None`` keeps float32 precision)."""
    return _arrays(clip, fk.positions(clip).astype(np.float32), stride=1, decimals=decimals)


def viewer_levels(
    clip: Clip,
    *,
    max_preview_samples: int = PREVIEW_MAX_SAMPLES,
    full_name: str = "viewer.f32",
) -> ViewerLevels:
    """The clip's preview (within ``max_preview_samples`` frames × joints) and its
    full-rate positions (see the module docstring for both layouts).

    Args:
        clip: the motion; not modified.
        max_preview_samples: the preview's budget, frames × joints.
        full_name: what the preview calls the full-rate file (``full.name``), so that a
            player can find it next to the JSON.
    """
    positions = fk.positions(clip).astype(FULL_RATE_DTYPE)
    frames, joints = clip.num_frames, clip.skeleton.num_joints
    stride = preview_stride(frames, joints, max_samples=max_preview_samples)
    arrays = _arrays(clip, positions, stride=stride)
    if stride > 1:
        arrays["stride"] = stride
        arrays["full"] = {
            "name": full_name,
            "dtype": FULL_RATE_DTYPE,
            "shape": [frames, joints, AXES],
            "bytes_per_frame": joints * AXES * positions.itemsize,
            "frames": frames,
            "fps": clip.fps,
        }
    return ViewerLevels(arrays=arrays, full=positions.tobytes(order="C"), stride=stride)


def full_rate_positions(data: bytes, joints: int) -> NDArray[np.float32]:
    """The full-rate file read back: ``[F, J, 3]`` float32 world positions, metres.

    Args:
        data: ``F * J * 12`` bytes of :attr:`ViewerLevels.full` (a whole number of frames).
        joints: ``J``.
    """
    values = np.frombuffer(data, dtype=FULL_RATE_DTYPE)
    return values.reshape(-1, joints, AXES).astype(np.float32)


def _arrays(
    clip: Clip, positions: NDArray[np.float32], *, stride: int, decimals: int | None = None
) -> dict[str, Any]:
    """The JSON-able arrays at frames ``0, stride, 2 stride, …`` (``positions``:
    ``[F, J, 3]`` float32 world positions of every frame, metres), rounded to
    ``decimals`` when given."""
    kept = np.arange(0, clip.num_frames, stride)
    xyzw: NDArray[np.floating[Any]] = clip.rotations[::stride][..., [1, 2, 3, 0]].astype(np.float32)
    placed: NDArray[np.floating[Any]] = positions[::stride].astype(np.float32)
    if decimals is not None:  # rounded in float64: short decimals in the JSON
        xyzw = np.round(xyzw.astype(np.float64), decimals)
        placed = np.round(placed.astype(np.float64), decimals)
    return {
        "format": "kinetograph-viewer/1",
        "names": list(clip.skeleton.names),
        "parents": clip.skeleton.parents.tolist(),
        "end_site": clip.skeleton.end_site.tolist(),
        "fps": clip.fps if stride == 1 else clip.fps / stride,
        "frames": int(kept.size),
        "joints": clip.skeleton.num_joints,
        "times": (kept / clip.fps).astype(np.float32).tolist(),
        "offsets": clip.skeleton.offsets.astype(np.float32).ravel().tolist(),
        "positions": placed.ravel().tolist(),
        "rotations_xyzw": xyzw.ravel().tolist(),
        "units": {"length": "m", "time": "s", "up": "Y"},
    }
