"""A scripted walk whose foot contacts are known to the frame (a test fixture).

Each foot follows the same cycle of ``cycle_s`` seconds, the right half a cycle
after the left, walking along +Z:

* ``[0, 0.1)`` of the cycle: heel strike, the foot rolls from toes-up
  (:data:`STRIKE_PITCH_RAD`) to flat about the heel, which stays on the floor;
* ``[0.1, 0.4)``: flat;
* ``[0.4, duty)``: heel off, the foot pitches down about the ball joint while the
  toes stay flat on the floor (the tip does not move);
* ``[duty, 1)``: swing, the foot lifts and flies one stride forward (smoothstep in
  Z, a sine arc in Y) and turns back to toes-up for the next strike.

So contact is exactly ``[0, duty)`` of each cycle (heel strike at 0, foot flat
at 0.1, heel off at 0.4, toe off at ``duty``). ``skate_mps`` makes every planted
foot slide forward at that speed, ``sink_m`` pushes the planted feet that far
under the floor (y = 0): the defects the measures must catch.

The clip is a real one (local rotations and translations through forward
kinematics); bone lengths follow the scripted positions, frame by frame.
Metres, seconds, Y up.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore import quat
from motioncore.clip import Clip, Skeleton

FloatArray = NDArray[np.float64]

ANKLE_HEIGHT_M = 0.07
BALL = np.array([0.0, -0.05, 0.14])
"""The ball (toe joint) in the foot's frame, metres: 2 cm above the sole."""
TIP = np.array([0.0, -0.02, 0.06])
"""The toe tip in the toe's frame, metres: on the sole."""
STRIKE_PITCH_RAD = np.radians(20.0)
PUSH_PITCH_RAD = np.radians(35.0)
STRIDE_M = 1.2
SWING_LIFT_M = 0.12
HIP_HEIGHT_M = 0.90
BONE_M = 0.43
"""Thigh and shin, metres: the legs reach 0.86 m, bent at every frame of the walk."""

NAMES = (
    "Hips",
    "LeftUpLeg",
    "LeftLeg",
    "LeftFoot",
    "LeftToe",
    "LeftToe_End",
    "RightUpLeg",
    "RightLeg",
    "RightFoot",
    "RightToe",
    "RightToe_End",
    "Spine",
    "Head",
    "LeftHand",
    "RightHand",
)
PARENTS = np.array([-1, 0, 1, 2, 3, 4, 0, 6, 7, 8, 9, 0, 11, 11, 11])
_FOOT = {"left": 3, "right": 8}


@dataclass(frozen=True)
class Walk:
    """The clip and its truth: ``contact[side]`` ``[F]`` and the cycle's event times."""

    clip: Clip
    contact: dict[str, NDArray[np.bool_]]
    cycle_s: float
    duty: float


def walk(
    fps: float,
    *,
    duration_s: float = 4.0,
    cycle_s: float = 1.0,
    duty: float = 0.6,
    skate_mps: float = 0.0,
    sink_m: float = 0.0,
    raised_m: float = 0.0,
) -> Walk:
    """A scripted walk at ``fps`` Hz (see the module docstring)."""
    t = np.arange(round(duration_s * fps)) / fps
    world_rot = np.tile(quat.identity(), (t.size, len(NAMES), 1))
    world_pos = np.zeros((t.size, len(NAMES), 3))
    contact = {}
    for side, shift, x in (("left", 0.0, 0.1), ("right", 0.5, -0.1)):
        u = (t / cycle_s - shift) % 1.0
        cycle = np.floor(t / cycle_s - shift)
        ground = (-sink_m + raised_m * (cycle >= 2), -sink_m + raised_m * (cycle + 1 >= 2))
        ankle, pitch, toe_pitch = _foot(u, cycle + shift, duty, cycle_s, skate_mps, ground)
        ankle[:, 0] = x
        foot = _FOOT[side]
        world_rot[:, foot] = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), -pitch)
        world_rot[:, foot + 1] = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), -toe_pitch)
        world_pos[:, foot] = ankle
        world_pos[:, foot + 1] = ankle + quat.rotate(
            world_rot[:, foot], np.broadcast_to(BALL, ankle.shape)
        )
        world_pos[:, foot + 2] = world_pos[:, foot + 1] + quat.rotate(
            world_rot[:, foot + 1], np.broadcast_to(TIP, ankle.shape)
        )
        contact[side] = u < duty
    _body(world_pos, t, cycle_s)
    return Walk(_clip(world_rot, world_pos, fps), contact, cycle_s, duty)


def _foot(
    u: FloatArray,
    cycle: FloatArray,
    duty: float,
    cycle_s: float,
    skate: float,
    ground: tuple[FloatArray, FloatArray],
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Ankle ``[F, 3]`` (X left 0), foot pitch and toe pitch ``[F]`` (radians, toes up > 0);
    ``ground``: the floor's height under this footprint and under the next one."""
    strike_z = cycle * STRIDE_M
    heel = np.stack([np.zeros_like(u), ground[0], strike_z], axis=-1)
    heel[:, 2] += np.where(u < duty, skate * u * cycle_s, skate * duty * cycle_s)
    roll = np.clip(u / 0.1, 0.0, 1.0)
    pitch = np.where(u < 0.1, STRIKE_PITCH_RAD * (1.0 - roll), 0.0)
    ankle = heel + _rotate_x(np.array([0.0, ANKLE_HEIGHT_M, 0.0]), pitch)
    rise = np.clip((u - 0.4) / (duty - 0.4), 0.0, 1.0)
    push = -PUSH_PITCH_RAD * rise * rise * (3.0 - 2.0 * rise)
    ball = heel + np.array([0.0, ANKLE_HEIGHT_M, 0.0]) + BALL
    pushed = ball - _rotate_x(BALL, push)
    in_push = (u >= 0.4) & (u < duty)
    ankle = np.where(in_push[:, None], pushed, ankle)
    pitch = np.where(in_push, push, pitch)
    toe_pitch = np.where(u < 0.1, pitch, 0.0)
    swing = np.clip((u - duty) / (1.0 - duty), 0.0, 1.0)
    s = swing * swing * (3.0 - 2.0 * swing)
    start = ball - _rotate_x(BALL, np.full_like(u, -PUSH_PITCH_RAD))
    end_heel = np.stack([np.zeros_like(u), ground[1], strike_z + STRIDE_M], axis=-1)
    end = end_heel + _rotate_x(
        np.array([0.0, ANKLE_HEIGHT_M, 0.0]), np.full_like(u, STRIKE_PITCH_RAD)
    )
    flying = start + (end - start) * s[:, None]
    flying[:, 1] += SWING_LIFT_M * np.sin(np.pi * swing)
    in_swing = u >= duty
    ankle = np.where(in_swing[:, None], flying, ankle)
    swing_pitch = -PUSH_PITCH_RAD + (STRIKE_PITCH_RAD + PUSH_PITCH_RAD) * s
    pitch = np.where(in_swing, swing_pitch, pitch)
    follow = np.clip(swing / 0.3, 0.0, 1.0)
    toe_pitch = np.where(in_swing, swing_pitch * follow * follow * (3.0 - 2.0 * follow), toe_pitch)
    return ankle, pitch, toe_pitch


def _rotate_x(v: FloatArray, angle: FloatArray) -> FloatArray:
    """``v [3]`` turned by ``angle [F]`` about +X with toes-up positive: ``[F, 3]``."""
    angle = np.asarray(angle, dtype=np.float64)
    q = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), -angle)
    return quat.rotate(q, np.broadcast_to(v, (*angle.shape, 3)))


def _body(world_pos: FloatArray, t: FloatArray, cycle_s: float) -> None:
    """Hips moving on at the walk's speed, legs bent at the knee, a spine, head and hands."""
    hips = np.zeros((t.size, 3))
    hips[:, 1] = HIP_HEIGHT_M + 0.01 * np.cos(4 * np.pi * t)
    hips[:, 2] = STRIDE_M * t / cycle_s - 0.25
    world_pos[:, 0] = hips
    for up, foot, x in ((1, 3, 0.1), (6, 8, -0.1)):
        world_pos[:, up] = hips + np.array([x, -0.05, 0.0])
        world_pos[:, up + 1] = _knee(world_pos[:, up], world_pos[:, foot])
    world_pos[:, 11] = hips + np.array([0.0, 0.25, 0.0])
    world_pos[:, 12] = hips + np.array([0.0, 0.7, 0.0])
    world_pos[:, 13] = hips + np.array([0.3, 0.4, 0.0])
    world_pos[:, 14] = hips + np.array([-0.3, 0.4, 0.0])


def _knee(hip: FloatArray, ankle: FloatArray) -> FloatArray:
    """The knee ``[F, 3]`` of a leg with both bones :data:`BONE_M` long, bent forward."""
    reach = ankle - hip
    d = np.linalg.norm(reach, axis=-1, keepdims=True)
    along = reach / d
    forward = np.cross(along, [1.0, 0.0, 0.0])
    forward *= np.where(forward[:, 2:3] < 0.0, -1.0, 1.0)
    bend = np.sqrt(np.maximum(BONE_M**2 - (d / 2.0) ** 2, 0.0))
    return np.asarray(hip + reach / 2.0 + forward * bend)


def _clip(world_rot: FloatArray, world_pos: FloatArray, fps: float) -> Clip:
    """The local arrays that forward kinematics turns back into these world transforms."""
    parent_rot = world_rot[:, np.maximum(PARENTS, 0)]
    parent_pos = world_pos[:, np.maximum(PARENTS, 0)]
    inverse = quat.conjugate(parent_rot)
    local_rot = quat.mul(inverse, world_rot)
    local_pos = quat.rotate(inverse, world_pos - parent_pos)
    local_rot[:, 0], local_pos[:, 0] = world_rot[:, 0], world_pos[:, 0]
    skeleton = Skeleton(
        names=NAMES,
        parents=PARENTS,
        offsets=local_pos[0].copy(),
        channels=tuple(
            ("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation")
            if not name.endswith("_End")
            else ()
            for name in NAMES
        ),
        kinds=tuple(
            "ROOT" if p < 0 else ("End Site" if n.endswith("_End") else "JOINT")
            for n, p in zip(NAMES, PARENTS, strict=True)
        ),
    )
    return Clip(skeleton, quat.normalize(local_rot), local_pos, fps)
