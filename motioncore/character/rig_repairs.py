"""Repairs that let a character made for inverse kinematics be read as a humanoid
(:func:`motioncore.character.rig.read_rig`): feet that hang from the root instead of
their legs, hands that are a palm bone per finger. Each one is noted in the report's
warnings (hands) or changes only the hierarchy (feet: the body is posed by the joints'
world positions)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from motioncore.clip import Skeleton
from motioncore.skeleton.names import classify
from motioncore.skeleton.roles import JointRoles

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def feet_on_legs(gltf: Any, joints: list[int], node_parent: IntArray) -> IntArray:
    """The node tree with each foot that hangs from somewhere else than its leg (an IK
    target under the root, as rigs made for inverse kinematics have it) moved under the
    lower leg of its side, when that lower leg ends without a joint below it. The body
    is posed by the joints' world positions, so only the hierarchy changes."""
    kinds = {node: classify(gltf.nodes[node].name or "") for node in joints}
    parent = node_parent.copy()
    inside = set(joints)

    def chain(node: int) -> list[int]:
        found = []
        while parent[node] >= 0:
            node = int(parent[node])
            found.append(node)
        return found

    for foot in joints:
        side = kinds[foot].side
        if "foot" not in kinds[foot].kinds() or side is None:
            continue
        if any("lower_leg" in kinds[n].kinds() for n in chain(foot) if n in inside):
            continue
        legs = [
            n
            for n in joints
            if "lower_leg" in kinds[n].kinds()
            and kinds[n].side == side
            and not any(int(parent[c]) == n for c in inside)
        ]
        if len(legs) == 1:
            parent[foot] = legs[0]
    return parent


def stand_in_hands(
    skeleton: Skeleton, rest: FloatArray, roles: JointRoles, warnings: list[str]
) -> dict[str, str]:
    """For a forearm with no hand joint but several branches below it (a palm bone per
    finger), the branch nearest their mean direction stands in for the hand (a role
    override, noted in ``warnings``)."""
    found: dict[str, str] = {}
    for side in ("left", "right"):
        forearm = roles.joints.get(f"{side}_forearm")
        if forearm is None or f"{side}_hand" in roles.joints:
            continue
        branches = [int(c) for c in skeleton.children(forearm)]
        if len(branches) < 2:
            continue
        directions = rest[branches] - rest[forearm]
        mean = directions.mean(axis=0)
        middle = branches[int(np.argmax(directions @ mean))]
        found[f"{side}_hand"] = skeleton.names[middle]
        warnings.append(
            f"{side}_hand: the forearm {skeleton.names[forearm]} has no hand joint; "
            f"its middle branch {skeleton.names[middle]} stands in"
        )
    return found
