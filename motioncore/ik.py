"""Analytic two-bone inverse kinematics with a pole (swivel) control.

A two-bone chain is a root joint ``a`` (hip, shoulder), a middle joint ``b``
(knee, elbow) and an end ``c`` (ankle, wrist). Given world positions of the
three and a world target ``t``, the solver keeps both bone lengths, puts ``c``
on ``t`` when ``|t - a|`` is within reach (otherwise as close as the chain
allows: straight towards ``t`` when too far, folded when too close), and bends
``b`` in the plane through ``a``, ``t`` and the *pole*: a world point the middle
joint should point towards (its swivel).

All arrays broadcast over leading axes (``[..., 3]`` positions in metres,
world frame, Y up; ``[..., 4]`` unit quaternions ``w, x, y, z``). The results
are *world-frame* delta rotations: the new global rotation of ``a`` is
``da * qa`` and that of ``b`` is ``db * da * qb``. :func:`chain` turns them
into new local rotations of a whole clip.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from motioncore import quat

FloatArray = NDArray[np.float64]

_EPS = 1e-9


def two_bone(
    a: FloatArray,
    b: FloatArray,
    c: FloatArray,
    target: FloatArray,
    pole: FloatArray,
    *,
    minimal: bool = False,
) -> tuple[FloatArray, FloatArray]:
    """World delta rotations ``(da, db)`` ``[..., 4]`` solving the chain ``a-b-c`` for ``target``.

    Args:
        a, b, c: ``[..., 3]`` world positions of the root, middle and end joints.
        target: ``[..., 3]`` world position the end should reach.
        pole: ``[..., 3]`` world point the middle joint should bend towards.
            Where the pole lies on the line ``a``-``target`` the current bend
            direction is kept.
        minimal: turn the upper bone by the smallest rotation that moves ``b`` where
            it goes, rather than carrying the old bend axis onto the new one. Small
            corrections of a nearly straight chain then stay small (its bend axis
            is ill-defined there, and following it can spin the bone about itself
            from one frame to the next); the twist of ``a`` is not controlled.

    Returns:
        ``da`` rotates the whole chain about ``a``; ``db`` then rotates the
        lower bone about the (moved) ``b``. New positions:
        ``b' = a + da(b - a)``, ``c' = b' + db(da(c - b))``.
    """
    a, b, c, target, pole = (np.asarray(v, dtype=np.float64) for v in (a, b, c, target, pole))
    l1 = np.linalg.norm(b - a, axis=-1)
    l2 = np.linalg.norm(c - b, axis=-1)
    u = _unit(target - a, fallback=c - a)
    d = np.clip(np.linalg.norm(target - a, axis=-1), np.abs(l1 - l2), l1 + l2)
    v = _perpendicular(pole - a, u, fallback=b - a)
    cos_a = np.clip((l1**2 + d**2 - l2**2) / np.maximum(2.0 * l1 * d, _EPS), -1.0, 1.0)
    sin_a = np.sqrt(1.0 - cos_a**2)
    b_new = a + l1[..., None] * (cos_a[..., None] * u + sin_a[..., None] * v)
    c_new = a + d[..., None] * u
    if minimal:
        da = quat.between(b - a, b_new - a)
    else:
        hinge_old = _hinge(b - a, c - b, c - a, pole - a)
        hinge_new = _unit(np.cross(v, u), fallback=hinge_old)
        da = _align(b - a, hinge_old, b_new - a, hinge_new)
    db = quat.between(quat.rotate(da, c - b), c_new - b_new)
    return da, db


def chain(
    local_rotations: FloatArray,
    global_rotations: FloatArray,
    global_positions: FloatArray,
    parents: NDArray[np.integer],
    joints: tuple[int, int, int],
    target: FloatArray,
    pole: FloatArray,
    *,
    keep_end_orientation: bool = True,
    minimal: bool = False,
) -> FloatArray:
    """New local rotations ``[F, J, 4]`` with the chain ``joints = (a, b, c)`` solved.

    Args:
        local_rotations: ``[F, J, 4]`` local rotations of the clip.
        global_rotations, global_positions: ``[F, J, 4]`` and ``[F, J, 3]`` from
            forward kinematics of the same pose (world frame, metres).
        parents: ``[J]`` parent indices; ``b`` descends from ``a`` and ``c`` from
            ``b`` (joints in between, e.g. twist bones, keep their local rotations).
        joints: indices of the root, middle and end joints.
        target: ``[F, 3]`` world targets for ``c``.
        pole: ``[F, 3]`` world points for ``b`` to bend towards.
        keep_end_orientation: also change ``c``'s local rotation so that its
            global rotation (the foot's orientation) is unchanged.
        minimal: :func:`two_bone`'s.

    Returns:
        A copy of ``local_rotations`` with ``a``, ``b`` (and ``c``) replaced.
    """
    ia, ib, ic = joints
    pos, grot = global_positions, global_rotations
    da, db = two_bone(pos[:, ia], pos[:, ib], pos[:, ic], target, pole, minimal=minimal)
    out = np.array(local_rotations, dtype=np.float64, copy=True)
    new_ga = quat.mul(da, grot[:, ia])
    new_gb = quat.mul(db, quat.mul(da, grot[:, ib]))
    out[:, ia] = quat.normalize(quat.mul(quat.conjugate(_parent_global(grot, parents, ia)), new_ga))
    moved_parent_b = quat.mul(da, _parent_global(grot, parents, ib))
    out[:, ib] = quat.normalize(quat.mul(quat.conjugate(moved_parent_b), new_gb))
    if keep_end_orientation:
        moved_parent_c = quat.mul(db, quat.mul(da, _parent_global(grot, parents, ic)))
        out[:, ic] = quat.normalize(quat.mul(quat.conjugate(moved_parent_c), grot[:, ic]))
    return out


def _parent_global(
    global_rotations: FloatArray, parents: NDArray[np.integer], joint: int
) -> FloatArray:
    """Global rotation ``[F, 4]`` of ``joint``'s parent (identity for a root)."""
    parent = int(parents[joint])
    if parent < 0:
        return quat.identity((global_rotations.shape[0],))
    return np.asarray(global_rotations[:, parent], dtype=np.float64)


def _unit(v: FloatArray, *, fallback: FloatArray) -> FloatArray:
    """``v`` normalised; where ``v`` is (nearly) zero, ``fallback`` normalised (or +X)."""
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    fb_n = np.linalg.norm(fallback, axis=-1, keepdims=True)
    fb = np.where(fb_n > _EPS, fallback / np.maximum(fb_n, _EPS), [1.0, 0.0, 0.0])
    return np.where(n > _EPS, v / np.maximum(n, _EPS), fb)


def _perpendicular(v: FloatArray, axis: FloatArray, *, fallback: FloatArray) -> FloatArray:
    """Unit component of ``v`` perpendicular to the unit ``axis``.

    Falls back to the perpendicular part of ``fallback``, then to any
    perpendicular direction, where ``v`` is (nearly) parallel to ``axis``.
    """
    p = v - np.sum(v * axis, axis=-1, keepdims=True) * axis
    q = fallback - np.sum(fallback * axis, axis=-1, keepdims=True) * axis
    helper = np.where(np.abs(axis[..., :1]) < 0.9, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    any_perp = np.cross(axis, helper)
    scale = np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), _EPS)
    p_ok = np.linalg.norm(p, axis=-1, keepdims=True) > 1e-6 * scale
    return _unit(np.where(p_ok, p, q), fallback=any_perp)


def _hinge(upper: FloatArray, lower: FloatArray, reach: FloatArray, pole: FloatArray) -> FloatArray:
    """Unit bend axis ``upper x lower`` of the current chain (pole-based when straight)."""
    bend = np.cross(upper, lower)
    scale = np.linalg.norm(upper, axis=-1) * np.linalg.norm(lower, axis=-1)
    straight = np.linalg.norm(bend, axis=-1) <= 1e-6 * np.maximum(scale, _EPS)
    u = _unit(reach, fallback=upper)
    from_pole = np.cross(_perpendicular(pole, u, fallback=upper), u)
    return _unit(np.where(straight[..., None], from_pole, bend), fallback=from_pole)


def _align(
    x_old: FloatArray, y_old: FloatArray, x_new: FloatArray, y_new: FloatArray
) -> FloatArray:
    """Rotation ``[..., 4]`` taking ``x_old`` to ``x_new`` and ``y_old`` (normal) to ``y_new``."""
    return quat.from_matrix(_frame(x_new, y_new) @ np.swapaxes(_frame(x_old, y_old), -1, -2))


def _frame(x: FloatArray, y: FloatArray) -> FloatArray:
    """Orthonormal frame ``[..., 3, 3]`` (columns) from ``x`` and the part of ``y`` normal to it."""
    e1 = _unit(x, fallback=x)
    e2 = _perpendicular(y, e1, fallback=y)
    return np.stack([e1, e2, np.cross(e1, e2)], axis=-1)
