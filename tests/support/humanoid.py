"""A tiny humanoid skeleton for analytic motions."""

from __future__ import annotations

import numpy as np

from motioncore.clip import Skeleton

TINY_HUMANOID_JOINTS: tuple[tuple[str, int, tuple[float, float, float]], ...] = (
    ("Hips", -1, (0.0, 1.0, 0.0)),
    ("Spine", 0, (0.0, 0.1, 0.0)),
    ("Chest", 1, (0.0, 0.2, 0.0)),
    ("Neck", 2, (0.0, 0.2, 0.0)),
    ("Head", 3, (0.0, 0.1, 0.0)),
    ("LeftShoulder", 2, (0.05, 0.15, 0.0)),
    ("LeftArm", 5, (0.15, 0.0, 0.0)),
    ("LeftForeArm", 6, (0.3, 0.0, 0.0)),
    ("LeftHand", 7, (0.25, 0.0, 0.0)),
    ("RightShoulder", 2, (-0.05, 0.15, 0.0)),
    ("RightArm", 9, (-0.15, 0.0, 0.0)),
    ("RightForeArm", 10, (-0.3, 0.0, 0.0)),
    ("RightHand", 11, (-0.25, 0.0, 0.0)),
    ("LeftUpLeg", 0, (0.1, 0.0, 0.0)),
    ("LeftLeg", 13, (0.0, -0.45, 0.0)),
    ("LeftFoot", 14, (0.0, -0.45, 0.0)),
    ("LeftToeBase", 15, (0.0, -0.05, 0.12)),
    ("RightUpLeg", 0, (-0.1, 0.0, 0.0)),
    ("RightLeg", 17, (0.0, -0.45, 0.0)),
    ("RightFoot", 18, (0.0, -0.45, 0.0)),
    ("RightToeBase", 19, (0.0, -0.05, 0.12)),
)
"""``(name, parent index, rest offset in metres)`` of a 21-joint humanoid whose roles all
resolve by name; +Z is its facing (left upper leg at +X, head up)."""


def tiny_humanoid() -> Skeleton:
    """:data:`TINY_HUMANOID_JOINTS` as a skeleton: the root has six channels, the rest three."""
    joints = TINY_HUMANOID_JOINTS
    return Skeleton(
        names=tuple(n for n, _, _ in joints),
        parents=np.array([p for _, p, _ in joints]),
        offsets=np.array([o for _, _, o in joints]),
        channels=(("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation"),)
        + (("Zrotation", "Xrotation", "Yrotation"),) * (len(joints) - 1),
        kinds=tuple("ROOT" if p < 0 else "JOINT" for _, p, _ in joints),
    )


def chain_skeleton() -> Skeleton:
    """Hips (a root with positions, rotations ZXY), a chest 1 m above it and an end site
    0.5 m along the chest's +Z."""
    return Skeleton(
        names=("Hips", "Chest", "Chest_End"),
        parents=np.array([-1, 0, 1], dtype=np.int64),
        offsets=np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.5]]),
        channels=(
            ("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation"),
            ("Zrotation", "Xrotation", "Yrotation"),
            (),
        ),
        kinds=("ROOT", "JOINT", "End Site"),
    )
