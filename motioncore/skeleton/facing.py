"""Which way a skeleton faces: its reference joint, forward axis and heading.

**Heading.** The reference joint is the pelvis (``hips`` role, else the first
root). Its forward axis, in its own frame, is ``left × up`` of the rest pose
(``left``: right to left upper leg; ``up``: hips to neck or head; +Z when the
roles are missing). The heading is the angle about +Y of that axis turned to
the world and projected on the ground: ``atan2(f_x, f_z)``, 0 facing +Z.

Used by the transitions' root alignment (:mod:`motioncore.transition.alignment`),
the analyses that compare headings and the PFNN's heading frames.

Conventions: metres, radians, Y up, quaternions ``(w, x, y, z)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore import fk, quat
from motioncore.clip import Skeleton
from motioncore.skeleton.roles import JointRoles, infer

FloatArray = NDArray[np.float64]

UP = np.array([0.0, 1.0, 0.0])
_DEGENERATE = 1e-9


def reference_joint(skeleton: Skeleton, roles: JointRoles | None = None) -> int:
    """The joint whose heading and ground position define the character's: the
    ``hips`` role, else the first root."""
    roles = infer(skeleton) if roles is None else roles
    hips = roles.get("hips")
    return int(skeleton.roots[0]) if hips is None else hips


def forward_axis(skeleton: Skeleton, roles: JointRoles | None = None) -> FloatArray:
    """Unit forward axis ``[3]`` in the reference joint's frame (see the module docstring)."""
    roles = infer(skeleton) if roles is None else roles
    rest = fk.rest_positions(skeleton.offsets, skeleton.parents)
    hips = reference_joint(skeleton, roles)
    left_leg, right_leg = roles.get("left_upper_leg"), roles.get("right_upper_leg")
    top = next((j for j in (roles.get("neck"), roles.get("head")) if j is not None), None)
    left = (
        np.array([1.0, 0.0, 0.0])
        if None in (left_leg, right_leg)
        else rest[left_leg] - rest[right_leg]
    )
    up = UP if top is None else rest[top] - rest[hips]
    forward = np.cross(left, up)
    norm = float(np.linalg.norm(forward))
    return forward / norm if norm > _DEGENERATE else np.array([0.0, 0.0, 1.0])


def heading(q: ArrayLike, forward: ArrayLike = (0.0, 0.0, 1.0)) -> FloatArray:
    """Heading ``[...]`` (radians about +Y, 0 facing +Z) of global rotations ``q [..., 4]``
    whose local ``forward [3]`` axis is the facing direction."""
    f = quat.rotate(
        q, np.broadcast_to(np.asarray(forward, dtype=np.float64), (*np.shape(q)[:-1], 3))
    )
    return np.asarray(np.arctan2(f[..., 0], f[..., 2]), dtype=np.float64)


def yaw(angle: ArrayLike) -> FloatArray:
    """Quaternions ``[..., 4]`` turning by ``angle [...]`` radians about +Y."""
    angle = np.asarray(angle, dtype=np.float64)
    return quat.from_axis_angle(np.broadcast_to(UP, (*angle.shape, 3)), angle)
