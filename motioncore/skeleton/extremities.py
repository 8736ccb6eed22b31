"""Rigs that stop at the wrist: a hand joint where the rig has only the forearm's end.

Some rigs (Blender-style captures such as ReActIdle's) end each arm in the forearm's
``End Site``: the wrist's position is known, but there is no hand joint, so the rig is
not a complete humanoid (:attr:`motioncore.skeleton.JointRoles.is_humanoid`) and
cannot be retargeted. :func:`with_hands` turns that end site into a hand joint (named
``LeftHand`` / ``RightHand``, rotation channels, the identity rotation on every frame:
the hand carried straight on from the forearm) with an end site of its own
:data:`HAND_OF_FOREARM` of the forearm's length further along the same line.
Nothing is guessed about the motion: the wrist moves exactly as the file says.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from motioncore.clip import Clip, Skeleton
from motioncore.skeleton.roles import JointRoles, infer

HAND_OF_FOREARM = 0.3
"""The added hand's length over the forearm's (adult proportions: about 0.7 of the
forearm from wrist to fingertip, half of it to the knuckles)."""
_HAND_CHANNELS = ("Zrotation", "Xrotation", "Yrotation")


def _wrist_end(skeleton: Skeleton, roles: JointRoles, side: str) -> int | None:
    """The forearm's only child when it is an end site and the hand is unresolved."""
    forearm = roles.joints.get(f"{side}_forearm")
    if f"{side}_hand" in roles.joints or forearm is None:
        return None
    children = skeleton.children(forearm)
    if len(children) != 1 or not skeleton.end_site[children[0]]:
        return None
    return int(children[0])


def with_hands(clip: Clip, roles: JointRoles | None = None) -> Clip:
    """``clip`` with a hand joint at each wrist end (module docstring); unchanged when
    both hands are there or an arm does not end in the forearm's end site."""
    roles = roles if roles is not None else infer(clip.skeleton)
    ends = {
        side: end
        for side in ("left", "right")
        if (end := _wrist_end(clip.skeleton, roles, side)) is not None
    }
    if not ends:
        return clip
    skeleton = clip.skeleton
    order: list[int] = []  # old index per new joint, -1 for an added end site
    for joint in range(skeleton.num_joints):
        order.append(joint)
        if joint in ends.values():
            order.append(-1 - joint)
    new_of_old = {old: new for new, old in enumerate(order) if old >= 0}
    names, parents, offsets, channels, kinds = [], [], [], [], []
    for new, old in enumerate(order):
        if old >= 0:
            side = next((s for s, e in ends.items() if e == old), None)
            names.append(skeleton.names[old] if side is None else f"{side.title()}Hand")
            parent = int(skeleton.parents[old])
            parents.append(-1 if parent < 0 else new_of_old[parent])
            offsets.append(skeleton.offsets[old])
            channels.append(skeleton.channels[old] if side is None else _HAND_CHANNELS)
            kinds.append(skeleton.kinds[old] if side is None else "JOINT")
        else:
            wrist = -1 - old
            names.append(f"{names[new - 1]}_End")
            parents.append(new - 1)
            offsets.append(skeleton.offsets[wrist] * HAND_OF_FOREARM)
            channels.append(())
            kinds.append("End Site")
    source = [max(old, -1 - old) for old in order]
    added = np.array([old < 0 for old in order])
    rotations = clip.rotations[:, source].copy()
    rotations[:, added] = (1.0, 0.0, 0.0, 0.0)
    translations = clip.translations[:, source].copy()
    translations[:, added] = np.array(offsets)[added]
    rig = Skeleton(
        tuple(names),
        np.array(parents, dtype=np.int64),
        np.array(offsets, dtype=np.float64),
        tuple(channels),
        tuple(kinds),
    )
    modes = clip.source.position_modes
    source_format = replace(
        clip.source,
        position_modes=tuple(modes[i] if i >= 0 else "add" for i in order) if modes else (),
    )
    return Clip(rig, rotations, translations, clip.fps, source_format, dict(clip.meta))
