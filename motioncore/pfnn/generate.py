"""Path-driven locomotion with the numpy runtime (seed 002 §4.2's loop plus the original
PFNN's trajectory input).

Each frame, in this order:

1. **terrain**: 16 heights around the root (:data:`motioncore.pfnn.dataset.TERRAIN_RING`)
   from ``terrain(x, z)`` (flat ground by default);
2. **features**: the current pose, the root velocity, the trajectory (the past 1 s
   from the frames generated so far; the future 0.5 s from the path: the points the
   character should reach at the requested speed, measured from where it is now, so a
   drift is steered back), sin/cos φ, the hips height;
3. **predict** (:class:`motioncore.pfnn.network.Runtime`);
4. **integrate the root**: its step and turn, in the current heading frame;
5. **advance the phase** by the predicted phase step (never backwards).

The control direction (where the path says to face) is low-passed and its change per
frame limited to :data:`MAX_TURN_DEG` (seed 002 §5.1), so a zig-zag corner turns the
character instead of snapping it round.

Distances in metres, speeds in m/s, angles in radians unless named ``_deg``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore import canonical, contacts, fk, footskate, gait, measures, quat
from motioncore.alignment import yaw
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from motioncore.pfnn import dataset as data
from motioncore.pfnn.network import Mode, Runtime, Weights
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
Terrain = Callable[[FloatArray, FloatArray], FloatArray]

MAX_TURN_DEG = 4.0
"""Largest change of the control direction per frame (at 60 Hz: 240°/s)."""
CONTROL_SMOOTHING = 0.15
"""Share of the new control direction taken each frame (a one-pole low-pass)."""

_POSE = slice(0, data.POSE_SIZE)
_DELTA = slice(0, data.POSE_SIZE)
_ABSOLUTE = slice(data.POSE_SIZE, 2 * data.POSE_SIZE)
_STEP = slice(2 * data.POSE_SIZE, 2 * data.POSE_SIZE + 2)
_TURN = 2 * data.POSE_SIZE + 2
_PHASE = 2 * data.POSE_SIZE + 3
_CONTACTS = slice(2 * data.POSE_SIZE + 4, 2 * data.POSE_SIZE + 6)
_HEIGHT = 2 * data.POSE_SIZE + 6

RESIDUAL_SHARE = 0.85
"""The next pose is this share of (current + predicted change) and the rest of the
predicted absolute pose: the residual alone drifts (joint angles past 170° within
10 s), the absolute alone is less precise from one frame to the next (held-out joint
angle error 3.7° at a share of 0.5, 2.5° at 0.7, 1.8° at 0.85, measured on the v1
weights)."""


def flat(x: FloatArray, z: FloatArray) -> FloatArray:
    """Flat ground at height 0."""
    return np.zeros(np.broadcast(x, z).shape)


@dataclass(frozen=True)
class Path:
    """A polyline on the ground ``[P, 2]`` (x, z metres), walked from its first point."""

    points: FloatArray

    @classmethod
    def parse(cls, text: str) -> Path:
        """``"x,z;x,z;…"`` (at least two distinct points)."""
        try:
            points = np.array(
                [[float(v) for v in pair.split(",")] for pair in text.split(";") if pair.strip()]
            )
        except ValueError as error:
            raise MotionCoreError(f"a path is 'x,z;x,z;…' in metres: {error}") from None
        return cls.of(points)

    @classmethod
    def of(cls, points: ArrayLike) -> Path:
        pts = np.asarray(points, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) < 2 or not np.isfinite(pts).all():
            raise MotionCoreError("a path needs at least two finite (x, z) points")
        keep = np.concatenate([[True], np.linalg.norm(np.diff(pts, axis=0), axis=1) > 1e-9])
        if keep.sum() < 2:
            raise MotionCoreError("a path needs two distinct points")
        return cls(pts[keep])

    @property
    def lengths(self) -> FloatArray:
        """Cumulative length at each point ``[P]``, metres."""
        return np.concatenate(
            [[0.0], np.cumsum(np.linalg.norm(np.diff(self.points, axis=0), axis=1))]
        )

    @property
    def length_m(self) -> float:
        return float(self.lengths[-1])

    def at(self, s: ArrayLike) -> FloatArray:
        """Points ``[..., 2]`` at arc lengths ``s`` (clamped to the path)."""
        s = np.clip(np.asarray(s, dtype=np.float64), 0.0, self.length_m)
        return np.stack(
            [
                np.interp(s, self.lengths, self.points[:, 0]),
                np.interp(s, self.lengths, self.points[:, 1]),
            ],
            axis=-1,
        )

    def project(self, point: FloatArray) -> tuple[float, float]:
        """(arc length of the nearest point, distance to it) of a ground point."""
        a, b = self.points[:-1], self.points[1:]
        ab = b - a
        t = np.clip(np.sum((point - a) * ab, axis=1) / np.sum(ab * ab, axis=1), 0.0, 1.0)
        nearest = a + t[:, None] * ab
        d = np.linalg.norm(point - nearest, axis=1)
        i = int(np.argmin(d))
        return float(self.lengths[i] + t[i] * np.linalg.norm(ab[i])), float(d[i])

    def rms_m(self, points: FloatArray) -> float:
        """Root mean square distance (m) of ground points ``[F, 2]`` (x, z) to the path."""
        distances = np.array([self.project(p)[1] for p in points])
        return float(np.sqrt(np.mean(distances**2)))


@dataclass(frozen=True)
class Generated:
    """The generated motion (canonical skeleton) and what was measured on it."""

    clip: Clip
    phase: FloatArray
    contacts: NDArray[np.bool_]
    path_rms_m: float
    foot_slide_mps: float
    foot_slide_raw_mps: float
    end_distance_m: float
    phase_drift_rad: float
    cycles_per_s: float
    max_joint_speed_deg_s: float
    penetration_worst_m: float = 0.0
    penetration_share: float = 0.0

    def as_dict(self) -> dict[str, float | int | None]:
        """``frames``, ``fps``, ``path_rms_m`` (root to path, RMS), ``foot_slide_mps``
        (after the foot lock), ``foot_slide_raw_mps`` (the network's own),
        ``end_distance_m`` (last root position to the path's end), ``phase_drift_rad``
        (:func:`phase_drift_rad`), ``cycles_per_s`` (gait cycles per second) and
        ``max_joint_speed_deg_s`` (the fastest any joint turns), ``penetration_worst_m`` and
        ``penetration_share`` (how deep a foot point goes under the ground, and the share
        of frames more than 1 cm under: :mod:`motioncore.measures`); ``None`` for what
        could not be measured (a walk too short for three left strikes has no drift)."""
        measures: dict[str, float | int] = {
            "frames": self.clip.num_frames,
            "fps": self.clip.fps,
            "path_rms_m": self.path_rms_m,
            "foot_slide_mps": self.foot_slide_mps,
            "foot_slide_raw_mps": self.foot_slide_raw_mps,
            "end_distance_m": self.end_distance_m,
            "phase_drift_rad": self.phase_drift_rad,
            "cycles_per_s": self.cycles_per_s,
            "max_joint_speed_deg_s": self.max_joint_speed_deg_s,
            "penetration_worst_m": self.penetration_worst_m,
            "penetration_share": self.penetration_share,
        }
        return {k: v if np.isfinite(v) else None for k, v in measures.items()}


def _heading_frame(vectors: FloatArray, facing: float) -> FloatArray:
    c, s = np.cos(facing), np.sin(facing)
    return np.stack(
        [c * vectors[..., 0] - s * vectors[..., 1], s * vectors[..., 0] + c * vectors[..., 1]], -1
    )


def _world(vector: FloatArray, facing: float) -> FloatArray:
    return _heading_frame(vector, -facing)


def _turn_towards(current: float, wanted: float) -> float:
    delta = (wanted - current + np.pi) % (2.0 * np.pi) - np.pi
    limit = np.radians(MAX_TURN_DEG)
    return current + float(np.clip(CONTROL_SMOOTHING * delta, -limit, limit))


def generate(
    weights: Weights,
    path: Path,
    speed_mps: float,
    *,
    seconds: float | None = None,
    mode: Mode = "constant",
    terrain: Terrain = flat,
    foot_lock: bool = True,
    progress: Callable[[float], None] | None = None,
) -> Generated:
    """Walk ``path`` at ``speed_mps`` for ``seconds`` (default: until its end at that
    speed), starting at its first point facing along it; ``foot_lock`` pins planted
    feet afterwards with two-bone IK (:func:`motioncore.footskate.cleanup`);
    ``progress(fraction)`` hears about every generated second."""
    if not (0.0 < speed_mps < 10.0):
        raise MotionCoreError(f"speed must be between 0 and 10 m/s, got {speed_mps}")
    duration = path.length_m / speed_mps if seconds is None else seconds
    frames = max(round(duration * data.FPS), 2)
    runtime = Runtime(weights, mode)
    offsets = np.array(data.TRAJECTORY_OFFSETS)
    future = offsets[offsets > 0]
    start_dir = path.points[1] - path.points[0]
    facing = float(np.arctan2(start_dir[0], start_dir[1]))
    control = facing
    pose = weights.input_mean[_POSE].astype(np.float64)
    height = float(weights.input_mean[-1])
    phase = 0.0
    positions = np.zeros((frames, 2))
    facings = np.zeros(frames)
    poses = np.zeros((frames, data.POSE_SIZE))
    heights = np.zeros(frames)
    phases = np.zeros(frames)
    contact = np.zeros((frames, 2), dtype=bool)
    positions[0] = path.points[0]
    velocity = np.zeros(2)
    ring = np.array(data.TERRAIN_RING)
    for t in range(frames):
        position = positions[t]
        facings[t], poses[t], heights[t], phases[t] = facing, pose, height, phase
        # 1. terrain around the root, heading frame
        local = np.stack([ring[:, 0] * np.sin(ring[:, 1]), ring[:, 0] * np.cos(ring[:, 1])], -1)
        around = position + _world(local, facing)
        heights_ring = terrain(around[:, 0], around[:, 1]) - terrain(position[:1], position[1:])
        # 2. features
        past_idx = np.clip(t + offsets[offsets <= 0], 0, t)
        s_now, _ = path.project(position)
        ahead = path.at(s_now + speed_mps * future / data.FPS)
        tangent = path.at(s_now + speed_mps * (future + 1) / data.FPS) - path.at(
            s_now + speed_mps * (future - 1) / data.FPS
        )
        wanted = (
            float(np.arctan2(tangent[0, 0], tangent[0, 1]))
            if np.linalg.norm(tangent[0]) > 1e-9
            else control
        )
        control = _turn_towards(control, wanted)
        traj_pos = np.concatenate([positions[past_idx], ahead]) - position
        tangent_dirs = np.arctan2(tangent[:, 0], tangent[:, 1])
        traj_dir = np.concatenate([facings[past_idx], control + (tangent_dirs - wanted)])
        trajectory = np.concatenate(
            [
                _heading_frame(traj_pos, facing),
                np.stack([np.sin(traj_dir - facing), np.cos(traj_dir - facing)], -1),
            ],
            axis=-1,
        ).reshape(-1)
        inputs = np.concatenate(
            [
                pose,
                _heading_frame(velocity, facing),
                trajectory,
                heights_ring,
                [np.sin(phase), np.cos(phase)],
                [height],
            ]
        )
        # 3. predict
        out = runtime.step(inputs, phase)
        if progress is not None and t % int(data.FPS) == 0:
            progress(t / frames)
        contact[t] = out[_CONTACTS] > 0.5
        if t + 1 == frames:
            break
        # 4. integrate the root; 5. advance the phase
        step = _world(out[_STEP], facing)
        positions[t + 1] = position + step
        velocity = step * data.FPS
        facing += float(out[_TURN])
        pose = next_pose(pose, out)
        height = float(out[_HEIGHT])
        phase = float(np.mod(phase + max(float(out[_PHASE]), 0.0), 2.0 * np.pi))
    clip = canonical_clip(positions, facings, poses, heights, terrain)
    return _measured(clip, phases, contact, path, foot_lock, terrain is flat)


def next_pose(pose: FloatArray, out: FloatArray) -> FloatArray:
    """The next pose ``[..., POSE_SIZE]`` from the current one and the network's outputs
    ``[..., OUTPUT_SIZE]`` (:data:`RESIDUAL_SHARE` of the residual, the rest absolute)."""
    return np.asarray(
        RESIDUAL_SHARE * (pose + out[..., _DELTA]) + (1.0 - RESIDUAL_SHARE) * out[..., _ABSOLUTE],
        dtype=np.float64,
    )


def canonical_clip(
    positions: FloatArray,
    facings: FloatArray,
    poses: FloatArray,
    heights: FloatArray,
    terrain: Terrain,
) -> Clip:
    skeleton = canonical.skeleton()
    frames = len(positions)
    rotations = quat.identity((frames, skeleton.num_joints))
    rotations[:, list(data.JOINTS)] = quat.from_rotvec(poses.reshape(frames, -1, 3))
    rotations[:, 0] = quat.mul(yaw(facings), rotations[:, 0])
    translations = np.broadcast_to(skeleton.offsets, (frames, skeleton.num_joints, 3)).copy()
    ground = terrain(positions[:, 0], positions[:, 1])
    translations[:, 0] = np.stack([positions[:, 0], heights + ground, positions[:, 1]], -1)
    return Clip(
        skeleton, quat.normalize(rotations), translations, data.FPS, meta={"generator": "pfnn"}
    )


def foot_slide_mps(clip: Clip, floor_m: float | None = None) -> float:
    """The worse foot's mean slide while planted, m/s (:mod:`motioncore.measures`, seed 002
    §5.2; independent of the contacts the foot lock uses); ``nan`` when no foot is
    planted. ``floor_m``: the ground's height where it is known (0 on flat ground)."""
    slide = measures.measure(clip, canonical.roles(), floor_m=floor_m).slide_mean_mps
    return float("nan") if slide is None else slide


def foot_lock(clip: Clip, floor_m: float | None, roles: JointRoles | None = None) -> Clip:
    """``clip`` with its planted feet locked and kept above the floor
    (:func:`motioncore.footskate.cleanup` on :func:`motioncore.contacts.detect`)."""
    roles = roles if roles is not None else canonical.roles()
    return footskate.cleanup(clip, contacts.detect(clip, roles, floor_m=floor_m), roles)


def phase_drift_rad(clip: Clip, phases: FloatArray) -> float:
    """How far the phase at the left foot's strikes moves between the first and the last
    third of the clip (circular means, radians; 0: φ stays in step with the feet, π: half
    a cycle out). ``nan`` with fewer than three left strikes."""
    left = next(
        f.contact for f in contacts.detect(clip, canonical.roles()).feet if f.side == "left"
    )
    at = phases[gait.strikes(left, clip.fps)]
    if len(at) < 3:
        return float("nan")
    first, *_, last = np.array_split(at, 3)
    turn = np.angle(np.mean(np.exp(1j * last)) / np.mean(np.exp(1j * first)))
    return float(abs(turn))


def _measured(
    clip: Clip,
    phases: FloatArray,
    contact: NDArray[np.bool_],
    path: Path,
    lock: bool,
    flat_ground: bool,
) -> Generated:
    floor = 0.0 if flat_ground else None
    raw_slide = foot_slide_mps(clip, floor)
    if lock:
        clip = foot_lock(clip, floor)
    measured = measures.measure(clip, canonical.roles(), floor_m=floor)
    slide = measured.slide_mean_mps
    root = fk.positions(clip)[:, 0][:, [0, 2]]
    return Generated(
        clip,
        phases,
        contact,
        path.rms_m(root),
        float("nan") if slide is None else slide,
        raw_slide,
        float(np.linalg.norm(root[-1] - path.points[-1])),
        phase_drift_rad(clip, phases),
        float(np.unwrap(phases)[-1] - phases[0]) / (2.0 * np.pi) / clip.duration_s,
        float(np.degrees(quat.angle_between(clip.rotations[1:], clip.rotations[:-1])).max())
        * clip.fps,
        measured.penetration_worst_m,
        measured.penetration_share,
    )
