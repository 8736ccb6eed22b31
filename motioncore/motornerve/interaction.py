"""Which frames of a clip tagged ``interact`` interact, and how strongly (seed 001 §2.2:
the action one-hot's fourth entry and the interaction strength of the intent vector).

The permissive corpus's interactions are pick-ups, a scoop-up and reaches: the body
leaves its carriage — the hips drop, or a hand leaves where the clip carries it — and
comes back. :func:`labels` marks that motion from its onset to its end, each mark with
one strength.

Shapes: ``F`` frames at the clip's rate; ``face [F]`` heading angles in radians
(:func:`motioncore.motornerve.state.encode`); distances in metres.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from motioncore import contacts, fk
from motioncore.clip import Clip
from motioncore.motornerve import state
from motioncore.skeleton import canonical

FloatArray = NDArray[np.float64]

HIPS_DROP_M = 0.12
"""A tagged clip interacts where its hips are this much below their standing height…"""
HAND_REACH_M = 0.25
"""…or a hand this far from where the clip carries it (heading frame, from the hips)."""
STRENGTH_FULL_M = 0.5
"""The drop or reach that is a full-strength (1.0) interaction."""
INTERACTION_SMOOTHING_S = 0.25
"""Interaction marks shorter than this are dropped, gaps shorter than it filled."""
ONSET_FRACTION = 0.25
"""An interaction starts where the body was last in its carriage: the drop and the reach
both under this fraction of :data:`HIPS_DROP_M` and :data:`HAND_REACH_M`; it ends where
they are back under it."""
ONSET_MOST_S = 1.0
"""…looking at most this far before a mark and after it."""


def _cleaned_mask(mask: NDArray[np.bool_], frames: int) -> NDArray[np.bool_]:
    return contacts.drop_short(contacts.fill_gaps(mask, frames), frames)


def labels(clip: Clip, face: FloatArray) -> tuple[NDArray[np.bool_], FloatArray]:
    """Interacting frames ``[F]`` of a tagged canonical clip and their strength ``[F]``
    (0-1).

    A mark is where the hips are below their standing height (their 90th percentile) by
    :data:`HIPS_DROP_M`, or a hand :data:`HAND_REACH_M` from its median place relative
    to the hips in the heading frame (cleaned by :data:`INTERACTION_SMOOTHING_S`). Each
    mark is widened to the motion's onset and end (:data:`ONSET_FRACTION`,
    :data:`ONSET_MOST_S`): marked from its threshold on, a pick-up's label arrived with
    the hips already 3-13 cm down, so a network never saw "interact" asked of a body
    still upright, which is what a user's key asks. Its strength is the mark's largest
    drop or reach over :data:`STRENGTH_FULL_M`, the same over the mark (a user asks
    for one strength, not one that grows with the bend)."""
    positions = fk.positions(clip)
    hips = positions[:, 0]
    drop = np.percentile(hips[:, 1], 90.0) - hips[:, 1]
    reach = np.zeros(clip.num_frames)
    for side in ("left", "right"):
        hand = positions[:, canonical.JOINT_OF_ROLE[f"{side}_hand"]] - hips
        ground = state.rotate_ground(hand[:, [0, 2]], -face)
        local = np.stack([ground[:, 0], hand[:, 1], ground[:, 1]], axis=-1)
        reach = np.maximum(reach, np.linalg.norm(local - np.median(local, axis=0), axis=-1))
    raw = (drop >= HIPS_DROP_M) | (reach >= HAND_REACH_M)
    marked = _cleaned_mask(raw, max(round(INTERACTION_SMOOTHING_S * clip.fps), 1))
    carried = np.maximum(drop / HIPS_DROP_M, reach / HAND_REACH_M) <= ONSET_FRACTION
    most = round(ONSET_MOST_S * clip.fps)
    mask = np.zeros(clip.num_frames, dtype=bool)
    strength = np.zeros(clip.num_frames)
    full = np.clip(np.maximum(drop, reach) / STRENGTH_FULL_M, 0.0, 1.0)
    for start, stop in contacts.segments(marked):
        first, last = _widened(carried, start, stop, most)
        mask[first:last] = True
        strength[first:last] = np.maximum(strength[first:last], full[start:stop].max())
    return mask, strength


def _widened(carried: NDArray[np.bool_], start: int, stop: int, most: int) -> tuple[int, int]:
    """``(first, last)``: the mark ``[start, stop)`` from the last ``carried`` frame
    before it to the first after it, at most ``most`` frames either side."""
    before = np.flatnonzero(carried[max(start - most, 0) : start])
    first = max(start - most, 0) + int(before[-1]) if before.size else max(start - most, 0)
    after = np.flatnonzero(carried[stop : stop + most])
    last = stop + int(after[0]) + 1 if after.size else min(stop + most, carried.size)
    return first, last
