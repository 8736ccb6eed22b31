"""A skinned mannequin made from a skeleton's own bones: no third-party asset.

Each bone (a joint and its parent, longer than :data:`MIN_BONE_M`) becomes a smooth
limb: an ellipsoid from the parent joint to the joint, as long as the bone plus a
little overlap and as thick as a share of its length (:func:`bone_radius`, bounded by
:data:`RADIUS_MIN_M` … :data:`RADIUS_MAX_M`); every joint with a bone gets a sphere
that closes the elbow or knee between two limbs. The limb moves with the parent joint
(the joint whose rotation turns the bone); near its ends its vertices blend towards the
joint it meets (linear-blend skinning over :data:`BLEND_SHARE` of the limb at each end),
so a bent knee stays closed. Where the skeleton's joint roles are known
(:func:`motioncore.skeleton.infer`), the body is sized from its own widths: the bones
on the chain from the hips up to the head are :data:`TORSO_SHARE` of the hip width
thick up to the shoulders' line (above, :data:`NECK_SHARE` of that: the neck), the
bones from the hips to the hip joints fill the pelvis, the head is a
sphere on its bone (:data:`HEAD_SHARE` of its length, or :data:`HEAD_DEFAULT_M`), and
the bones inside it (a face's jaw and eyes) get no limbs;
hands and feet come out of the limb rule from their end sites.

The mesh is made in the skeleton's rest pose (every local rotation the identity, every
local translation its offset): the bind pose of the skin, whose inverse bind matrices
are the inverse of each joint's rest placement (a pure translation).

Conventions: ``V`` vertices, ``T`` triangles, ``J`` joints; metres, Y up, triangles
wound counter-clockwise seen from outside; at most four joints per vertex.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.typing import NDArray

from motioncore import fk
from motioncore import skeleton as roles_mod
from motioncore.clip import Skeleton
from motioncore.errors import MotionCoreError
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

MIN_BONE_M = 0.01
"""Bones shorter than this (metres) get no limb (a joint on top of its parent)."""
RADIUS_SHARE = 0.16
"""A limb's radius as a share of its bone's length, before the bounds."""
RADIUS_MIN_M = 0.018
RADIUS_MAX_M = 0.075
"""The bounds of a limb's radius, metres (a finger, a thigh)."""
OVERLAP_SHARE = 0.12
"""How far a limb reaches past each end of its bone, as a share of its length."""
JOINT_SHARE = 0.9
"""A joint's sphere's radius as a share of the thinner limb it joins."""
BLEND_SHARE = 0.25
"""The share of a limb at each end whose vertices blend towards the joint there."""
TORSO_SHARE = 0.55
"""A torso bone's radius as a share of the hip width (between the hip joints)."""
TORSO_MIN_M, TORSO_MAX_M = 0.06, 0.16
NECK_SHARE = 0.4
"""The neck's radius (the bones above where the arms branch off, up to the head) as a
share of the torso's."""
SHOULDER_MARGIN_M = 0.03
"""A neck bone that the shoulders' line crosses more than this (metres) from either end
is torso below the line and neck above (a rig whose chest bone runs up to the neck or
the head)."""
HEAD_SHARE = 0.55
"""The head's radius as a share of its bone (the head joint to its end site)."""
HEAD_DEFAULT_M = 0.1
"""The head's radius (metres) when it has no bone of its own."""
HEAD_MIN_M, HEAD_MAX_M = 0.07, 0.13
RINGS, SEGMENTS = 10, 14
"""An ellipsoid's rings (pole to pole) and segments around."""
SMALL_RADIUS_M = 0.025
SMALL_RINGS, SMALL_SEGMENTS = 6, 8
"""A part thinner than :data:`SMALL_RADIUS_M` (a finger, a toe) is a coarser ellipsoid:
a hundred-joint rig's hands would otherwise hold half its vertices (under a CPU
rasteriser, the difference between 30 and 60 frames a second)."""


@dataclass(frozen=True)
class SkinnedMesh:
    """A triangle mesh skinned to a skeleton in its rest pose.

    Attributes:
        positions: ``[V, 3]`` rest positions, metres.
        normals: ``[V, 3]`` unit normals.
        triangles: ``[T, 3]`` vertex indices, counter-clockwise from outside.
        joints: ``[V, 4]`` joint indices (of the skeleton) per vertex.
        weights: ``[V, 4]`` their weights, summing to 1 (unused slots 0).
        inverse_bind: ``[J, 4, 4]`` the inverse of each joint's rest placement
            (column vectors: ``world = M @ [x, y, z, 1]``).
    """

    positions: FloatArray
    normals: FloatArray
    triangles: IntArray
    joints: IntArray
    weights: FloatArray
    inverse_bind: FloatArray


def bone_radius(length_m: float) -> float:
    """A limb's radius (metres) for a bone ``length_m`` long."""
    return float(np.clip(RADIUS_SHARE * length_m, RADIUS_MIN_M, RADIUS_MAX_M))


def mannequin(
    skeleton: Skeleton, roles: JointRoles | None = None, *, skip: Collection[int] = ()
) -> SkinnedMesh:
    """The mannequin of ``skeleton`` (see the module docstring); ``roles`` are inferred
    when not given (a rig without humanoid roles gets limbs only). ``skip``: joints
    whose bone from their parent is no part of the body (a carrier root's translation,
    :func:`motioncore.character.bones.translated_bones`): no limb.

    Raises:
        ValueError: when no bone is longer than :data:`MIN_BONE_M`.
    """
    rest = fk.rest_positions(skeleton.offsets, skeleton.parents)
    sizes = _Sizes.of(skeleton, rest, roles if roles is not None else _inferred(skeleton))
    parts: list[Part] = []
    thinnest: dict[int, float] = {}
    face = set(skeleton.descendants(sizes.head).tolist()) if sizes.head >= 0 else set()
    for joint, parent in enumerate(int(p) for p in skeleton.parents):
        if parent < 0:
            continue
        length = float(np.linalg.norm(rest[joint] - rest[parent]))
        if length < MIN_BONE_M or joint in skip or parent in face:
            continue  # no limb: a joint on its parent, a translation, a face's bone
        grand = int(skeleton.parents[parent])
        if parent == sizes.head:
            parts.append(
                _sphere((rest[parent] + rest[joint]) / 2, sizes.head_radius(length), parent)
            )
            continue
        radius = sizes.radius(parent, joint, length)
        shoulder = sizes.shoulder_on(rest[parent], rest[joint]) if joint in sizes.neck else None
        if shoulder is not None:  # the torso goes up to the shoulders' line, the neck on
            waist = rest[parent] + shoulder * (rest[joint] - rest[parent]) / length
            torso = sizes.torso_radius
            parts.append(_limb(rest[parent], waist, torso, parent, joint, grand, blend_end=False))
            parts.append(_limb(waist, rest[joint], radius, parent, joint, -1))
        else:
            parts.append(_limb(rest[parent], rest[joint], radius, parent, joint, grand))
        for end in (parent, joint):
            thinnest[end] = min(thinnest.get(end, radius), radius)
    if not parts:
        raise ValueError("the skeleton has no bone to make a mannequin of")
    if sizes.head >= 0 and not any(skeleton.parents == sizes.head):  # a head with no bone
        up = np.array([0.0, HEAD_DEFAULT_M, 0.0])
        parts.append(_sphere(rest[sizes.head] + up, HEAD_DEFAULT_M, sizes.head))
    for joint, radius in thinnest.items():
        if not skeleton.end_site[joint]:
            parts.append(_sphere(rest[joint], sizes.joint_share(joint) * radius, joint))
    inverse_bind = np.tile(np.eye(4), (skeleton.num_joints, 1, 1))
    inverse_bind[:, :3, 3] = -rest
    return joined(parts, inverse_bind)


def _chain(skeleton: Skeleton, joint: int, ancestor: int) -> set[int]:
    """The joints on the path from ``joint`` up to ``ancestor``, both included; empty
    when ``ancestor`` is not above ``joint``."""
    found = []
    while joint >= 0:
        found.append(joint)
        if joint == ancestor:
            return set(found)
        joint = int(skeleton.parents[joint])
    return set()


def _inferred(skeleton: Skeleton) -> JointRoles | None:
    try:
        return roles_mod.infer(skeleton)
    except MotionCoreError:
        return None


@dataclass(frozen=True)
class _Sizes:
    """The body's own widths, from its roles (none known: every bone is a limb)."""

    torso: frozenset[int]
    neck: frozenset[int]
    pelvis: frozenset[int]
    torso_radius: float
    head: int
    shoulders: FloatArray | None = None

    @classmethod
    def of(cls, skeleton: Skeleton, rest: FloatArray, roles: JointRoles | None) -> _Sizes:
        joints = roles.joints if roles is not None else {}
        left, right = joints.get("left_upper_leg"), joints.get("right_upper_leg")
        if left is None or right is None or "hips" not in joints:
            return cls(frozenset(), frozenset(), frozenset(), 0.0, -1)
        width = float(np.linalg.norm(rest[left] - rest[right]))
        hips, head = joints["hips"], joints.get("head", -1)
        top = head if head >= 0 else joints.get("chest", joints.get("spine", hips))
        chain = _chain(skeleton, top, hips)
        arms = [joints[r] for r in ("left_upper_arm", "right_upper_arm") if r in joints]
        below = set().union(*(_chain(skeleton, a, hips) for a in arms)) if arms else chain
        torso, neck = chain & below, chain - below  # the neck: above where the arms branch
        pelvis = (_chain(skeleton, left, hips) | _chain(skeleton, right, hips)) - {hips}
        radius = float(np.clip(TORSO_SHARE * width, TORSO_MIN_M, TORSO_MAX_M))
        line = np.mean(rest[arms], axis=0) if arms else None
        return cls(frozenset(torso), frozenset(neck), frozenset(pelvis), radius, head, line)

    def radius(self, parent: int, joint: int, length: float) -> float:
        """The radius of the limb from ``parent`` to ``joint``, ``length`` metres long."""
        if parent in self.torso and joint in self.torso:
            return self.torso_radius
        if parent in self.torso | self.neck and joint in self.neck:
            return NECK_SHARE * self.torso_radius
        if parent in self.torso and joint in self.pelvis:
            return 0.8 * self.torso_radius
        return bone_radius(length)

    def shoulder_on(self, start: FloatArray, end: FloatArray) -> float | None:
        """How far along the bone ``start`` → ``end`` (metres) the shoulders' line is,
        when it crosses the bone away from its ends (:data:`SHOULDER_MARGIN_M`)."""
        if self.shoulders is None:
            return None
        length = float(np.linalg.norm(end - start))
        along = float(np.dot(self.shoulders - start, end - start)) / length
        return along if SHOULDER_MARGIN_M < along < length - SHOULDER_MARGIN_M else None

    def joint_share(self, joint: int) -> float:
        """A joint's sphere's radius as a share of the thinnest limb it joins: the
        torso's whole, so that its short bones read as one body."""
        return 1.0 if joint in self.torso else JOINT_SHARE

    def head_radius(self, length: float) -> float:
        return float(np.clip(HEAD_SHARE * length, HEAD_MIN_M, HEAD_MAX_M))


@dataclass(frozen=True)
class Part:
    """A piece of a skinned body: ``positions`` and ``normals`` ``[V, 3]``, ``triangles``
    ``[T, 3]``, ``joints`` and ``weights`` ``[V, 4]`` (also the pieces of a user's
    character, :mod:`motioncore.character.rig_mesh`)."""

    positions: FloatArray
    normals: FloatArray
    triangles: IntArray
    joints: IntArray
    weights: FloatArray


def _unit_sphere(radius: float) -> tuple[FloatArray, IntArray]:
    """``[V, 3]`` points of a UV sphere (poles on ±Z) and its triangles, as finely
    divided as a part ``radius`` metres thick deserves."""
    rings, segments = (
        (RINGS, SEGMENTS) if radius >= SMALL_RADIUS_M else (SMALL_RINGS, SMALL_SEGMENTS)
    )
    return _uv_sphere(rings, segments)


@cache
def _uv_sphere(rings: int, segments: int) -> tuple[FloatArray, IntArray]:
    theta = np.linspace(0.0, np.pi, rings + 1)
    phi = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    points = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], -1)
    points = points.reshape(-1, 3)
    tris = []
    for r in range(rings):
        for s in range(segments):
            a, b = r * segments + s, r * segments + (s + 1) % segments
            c, d = a + segments, b + segments
            if r > 0:
                tris.append((a, c, b))
            if r < rings - 1:
                tris.append((b, c, d))
    points.flags.writeable = False
    return points, np.asarray(tris, dtype=np.int64)


def _frame(axis: FloatArray) -> FloatArray:
    """``[3, 3]`` columns: two unit vectors across ``axis`` and ``axis`` itself (Z)."""
    z = axis / np.linalg.norm(axis)
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.stack([x, np.cross(z, x), z], axis=1)


def _limb(
    start: FloatArray,
    end: FloatArray,
    radius: float,
    parent: int,
    joint: int,
    grand: int,
    *,
    blend_end: bool = True,
) -> Part:
    """The ellipsoid of the bone ``start`` → ``end`` (rest positions), moved by ``parent``,
    blending into ``joint`` at its end (unless ``blend_end`` is false) and into
    ``grand`` (when there is one, ``-1`` for none) at its start."""
    unit, tris = _unit_sphere(radius)
    length = float(np.linalg.norm(end - start))
    half = length * (0.5 + OVERLAP_SHARE)
    axes = np.array([radius, radius, half])
    frame = _frame(end - start)
    positions = (start + end) / 2.0 + (unit * axes) @ frame.T
    normals = (unit / axes) @ frame.T
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    along = np.clip(((positions - start) @ frame[:, 2]) / length, 0.0, 1.0)
    to_end = 0.5 * _smooth((along - (1.0 - BLEND_SHARE)) / BLEND_SHARE) * float(blend_end)
    to_start = 0.5 * _smooth((BLEND_SHARE - along) / BLEND_SHARE) if grand >= 0 else 0 * along
    joints = np.zeros((len(unit), 4), dtype=np.int64)
    weights = np.zeros((len(unit), 4))
    joints[:, 0], joints[:, 1], joints[:, 2] = parent, joint, max(grand, 0)
    weights[:, 0], weights[:, 1], weights[:, 2] = 1.0 - to_end - to_start, to_end, to_start
    return Part(positions, normals, tris, joints, weights)


def _sphere(centre: FloatArray, radius: float, joint: int) -> Part:
    unit, tris = _unit_sphere(radius)
    joints = np.zeros((len(unit), 4), dtype=np.int64)
    joints[:, 0] = joint
    weights = np.zeros((len(unit), 4))
    weights[:, 0] = 1.0
    return Part(centre + radius * unit, unit.copy(), tris, joints, weights)


def _smooth(x: FloatArray) -> FloatArray:
    t = np.clip(x, 0.0, 1.0)
    return np.asarray(t * t * (3.0 - 2.0 * t))


def joined(parts: list[Part], inverse_bind: FloatArray) -> SkinnedMesh:
    """One mesh of ``parts`` (triangles renumbered), skinned with ``inverse_bind``."""
    offsets = np.cumsum([0] + [len(p.positions) for p in parts[:-1]])
    return SkinnedMesh(
        positions=np.concatenate([p.positions for p in parts]),
        normals=np.concatenate([p.normals for p in parts]),
        triangles=np.concatenate([p.triangles + o for p, o in zip(parts, offsets, strict=True)]),
        joints=np.concatenate([p.joints for p in parts]),
        weights=np.concatenate([p.weights for p in parts]),
        inverse_bind=inverse_bind,
    )
