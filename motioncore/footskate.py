"""Foot-skate measurement and cleanup.

Seed 002 §3.2: after detecting contact frames, lock the foot's world position
until it lifts ("检测触地帧后锁定脚部世界坐标 ... 直到检测到抬起").

During a contact (:mod:`motioncore.contacts`) the *planted joint* is the ankle
(``foot`` role) while the ankle is planted, else the toe. Cleanup, per foot and
per contact run:

1. the planted joint's horizontal world position (X, Z) is locked: the first
   stretch of the run locks it at its mean over that stretch; when the planted
   joint changes (heel-off: ankle → toe; forefoot strike: toe → ankle) the new
   one is locked where it was on the frame before, so the lock is continuous;
2. the ankle target is the locked point (minus the current ankle→toe vector
   when the toe is planted) at the ankle's original height;
3. the leg (``upper_leg``, ``lower_leg``, ``foot``) is solved with two-bone IK
   (:func:`motioncore.ik.chain`), the knee's current position as pole, and the
   foot's local rotation is fixed so its world orientation is unchanged;
4. over ``blend_s`` before and after the run, the ankle target is its own
   position plus the correction at the run's edge, and the IK result is
   blended in and out (smoothstep weights, slerp of the three local rotations).

Nothing but the two legs' ``upper_leg``, ``lower_leg`` and ``foot`` local
rotations changes. Skate is the planted joint's horizontal displacement per
frame during contact, in centimetres (world X-Z plane).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, ik, quat
from motioncore.clip import Clip
from motioncore.contacts import Contacts, FootContacts, segments
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

_HORIZONTAL = [0, 2]
_CM_PER_M = 100.0


def planted_joint(foot: FootContacts) -> IntArray:
    """``[F]`` index of the planted joint per frame (ankle or toe), ``-1`` off contact."""
    toe = foot.toe if foot.toe is not None else foot.foot
    joint = np.where(foot.ankle, foot.foot, toe)
    return np.where(foot.contact, joint, -1).astype(np.int64)


def skate_cm_per_frame(positions: FloatArray, foot: FootContacts) -> float:
    """Mean horizontal displacement (cm per frame) of the planted joint during contact.

    Args:
        positions: ``[F, J, 3]`` world positions, metres.
        foot: the foot's contacts; a frame counts when it and the previous one
            are both in contact; the joint planted at that frame is measured.

    Returns:
        Centimetres per contact frame; ``nan`` when no frame counts.
    """
    joint = planted_joint(foot)
    counted = np.flatnonzero((joint[1:] >= 0) & (joint[:-1] >= 0)) + 1
    if counted.size == 0:
        return float("nan")
    step = positions[counted, joint[counted]] - positions[counted - 1, joint[counted]]
    return float(np.mean(np.linalg.norm(step[:, _HORIZONTAL], axis=-1)) * _CM_PER_M)


def cleanup(clip: Clip, contacts: Contacts, roles: JointRoles, *, blend_s: float = 0.1) -> Clip:
    """``clip`` with every contact's planted joint locked in place (see the module docstring).

    Args:
        clip: the clip (not modified).
        contacts: its foot contacts (:func:`motioncore.contacts.detect`).
        roles: joint roles; each foot's ``upper_leg`` and ``lower_leg`` must be
            resolved (feet without them are skipped).
        blend_s: length of the blend in and out around each contact, seconds.

    Returns:
        A new clip; only leg rotations differ.
    """
    parents = clip.skeleton.parents
    g_rot, g_pos = fk.forward(clip.rotations, clip.translations, parents)
    rotations = np.array(clip.rotations, dtype=np.float64, copy=True)
    blend = max(round(blend_s * clip.fps), 0)
    for foot in contacts.feet:
        hip, knee = roles.get(f"{foot.side}_upper_leg"), roles.get(f"{foot.side}_lower_leg")
        if hip is None or knee is None or not foot.contact.any():
            continue
        target, weight = ankle_targets(g_pos, foot, blend)
        frames = np.flatnonzero(weight > 0.0)
        chain = (hip, knee, foot.foot)
        solved = ik.chain(
            rotations[frames],
            g_rot[frames],
            g_pos[frames],
            parents,
            chain,
            target[frames],
            g_pos[frames, knee],
        )
        for j in chain:
            rotations[frames, j] = quat.slerp(rotations[frames, j], solved[:, j], weight[frames])
    return clip.with_arrays(rotations=rotations)


def ankle_targets(
    positions: FloatArray, foot: FootContacts, blend: int
) -> tuple[FloatArray, FloatArray]:
    """Ankle world targets ``[F, 3]`` and IK weights ``[F]`` (0 = keep the pose) of one foot.

    Args:
        positions: ``[F, J, 3]`` world positions, metres.
        foot: its contacts.
        blend: frames of blend in and out around each contact run.

    Inside a run the target is the lock; in the blend frames around it, the
    ankle's own position plus the correction at the run's nearest edge (so a
    cut or a T-pose frame next to a contact is not dragged to it). Where
    blend windows of neighbouring runs overlap, the run with the larger weight
    wins. Heights are the ankle's own.
    """
    frames = positions.shape[0]
    ankle = positions[:, foot.foot]
    toe_vec = positions[:, foot.toe] - ankle if foot.toe is not None else np.zeros_like(ankle)
    on_toe = foot.contact & ~foot.ankle
    target = ankle.copy()
    weight = np.zeros(frames)
    for start, stop in segments(foot.contact):
        lo, hi = max(start - blend, 0), min(stop + blend, frames)
        lock, toe_planted = _locks(ankle, toe_vec, on_toe, start, stop)
        run_xz = lock - np.where(toe_planted[:, None], toe_vec[start:stop, _HORIZONTAL], 0.0)
        window = np.arange(lo, hi)
        edge = np.clip(window, start, stop - 1)
        correction = run_xz[edge - start] - ankle[edge][:, _HORIZONTAL]
        xz = ankle[window][:, _HORIZONTAL] + correction
        run_w = _run_weights(window, start, stop, blend)
        better = run_w > weight[lo:hi]
        target[window[better][:, None], _HORIZONTAL] = xz[better]
        weight[window[better]] = run_w[better]
    return target, weight


def _locks(
    ankle: FloatArray, toe_vec: FloatArray, on_toe: NDArray[np.bool_], start: int, stop: int
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Locked X-Z ``[n, 2]`` of the planted joint on ``[start, stop)``, and whether it is the toe.

    The first stretch (same planted joint) locks at its mean position; each
    later stretch locks its joint where it was, given the previous lock, on the
    frame before it starts.
    """
    toe_planted = on_toe[start:stop]
    planted = ankle[start:stop] + np.where(toe_planted[:, None], toe_vec[start:stop], 0.0)
    lock = np.empty((stop - start, 2))
    stretches = segments(toe_planted) + segments(~toe_planted)
    stretches.sort()
    first, end = stretches[0]
    current = planted[first:end, _HORIZONTAL].mean(axis=0)
    lock[first:end] = current
    for a, b in stretches[1:]:
        prev_vec = toe_vec[start + a - 1, _HORIZONTAL]
        ankle_xz = current - (prev_vec if toe_planted[a - 1] else 0.0)
        current = ankle_xz + (prev_vec if toe_planted[a] else 0.0)
        lock[a:b] = current
    return lock, toe_planted


def _run_weights(index: IntArray, start: int, stop: int, blend: int) -> FloatArray:
    """Smoothstep weights: 1 on ``[start, stop)``, falling to 0 over ``blend`` frames outside."""
    before = np.clip(start - index, 0, None)
    after = np.clip(index - (stop - 1), 0, None)
    t = 1.0 - np.maximum(before, after) / (blend + 1.0)
    return np.asarray(t * t * (3.0 - 2.0 * t), dtype=np.float64)
