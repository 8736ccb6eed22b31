"""Same skeleton, other joint order: put a clip's joints in another skeleton's order.

Two BVH files of one rig may list the joints in a different order (GAMES-105's
``walk_forward`` and ``run_forward`` declare the legs and the spine in opposite
orders). They are the same skeleton when every joint name appears once in each
and has the same parent name; :func:`reorder_like` then permutes the clip's
arrays (rotations, translations, offsets, channels, kinds, position modes) into
the other skeleton's order, so that blending and comparing can index joints
alike. The motion itself is unchanged (forward kinematics gives the same world
positions per joint name).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from motioncore.clip import Clip, Skeleton
from motioncore.errors import MotionCoreError

IntArray = NDArray[np.int64]


def _edges(skeleton: Skeleton) -> dict[str, str | None]:
    """Joint name → parent name (``None`` for roots)."""
    names = skeleton.names
    return {
        names[j]: (names[p] if p >= 0 else None) for j, p in enumerate(skeleton.parents.tolist())
    }


def mismatch(a: Skeleton, b: Skeleton) -> str | None:
    """Why ``b`` is not ``a``'s skeleton up to joint order (a sentence), ``None`` if it is."""
    if a.num_joints != b.num_joints:
        return f"{a.num_joints} joints against {b.num_joints}"
    if len(set(a.names)) != a.num_joints or len(set(b.names)) != b.num_joints:
        return "joint names repeat, so joints cannot be matched by name"
    edges_a, edges_b = _edges(a), _edges(b)
    missing = [n for n in a.names if n not in edges_b]
    if missing:
        return f"joint {missing[0]!r} is missing from the second skeleton"
    moved = [n for n in a.names if edges_a[n] != edges_b[n]]
    if moved:
        n = moved[0]
        return f"joint {n!r} hangs from {edges_a[n]!r} in one and {edges_b[n]!r} in the other"
    return None


def permutation(a: Skeleton, b: Skeleton) -> IntArray:
    """``[J]`` index into ``b``'s joints for each of ``a``'s joints (by name).

    Raises:
        MotionCoreError: the skeletons differ beyond joint order (:func:`mismatch`).
    """
    why = mismatch(a, b)
    if why is not None:
        raise MotionCoreError(f"clips have different skeletons: {why}")
    index = {name: j for j, name in enumerate(b.names)}
    return np.array([index[name] for name in a.names], dtype=np.int64)


def reorder_like(clip: Clip, skeleton: Skeleton) -> Clip:
    """``clip`` with its joints in ``skeleton``'s order (the clip itself if already so).

    Raises:
        MotionCoreError: the skeletons differ beyond joint order.
    """
    order = permutation(skeleton, clip.skeleton)
    if np.array_equal(order, np.arange(order.shape[0])):
        return clip
    sk = clip.skeleton
    new_skeleton = Skeleton(
        names=tuple(sk.names[j] for j in order),
        parents=skeleton.parents.copy(),
        offsets=sk.offsets[order],
        channels=tuple(sk.channels[j] for j in order),
        kinds=tuple(sk.kinds[j] for j in order),
    )
    modes = clip.source.position_modes
    source = (
        replace(clip.source, position_modes=tuple(modes[j] for j in order))
        if len(modes) == sk.num_joints
        else clip.source
    )
    return replace(
        clip,
        skeleton=new_skeleton,
        rotations=clip.rotations[:, order],
        translations=clip.translations[:, order],
        source=source,
    )
