"""The points of a foot: heel, ankle, ball and toe tip, as the rig carries them.

A rig gives each foot an ankle (the ``foot`` role), usually a ball (the ``toe``
role: the joint where the toes bend) and often a toe tip (an end site below the
toe, or below the foot when the rig has no toe joint). No rig has a heel joint,
so the heel is *estimated*: a point fixed in the ankle's frame, straight under the
ankle (along the world's down as the ankle's frame sees it when the foot is flat)
and as deep as the ankle stands above the lowest forefoot point when the foot is
flat. "Flat" is the foot's lowest frames: the ``flat_percentile`` (20) lowest
ankle heights of the clip, where a walking, running or standing foot is planted
heel and ball together. Rest poses are not used: many rigs' zero pose is no
standing pose (Bandai Namco's bones all point along +X). Without any forefoot
point the heel sits :data:`HEEL_DEPTH_OF_LEG` x the leg's length under the ankle
(the canonical skeleton's proportion).

This module is geometry only: it decides nothing about contact. Both the contact
detector (:mod:`motioncore.contacts`) and the independent quality measures
(:mod:`motioncore.measures`) read the same foot, as both read the same forward
kinematics.

Conventions: ``F`` frames, ``J`` joints, ``P`` points; metres, Y up, world frame;
quaternions ``(w, x, y, z)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from motioncore import quat
from motioncore.clip import Skeleton
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
Side = Literal["left", "right"]
SIDES: tuple[Side, Side] = ("left", "right")
PointName = Literal["heel", "ankle", "ball", "tip"]
POINTS: tuple[PointName, ...] = ("heel", "ankle", "ball", "tip")
SOLE: tuple[PointName, ...] = ("heel", "ball", "tip")
"""The points a foot stands on (the ankle is above the sole)."""

HEEL_DEPTH_OF_LEG = 0.06 / 0.84
"""Heel depth under the ankle per metre of leg (thigh + shin), where a rig has no
forefoot point to measure it from: the canonical skeleton's 6 cm for 0.84 m."""

_UP = np.array([0.0, 1.0, 0.0])


@dataclass(frozen=True)
class Foot:
    """Where one foot's points are on the rig.

    Attributes:
        side: ``"left"`` or ``"right"``.
        ankle: joint index of the ankle (``foot`` role).
        ball: joint index of the ball (``toe`` role), ``None`` if the rig has none.
        tip: joint index of the toe tip (an end site), ``None`` if there is none.
        heel_local: ``[3]`` the heel in the ankle's frame, metres (see the module
            docstring).
        leg_m: thigh + shin length, metres (mean over the clip); ``nan`` when the
            leg's joints are not resolved.
    """

    side: Side
    ankle: int
    ball: int | None
    tip: int | None
    heel_local: FloatArray
    leg_m: float

    @property
    def names(self) -> tuple[PointName, ...]:
        """The points this foot has, in :data:`POINTS` order."""
        have = {"heel": True, "ankle": True, "ball": self.ball is not None}
        have["tip"] = self.tip is not None
        return tuple(p for p in POINTS if have[p])


def feet(
    skeleton: Skeleton,
    roles: JointRoles,
    rotations: FloatArray,
    positions: FloatArray,
    *,
    flat_percentile: float = 20.0,
) -> tuple[Foot, ...]:
    """The feet of a rig, their heels estimated from the motion.

    Args:
        skeleton: the rig.
        roles: its joint roles (feet without a ``foot`` role are left out).
        rotations: ``[F, J, 4]`` *global* rotations (:func:`motioncore.fk.forward`).
        positions: ``[F, J, 3]`` world positions, metres.
        flat_percentile: the lowest this share (0-100) of ankle heights are the
            flat-foot frames the heel is measured on.

    Returns:
        One :class:`Foot` per resolved foot, left first.
    """
    out = []
    for side in SIDES:
        ankle = roles.get(f"{side}_foot")
        if ankle is None or positions.shape[0] == 0:
            continue
        ball = roles.get(f"{side}_toe")
        tip = _tip(skeleton, ball if ball is not None else ankle, positions)
        leg = _leg_m(roles, side, positions)
        heel = _heel_local(rotations, positions, ankle, (ball, tip), leg, flat_percentile)
        out.append(Foot(side, ankle, ball, tip, heel, leg))
    return tuple(out)


def points(foot: Foot, rotations: FloatArray, positions: FloatArray) -> FloatArray:
    """``[F, P, 3]`` world positions of ``foot.names`` (metres)."""
    return np.stack([point(foot, name, rotations, positions) for name in foot.names], axis=1)


def point(foot: Foot, name: PointName, rotations: FloatArray, positions: FloatArray) -> FloatArray:
    """``[F, 3]`` world positions of one point of ``foot`` (metres)."""
    if name == "heel":
        heel = np.broadcast_to(foot.heel_local, positions[:, foot.ankle].shape)
        return np.asarray(positions[:, foot.ankle] + quat.rotate(rotations[:, foot.ankle], heel))
    joint = {"ankle": foot.ankle, "ball": foot.ball, "tip": foot.tip}[name]
    if joint is None:
        raise KeyError(f"the {foot.side} foot has no {name}")
    return np.asarray(positions[:, joint], dtype=np.float64)


def leg_length_m(feet_: tuple[Foot, ...]) -> float:
    """Mean leg length (thigh + shin, metres) of the feet that have one; nan if none."""
    legs = [f.leg_m for f in feet_ if np.isfinite(f.leg_m)]
    return float(np.mean(legs)) if legs else float("nan")


def _tip(skeleton: Skeleton, above: int, positions: FloatArray) -> int | None:
    """The end site right below ``above`` that lies furthest from it, if any."""
    children = [int(c) for c in skeleton.children(above) if skeleton.end_site[c]]
    if not children:
        return None
    reach = [
        float(np.mean(np.linalg.norm(positions[:, c] - positions[:, above], axis=-1)))
        for c in children
    ]
    best = int(np.argmax(reach))
    return children[best] if reach[best] > 1e-6 else None


def _leg_m(roles: JointRoles, side: Side, positions: FloatArray) -> float:
    chain = [roles.get(f"{side}_{part}") for part in ("upper_leg", "lower_leg", "foot")]
    if any(j is None for j in chain):
        return float("nan")
    hip, knee, ankle = (positions[:, j] for j in chain if j is not None)
    bones = np.linalg.norm(hip - knee, axis=-1) + np.linalg.norm(knee - ankle, axis=-1)
    return float(np.mean(bones))


def _heel_local(
    rotations: FloatArray,
    positions: FloatArray,
    ankle: int,
    forefoot: tuple[int | None, int | None],
    leg_m: float,
    flat_percentile: float,
) -> FloatArray:
    """The heel in the ankle's frame: under the ankle at flat-foot frames (module docstring)."""
    height = positions[:, ankle, 1]
    flat = height <= np.percentile(height, flat_percentile)
    up_local = quat.rotate(
        quat.conjugate(rotations[flat, ankle]), np.broadcast_to(_UP, (flat.sum(), 3))
    )
    up = np.mean(up_local, axis=0)
    up /= max(float(np.linalg.norm(up)), 1e-12)
    fore = [j for j in forefoot if j is not None]
    if fore:
        lowest = np.min(positions[flat][:, fore, 1], axis=1)
        depth = float(np.median(height[flat] - lowest))
    else:
        depth = HEEL_DEPTH_OF_LEG * (leg_m if np.isfinite(leg_m) else 0.84)
    return np.asarray(-max(depth, 0.0) * up, dtype=np.float64)
