"""Which of a clip's bones are body parts.

A rig may hang its hips on a carrier root with a translation (Bandai Namco's
``joint_Root`` on the floor, whose child, the hips, carries every position channel): the
"bone" from the carrier to the hips is a translation, not a limb, and a character drawn
with it has a pole through the floor. :func:`translated_bones` finds such bones by what
tells them from limbs: a bone of a rigid body keeps its length, and no body part stays
fixed in the world, neither moving nor turning, while the part it carries moves (a
carrier root that never moves under hips that sway a few centimetres keeps the "bone"
about the same length; a pelvis root pinned in place still turns).

Conventions: ``F`` frames, ``J`` joints; metres.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, quat
from motioncore.clip import Clip

STRETCH_M = 0.01
"""A bone whose length changes by more than this over the clip (metres) is a translation;
so is one from a root that moves less than this and turns less than :data:`TURN_RAD` to a
joint that moves more."""

TURN_RAD = np.radians(1.0)
"""A root that turns less than this over the clip (radians, from its first frame's
rotation) does not turn."""


def translated_bones(clip: Clip) -> frozenset[int]:
    """The joints whose bone from their parent changes length by more than
    :data:`STRETCH_M` over ``clip``, or hangs from a root that stays within
    :data:`STRETCH_M` of one place while the joint moves more (roots have no bone and
    are never named)."""
    rotations = quat.normalize(clip.rotations)  # [F, J, 4] w, x, y, z
    cosine = np.abs(np.einsum("fjk,jk->fj", rotations, rotations[0]))
    turn = 2.0 * np.arccos(np.clip(cosine.min(axis=0), -1.0, 1.0))
    return bones_stretching(fk.positions(clip), clip.skeleton.parents, turn)


def bones_stretching(
    positions: NDArray[np.floating], parents: NDArray[np.integer], turn: NDArray[np.floating]
) -> frozenset[int]:
    """:func:`translated_bones` from world positions ``[F, J, 3]`` (metres), ``parents``
    ``[J]`` and ``turn`` ``[J]``, the most each joint turns from its first frame (radians)."""
    child = np.flatnonzero(parents >= 0)
    lengths = np.linalg.norm(positions[:, child] - positions[:, parents[child]], axis=-1)
    stretch = lengths.max(axis=0) - lengths.min(axis=0)
    travel = np.ptp(positions, axis=0).max(axis=-1)  # [J] the largest extent on one axis
    parent = parents[child]
    still = (parents[parent] < 0) & (travel[parent] <= STRETCH_M) & (turn[parent] < TURN_RAD)
    carried = still & (travel[child] > STRETCH_M)
    return frozenset(int(j) for j in child[(stretch > STRETCH_M) | carried])
