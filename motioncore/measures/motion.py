"""Controller measures: joint speed, rotation distribution, reaction and pose drift
(definitions in :mod:`motioncore.measures`). They use forward kinematics, quaternions
and joint roles only: nothing of the controllers they grade."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore import fk, quat
from motioncore.clip import Clip
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

ROTATION_BINS = 36
ROTATION_RANGE_DEG = 180.0
KL_SMOOTHING = 1e-4
REACTION_SPEED_MPS = 0.05
REACTION_POSE_M = 0.01
DRIFT_WINDOW_S = 10.0


def max_joint_speed_degps(clip: Clip) -> float:
    """The fastest local rotation speed of any joint that is not an end site, degrees/second.

    Per joint and pair of successive frames: the angle between its local rotations
    (:func:`motioncore.quat.angle_between`) times ``clip.fps``. End sites carry no
    rotation of their own and are left out.

    Args:
        clip: the clip; ``rotations [F, J, 4]`` local unit quaternions.

    Returns:
        The largest joint speed over the clip, degrees/second; ``0.0`` for a clip of
        fewer than 2 frames.
    """
    rotations = clip.rotations[:, ~clip.skeleton.end_site]
    if rotations.shape[0] < 2 or rotations.shape[1] == 0:
        return 0.0
    step = quat.angle_between(rotations[1:], rotations[:-1])
    return float(np.degrees(step.max()) * clip.fps)


def rotation_angles_deg(rotations: FloatArray, joints: Sequence[int]) -> FloatArray:
    """``[F, len(joints)]`` angle of each local rotation from identity, ``2 arccos |w|``, degrees.

    Args:
        rotations: ``[F, J, 4]`` local unit quaternions ``(w, x, y, z)``.
        joints: the joint indices to measure.
    """
    w = np.abs(np.asarray(rotations, dtype=np.float64)[:, list(joints), 0])
    return np.asarray(np.degrees(2.0 * np.arccos(np.clip(w, 0.0, 1.0))))


def rotation_histograms(
    rotations: FloatArray, joints: Sequence[int], bins: int = ROTATION_BINS
) -> FloatArray:
    """Per joint, the distribution of its rotation angle: ``[len(joints), bins]``, rows sum 1.

    The angle of the local rotation from identity (:func:`rotation_angles_deg`) falls
    into ``bins`` equal bins on [0°, :data:`ROTATION_RANGE_DEG`]; each bin is closed
    on the left, the last also on the right (180° lands in it).

    Args:
        rotations: ``[F, J, 4]`` local unit quaternions; ``F >= 1``.
        joints: the joint indices, one row each.
        bins: the number of bins (:data:`ROTATION_BINS`, 5° each).

    Raises:
        ValueError: for no frames.
    """
    angles = rotation_angles_deg(rotations, joints)
    frames, count = angles.shape
    if frames == 0:
        raise ValueError("rotation histograms need at least one frame")
    index = np.minimum((angles * (bins / ROTATION_RANGE_DEG)).astype(np.int64), bins - 1)
    flat = (index + bins * np.arange(count)).ravel()
    counts = np.bincount(flat, minlength=count * bins).reshape(count, bins)
    return np.asarray(counts / frames, dtype=np.float64)


def rotation_kl_per_joint(
    reference: Sequence[FloatArray], generated: Sequence[FloatArray], joints: Sequence[int]
) -> FloatArray:
    """``[len(joints)]`` KL(P_reference ‖ Q_generated) of each joint's rotation angle, nats.

    The frames of every reference array are pooled into P, those of every generated
    array into Q; both are :func:`rotation_histograms` (:data:`ROTATION_BINS` equal
    bins of the angle from identity on [0°, 180°]) smoothed by adding
    :data:`KL_SMOOTHING` to every bin and renormalising, so a bin that one set never
    visits costs a finite amount.

    Args:
        reference: arrays ``[F, J, 4]`` of local rotations of the reference motion.
        generated: arrays ``[F, J, 4]`` of the motion graded (same ``J``).
        joints: the joint indices compared.
    """
    p = _smoothed(rotation_histograms(_pooled(reference), joints))
    q = _smoothed(rotation_histograms(_pooled(generated), joints))
    return np.asarray(np.sum(p * np.log(p / q), axis=1))


def rotation_kl(
    reference: Sequence[FloatArray], generated: Sequence[FloatArray], joints: Sequence[int]
) -> float:
    """The mean over ``joints`` of :func:`rotation_kl_per_joint`, nats.

    Per joint KL(P_reference ‖ Q_generated) of the pooled, smoothed histograms of the
    angle of the local rotation from identity (:data:`ROTATION_BINS` bins on
    [0°, 180°], :data:`KL_SMOOTHING` added to every bin, renormalised). Reference
    first: generated motion that misses poses the reference holds (mode collapse)
    reads high; 0 for identical distributions.

    Raises:
        ValueError: for no joints, or no frames on either side.
    """
    if len(joints) == 0:
        raise ValueError("rotation KL needs at least one joint")
    return float(np.mean(rotation_kl_per_joint(reference, generated, joints)))


def reaction_frames(
    changed: Clip,
    unchanged: Clip,
    at_frame: int,
    roles: JointRoles,
    direction: ArrayLike | None = None,
    *,
    speed_threshold_mps: float = REACTION_SPEED_MPS,
    pose_threshold_m: float = REACTION_POSE_M,
) -> int | None:
    """Frames from ``at_frame`` until the motion answers a command (see the module docstring).

    ``changed`` and ``unchanged`` are two plays from the same start, identical up to
    ``at_frame``, where ``changed`` got the new command and ``unchanged`` kept the old
    one. They are compared frame by frame up to the shorter one's length.

    With ``direction``: the first frame ``t >= at_frame`` where the hips' horizontal
    velocity (central differences of their world positions, one-sided at the ends,
    m/s) of ``changed`` less that of ``unchanged``, projected on the unit
    ``direction``, exceeds ``speed_threshold_mps``; moving away from ``direction`` is
    no reaction. Without: the first frame where any joint's position relative to the
    hips' ground point (their x and z subtracted) differs between the clips by more
    than ``pose_threshold_m``.

    Args:
        changed: the play that got the new command.
        unchanged: the play that kept the old one (same rate).
        at_frame: the frame the command changed.
        roles: joint roles of the (shared) skeleton; ``hips`` is used.
        direction: ``(x, z)`` world ground vector, the commanded root velocity's change
            (new minus old); ``None`` for a pose command.
        speed_threshold_mps: velocity difference that counts, m/s.
        pose_threshold_m: position difference that counts, metres.

    Returns:
        ``t - at_frame``, or ``None`` when the clips never part within their frames.

    Raises:
        ValueError: for a negative ``at_frame``, a zero ``direction`` or clips at
            different rates.
    """
    if at_frame < 0:
        raise ValueError(f"at_frame must be >= 0, got {at_frame}")
    if not math.isclose(changed.fps, unchanged.fps):
        raise ValueError(f"clips at different rates: {changed.fps} and {unchanged.fps} Hz")
    frames = min(changed.num_frames, unchanged.num_frames)
    a, b = fk.positions(changed)[:frames], fk.positions(unchanged)[:frames]
    hips = roles.require("hips")[0]
    if direction is None:
        parted = _pose_difference_m(a, b, hips) > pose_threshold_m
    else:
        gain = _ground_velocity_mps(a[:, hips], changed.fps) - _ground_velocity_mps(
            b[:, hips], changed.fps
        )
        parted = gain @ _unit_ground(direction) > speed_threshold_mps
    late = np.flatnonzero(parted[at_frame:])
    return int(late[0]) if late.size else None


def heading_pose(clip: Clip, roles: JointRoles) -> tuple[FloatArray, FloatArray]:
    """Joints relative to the hips in the heading frame ``[F, J, 3]``; the hips' height ``[F]``.

    The heading is the hips' yaw alone: their left-right line (left upper leg less
    right upper leg) on the ground, forward = left × up; positions relative to the
    hips are turned by minus that yaw about Y, so forward is +Z and left +X.

    Args:
        clip: the clip (metres, Y up).
        roles: joint roles; ``hips``, ``left_upper_leg`` and ``right_upper_leg`` are used.
    """
    hips, left, right = roles.require("hips", "left_upper_leg", "right_upper_leg")
    world = fk.positions(clip)
    lateral = world[:, left] - world[:, right]
    yaw = np.arctan2(-lateral[:, 2], lateral[:, 0])  # forward (-lz, 0, lx) from +Z
    cos, sin = np.cos(yaw)[:, None], np.sin(yaw)[:, None]
    rel = world - world[:, hips : hips + 1]
    pose = np.stack(
        [cos * rel[..., 0] - sin * rel[..., 2], rel[..., 1], sin * rel[..., 0] + cos * rel[..., 2]],
        axis=-1,
    )
    return pose, world[:, hips, 1]


def pose_drift_m(clip: Clip, roles: JointRoles, window_s: float = DRIFT_WINDOW_S) -> float:
    """How far the pose drifts over a long play under a steady command, metres.

    :func:`heading_pose` averaged over the first ``window_s`` and over the last
    ``window_s``: the largest distance between the two averages of any joint, or the
    difference of the two averages of the hips' height if that is larger.

    Args:
        clip: the play (metres, Y up).
        roles: joint roles; ``hips``, ``left_upper_leg`` and ``right_upper_leg`` are used.
        window_s: the length of each window, seconds (:data:`DRIFT_WINDOW_S`).

    Raises:
        ValueError: for a clip of fewer frames than two windows.
    """
    window = max(round(window_s * clip.fps), 1)
    if clip.num_frames < 2 * window:
        raise ValueError(
            f"pose drift needs two {window_s:g} s windows ({2 * window} frames),"
            f" the clip has {clip.num_frames}"
        )
    pose, height = heading_pose(clip, roles)
    first, last = slice(None, window), slice(-window, None)
    joints = np.linalg.norm(pose[first].mean(axis=0) - pose[last].mean(axis=0), axis=-1)
    hips = abs(height[first].mean() - height[last].mean())
    return float(max(joints.max(), hips))


def _pooled(arrays: Sequence[FloatArray]) -> FloatArray:
    if len(arrays) == 0:
        raise ValueError("no rotation arrays to pool")
    return np.concatenate([np.asarray(a, dtype=np.float64) for a in arrays], axis=0)


def _smoothed(histograms: FloatArray) -> FloatArray:
    padded = histograms + KL_SMOOTHING
    return np.asarray(padded / padded.sum(axis=1, keepdims=True))


def _ground_velocity_mps(points: FloatArray, fps: float) -> FloatArray:
    """``[F, 2]`` horizontal (x, z) velocity of ``points [F, 3]``, central differences, m/s."""
    if points.shape[0] < 2:
        return np.zeros((points.shape[0], 2))
    return np.asarray(np.gradient(points[:, [0, 2]], axis=0) * fps)


def _unit_ground(direction: ArrayLike) -> FloatArray:
    vector = np.asarray(direction, dtype=np.float64).reshape(2)
    length = float(np.linalg.norm(vector))
    if not length > 0.0 or not math.isfinite(length):
        raise ValueError(f"direction must be a non-zero (x, z) vector, got {vector}")
    return vector / length


def _pose_difference_m(a: FloatArray, b: FloatArray, hips: int) -> FloatArray:
    """``[F]`` the largest distance between the joints of ``a`` and ``b`` ``[F, J, 3]``,
    each taken relative to its hips' ground point."""
    ground = np.array([1.0, 0.0, 1.0])
    rel_a = a - a[:, hips : hips + 1] * ground
    rel_b = b - b[:, hips : hips + 1] * ground
    return np.asarray(np.linalg.norm(rel_a - rel_b, axis=-1).max(axis=1))
