"""Resampling a clip to another frame rate.

Rotations ``[F, J, 4]`` (local unit quaternions ``w, x, y, z``) are unrolled
along time and slerped between the two neighbouring source frames; local
translations ``[F, J, 3]`` (metres) go through a cubic spline per component.
Splines rather than dropping frames, so that velocities stay continuous (seed
002 §3.2: 重采样 "用样条插值而不是逐帧抽稀"; seed 000 §5.3 suggests 120 Hz → 30 Hz
for CMU captures).

Time runs from 0 at the first frame; the output has
``floor(duration_s * fps_out) + 1`` frames at ``t = k / fps_out``, so it never
reaches past the last source frame.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.interpolate import CubicSpline

from motioncore import quat
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError

FloatArray = NDArray[np.float64]

_ROUNDING_FRAMES = 1e-6
"""Slack on ``duration * fps`` so that 120.005 fps files do not lose their last frame."""


def frame_count(num_frames: int, fps_in: float, fps_out: float) -> int:
    """Output frame count ``floor(duration_s * fps_out) + 1`` (at least 1)."""
    if num_frames <= 1:
        return max(num_frames, 0)
    duration_s = (num_frames - 1) / fps_in
    return int(np.floor(duration_s * fps_out + _ROUNDING_FRAMES)) + 1


def source_positions(num_frames: int, fps_in: float, fps_out: float) -> FloatArray:
    """Fractional source-frame index ``[F_out]`` of every output frame."""
    count = frame_count(num_frames, fps_in, fps_out)
    index = np.arange(count, dtype=np.float64) * (fps_in / fps_out)
    return np.clip(index, 0.0, max(num_frames - 1, 0))


def rotations(rotations: FloatArray, fps_in: float, fps_out: float) -> FloatArray:
    """Slerp-resampled local rotations.

    Args:
        rotations: ``[F, J, 4]`` unit quaternions (any leading joint axes after ``F``).
        fps_in: source frame rate, Hz.
        fps_out: target frame rate, Hz.

    Returns:
        ``[F_out, J, 4]`` unit quaternions, continuous along time (unrolled).
    """
    q = quat.unroll(np.asarray(rotations, dtype=np.float64), axis=0)
    if q.shape[0] <= 1:
        return q.copy()
    pos = source_positions(q.shape[0], fps_in, fps_out)
    lo = np.minimum(np.floor(pos).astype(np.int64), q.shape[0] - 2)
    frac = (pos - lo).reshape((-1,) + (1,) * (q.ndim - 2))
    frac = np.broadcast_to(frac, q[lo].shape[:-1])
    return quat.unroll(quat.slerp(q[lo], q[lo + 1], frac), axis=0)


def translations(translations: FloatArray, fps_in: float, fps_out: float) -> FloatArray:
    """Cubic-spline-resampled translations (or any ``[F, ...]`` signal).

    Args:
        translations: ``[F, J, 3]`` local translations, metres.
        fps_in: source frame rate, Hz.
        fps_out: target frame rate, Hz.

    Returns:
        ``[F_out, J, 3]``; two source frames give a straight line, one is copied.
    """
    x = np.asarray(translations, dtype=np.float64)
    if x.shape[0] <= 1:
        return x.copy()
    times = np.arange(x.shape[0], dtype=np.float64)
    spline = CubicSpline(times, x, axis=0, bc_type="not-a-knot" if x.shape[0] > 3 else "natural")
    return np.asarray(spline(source_positions(x.shape[0], fps_in, fps_out)), dtype=np.float64)


def resample(clip: Clip, fps: float) -> Clip:
    """``clip`` resampled to ``fps`` Hz (a new clip; the input is untouched).

    Rotations are slerped, translations cubic-spline interpolated; see the module
    docstring for the time grid. Resampling to the clip's own rate returns a copy.
    """
    if fps <= 0.0 or not np.isfinite(fps):
        raise MotionCoreError(f"fps must be a positive number, got {fps!r}")
    return clip.with_arrays(
        rotations=rotations(clip.rotations, clip.fps, fps),
        translations=translations(clip.translations, clip.fps, fps),
        fps=float(fps),
    )
