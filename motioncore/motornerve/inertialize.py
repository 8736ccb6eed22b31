"""Critically damped springs and what the motion-matching baseline
(:mod:`motioncore.motornerve.matching`) builds on them: its simulated root and the
inertialization of its switches.

Two springs, both critically damped and stepped exactly (no overshoot, stable at any
time step), after Holden's "Spring-It-On" (orangeduck/Motion-Matching):

* :func:`track_velocity`: a value whose *velocity* follows a goal velocity. The
  :class:`SimulatedRoot` is one: its ground velocity and turn rate chase what the intent
  asks for, and :meth:`SimulatedRoot.future` says where that takes it.
* :func:`decay`: an offset that dies out towards zero, starting with some velocity;
  what inertialization does to the difference between the pose that played before a
  switch and the one that plays after it.

**Inertialization** (Bollo, GDC 2016/2018): at a switch the output keeps showing the old
pose by carrying an offset, ``output = offset ⊗ target``; the offset then decays to the
identity while the new clip plays underneath. :meth:`Offset.switched` computes the offset
of a switch, :meth:`Offset.decayed` lets it die out, :func:`apply` composes it with the
playing pose; scalar channels (the hips' height) are offset and decayed the same way.

Half-lives (seconds) follow the reference design: the spring's rate is
``y = 2 ln 2 / half-life`` and a gap closes as ``(1 + y t) e^{-y t}`` from rest, so half
of it is gone after about 1.2 half-lives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore import quat
from motioncore.motornerve import intent

FloatArray = NDArray[np.float64]

LN2 = float(np.log(2.0))


def damping_of_halflife(halflife_s: float) -> float:
    """The rate ``y = 2 ln 2 / halflife_s`` (1/s) of a critically damped spring
    (stiffness ``y²``, damping ``2y``; module docstring)."""
    if halflife_s <= 0.0:
        raise ValueError(f"a spring's half-life must be positive, got {halflife_s} s")
    return 2.0 * LN2 / halflife_s


def track_velocity(
    value: FloatArray,
    velocity: FloatArray,
    acceleration: FloatArray,
    goal_velocity: FloatArray,
    halflife_s: float,
    dt_s: float,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """One exact step of ``dt_s`` seconds of values ``[...]`` whose velocity follows
    ``goal_velocity [...]`` through a critically damped spring (the goal held over the
    step): ``(value, velocity, acceleration)`` after it, in the inputs' units."""
    y = damping_of_halflife(halflife_s)
    j0 = velocity - goal_velocity
    j1 = acceleration + j0 * y
    e = np.exp(-y * dt_s)
    moved = value + (
        e * (-j1 / y**2 + (-j0 - j1 * dt_s) / y) + j1 / y**2 + j0 / y + goal_velocity * dt_s
    )
    return moved, e * (j0 + j1 * dt_s) + goal_velocity, e * (acceleration - j1 * y * dt_s)


def decay(
    offset: FloatArray, velocity: FloatArray, halflife_s: float, dt_s: float
) -> tuple[FloatArray, FloatArray]:
    """One exact step of ``dt_s`` seconds of offsets ``[...]`` decaying to zero through a
    critically damped spring: ``(offset, velocity)`` after it."""
    y = damping_of_halflife(halflife_s)
    j1 = velocity + offset * y
    e = np.exp(-y * dt_s)
    return e * (offset + j1 * dt_s), e * (velocity - j1 * y * dt_s)


@dataclass(frozen=True)
class SimulatedRoot:
    """A root on the ground steered by springs: ``position [3]`` (ground x, z in metres
    and facing in radians, world frame), ``velocity [3]`` (m/s, rad/s) and the velocity's
    rate of change ``[3]``."""

    position: FloatArray
    velocity: FloatArray
    acceleration: FloatArray

    def stepped(self, wanted: FloatArray, halflife_s: float, dt_s: float) -> SimulatedRoot:
        """The root ``dt_s`` on, its velocity following ``wanted [3]``: a ground velocity
        (x, z) in its own heading frame, m/s, and a turn rate, rad/s."""
        ground = intent.to_world(wanted[:2], np.asarray(self.position[2]))
        goal = np.array([ground[0], ground[1], wanted[2]])
        return SimulatedRoot(
            *track_velocity(self.position, self.velocity, self.acceleration, goal, halflife_s, dt_s)
        )

    def future(
        self, wanted: FloatArray, frames: tuple[int, ...], halflife_s: float, dt_s: float
    ) -> FloatArray:
        """``[len(frames), 3]``: the root's position ``frames`` steps of ``dt_s`` on if
        ``wanted [3]`` holds (see :meth:`stepped`)."""
        root, out = self, np.zeros((len(frames), 3))
        for step in range(1, max(frames) + 1):
            root = root.stepped(wanted, halflife_s, dt_s)
            if step in frames:
                out[frames.index(step)] = root.position
        return out


@dataclass(frozen=True)
class Offset:
    """What the output adds to the playing pose while a switch is inertialized: joint
    rotation offsets ``rotations [J, 3]`` (rotation vectors, radians, parent frame) and
    their angular velocities ``[J, 3]`` (rad/s), scalar channel offsets ``channels [C]``
    (e.g. the hips' height, metres) and their velocities ``[C]``."""

    rotations: FloatArray
    angular_velocities: FloatArray
    channels: FloatArray
    channel_velocities: FloatArray

    @classmethod
    def zero(cls, joints: int, channels: int) -> Offset:
        """No offset on ``joints`` joints and ``channels`` channels."""
        return cls(
            np.zeros((joints, 3)), np.zeros((joints, 3)), np.zeros(channels), np.zeros(channels)
        )

    def decayed(self, halflife_s: float, dt_s: float) -> Offset:
        """The offset ``dt_s`` seconds on (:func:`decay`)."""
        rotations, angular = decay(self.rotations, self.angular_velocities, halflife_s, dt_s)
        channels, velocities = decay(self.channels, self.channel_velocities, halflife_s, dt_s)
        return Offset(rotations, angular, channels, velocities)

    def switched(self, source: Pose, target: Pose) -> Offset:
        """The offset that makes ``target`` (the pose playing from now on) show what this
        offset on ``source`` (the pose that was playing) showed, values and velocities."""
        shown = quat.mul(quat.from_rotvec(self.rotations), source.rotations)
        return Offset(
            quat.to_rotvec(quat.mul(shown, quat.conjugate(target.rotations))),
            self.angular_velocities + source.angular_velocities - target.angular_velocities,
            self.channels + source.channels - target.channels,
            self.channel_velocities + source.channel_velocities - target.channel_velocities,
        )


@dataclass(frozen=True)
class Pose:
    """Frames ``[...]`` of a clip as inertialization sees them: local rotations
    ``[..., J, 4]``, their angular velocities ``[..., J, 3]`` (rad/s, parent frame, to the
    next frame), scalar channels ``[..., C]`` and their velocities ``[..., C]`` (units per
    second)."""

    rotations: FloatArray
    angular_velocities: FloatArray
    channels: FloatArray
    channel_velocities: FloatArray

    @classmethod
    def of_motion(cls, rotations: FloatArray, channels: FloatArray, fps: float) -> Pose:
        """The poses of ``F ≥ 2`` frames of rotations ``[F, J, 4]`` and channels
        ``[F, C]`` at ``fps``: velocities by forward differences, the last one repeated."""
        unrolled = quat.unroll(rotations, axis=0)
        spin = quat.mul(unrolled[1:], quat.conjugate(unrolled[:-1]))
        steps = np.diff(channels, axis=0)
        return cls(
            unrolled,
            quat.to_rotvec(np.concatenate([spin, spin[-1:]])) * fps,
            channels,
            np.concatenate([steps, steps[-1:]]) * fps,
        )

    @classmethod
    def concatenate(cls, poses: list[Pose]) -> Pose:
        """``poses`` end to end along their first axis."""
        return cls(*(np.concatenate([getattr(p, k) for p in poses]) for k in _POSE_FIELDS))

    def frame(self, index: int) -> Pose:
        """Frame ``index`` of poses ``[F, …]``."""
        return Pose(*(getattr(self, k)[index] for k in _POSE_FIELDS))


_POSE_FIELDS = ("rotations", "angular_velocities", "channels", "channel_velocities")


def apply(offsets: FloatArray, rotations: FloatArray) -> FloatArray:
    """Rotations ``[..., J, 4]`` with their offsets ``[..., J, 3]`` (rotation vectors)
    composed on the parent side: ``offset ⊗ rotation``."""
    return quat.mul(quat.from_rotvec(offsets), rotations)
