"""Root alignment of clip B onto clip A: heading, ground position, compatibility.

Used by :mod:`motioncore.transition.blend` (seed 000 §4.1 step 4 aligns the next clip's
start with the cut).

Conventions: metres, radians, Y up, quaternions ``(w, x, y, z)``; ``F`` frames,
``J`` joints. Clips are never modified. Clips joined or aligned must share the
skeleton (same joint names, parents and count) and the frame rate (within one
part in a million).

The heading of a clip is its reference joint's (:mod:`motioncore.skeleton.facing`).

**Alignment** turns B about +Y and slides it on the ground so that, at
``b_frame``, its reference joint stands where A's stands at ``a_frame`` (X, Z)
and faces the same heading; heights are untouched. It is a rigid motion, so
B's own motion is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore import fk, quat
from motioncore.clip import Clip, Skeleton
from motioncore.errors import MotionCoreError
from motioncore.skeleton import JointRoles, infer
from motioncore.skeleton.facing import forward_axis, heading, reference_joint, yaw

FloatArray = NDArray[np.float64]

_GROUND = np.array([1.0, 0.0, 1.0])
_FPS_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Alignment:
    """A rigid motion of B: turn by ``yaw_rad`` about +Y around ``pivot_m`` then move
    ``pivot_m`` to ``target_m`` (``[3]`` world points on the ground, Y = 0)."""

    yaw_rad: float
    pivot_m: FloatArray
    target_m: FloatArray

    @property
    def rotation(self) -> FloatArray:
        """The turn as a quaternion ``[4]``."""
        return yaw(self.yaw_rad)

    def points(self, p: ArrayLike) -> FloatArray:
        """World points ``[..., 3]`` (metres) moved with B."""
        return (
            quat.rotate(self.rotation, np.asarray(p, dtype=np.float64) - self.pivot_m)
            + self.target_m
        )

    def vectors(self, v: ArrayLike) -> FloatArray:
        """World vectors ``[..., 3]`` (velocities) turned with B."""
        return quat.rotate(self.rotation, v)

    def apply(self, clip: Clip) -> Clip:
        """``clip`` moved rigidly: every root's translation and rotation (a new clip)."""
        rotations = clip.rotations.copy()
        translations = clip.translations.copy()
        roots = clip.skeleton.roots
        translations[:, roots] = self.points(clip.translations[:, roots])
        rotations[:, roots] = quat.mul(self.rotation, clip.rotations[:, roots])
        return clip.with_arrays(rotations=rotations, translations=translations)

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "yaw_rad": self.yaw_rad,
            "pivot_m": self.pivot_m.tolist(),
            "target_m": self.target_m.tolist(),
        }


def alignment_between(
    heading_a: float, point_a: ArrayLike, heading_b: float, point_b: ArrayLike
) -> Alignment:
    """The alignment taking B's heading (radians) and reference point ``[3]`` onto A's."""
    ground_a = np.asarray(point_a, dtype=np.float64) * _GROUND
    ground_b = np.asarray(point_b, dtype=np.float64) * _GROUND
    turn = float(np.angle(np.exp(1j * (heading_a - heading_b))))
    return Alignment(turn, ground_b, ground_a)


def alignment(
    b: Clip, b_frame: int, a: Clip, a_frame: int, roles: JointRoles | None = None
) -> Alignment:
    """The rigid motion of B that puts its frame ``b_frame`` on A's frame ``a_frame``."""
    check_compatible(a, b)
    roles = infer(a.skeleton) if roles is None else roles
    ref, forward = reference_joint(a.skeleton, roles), forward_axis(a.skeleton, roles)

    def state(clip: Clip, frame: int) -> tuple[float, FloatArray]:
        index = slice(check_frame(clip, frame), check_frame(clip, frame) + 1)
        g_rot, g_pos = fk.forward(
            clip.rotations[index], clip.translations[index], clip.skeleton.parents
        )
        return float(heading(g_rot[0, ref], forward)), g_pos[0, ref]

    return alignment_between(*state(a, a_frame), *state(b, b_frame))


def align(b: Clip, b_frame: int, a: Clip, a_frame: int, roles: JointRoles | None = None) -> Clip:
    """B moved rigidly so that at ``b_frame`` it stands and faces as A does at ``a_frame``."""
    return alignment(b, b_frame, a, a_frame, roles).apply(b)


def check_compatible(a: Clip, b: Clip) -> None:
    """Raise :class:`MotionCoreError` unless A and B share skeleton and frame rate."""
    check_skeletons(a.skeleton, b.skeleton)
    if abs(a.fps - b.fps) > _FPS_TOLERANCE * a.fps:
        raise MotionCoreError(
            f"clips have different frame rates ({a.fps:g} vs {b.fps:g} Hz): resample B first"
        )


def check_skeletons(sa: Skeleton, sb: Skeleton) -> None:
    """Raise :class:`MotionCoreError` unless the skeletons have the same joints (count,
    names, parents); offsets may differ."""
    if sa.num_joints != sb.num_joints:
        raise MotionCoreError(
            f"clips have different skeletons ({sa.num_joints} vs {sb.num_joints} joints)"
        )
    if sa.names != sb.names:
        j = next(i for i, (x, y) in enumerate(zip(sa.names, sb.names, strict=True)) if x != y)
        raise MotionCoreError(
            f"clips have different skeletons (joint {j} is {sa.names[j]!r} vs {sb.names[j]!r})"
        )
    if not np.array_equal(sa.parents, sb.parents):
        raise MotionCoreError("clips have different skeletons (different joint parents)")


def check_frame(clip: Clip, frame: int) -> int:
    """``frame`` as an ``int``; raise :class:`MotionCoreError` unless it is one of ``clip``'s."""
    if not 0 <= int(frame) < clip.num_frames:
        raise MotionCoreError(f"frame {frame} is outside the clip (0..{clip.num_frames - 1})")
    return int(frame)
