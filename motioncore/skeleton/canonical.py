"""The canonical humanoid: 21 joints (one per joint role) and 5 end sites.

Every clip that PFNN learns from or generates goes through this skeleton
(:mod:`motioncore.skeleton.retarget` maps a role-resolved rig onto it and back), so the
network sees one joint order, one set of bone lengths and one rest pose.

Conventions: metres, Y up, the character faces +Z in the rest pose, its left is
+X. The rest pose (all rotations identity) is a T-pose with straight limbs, palms
down, of a 1.75 m adult; the hips stand :data:`HIPS_HEIGHT_M` above the ground
with the toes on it. Joint names follow the common BVH naming (``LeftUpLeg``,
``LeftForeArm``) so that :func:`motioncore.skeleton.infer` resolves every role.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numpy.typing import NDArray

from motioncore import fk
from motioncore.clip import JointKind, Skeleton
from motioncore.skeleton.roles import JointRoles, infer

# name, parent, role (None for end sites), rest offset from the parent (m)
_JOINTS: tuple[tuple[str, str | None, str | None, tuple[float, float, float]], ...] = (
    ("Hips", None, "hips", (0.0, 0.0, 0.0)),
    ("Spine", "Hips", "spine", (0.0, 0.10, 0.0)),
    ("Chest", "Spine", "chest", (0.0, 0.20, 0.0)),
    ("Neck", "Chest", "neck", (0.0, 0.22, 0.0)),
    ("Head", "Neck", "head", (0.0, 0.10, 0.0)),
    ("Head_End", "Head", None, (0.0, 0.18, 0.0)),
    *(
        joint
        for side, sign in (("Left", 1.0), ("Right", -1.0))
        for joint in (
            (f"{side}Shoulder", "Chest", f"{side.lower()}_shoulder", (sign * 0.03, 0.17, 0.0)),
            (f"{side}Arm", f"{side}Shoulder", f"{side.lower()}_upper_arm", (sign * 0.15, 0.0, 0.0)),
            (f"{side}ForeArm", f"{side}Arm", f"{side.lower()}_forearm", (sign * 0.28, 0.0, 0.0)),
            (f"{side}Hand", f"{side}ForeArm", f"{side.lower()}_hand", (sign * 0.25, 0.0, 0.0)),
            (f"{side}Hand_End", f"{side}Hand", None, (sign * 0.08, 0.0, 0.0)),
        )
    ),
    *(
        joint
        for side, sign in (("Left", 1.0), ("Right", -1.0))
        for joint in (
            (f"{side}UpLeg", "Hips", f"{side.lower()}_upper_leg", (sign * 0.09, -0.05, 0.0)),
            (f"{side}Leg", f"{side}UpLeg", f"{side.lower()}_lower_leg", (0.0, -0.42, 0.0)),
            (f"{side}Foot", f"{side}Leg", f"{side.lower()}_foot", (0.0, -0.42, 0.0)),
            (f"{side}Toe", f"{side}Foot", f"{side.lower()}_toe", (0.0, -0.06, 0.13)),
            (f"{side}Toe_End", f"{side}Toe", None, (0.0, 0.0, 0.06)),
        )
    ),
)

HIPS_HEIGHT_M = 0.05 + 0.42 + 0.42 + 0.06
"""Height of the hips above the ground in the rest pose (toes on the ground)."""

NAMES: tuple[str, ...] = tuple(j[0] for j in _JOINTS)
"""Joint names in the canonical order (the network's joint order)."""

ROLE_OF: dict[str, str] = {j[0]: j[2] for j in _JOINTS if j[2] is not None}
"""Joint name → role (end sites have none)."""

JOINT_OF_ROLE: dict[str, int] = {role: NAMES.index(name) for name, role in ROLE_OF.items()}
"""Role → canonical joint index."""

ROOT_CHANNELS = ("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation")
JOINT_CHANNELS = ("Zrotation", "Xrotation", "Yrotation")


@cache
def skeleton() -> Skeleton:
    """The canonical :class:`~motioncore.clip.Skeleton` (ZXY rotation channels)."""
    parents = np.array([-1 if p is None else NAMES.index(p) for _, p, _, _ in _JOINTS])
    kinds: tuple[JointKind, ...] = tuple(
        "ROOT" if p is None else ("End Site" if role is None else "JOINT")
        for _, p, role, _ in _JOINTS
    )
    channels = tuple(
        ROOT_CHANNELS if kind == "ROOT" else (() if kind == "End Site" else JOINT_CHANNELS)
        for kind in kinds
    )
    offsets = np.array([offset for *_, offset in _JOINTS], dtype=np.float64)
    offsets.setflags(write=False)
    parents.setflags(write=False)
    return Skeleton(NAMES, parents, offsets, channels, kinds)


@cache
def roles() -> JointRoles:
    """The canonical joint roles (every role resolved, by name)."""
    return infer(skeleton())


def rest_positions() -> NDArray[np.float64]:
    """``[J, 3]`` rest-pose world positions with the hips at :data:`HIPS_HEIGHT_M`."""
    out = fk.rest_positions(skeleton().offsets, skeleton().parents)
    out[:, 1] += HIPS_HEIGHT_M
    return out
