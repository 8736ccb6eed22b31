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
from numpy.typing import NDArray

from motioncore import contacts, fk, measures, quat
from motioncore.analysis import gait
from motioncore.clean import footskate
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from motioncore.pfnn import dataset as data
from motioncore.pfnn.network import Mode, Runtime, Weights
from motioncore.pfnn.path import Path as Path  # re-exported: the paths generate() walks
from motioncore.skeleton import JointRoles, canonical
from motioncore.skeleton.facing import yaw

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
    feet afterwards with two-bone IK (:func:`motioncore.clean.footskate.cleanup`);
    ``progress(fraction)`` hears about every generated second."""
    if not (0.0 < speed_mps < 10.0):
        raise MotionCoreError(f"speed must be between 0 and 10 m/s, got {speed_mps}")
    duration = path.length_m / speed_mps if seconds is None else seconds
    frames = max(round(duration * data.FPS), 2)
    runtime = Runtime(weights, mode)
    walk = _Walk.start(weights, path, frames)
    for t in range(frames):
        walk.record(t)
        out = runtime.step(walk.inputs(t, path, speed_mps, terrain), walk.phase)
        if progress is not None and t % int(data.FPS) == 0:
            progress(t / frames)
        walk.contact[t] = out[_CONTACTS] > 0.5
        if t + 1 == frames:
            break
        walk.advance(t, out)
    clip = canonical_clip(walk.positions, walk.facings, walk.poses, walk.heights, terrain)
    return _measured(clip, walk.phases, walk.contact, path, foot_lock, terrain is flat)


@dataclass
class _Walk:
    """A walk being generated: its frames so far (``[F, ...]``) and its current state."""

    positions: FloatArray
    facings: FloatArray
    poses: FloatArray
    heights: FloatArray
    phases: FloatArray
    contact: NDArray[np.bool_]
    facing: float
    control: float
    pose: FloatArray
    height: float
    phase: float
    velocity: FloatArray
    offsets: FloatArray
    ring: FloatArray

    @classmethod
    def start(cls, weights: Weights, path: Path, frames: int) -> _Walk:
        """At the path's first point, facing along it, in the weights' mean pose."""
        start_dir = path.points[1] - path.points[0]
        facing = float(np.arctan2(start_dir[0], start_dir[1]))
        ring = np.array(data.TERRAIN_RING)
        walk = cls(
            np.zeros((frames, 2)),
            np.zeros(frames),
            np.zeros((frames, data.POSE_SIZE)),
            np.zeros(frames),
            np.zeros(frames),
            np.zeros((frames, 2), dtype=bool),
            facing,
            facing,
            weights.input_mean[_POSE].astype(np.float64),
            float(weights.input_mean[-1]),
            0.0,
            np.zeros(2),
            np.array(data.TRAJECTORY_OFFSETS),
            np.stack([ring[:, 0] * np.sin(ring[:, 1]), ring[:, 0] * np.cos(ring[:, 1])], -1),
        )
        walk.positions[0] = path.points[0]
        return walk

    def record(self, t: int) -> None:
        """Frame ``t`` is the current state."""
        self.facings[t], self.poses[t] = self.facing, self.pose
        self.heights[t], self.phases[t] = self.height, self.phase

    def inputs(self, t: int, path: Path, speed_mps: float, terrain: Terrain) -> FloatArray:
        """Steps 1-2 at frame ``t``: the network's inputs (the control turns towards the
        path on the way)."""
        position = self.positions[t]
        # 1. terrain around the root, heading frame
        around = position + _world(self.ring, self.facing)
        heights_ring = terrain(around[:, 0], around[:, 1]) - terrain(position[:1], position[1:])
        # 2. features
        return np.concatenate(
            [
                self.pose,
                _heading_frame(self.velocity, self.facing),
                self._trajectory(t, path, speed_mps),
                heights_ring,
                [np.sin(self.phase), np.cos(self.phase)],
                [self.height],
            ]
        )

    def _trajectory(self, t: int, path: Path, speed_mps: float) -> FloatArray:
        """Past positions and directions from the frames so far, future ones from the path."""
        position, offsets = self.positions[t], self.offsets
        future = offsets[offsets > 0]
        past_idx = np.clip(t + offsets[offsets <= 0], 0, t)
        s_now, _ = path.project(position)
        ahead = path.at(s_now + speed_mps * future / data.FPS)
        tangent = path.at(s_now + speed_mps * (future + 1) / data.FPS) - path.at(
            s_now + speed_mps * (future - 1) / data.FPS
        )
        wanted = (
            float(np.arctan2(tangent[0, 0], tangent[0, 1]))
            if np.linalg.norm(tangent[0]) > 1e-9
            else self.control
        )
        self.control = _turn_towards(self.control, wanted)
        traj_pos = np.concatenate([self.positions[past_idx], ahead]) - position
        tangent_dirs = np.arctan2(tangent[:, 0], tangent[:, 1])
        traj_dir = np.concatenate([self.facings[past_idx], self.control + (tangent_dirs - wanted)])
        return np.concatenate(
            [
                _heading_frame(traj_pos, self.facing),
                np.stack([np.sin(traj_dir - self.facing), np.cos(traj_dir - self.facing)], -1),
            ],
            axis=-1,
        ).reshape(-1)

    def advance(self, t: int, out: FloatArray) -> None:
        """Steps 4-5 after frame ``t``: integrate the root, advance the phase."""
        step = _world(out[_STEP], self.facing)
        self.positions[t + 1] = self.positions[t] + step
        self.velocity = step * data.FPS
        self.facing += float(out[_TURN])
        self.pose = next_pose(self.pose, out)
        self.height = float(out[_HEIGHT])
        self.phase = float(np.mod(self.phase + max(float(out[_PHASE]), 0.0), 2.0 * np.pi))


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
    (:func:`motioncore.clean.footskate.cleanup` on :func:`motioncore.contacts.detect`)."""
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
