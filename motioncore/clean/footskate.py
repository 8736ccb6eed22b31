"""Foot-skate cleanup: lock each stance with the foot's roll, keep the feet above the floor.

Seed 002 §3.2: after detecting contact frames, lock the foot's world position
until it lifts ("检测触地帧后锁定脚部世界坐标 ... 直到检测到抬起").

Per foot and per contact (:mod:`motioncore.contacts`), the *pivot* is the point
the foot turns about: the heel while the heel lies on the floor, else the
forefoot (the ball, or the toe tip on rigs without a toe joint). A stance that
strikes with the heel, rolls flat and pushes off on the ball is two stretches:

1. the first stretch locks its pivot at its mean horizontal position, at the
   height of its footprint (its lowest height in the stretch, never under the
   floor plus the point's clearance);
2. each later stretch locks its pivot where it is, given the previous lock, on
   the frame before it starts (so the lock is continuous as the heel lifts);
3. the ankle's target is the lock minus the pivot's offset as the foot's
   *original* orientation carries it: the foot turns exactly as captured, about
   a point that stays put;
4. over ``blend_s`` before and after the contact the target is the ankle's own
   position plus a fading share (smoothstep) of the correction at the
   contact's nearest edge; a correction that *lowers* the foot (a footprint
   captured above the floor) fades in and out over the contact's own first and
   last ``blend_s`` instead, so that a foot still arriving or already leaving
   is never brought down to the floor while it moves;
5. on every frame, the target is raised by however far the heel, ankle or ball
   (the tip, on a foot without toe joints) would be under the floor, and where
   the leg cannot reach the target it is raised until it can (the foot keeps
   its place on the ground and rises: a straightened leg must not drag it);
6. the leg (``upper_leg``, ``lower_leg``, ``foot``) is solved with two-bone IK
   (:func:`motioncore.ik.chain`, the knee as pole), the foot keeping its world
   orientation;
7. a toe tip still under the floor turns the toe joint up about the ball until
   the tip is on the floor.

Nothing but the legs' ``upper_leg``, ``lower_leg``, ``foot`` and ``toe`` local
rotations changes. Metres, seconds, Y up, world frame.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, ik, quat
from motioncore.clip import Clip
from motioncore.contacts import (
    Contacts,
    FootContacts,
    drop_short,
    fill_gaps,
    point_speeds,
    segments,
)
from motioncore.contacts.foot_points import Foot
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.int64]

_HORIZONTAL = [0, 2]
_HEEL, _FORE = 0, 1
REACH_SHARE = 0.999
"""A target further from the hip than this share of thigh + shin is out of reach."""
LEVEL_M = 0.005
"""Heel and forefoot this close in height (over their floors) count as level: the
slower one is the pivot."""


def cleanup(clip: Clip, contacts: Contacts, roles: JointRoles, *, blend_s: float = 0.1) -> Clip:
    """``clip`` with every stance locked and the feet kept above the floor (module docstring).

    Args:
        clip: the clip (not modified).
        contacts: its foot contacts (:func:`motioncore.contacts.detect` on this clip).
        roles: joint roles; each foot's ``upper_leg`` and ``lower_leg`` must be
            resolved (feet without them are skipped).
        blend_s: length of the blend in and out around each contact, seconds.

    Returns:
        A new clip; only leg and toe rotations differ.
    """
    parents = clip.skeleton.parents
    g_rot, g_pos = fk.forward(clip.rotations, clip.translations, parents)
    rotations = np.array(clip.rotations, dtype=np.float64, copy=True)
    blend = max(round(blend_s * clip.fps), 0)
    floor = contacts.floor_m if np.isfinite(contacts.floor_m) else None
    legs = []
    for foot in contacts.feet:
        hip, knee = roles.get(f"{foot.side}_upper_leg"), roles.get(f"{foot.side}_lower_leg")
        if hip is None or knee is None or foot.geometry is None:
            continue
        pivots = _pivots(foot, g_rot, g_pos)
        lowest = _lock_floor(contacts, foot)
        target = ankle_targets(g_pos[:, foot.foot], pivots, foot, blend, lowest, clip.fps)
        if floor is not None:
            target = above_floor(target, pivots[2], floor)
        target = within_reach(target, g_pos[:, hip], g_pos[:, knee], g_pos[:, foot.foot])
        changed = np.flatnonzero(np.linalg.norm(target - g_pos[:, foot.foot], axis=-1) > 1e-9)
        if changed.size:
            chain = (hip, knee, foot.foot)
            solved = ik.chain(
                rotations[changed],
                g_rot[changed],
                g_pos[changed],
                parents,
                chain,
                target[changed],
                g_pos[changed, knee],
            )
            rotations[changed[:, None], list(chain)] = solved[:, list(chain)]
        legs.append(foot)
    out = clip.with_arrays(rotations=rotations)
    if floor is not None:
        out = _toes_above_floor(out, [f.geometry for f in legs if f.geometry is not None], floor)
    return out


def _pivots(
    foot: FootContacts, g_rot: FloatArray, g_pos: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """World offsets from the ankle, as the captured foot carries them: the heel's and the
    forefoot pivot's ``[F, 3]``, and ``[F, K, 3]`` of every point the floor holds up
    (heel, ankle, and the ball or, without one, the tip)."""
    geometry = foot.geometry
    assert geometry is not None
    ankle = g_pos[:, foot.foot]
    heel_local = np.broadcast_to(geometry.heel_local, ankle.shape)
    heel = np.asarray(quat.rotate(g_rot[:, foot.foot], heel_local))
    fore_joint = geometry.ball if geometry.ball is not None else geometry.tip
    fore = g_pos[:, fore_joint] - ankle if fore_joint is not None else heel
    held = [heel, np.zeros_like(heel)]
    if fore_joint is not None:
        held.append(fore)  # the ball, or the toe tip of a foot without toe joints
    return heel, fore, np.stack(held, axis=1)


def _lock_floor(contacts: Contacts, foot: FootContacts) -> tuple[float, float]:
    """Lowest lock height of the heel and of the forefoot pivot (floor + clearance)."""
    floor = contacts.floor_m if np.isfinite(contacts.floor_m) else -np.inf
    fore = "ball" if foot.toe is not None else "tip"
    clear = contacts.clearance_m
    return (
        floor + clear.get(f"{foot.side}_heel", 0.0),
        floor + clear.get(f"{foot.side}_{fore}", 0.0),
    )


def heel_pivot(
    foot: FootContacts,
    heel: FloatArray,
    fore: FloatArray,
    fps: float,
    shortest: int,
    lowest: tuple[float, float],
) -> BoolArray:
    """``[F]`` the foot turns about its heel (else about its forefoot) during contact.

    Where only one of them is down (:attr:`FootContacts.points`), that one; where
    both are (or neither, in a filled gap), the lower over its lock floor
    (``lowest``, metres), and within :data:`LEVEL_M` of each other the slower in the
    captured motion: the heel as the forefoot comes down after the strike, the ball
    as the heel starts to rise, the ball a foot spins on. Stretches shorter than
    ``shortest`` frames join their neighbours.
    """
    rear, front = foot.rear(), foot.fore()
    speed = point_speeds(np.stack([heel, fore], axis=1), fps)
    above = heel[:, 1] - lowest[_HEEL] - (fore[:, 1] - lowest[_FORE])
    lower = np.where(np.abs(above) < LEVEL_M, speed[:, 0] <= speed[:, 1], above < 0.0)
    steady = drop_short(fill_gaps(np.where(rear == front, lower, rear), shortest), shortest)
    return np.asarray(np.where(rear == front, steady, rear), dtype=bool)


def ankle_targets(
    ankle: FloatArray,
    pivots: tuple[FloatArray, FloatArray, FloatArray],
    foot: FootContacts,
    blend: int,
    lowest: tuple[float, float],
    fps: float,
) -> FloatArray:
    """Ankle world targets ``[F, 3]`` of one foot (steps 1-4 of the module docstring).

    Args:
        ankle: ``[F, 3]`` the ankle's world positions, metres.
        pivots: from :func:`_pivots` (world offsets of the heel and the forefoot
            pivot from the ankle, ``[F, 3]`` each, and the held points).
        foot: its contacts.
        blend: frames of blend in and out around each contact.
        lowest: lowest lock heights of the heel and of the forefoot, metres.
        fps: frame rate, Hz.
    """
    frames = ankle.shape[0]
    heel_off, fore_off = pivots[0], pivots[1]
    shortest = max(round(0.05 * fps), 1)
    on_heel = heel_pivot(foot, ankle + heel_off, ankle + fore_off, fps, shortest, lowest)
    target = ankle.copy()
    weight = np.zeros(frames)
    for start, stop in segments(foot.contact):
        lock = _run_targets(ankle, heel_off, fore_off, on_heel, start, stop, lowest)
        lo, hi = max(start - blend, 0), min(stop + blend, frames)
        window = np.arange(lo, hi)
        edge = np.clip(window, start, stop - 1)
        correction = lock[edge - start] - ankle[edge]
        run_w = _run_weights(window, start, stop, blend)
        lower = _run_weights(window, start + blend, stop - blend, blend)
        shift = run_w[:, None] * correction
        shift[:, 1] = np.where(correction[:, 1] > 0.0, shift[:, 1], lower * correction[:, 1])
        better = run_w > weight[lo:hi]
        target[window[better]] = ankle[window[better]] + shift[better]
        weight[window[better]] = run_w[better]
    return target


def _run_targets(
    ankle: FloatArray,
    heel_off: FloatArray,
    fore_off: FloatArray,
    on_heel: BoolArray,
    start: int,
    stop: int,
    lowest: tuple[float, float],
) -> FloatArray:
    """Ankle targets ``[n, 3]`` on ``[start, stop)``: each stretch's pivot held still."""
    heel = on_heel[start:stop]
    offsets = {True: heel_off[start:stop], False: fore_off[start:stop]}
    stretches = sorted(segments(heel) + segments(~heel))
    first, end = stretches[0]
    kind = bool(heel[first])
    pivot = ankle[start + first : start + end] + offsets[kind][first:end]
    lock = np.empty(3)
    lock[_HORIZONTAL] = pivot[:, _HORIZONTAL].mean(axis=0)
    lock[1] = max(float(pivot[:, 1].min()), lowest[_HEEL if kind else _FORE])
    targets = np.empty((stop - start, 3))
    targets[first:end] = lock - offsets[kind][first:end]
    for a, b in stretches[1:]:
        kind = bool(heel[a])
        lock = targets[a - 1] + offsets[kind][a - 1]
        targets[a:b] = lock - offsets[kind][a:b]
    return targets


def within_reach(
    target: FloatArray, hip: FloatArray, knee: FloatArray, ankle: FloatArray
) -> FloatArray:
    """``target [F, 3]`` raised where the leg (``hip``, ``knee``, ``ankle`` ``[F, 3]``,
    its bones as captured) cannot reach it: rather a planted foot that rises at the end
    of a stance than one the straightened leg drags along the floor."""
    reach = REACH_SHARE * (
        np.linalg.norm(knee - hip, axis=-1) + np.linalg.norm(ankle - knee, axis=-1)
    )
    offset = target - hip
    flat = np.linalg.norm(offset[:, _HORIZONTAL], axis=-1)
    too_far = (np.linalg.norm(offset, axis=-1) > reach) & (flat < reach) & (offset[:, 1] < 0)
    out = target.copy()
    out[too_far, 1] = hip[too_far, 1] - np.sqrt(reach[too_far] ** 2 - flat[too_far] ** 2)
    return out


def above_floor(target: FloatArray, held: FloatArray, floor_m: float) -> FloatArray:
    """``target [F, 3]`` raised so that no point of ``held [F, K, 3]`` (offsets from the
    ankle, world frame) is under ``floor_m``."""
    lowest = (target[:, None, 1] + held[..., 1]).min(axis=1)
    out = target.copy()
    out[:, 1] += np.maximum(floor_m - lowest, 0.0)
    return out


def _toes_above_floor(clip: Clip, feet: list[Foot], floor_m: float) -> Clip:
    """Turn each toe joint up about the ball where its tip is under the floor."""
    parents = clip.skeleton.parents
    g_rot, g_pos = fk.forward(clip.rotations, clip.translations, parents)
    rotations = np.array(clip.rotations, copy=True)
    for foot in feet:
        if foot.ball is None or foot.tip is None:
            continue
        ball, tip = g_pos[:, foot.ball], g_pos[:, foot.tip]
        low = np.flatnonzero(tip[:, 1] < floor_m)
        if low.size == 0:
            continue
        v = tip[low] - ball[low]
        length = np.linalg.norm(v, axis=-1)
        rise = np.clip(floor_m - ball[low, 1], -length, length)
        flat = np.sqrt(np.maximum(length**2 - rise**2, 0.0))
        along = (
            v[:, _HORIZONTAL]
            / np.maximum(np.linalg.norm(v[:, _HORIZONTAL], axis=-1), 1e-12)[:, None]
        )
        wanted = np.stack([along[:, 0] * flat, rise, along[:, 1] * flat], axis=-1)
        turn = quat.between(v, wanted)
        parent = g_rot[low, parents[foot.ball]]
        new_global = quat.mul(turn, g_rot[low, foot.ball])
        rotations[low, foot.ball] = quat.normalize(quat.mul(quat.conjugate(parent), new_global))
    return clip.with_arrays(rotations=rotations)


def _run_weights(index: IntArray, start: int, stop: int, blend: int) -> FloatArray:
    """Smoothstep weights: 1 on ``[start, stop)``, falling to 0 over ``blend`` frames outside."""
    before = np.clip(start - index, 0, None)
    after = np.clip(index - (stop - 1), 0, None)
    t = np.clip(1.0 - np.maximum(before, after) / (blend + 1.0), 0.0, 1.0)
    return np.asarray(t * t * (3.0 - 2.0 * t), dtype=np.float64)
