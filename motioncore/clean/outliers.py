"""3-sigma outlier repair of whole-clip signals.

Seed 000 §5.3, step 4: drop outliers by the 3-sigma rule and fill them by
linear interpolation. Applied to mocap, a running-median or
curvature residual flags the genuine extremes of fast motion at 30 fps, so the
3-sigma rule is applied to the frame-to-frame *steps* (velocities), whose
distribution is bounded for smooth motion (a sine never steps beyond sqrt(2) sigma):

* a step is a *jump* when one of its components is more than ``n_sigma``
  standard deviations (of that channel's steps) from the channel's mean step,
  and it differs from the running median of the steps (5 frames) by more than
  an absolute floor;
* a *glitch* is a jump followed within ``max_frames`` frames by a jump of
  similar size (within a factor of two) in the opposite direction (out and
  back); the frames in between are outliers.
  A lone jump (a cut, or a T-pose frame glued to the start) is left alone;
* outliers are replaced by linear interpolation between the nearest good
  frames of the same channel (held at the nearest good value at the ends).

Signals are ``[F, ..., D]``: time first, a vector of ``D`` components last
(``D = 1`` for a scalar). For clips, rotation steps are rotation vectors of
``q[f]^-1 q[f+1]`` (radians per frame, joint frame) and translation steps are
differences (metres per frame); repaired quaternions are renormalised.
Everything is vectorised over frames, joints and components.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import median_filter

from motioncore import quat
from motioncore.clip import Clip

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

_MEDIAN_FRAMES = 5
_RETURN_RATIO = 2.0
"""A glitch's jump back is at most this many times larger or smaller than its jump out."""


def jumps(
    steps: FloatArray, *, n_sigma: float = 3.0, min_step: float = 0.0
) -> tuple[BoolArray, FloatArray]:
    """Which steps ``[S, ..., D]`` are 3-sigma jumps, and their deviation from the running median.

    Returns:
        ``(jump [S, ...], deviation [S, ..., D])``: a step is a jump when a
        component lies beyond ``n_sigma`` standard deviations of its channel's
        steps and its deviation from the running median step (vector norm)
        exceeds ``min_step``.
    """
    steps = np.asarray(steps, dtype=np.float64)
    size = (_MEDIAN_FRAMES,) + (1,) * (steps.ndim - 1)
    deviation = steps - median_filter(steps, size=size, mode="nearest")
    spread = np.abs(steps - steps.mean(axis=0)) > n_sigma * steps.std(axis=0)
    far = np.linalg.norm(deviation, axis=-1) > min_step
    return np.any(spread, axis=-1) & far, deviation


def glitches(
    steps: FloatArray, *, n_sigma: float = 3.0, min_step: float = 0.0, max_frames: int = 4
) -> BoolArray:
    """Outlier frames ``[S + 1, ...]`` from steps ``[S, ..., D]`` (``steps[k]``: frame k to k+1).

    A jump at step ``k`` whose next jump (same channel) at step ``m <= k +
    max_frames`` comes back (its deviation points the other way, and the two
    are within a factor of two of each other) marks frames ``k+1 .. m``.
    """
    jump, deviation = jumps(steps, n_sigma=n_sigma, min_step=min_step)
    count = jump.shape[0]
    index = np.arange(count).reshape((-1,) + (1,) * (jump.ndim - 1))
    following = np.flip(np.minimum.accumulate(np.flip(np.where(jump, index, count), 0), 0), 0)
    partner = np.concatenate([following[1:], np.full_like(following[:1], count)], axis=0)
    paired = jump & (partner < count) & (partner - index <= max_frames)
    partner = np.minimum(partner, count - 1)
    back = np.take_along_axis(deviation, partner[..., None], axis=0)
    paired &= _returns(deviation, back)
    marks = np.zeros((count + 2, *jump.shape[1:]), dtype=np.int64)
    where = np.nonzero(paired)
    np.add.at(marks, (where[0] + 1, *where[1:]), 1)
    np.add.at(marks, (partner[where] + 1, *where[1:]), -1)
    return np.asarray(np.cumsum(marks, axis=0)[: count + 1] > 0, dtype=bool)


def detect(
    x: FloatArray,
    *,
    n_sigma: float = 3.0,
    min_step: float = 0.0,
    max_frames: int = 4,
) -> BoolArray:
    """Outlier frames ``[F, ...]`` of a signal ``x [F, ..., D]`` (see the module docstring).

    Args:
        x: signal, time first, vector components last (``D = 1`` for a scalar).
        n_sigma: the sigma multiple (seed 000 §5.3: 3).
        min_step: floor on a jump's deviation from the running median step
            (vector norm), in units of ``x`` per frame.
        max_frames: longest glitch, frames.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] < 3:
        return np.zeros(x.shape[:-1], dtype=bool)
    return glitches(np.diff(x, axis=0), n_sigma=n_sigma, min_step=min_step, max_frames=max_frames)


def _returns(out: FloatArray, back: FloatArray) -> BoolArray:
    """Whether step deviations ``back [..., D]`` undo ``out [..., D]`` (opposite, similar size)."""
    n_out = np.linalg.norm(out, axis=-1)
    n_back = np.linalg.norm(back, axis=-1)
    opposite = np.sum(out * back, axis=-1) < -0.5 * n_out * n_back
    similar = (n_back <= _RETURN_RATIO * n_out) & (n_out <= _RETURN_RATIO * n_back)
    return np.asarray(opposite & similar, dtype=bool)


def repair(x: FloatArray, mask: BoolArray) -> FloatArray:
    """Replace the masked samples of ``x [F, ...]`` by linear interpolation in time.

    ``mask`` broadcasts against ``x``. Each masked sample is interpolated
    between the nearest unmasked frames before and after it in its own channel;
    at the clip's ends it takes the nearest unmasked value. A channel masked at
    every frame is left unchanged.
    """
    x = np.asarray(x, dtype=np.float64)
    mask = np.broadcast_to(np.asarray(mask, dtype=bool), x.shape)
    frames = x.shape[0]
    index = np.broadcast_to(np.arange(frames).reshape((-1,) + (1,) * (x.ndim - 1)), x.shape)
    good = ~mask
    prev = np.maximum.accumulate(np.where(good, index, -1), axis=0)
    nxt = np.flip(np.minimum.accumulate(np.flip(np.where(good, index, frames), 0), axis=0), 0)
    prev_c = np.where(prev >= 0, prev, np.where(nxt < frames, nxt, index))
    next_c = np.where(nxt < frames, nxt, prev_c)
    weight = np.where(next_c > prev_c, (index - prev_c) / np.maximum(next_c - prev_c, 1), 0.0)
    x_prev = np.take_along_axis(x, prev_c, axis=0)
    x_next = np.take_along_axis(x, next_c, axis=0)
    return np.where(mask, (1.0 - weight) * x_prev + weight * x_next, x)


def rotation_steps(rotations: FloatArray) -> FloatArray:
    """Rotation vectors ``[F-1, ..., 3]`` of ``q[f]^-1 q[f+1]`` (radians per frame, joint frame)."""
    q = np.asarray(rotations, dtype=np.float64)
    return quat.to_rotvec(quat.mul(quat.conjugate(q[:-1]), q[1:]))


def motion(
    clip: Clip,
    *,
    n_sigma: float = 3.0,
    max_frames: int = 4,
    min_rotation_rad: float = 0.1,
    min_translation_m: float = 0.02,
) -> tuple[Clip, BoolArray]:
    """Repair 3-sigma glitches in every joint's local rotation and translation.

    Args:
        clip: the clip (not modified).
        n_sigma: the sigma multiple (seed 000 §5.3: 3).
        max_frames: longest glitch, frames.
        min_rotation_rad: a rotation jump must depart from the running median
            step by more than this angle, radians per frame.
        min_translation_m: likewise for translation jumps, metres per frame.

    Returns:
        The repaired clip and the mask ``[F, J]`` of (frame, joint) samples whose
        rotation or translation was replaced.
    """
    q = quat.unroll(clip.rotations, axis=0)
    t = np.asarray(clip.translations, dtype=np.float64)
    if q.shape[0] < 3:
        return clip.with_arrays(), np.zeros(q.shape[:2], dtype=bool)
    q_mask = glitches(
        rotation_steps(q), n_sigma=n_sigma, min_step=min_rotation_rad, max_frames=max_frames
    )
    t_mask = glitches(
        np.diff(t, axis=0), n_sigma=n_sigma, min_step=min_translation_m, max_frames=max_frames
    )
    repaired = clip.with_arrays(
        rotations=quat.normalize(repair(q, q_mask[..., None])),
        translations=repair(t, t_mask[..., None]),
    )
    return repaired, q_mask | t_mask


def leading_teleport(
    clip: Clip, *, max_speed_m_per_s: float = 10.0, max_frames: int = 2
) -> tuple[int, float]:
    """Leading frames to drop because the root jumps out of them, and the jump (metres).

    Many exports (the iClone CMU retargets) open with the bind pose at the origin,
    then the take starts metres away on the next frame: a root speed no body
    reaches. Among the first ``max_frames`` frame steps, the last one whose root
    speed exceeds ``max_speed_m_per_s`` (m/s; 10 is ours, a sprinter's top speed)
    ends the bind pose: the frames before it are dropped. ``(0, 0.0)`` when none.
    """
    if clip.num_frames < 3:
        return 0, 0.0
    root = int(clip.skeleton.roots[0])
    head = clip.translations[: max_frames + 1, root]
    steps = np.linalg.norm(np.diff(head, axis=0), axis=-1)
    fast = np.flatnonzero(steps * clip.fps > max_speed_m_per_s)
    if fast.size == 0:
        return 0, 0.0
    last = int(fast[-1])
    return last + 1, float(steps[last])
