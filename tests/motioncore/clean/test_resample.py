"""Resampling: slerp for rotations, cubic splines for translations."""

from __future__ import annotations

import numpy as np
import pytest

from motioncore import quat
from motioncore.clean import resample
from motioncore.clip import Clip, Skeleton
from motioncore.errors import MotionCoreError


def _clip(rotations: np.ndarray, translations: np.ndarray, fps: float) -> Clip:
    joints = rotations.shape[1]
    skeleton = Skeleton(
        names=tuple(f"j{i}" for i in range(joints)),
        parents=np.arange(joints, dtype=np.int64) - 1,
        offsets=np.zeros((joints, 3)),
        channels=tuple(("Xrotation", "Yrotation", "Zrotation") for _ in range(joints)),
        kinds=("ROOT",) + ("JOINT",) * (joints - 1),
    )
    return Clip(skeleton=skeleton, rotations=rotations, translations=translations, fps=fps)


def _spin(times: np.ndarray, rate_rad_s: float) -> np.ndarray:
    """``[F, 2, 4]``: two joints turning at a constant rate about two fixed axes."""
    axes = np.array([[0.0, 1.0, 0.0], [1.0, 2.0, -0.5]]) / np.array([[1.0], [np.sqrt(5.25)]])
    return quat.from_axis_angle(axes[None], rate_rad_s * times[:, None] * np.array([1.0, -0.7]))


@pytest.mark.parametrize(
    ("frames", "fps_in", "fps_out", "expected"),
    [
        (994, 120.0, 30.0, 249),
        (121, 120.0, 30.0, 31),
        (10, 30.0, 30.0, 10),
        (995, 120.005, 30.0, 249),
    ],
)
def test_frame_count_is_floor_of_duration_times_fps_plus_one(
    frames: int, fps_in: float, fps_out: float, expected: int
) -> None:
    assert resample.frame_count(frames, fps_in, fps_out) == expected


def test_constant_speed_rotation_stays_on_the_arc() -> None:
    # 9 rad/s at 120 Hz: several full turns, so the raw quaternions flip sign on the way.
    t_in = np.arange(240) / 120.0
    q_in = _spin(t_in, 9.0)
    q_in[::7] *= -1.0  # sign noise the resampler must not be fooled by
    for fps_out in (30.0, 47.0, 200.0):
        out = resample.rotations(q_in, 120.0, fps_out)
        t_out = np.arange(resample.frame_count(240, 120.0, fps_out)) / fps_out
        expected = _spin(t_out, 9.0)
        np.testing.assert_allclose(quat.angle_between(out, expected), 0.0, atol=1e-6)
        np.testing.assert_allclose(np.linalg.norm(out, axis=-1), 1.0, atol=1e-12)
        assert np.all(np.sum(out[1:] * out[:-1], axis=-1) > 0.0)  # unrolled


def test_cubic_translation_is_reproduced_exactly() -> None:
    t_in = np.arange(50) / 60.0
    path = np.stack([t_in**3 - t_in, 0.5 * t_in**2, np.full_like(t_in, 0.9)], axis=-1)
    out = resample.translations(path[:, None, :], 60.0, 25.0)
    t_out = np.arange(out.shape[0]) / 25.0
    expected = np.stack([t_out**3 - t_out, 0.5 * t_out**2, np.full_like(t_out, 0.9)], axis=-1)
    np.testing.assert_allclose(out[:, 0], expected, atol=1e-12)


def test_clip_resample_keeps_inputs_and_sets_fps() -> None:
    t_in = np.arange(121) / 120.0
    rotations = _spin(t_in, 2.0)
    translations = np.repeat(np.array([[[0.0, 1.0, 0.0], [0.0, 0.4, 0.0]]]), 121, axis=0)
    translations[:, 0, 0] = np.sin(t_in)
    clip = _clip(rotations, translations, 120.0)
    before = (rotations.copy(), translations.copy())
    out = resample.resample(clip, 30.0)
    assert out.fps == 30.0
    assert out.rotations.shape == (31, 2, 4)
    assert out.translations.shape == (31, 2, 3)
    np.testing.assert_allclose(out.translations[:, 0, 0], np.sin(np.arange(31) / 30.0), atol=1e-7)
    np.testing.assert_array_equal(clip.rotations, before[0])
    np.testing.assert_array_equal(clip.translations, before[1])


def test_same_rate_is_identity_and_short_clips_survive() -> None:
    t_in = np.arange(5) / 30.0
    clip = _clip(_spin(t_in, 1.0), np.zeros((5, 2, 3)), 30.0)
    same = resample.resample(clip, 30.0)
    np.testing.assert_allclose(quat.angle_between(same.rotations, clip.rotations), 0.0, atol=1e-7)
    one = _clip(clip.rotations[:1], clip.translations[:1], 30.0)
    assert resample.resample(one, 60.0).num_frames == 1
    two = resample.resample(_clip(clip.rotations[:2], clip.translations[:2], 30.0), 120.0)
    assert two.num_frames == 5


def test_rejects_a_non_positive_rate() -> None:
    clip = _clip(_spin(np.arange(3) / 30.0, 1.0), np.zeros((3, 2, 3)), 30.0)
    with pytest.raises(MotionCoreError):
        resample.resample(clip, 0.0)
