"""The mannequin a player draws a skeleton with: made from the skeleton it is sent
(:func:`motioncore.character.mannequin.mannequin`) and answered as a GLB without
animation (:func:`motioncore.character.glb.rest_glb_bytes`); the player poses it
(``static/js/viewer/mannequin.js``). Nothing is stored. A skeleton asked for again
(every page that plays the same rig) is answered from a small in-process cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from motioncore.character.glb import rest_glb_bytes
from motioncore.character.mannequin import mannequin
from motioncore.clip import JointKind, Skeleton
from webapp.core.errors import ServiceError

MAX_JOINTS = 1024
"""The most joints a mannequin's skeleton may have (the BVH reader's own limit is lower)."""
MAX_OFFSET_M = 100.0
"""The longest rest offset a mannequin's skeleton may have, metres, on any axis."""
CACHED = 64
"""Mannequins kept per process (a GLB is 0.3-2 MB)."""
ROTATION_CHANNELS = ("Zrotation", "Xrotation", "Yrotation")


@dataclass(frozen=True)
class SkeletonSpec:
    """A skeleton as a player has it (its viewer arrays: ``kinetograph-viewer/1``).

    Attributes:
        names: ``[J]`` joint names.
        parents: ``[J]`` parent index, -1 for roots; parents precede children.
        offsets: ``[J × 3]`` rest offsets, metres, in the parent's frame (flat).
        end_site: ``[J]`` whether each joint is an end site.
        hidden: joints whose bone from their parent is not drawn (a carrier root's
            translation).
    """

    names: tuple[str, ...]
    parents: tuple[int, ...]
    offsets: tuple[float, ...]
    end_site: tuple[bool, ...]
    hidden: tuple[int, ...] = ()


def mannequin_glb(spec: SkeletonSpec) -> bytes:
    """The mannequin of ``spec`` as GLB bytes (cached per skeleton).

    Raises:
        ServiceError: 400 ``invalid_skeleton`` naming what is wrong, or
            ``no_mannequin`` when the skeleton has no bone to make a body of.
    """
    _check(spec)
    return _made(spec)


@lru_cache(maxsize=CACHED)
def _made(spec: SkeletonSpec) -> bytes:
    skeleton = _skeleton(spec)
    try:
        body = mannequin(skeleton, skip=frozenset(spec.hidden))
    except ValueError as error:
        raise ServiceError(
            f"No mannequin for this skeleton: {error}", code="no_mannequin"
        ) from error
    return rest_glb_bytes(skeleton, body)


def _skeleton(spec: SkeletonSpec) -> Skeleton:
    kinds: list[JointKind] = [
        "ROOT" if parent < 0 else "End Site" if end else "JOINT"
        for parent, end in zip(spec.parents, spec.end_site, strict=True)
    ]
    return Skeleton(
        names=spec.names,
        parents=np.asarray(spec.parents, dtype=np.int64),
        offsets=np.asarray(spec.offsets, dtype=np.float64).reshape(-1, 3),
        channels=tuple(() if end else ROTATION_CHANNELS for end in spec.end_site),
        kinds=tuple(kinds),
    )


def _check(spec: SkeletonSpec) -> None:
    joints = len(spec.names)
    problems = [
        *_sizes(spec, joints),
        *(
            f"parents[{j}] = {p}: a parent must be -1 or an earlier joint"
            for j, p in enumerate(spec.parents)
            if not -1 <= p < j
        ),
        *(
            f"offsets[{i}] = {v}: not a finite number within ±{MAX_OFFSET_M:g} m"
            for i, v in enumerate(spec.offsets)
            if not abs(v) <= MAX_OFFSET_M
        ),
        *(
            f"hidden names joint {j}, which does not exist"
            for j in spec.hidden
            if not 0 <= j < joints
        ),
    ]
    if len(set(spec.names)) != joints:
        problems.append("joint names must be unique")
    if problems:
        raise ServiceError(
            f"Not a skeleton to make a mannequin of: {problems[0]}.",
            code="invalid_skeleton",
            details={"problems": problems[:20]},
        )


def _sizes(spec: SkeletonSpec, joints: int) -> Sequence[str]:
    if not 1 <= joints <= MAX_JOINTS:
        return [f"{joints} joints: a skeleton has 1 to {MAX_JOINTS}"]
    wrong = [
        f"{field} holds {len(values)} values, not {expected}"
        for field, values, expected in (
            ("parents", spec.parents, joints),
            ("offsets", spec.offsets, 3 * joints),
            ("end_site", spec.end_site, joints),
        )
        if len(values) != expected
    ]
    return wrong
