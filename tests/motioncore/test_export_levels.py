"""motioncore.export.viewer_levels: a preview within a budget plus the full rate as float32.

Issue 16 finding 2 (viewer arrays): a 200k-frame take made two 596 MB JSON files. The
preview holds every ``stride``-th frame (the smallest stride within the budget), the
full-rate positions are raw little-endian float32 ``[F, J, 3]``; a clip within the
budget keeps exactly :func:`~motioncore.export.viewer_arrays`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from motioncore import bvh, export, fk
from motioncore.clip import Clip
from support.humanoid import chain_skeleton

HOUR_S = 3600
MB = 1_000_000
VALUES_PER_SAMPLE = 7
"""A position (3) and an x, y, z, w rotation (4) per joint and frame."""
SKELETON_CHARS_PER_JOINT = 200
"""Generous room for a joint's name, parent, end-site flag and 3 offsets in the JSON."""


def json_bytes_max(frames: int, joints: int, stride: int) -> int:
    """The most bytes the preview's JSON can take: every value at its longest."""
    kept = export.preview_frames(frames, stride)
    per_frame = (VALUES_PER_SAMPLE * joints + 1) * export.JSON_VALUE_MAX_CHARS  # + its time
    return kept * per_frame + joints * SKELETON_CHARS_PER_JOINT + 1000


def _long_chain(frames: int, fps: float = 120.0) -> Clip:
    """A root, a joint 1 m above it and an end site, ``frames`` long: the root walks
    along +X at 1 m/s, bobs and turns about +Y (every frame differs)."""
    skeleton = chain_skeleton()
    t = np.arange(frames) / fps
    half_turn = 0.5 * np.sin(0.7 * t)
    rotations = np.zeros((frames, 3, 4))
    rotations[..., 0] = 1.0
    rotations[:, 0, 0], rotations[:, 0, 2] = np.cos(half_turn), np.sin(half_turn)
    translations = np.broadcast_to(skeleton.offsets, (frames, 3, 3)).copy()
    translations[:, 0] = np.stack([t, 0.9 + 0.02 * np.sin(11 * t), 0 * t], axis=1)
    return Clip(skeleton=skeleton, rotations=rotations, translations=translations, fps=fps)


@given(
    frames=st.integers(1, 2_000_000),
    joints=st.integers(1, 300),
    budget=st.integers(1, 500_000),
)
def test_the_stride_is_the_smallest_that_fits_the_budget(
    frames: int, joints: int, budget: int
) -> None:
    """Issue 16 finding 2 (viewer arrays): ceil(F / s) × J within the budget (one frame at
    least), and s - 1 would not fit."""
    stride = export.preview_stride(frames, joints, max_samples=budget)
    kept = export.preview_frames(frames, stride)
    assert 1 <= stride <= frames
    assert kept == math.ceil(frames / stride)
    assert kept * joints <= budget or kept == 1
    if stride > 1:
        assert export.preview_frames(frames, stride - 1) * joints > budget


def test_an_hour_at_120_hz_with_25_joints_gives_megabytes_not_gigabytes() -> None:
    """Issue 16 finding 2 (viewer arrays): the preview of a 1 h, 120 Hz, 25-joint clip
    is 4,000 frames at 1/108 of the rate, ≤ 17 MB of JSON whatever the values; the full
    rate is 129.6 MB of float32 (the full-rate JSON would have been ≥ 1.2 GB)."""
    frames, joints, fps = HOUR_S * 120, 25, 120.0
    stride = export.preview_stride(frames, joints)
    assert stride == 108
    assert export.preview_frames(frames, stride) == 4000
    assert fps / stride == pytest.approx(1.111, abs=1e-3)  # preview frames per second
    assert json_bytes_max(frames, joints, stride) <= 17.5 * MB
    assert frames * joints * 3 * 4 == 129_600_000  # bytes of the full-rate file
    measured_chars_per_sample = 115  # what today's JSON takes (a 38-joint, 120 Hz CMU take)
    assert frames * joints * measured_chars_per_sample > 1.2e9


@pytest.fixture(scope="module")
def hour_of_chain() -> tuple[Clip, export.ViewerLevels]:
    """432,000 frames (1 h at 120 Hz) of the 3-joint chain and its viewer levels."""
    clip = _long_chain(HOUR_S * 120)
    return clip, export.viewer_levels(clip)


def test_a_long_clip_is_previewed_at_a_stride_within_the_json_bound(
    hour_of_chain: tuple[Clip, export.ViewerLevels],
) -> None:
    """Issue 16 finding 2 (viewer arrays): 432,000 frames × 3 joints → every 13th frame
    (33,231 frames: 99,693 samples), its own fps and times, under the JSON bound."""
    clip, levels = hour_of_chain
    arrays = levels.arrays
    assert levels.stride == arrays["stride"] == 13
    assert arrays["frames"] == 33_231 and arrays["frames"] * 3 <= export.PREVIEW_MAX_SAMPLES
    assert arrays["fps"] == 120.0 / 13
    assert len(arrays["times"]) == arrays["frames"]
    np.testing.assert_array_equal(
        arrays["times"], (np.arange(0, clip.num_frames, 13) / 120.0).astype(np.float32)
    )
    size = len(json.dumps(arrays, separators=(",", ":")).encode())
    assert size <= json_bytes_max(clip.num_frames, 3, 13)
    assert size < 10 * MB


def test_the_preview_is_the_full_rate_at_every_stride_th_frame(
    hour_of_chain: tuple[Clip, export.ViewerLevels],
) -> None:
    """Issue 16 finding 2 (viewer arrays): the preview's positions and rotations are the
    clip's at frames 0, s, 2s, …, as float32."""
    clip, levels = hour_of_chain
    arrays, kept = levels.arrays, slice(None, None, levels.stride)
    positions = np.reshape(arrays["positions"], (arrays["frames"], 3, 3))
    np.testing.assert_array_equal(positions, fk.positions(clip)[kept].astype(np.float32))
    rotations = np.reshape(arrays["rotations_xyzw"], (arrays["frames"], 3, 4))
    np.testing.assert_array_equal(
        rotations[..., [3, 0, 1, 2]], clip.rotations[kept].astype(np.float32)
    )


def test_the_full_rate_file_round_trips_every_frame_exactly(
    hour_of_chain: tuple[Clip, export.ViewerLevels],
) -> None:
    """Issue 16 finding 2 (viewer arrays): the binary is little-endian float32
    [F, J, 3] in C order, F × J × 12 bytes, exactly fk.positions at float32; the JSON
    describes it, and frame f starts at byte f × bytes_per_frame."""
    clip, levels = hour_of_chain
    frames = clip.num_frames
    assert levels.arrays["full"] == {
        "name": "viewer.f32",
        "dtype": "<f4",
        "shape": [frames, 3, 3],
        "bytes_per_frame": 36,
        "frames": frames,
        "fps": 120.0,
    }
    assert len(levels.full) == frames * 36
    expected = fk.positions(clip).astype(np.float32)
    np.testing.assert_array_equal(export.full_rate_positions(levels.full, 3), expected)
    f = 123_457
    window = levels.full[f * 36 : (f + 2) * 36]
    np.testing.assert_array_equal(
        np.frombuffer(window, "<f4").reshape(2, 3, 3), expected[f : f + 2]
    )


@pytest.mark.parametrize("name", ["games105/walk_forward.bvh", "cmu-pybvh/bvh_test1.bvh"])
def test_a_short_clip_keeps_exactly_todays_arrays(name: str, sample_dir: Path) -> None:
    """Issue 16 finding 2 (viewer arrays): within the budget the preview is
    viewer_arrays itself (no added key), and the full-rate file is still written."""
    clip = bvh.load((sample_dir / name).read_bytes())
    levels = export.viewer_levels(clip)
    assert levels.stride == 1
    assert levels.arrays == export.viewer_arrays(clip)
    assert "stride" not in levels.arrays and "full" not in levels.arrays
    full = export.full_rate_positions(levels.full, clip.skeleton.num_joints)
    np.testing.assert_array_equal(full, fk.positions(clip).astype(np.float32))


def test_the_budget_and_the_name_are_arguments_and_the_input_is_kept() -> None:
    """Issue 16 finding 2 (viewer arrays): a 10-frame chain with a 9-sample budget is
    kept at every 4th frame (3 frames × 3 joints); the clip is not modified."""
    clip = _long_chain(10, fps=30.0)
    rotations, translations = clip.rotations.copy(), clip.translations.copy()
    levels = export.viewer_levels(clip, max_preview_samples=9, full_name="viewer-raw.f32")
    assert (levels.stride, levels.arrays["frames"]) == (4, 3)
    assert levels.arrays["times"] == [0.0, float(np.float32(4 / 30)), float(np.float32(8 / 30))]
    assert levels.arrays["full"]["name"] == "viewer-raw.f32"
    np.testing.assert_array_equal(clip.rotations, rotations)
    np.testing.assert_array_equal(clip.translations, translations)
