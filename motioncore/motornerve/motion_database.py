"""The motion-matching baseline's database (:mod:`motioncore.motornerve.matching`).

**Database** (:meth:`Database.build`): canonical 60 Hz clips with their per-frame intents
(:func:`motioncore.motornerve.dataset.sequence`). Each frame has features in its heading
frame (:func:`motioncore.motornerve.state.facing`; +Z ahead, +X the character's left):
the root's ground position (x, z) and facing direction (x, z) :data:`FUTURE_FRAMES` on
(0-5, 6-11); ``LeftFoot`` and ``RightFoot`` relative to the hips (12-17, metres) and
their velocities (18-23, m/s); the hips' velocity (24-26); the intent's action one-hot
and strength (27-31). Each group is centred, divided by its mean standard deviation over
the candidate frames and multiplied by its weight (``*_WEIGHT``). Frames with fewer than
``max(FUTURE_FRAMES)`` frames after them in their clip are not candidates; the rest go
in a ``cKDTree``.

Shapes: ``F`` frames, ``N`` database frames; metres, seconds, radians, Y up, facing 0
along +Z, quaternions (w, x, y, z).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree

from motioncore import fk, quat
from motioncore.clip import Clip
from motioncore.motornerve import inertialize, intent, state
from motioncore.skeleton import canonical
from motioncore.skeleton.facing import yaw

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

FUTURE_FRAMES = (20, 40, 60)
"""How far ahead the trajectory features look, frames at 60 Hz (1/3, 2/3, 1 s)."""
TRAJECTORY_POSITIONS = slice(0, 6)
TRAJECTORY_DIRECTIONS = slice(6, 12)
FOOT_POSITIONS = slice(12, 18)
FOOT_VELOCITIES = slice(18, 24)
HIPS_VELOCITY = slice(24, 27)
ACTION = slice(27, 32)
FEATURES = 32

# The reference design's weights (orangeduck/Motion-Matching ``controller.cpp``).
TRAJECTORY_POSITION_WEIGHT = 1.0
TRAJECTORY_DIRECTION_WEIGHT = 1.5
FOOT_POSITION_WEIGHT = 0.75
FOOT_VELOCITY_WEIGHT = 1.0
HIPS_VELOCITY_WEIGHT = 1.0
ACTION_WEIGHT = 2.0
"""Large enough that a mismatched action costs more than any trajectory mismatch."""

_WEIGHTS = (
    (TRAJECTORY_POSITIONS, TRAJECTORY_POSITION_WEIGHT),
    (TRAJECTORY_DIRECTIONS, TRAJECTORY_DIRECTION_WEIGHT),
    (FOOT_POSITIONS, FOOT_POSITION_WEIGHT),
    (FOOT_VELOCITIES, FOOT_VELOCITY_WEIGHT),
    (HIPS_VELOCITY, HIPS_VELOCITY_WEIGHT),
    (ACTION, ACTION_WEIGHT),
)
_FEET = (canonical.NAMES.index("LeftFoot"), canonical.NAMES.index("RightFoot"))


def _local(vectors: FloatArray, facing_rad: FloatArray) -> FloatArray:
    """World vectors ``[F, ..., 3]`` in the heading frame of ``facing_rad [F]``."""
    face = np.reshape(facing_rad, (-1,) + (1,) * (vectors.ndim - 2))
    ground = intent.in_heading_frame(vectors[..., [0, 2]], face)
    return np.stack([ground[..., 0], vectors[..., 1], ground[..., 1]], axis=-1)


def features(clip: Clip, intents: FloatArray) -> FloatArray:
    """Raw (not normalised) features ``[F, FEATURES]`` of a canonical clip and its
    intents ``[F, intent.SIZE]`` (module docstring); near the clip's end the trajectory
    stops at its last frame."""
    positions = fk.positions(clip)
    face = state.facing(clip)
    frames = clip.num_frames
    ground = positions[:, 0][:, [0, 2]]
    ahead = np.minimum(np.arange(frames)[:, None] + np.array(FUTURE_FRAMES), frames - 1)
    turn = face[ahead] - face[:, None]
    velocity = np.gradient(positions, axis=0) * clip.fps
    out = np.zeros((frames, FEATURES))
    moved = intent.in_heading_frame(ground[ahead] - ground[:, None], face[:, None])
    out[:, TRAJECTORY_POSITIONS] = moved.reshape(frames, -1)
    out[:, TRAJECTORY_DIRECTIONS] = np.stack([np.sin(turn), np.cos(turn)], -1).reshape(frames, -1)
    feet = positions[:, list(_FEET)] - positions[:, :1]
    out[:, FOOT_POSITIONS] = _local(feet, face).reshape(frames, -1)
    out[:, FOOT_VELOCITIES] = _local(velocity[:, list(_FEET)], face).reshape(frames, -1)
    out[:, HIPS_VELOCITY] = _local(velocity[:, 0], face)
    out[:, ACTION] = intents[:, [*range(intent.ACTION.start, intent.ACTION.stop), intent.STRENGTH]]
    return out


def _scales(raw: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Per-feature mean and scale ``[FEATURES]``: each group's mean deviation over its
    weight (a constant group gets a deviation of 1)."""
    std = raw.std(axis=0)
    scale = np.ones(FEATURES)
    for group, weight in _WEIGHTS:
        spread = float(std[group].mean())
        scale[group] = (spread if spread > 1e-9 else 1.0) / weight
    return raw.mean(axis=0), scale


def _playback(clip: Clip) -> tuple[inertialize.Pose, FloatArray]:
    """What playing a clip's frames needs: their poses (the hips' rotation relative to the
    heading frame, the hips' height the one channel, metres) and the root's own motion
    ``[F, 3]`` over the step to the next frame (ground velocity x, z in the heading
    frame, m/s, and turn rate, rad/s; the last step repeated)."""
    positions = fk.positions(clip)
    face = state.facing(clip)
    rotations = clip.rotations.copy()
    rotations[:, 0] = quat.mul(quat.conjugate(yaw(face)), rotations[:, 0])
    poses = inertialize.Pose.of_motion(rotations, positions[:, 0, 1:2], clip.fps)
    steps = np.diff(np.column_stack([positions[:, 0, 0], positions[:, 0, 2], face]), axis=0)
    steps = np.concatenate([steps, steps[-1:]]) * clip.fps
    ground = intent.in_heading_frame(steps[:, :2], face)
    return poses, np.column_stack([ground, steps[:, 2]])


@dataclass(frozen=True, eq=False)
class Database:
    """Canonical 60 Hz clips end to end (clip ``c``, ``names[c]``, is frames
    ``starts[c]:starts[c + 1]``): ``poses`` and ``own_motion [N, 3]`` (:func:`_playback`),
    intents ``[N, intent.SIZE]``, normalised features ``[N, FEATURES]`` (``(raw -
    feature_mean) / feature_scale``), candidate frames ``[M]`` and a KD-tree over them."""

    names: tuple[str, ...]
    starts: IntArray
    poses: inertialize.Pose
    own_motion: FloatArray
    intents: FloatArray
    features: FloatArray
    feature_mean: FloatArray
    feature_scale: FloatArray
    candidates: IntArray
    is_candidate: NDArray[np.bool_]
    tree: cKDTree

    @property
    def num_frames(self) -> int:
        return int(self.starts[-1])

    def normalise(self, raw: FloatArray, group: slice = slice(None)) -> FloatArray:
        """Raw feature values ``[..., k]`` of ``group`` in the database's units."""
        out: FloatArray = (raw - self.feature_mean[group]) / self.feature_scale[group]
        return out

    @classmethod
    def build(cls, clips: Sequence[tuple[str, Clip, FloatArray]]) -> Database:
        """The database of ``(name, canonical 60 Hz clip, intents [F, intent.SIZE])``."""
        for name, clip, wants in clips:
            _check_clip(name, clip, wants)
        raw = np.concatenate([features(clip, wants) for _, clip, wants in clips])
        poses, own_motion = zip(*(_playback(clip) for _, clip, _ in clips), strict=True)
        lengths = [clip.num_frames for _, clip, _ in clips]
        starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        last = max(FUTURE_FRAMES)
        is_candidate = np.concatenate([np.arange(n) < n - last for n in lengths])
        if not is_candidate.any():
            raise ValueError(f"no clip is longer than {last} frames: nothing to match")
        mean, scale = _scales(raw[is_candidate])
        normalised = (raw - mean) / scale
        candidates = np.flatnonzero(is_candidate).astype(np.int64)
        return cls(
            tuple(name for name, _, _ in clips),
            starts,
            inertialize.Pose.concatenate(list(poses)),
            np.concatenate(own_motion),
            np.concatenate([wants for _, _, wants in clips]),
            normalised,
            mean,
            scale,
            candidates,
            is_candidate,
            cKDTree(normalised[candidates]),
        )


def _check_clip(name: str, clip: Clip, wants: FloatArray) -> None:
    """Raise ``ValueError`` unless ``clip`` is canonical, 60 Hz, with an intent a frame."""
    if clip.skeleton.names != canonical.NAMES:
        raise ValueError(f"{name}: not on the canonical skeleton")
    if not np.isclose(clip.fps, state.FPS):
        raise ValueError(f"{name}: {clip.fps:g} fps, the database plays {state.FPS:g}")
    if wants.shape != (clip.num_frames, intent.SIZE):
        raise ValueError(f"{name}: intents {wants.shape}, want ({clip.num_frames}, {intent.SIZE})")
    if clip.num_frames < 2:
        raise ValueError(f"{name}: a clip needs two frames at least")
