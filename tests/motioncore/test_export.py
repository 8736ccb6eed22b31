"""motioncore.export.viewer_arrays: layout, float32 rounding, and agreement with fk.positions.

A hand-made three-joint chain gives golden numbers; a real clip checks that the
flat arrays are exactly ``fk.positions`` (and the local rotations) at float32.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, export, fk
from motioncore.clip import Clip
from support.humanoid import chain_skeleton

SQRT_HALF = math.sqrt(0.5)


def _chain() -> Clip:
    """Root (Y up), a joint 1 m above it, an end site 0.5 m in front (+Z) of that.

    Frame 0: rest pose with the root at (1, 2, 3). Frame 1: the root also turned
    90° about +Y, which swings the end site from +Z to +X. Rendered at 30 fps.
    """
    skeleton = chain_skeleton()
    rotations = np.zeros((2, 3, 4))
    rotations[..., 0] = 1.0
    rotations[1, 0] = [SQRT_HALF, 0.0, SQRT_HALF, 0.0]
    translations = np.broadcast_to(skeleton.offsets, (2, 3, 3)).copy()
    translations[:, 0] = [1.0, 2.0, 3.0]
    return Clip(skeleton=skeleton, rotations=rotations, translations=translations, fps=30.0)


def _as_float32(values: list[float]) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).astype(np.float32).astype(np.float64)


def test_layout_and_lengths() -> None:
    clip = _chain()
    out = export.viewer_arrays(clip)
    frames, joints = 2, 3
    assert out["format"] == "kinetograph-viewer/1"
    assert (out["frames"], out["joints"], out["fps"]) == (frames, joints, 30.0)
    assert out["names"] == ["Hips", "Chest", "Chest_End"]
    assert out["parents"] == [-1, 0, 1]
    assert out["end_site"] == [False, False, True]
    assert len(out["times"]) == frames
    assert len(out["offsets"]) == joints * 3
    assert len(out["positions"]) == frames * joints * 3
    assert len(out["rotations_xyzw"]) == frames * joints * 4
    assert out["units"] == {"length": "m", "time": "s", "up": "Y"}


def test_golden_positions_frame_major() -> None:
    positions = np.reshape(export.viewer_arrays(_chain())["positions"], (2, 3, 3))
    expected = [
        [[1.0, 2.0, 3.0], [1.0, 3.0, 3.0], [1.0, 3.0, 3.5]],
        [[1.0, 2.0, 3.0], [1.0, 3.0, 3.0], [1.5, 3.0, 3.0]],
    ]
    np.testing.assert_allclose(positions, expected, rtol=0, atol=1e-6)


def test_rotations_are_xyzw() -> None:
    rotations = np.reshape(export.viewer_arrays(_chain())["rotations_xyzw"], (2, 3, 4))
    np.testing.assert_allclose(rotations[1, 0], [0.0, SQRT_HALF, 0.0, SQRT_HALF], atol=1e-7)
    np.testing.assert_array_equal(rotations[0, :, 3], [1.0, 1.0, 1.0])


def test_every_array_is_rounded_to_float32() -> None:
    out = export.viewer_arrays(_chain())
    for key in ("times", "offsets", "positions", "rotations_xyzw"):
        values = np.asarray(out[key], dtype=np.float64)
        np.testing.assert_array_equal(values, _as_float32(out[key]), err_msg=key)
    assert out["times"][1] == float(np.float32(1 / 30))
    assert out["times"][1] != 1 / 30  # really rounded, not float64


def test_plain_json_types() -> None:
    out = export.viewer_arrays(_chain())
    assert json.loads(json.dumps(out)) == out
    assert all(type(v) is float for v in out["positions"])


def test_input_is_not_modified() -> None:
    clip = _chain()
    rotations, translations = clip.rotations.copy(), clip.translations.copy()
    export.viewer_arrays(clip)
    np.testing.assert_array_equal(clip.rotations, rotations)
    np.testing.assert_array_equal(clip.translations, translations)


@pytest.mark.parametrize("name", ["games105/run_forward.bvh", "cmu-pybvh/bvh_test1.bvh"])
def test_real_clip_matches_fk_positions_and_rotations(name: str, sample_dir: Path) -> None:
    clip = bvh.load((sample_dir / name).read_bytes())
    out = export.viewer_arrays(clip)
    frames, joints = clip.num_frames, clip.skeleton.num_joints
    positions = np.reshape(out["positions"], (frames, joints, 3))
    np.testing.assert_array_equal(positions, fk.positions(clip).astype(np.float32))
    rotations = np.reshape(out["rotations_xyzw"], (frames, joints, 4))
    np.testing.assert_array_equal(rotations[..., [3, 0, 1, 2]], clip.rotations.astype(np.float32))
    np.testing.assert_allclose(out["times"], np.arange(frames) / clip.fps, rtol=1e-6, atol=0)
    np.testing.assert_array_equal(
        np.reshape(out["offsets"], (joints, 3)), clip.skeleton.offsets.astype(np.float32)
    )
