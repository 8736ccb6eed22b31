"""The validation report of a character (:func:`motioncore.character.rig.read_rig`), as
a BVH upload has one: what was found, what it means, and what to check.

Keys: ``joints`` (count), ``joint_names``, ``roles`` (:meth:`JointRoles.as_dict`:
role → joint name, how each was found, what is unresolved), ``height_m`` (the body at
rest, floor to top), ``up_axis`` (glTF's Y, and whether the body stands along it),
``rest_pose`` (``"T-pose"``, ``"A-pose"`` or ``"arms down"``, from the upper arms'
angle below the horizontal, ``arm_angle_deg``), ``vertices``, ``triangles``,
``animations`` (in the file; not used), ``warnings``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from motioncore.character.mannequin import SkinnedMesh
from motioncore.clip import Skeleton
from motioncore.skeleton.roles import JointRoles

T_POSE_DEG = 20.0
"""Upper arms less than this below the horizontal: a T-pose."""
A_POSE_DEG = 60.0
"""Less than this (and not a T-pose): an A-pose; more: arms down."""
HEIGHT_RANGE_M = (0.5, 3.0)
"""A human character's height outside this is reported as a possible unit problem."""


def rig_report(
    skeleton: Skeleton,
    rest: NDArray[np.float64],
    mesh: SkinnedMesh,
    roles: JointRoles,
    warnings: list[str],
    *,
    animations: int,
) -> dict[str, Any]:
    """The report (see the module docstring); ``rest [J, 3]``: joints at rest, metres."""
    low, high = mesh.positions.min(axis=0), mesh.positions.max(axis=0)
    height = float(high[1] - low[1])
    notes = list(warnings)
    if not HEIGHT_RANGE_M[0] <= height <= HEIGHT_RANGE_M[1]:
        notes.append(f"the body is {height:.2f} m tall: check the file's unit (glTF is in metres)")
    hips, head = roles.joints["hips"], roles.joints["head"]
    upright = bool(rest[head, 1] > rest[hips, 1])
    if not upright:
        notes.append(
            "the head is not above the hips at rest: the character does not stand along +Y"
        )
    angle = _arm_angle_deg(rest, roles)
    return {
        "joints": skeleton.num_joints,
        "joint_names": list(skeleton.names),
        "roles": roles.as_dict(skeleton.names),
        "height_m": round(height, 3),
        "up_axis": {"axis": "Y", "standing": upright},
        "rest_pose": _pose_name(angle),
        "arm_angle_deg": None if angle is None else round(angle, 1),
        "vertices": len(mesh.positions),
        "triangles": len(mesh.triangles),
        "animations": animations,
        "warnings": notes,
    }


def _arm_angle_deg(rest: NDArray[np.float64], roles: JointRoles) -> float | None:
    """The upper arms' mean angle below the horizontal at rest, degrees."""
    angles = []
    for side in ("left", "right"):
        upper, fore = roles.joints.get(f"{side}_upper_arm"), roles.joints.get(f"{side}_forearm")
        if upper is None or fore is None:
            continue
        bone = rest[fore] - rest[upper]
        length = float(np.linalg.norm(bone))
        if length > 1e-6:
            angles.append(float(np.degrees(np.arcsin(np.clip(-bone[1] / length, -1.0, 1.0)))))
    return float(np.mean(angles)) if angles else None


def _pose_name(angle: float | None) -> str:
    if angle is None:
        return "unknown"
    if angle < T_POSE_DEG:
        return "T-pose"
    return "A-pose" if angle < A_POSE_DEG else "arms down"
