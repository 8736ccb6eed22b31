"""Landmarks of a rig for retargeting (:mod:`motioncore.skeleton.retarget`, step 1).

World positions ``[F, 3]`` of every joint role (:data:`LANDMARKS`) and of three end
points per body (head top, hand tips, toe tips) are taken from the motion by forward
kinematics. A role the rig lacks, or puts on top of a neighbour (:data:`_MAY_COINCIDE`),
is placed where the canonical proportions put it (a spine a third of the way from hips
to chest, a neck, a clavicle, a toe ahead of the foot); an end point without an end site
is the bone before it extended.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore.clip import Skeleton
from motioncore.errors import SkeletonError
from motioncore.skeleton import canonical
from motioncore.skeleton.roles import JointRoles, infer

FloatArray = NDArray[np.float64]

_SIDES = ("left", "right")
END_POINTS = ("head_end", "left_hand_end", "right_hand_end", "left_toe_end", "right_toe_end")
LANDMARKS: tuple[str, ...] = (*canonical.JOINT_OF_ROLE, *END_POINTS)
"""Every role of the canonical skeleton and the five end points."""

_END_OF: dict[str, tuple[str, str]] = {
    "head_end": ("head", "neck"),
    **{f"{s}_hand_end": (f"{s}_hand", f"{s}_forearm") for s in _SIDES},
    **{f"{s}_toe_end": (f"{s}_toe", f"{s}_foot") for s in _SIDES},
}
"""End point → (the joint it ends, the joint before: the bone extended without an end site)."""


def unit(v: FloatArray) -> FloatArray:
    """``v [..., 3]`` scaled to unit length (zero vectors stay near zero)."""
    out: FloatArray = v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)
    return out


def _canonical_length(a: str, b: str) -> float:
    rest = canonical.rest_positions()
    names = canonical.NAMES
    ia = canonical.JOINT_OF_ROLE[a] if a in canonical.JOINT_OF_ROLE else names.index(_end_name(a))
    ib = canonical.JOINT_OF_ROLE[b] if b in canonical.JOINT_OF_ROLE else names.index(_end_name(b))
    return float(np.linalg.norm(rest[ia] - rest[ib]))


def _end_name(point: str) -> str:
    joint = canonical.NAMES[canonical.JOINT_OF_ROLE[_END_OF[point][0]]]
    return f"{joint}_End"


@dataclass(frozen=True)
class Rig:
    """A skeleton with its roles and the end site chosen for each end point."""

    skeleton: Skeleton
    roles: JointRoles
    ends: Mapping[str, int | None]

    @classmethod
    def of(cls, skeleton: Skeleton, reference: FloatArray, roles: JointRoles | None = None) -> Rig:
        """The rig of ``skeleton``; ``reference [J, 3]``: world positions of a pose
        used to pick each end point's end site (the one furthest along its bone)."""
        found = roles if roles is not None else infer(skeleton)
        missing = [r for r in ("hips", "chest", "head") if found.get(r) is None]
        missing += [
            f"{s}_{p}"
            for s in _SIDES
            for p in ("upper_arm", "forearm", "hand", "upper_leg", "lower_leg", "foot")
            if found.get(f"{s}_{p}") is None
        ]
        if missing:
            raise SkeletonError(
                "retargeting needs a humanoid with these roles resolved: " + ", ".join(missing)
            )
        ends = {point: _end_site(skeleton, found, reference, point) for point in END_POINTS}
        return cls(skeleton, found, ends)


def _end_site(skeleton: Skeleton, roles: JointRoles, pose: FloatArray, point: str) -> int | None:
    """The end site below the point's joint furthest along its bone, if any."""
    joint_role, before_role = _END_OF[point]
    joint, before = roles.get(joint_role), roles.get(before_role)
    if joint is None or before is None:
        return None
    below = np.zeros(skeleton.num_joints, dtype=bool)
    below[skeleton.descendants(joint)] = True
    below &= skeleton.end_site
    if not below.any():
        return None
    candidates = np.flatnonzero(below)
    axis = unit(pose[joint] - pose[before])
    reach = (pose[candidates] - pose[joint]) @ axis
    best = int(candidates[np.argmax(reach)])
    return best if reach.max() > 1e-6 else None


def leg_length_m(points: Mapping[str, FloatArray]) -> float:
    """Mean thigh + shin length of both legs over the frames, metres."""
    total = 0.0
    for s in _SIDES:
        thigh = np.linalg.norm(points[f"{s}_upper_leg"] - points[f"{s}_lower_leg"], axis=-1)
        shin = np.linalg.norm(points[f"{s}_lower_leg"] - points[f"{s}_foot"], axis=-1)
        total += float(np.mean(thigh + shin))
    return total / 2.0


def landmarks(rig: Rig, positions: FloatArray) -> dict[str, FloatArray]:
    """World positions ``[F, 3]`` of every landmark (:data:`LANDMARKS`) of a motion
    given as the rig's world joint positions ``[F, J, 3]``; missing ones filled in."""
    points = {
        r: positions[:, j] for r, j in rig.roles.joints.items() if r in canonical.JOINT_OF_ROLE
    }
    scale = leg_length_m(points) / leg_length_m(canonical_points())
    up = unit(points["head"] - points["hips"])
    left = unit(points["left_upper_leg"] - points["right_upper_leg"])
    forward = unit(np.cross(left, up))
    for role, other in _MAY_COINCIDE:
        if role in points and _coincide(points[role], points[other], scale):
            del points[role]
    if "spine" not in points:
        points["spine"] = points["hips"] + (points["chest"] - points["hips"]) / 3.0
    if "neck" not in points:
        points["neck"] = points["chest"] + 0.69 * (points["head"] - points["chest"])
    for s in _SIDES:
        if f"{s}_shoulder" not in points:
            arm = points[f"{s}_upper_arm"]
            points[f"{s}_shoulder"] = arm + 0.8 * (points["neck"] - arm)
        if f"{s}_toe" not in points:
            points[f"{s}_toe"] = points[f"{s}_foot"] + scale * (0.13 * forward - 0.06 * up)
    for point in END_POINTS:
        site = rig.ends[point]
        joint, before = _END_OF[point]
        if site is not None:
            points[point] = positions[:, site]
        else:
            length = scale * _canonical_length(joint, point)
            points[point] = points[joint] + length * unit(points[joint] - points[before])
    return points


_MAY_COINCIDE: tuple[tuple[str, str], ...] = (
    ("spine", "hips"),
    ("spine", "chest"),
    ("neck", "chest"),
    ("neck", "head"),
    *((f"{s}_shoulder", f"{s}_upper_arm") for s in _SIDES),
    *((f"{s}_toe", f"{s}_foot") for s in _SIDES),
)
"""Optional roles that some rigs put on top of a neighbour (CMU's ``lowerback`` at the
hips, ``lowerneck`` at the chest): such a joint says nothing about direction and is
placed by the canonical proportions instead."""

COINCIDE_M = 0.01
"""Closer than this (canonical scale, mean over frames) counts as on top."""


def _coincide(a: FloatArray, b: FloatArray, scale: float) -> bool:
    return float(np.mean(np.linalg.norm(a - b, axis=-1))) < COINCIDE_M * scale


def canonical_points() -> dict[str, FloatArray]:
    """Role -> ``[1, 3]`` position of the canonical skeleton's rest pose."""
    rest = canonical.rest_positions()[None]
    return {role: rest[:, j] for role, j in canonical.JOINT_OF_ROLE.items()}
