"""Batched quaternion maths.

Conventions: quaternions are ``(w, x, y, z)`` in the last axis, Hamilton
product, unit length, active rotation ``v' = q v q*``. Every function
broadcasts over leading axes (``[..., 4]``), returns new arrays and never
mutates its inputs. Angles are radians.

Euler orders are three distinct axes written as a BVH channel list reads:
``"ZXY"`` means ``R = Rz(a) @ Rx(b) @ Ry(c)`` for angles ``(a, b, c)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

EULER_ORDERS: tuple[str, ...] = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
_AXIS_INDEX = {"X": 0, "Y": 1, "Z": 2}
_GIMBAL_EPS = 1e-12
"""cos(middle angle) below which ``to_euler`` treats the rotation as gimbal-locked."""
_OPPOSITE_EPS = 1e-24
"""``1 + dot(u, v)`` below which ``between`` treats ``u`` and ``v`` as opposite (angle
within 1e-12 rad of pi, where any perpendicular axis is as good as the true one)."""


def identity(shape: tuple[int, ...] = ()) -> FloatArray:
    """Identity quaternions of ``shape + (4,)``."""
    q = np.zeros((*shape, 4))
    q[..., 0] = 1.0
    return q


def normalize(q: ArrayLike) -> FloatArray:
    """Unit quaternions ``[..., 4]``; a zero quaternion becomes the identity."""
    q = np.asarray(q, dtype=np.float64)
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    out: FloatArray = np.divide(q, norm, out=np.zeros_like(q), where=norm > 0)
    out[..., 0] = np.where(norm[..., 0] > 0, out[..., 0], 1.0)
    return out


def conjugate(q: ArrayLike) -> FloatArray:
    """Conjugate (the inverse of a unit quaternion) ``[..., 4]``."""
    out: FloatArray = np.asarray(q, dtype=np.float64) * np.array([1.0, -1.0, -1.0, -1.0])
    return out


inverse = conjugate


def mul(a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Hamilton product ``a ⊗ b`` (apply ``b`` first, then ``a``), broadcast ``[..., 4]``."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ],
        axis=-1,
    )


def rotate(q: ArrayLike, v: ArrayLike) -> FloatArray:
    """Rotate vectors ``v [..., 3]`` by unit quaternions ``q [..., 4]`` (broadcast)."""
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    w = q[..., :1]
    u = q[..., 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def to_matrix(q: ArrayLike) -> FloatArray:
    """Rotation matrices ``[..., 3, 3]`` of unit quaternions ``[..., 4]``."""
    q = np.asarray(q, dtype=np.float64)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    m = np.empty((*q.shape[:-1], 3, 3))
    m[..., 0, 0] = 1.0 - 2.0 * (yy + zz)
    m[..., 0, 1] = 2.0 * (xy - wz)
    m[..., 0, 2] = 2.0 * (xz + wy)
    m[..., 1, 0] = 2.0 * (xy + wz)
    m[..., 1, 1] = 1.0 - 2.0 * (xx + zz)
    m[..., 1, 2] = 2.0 * (yz - wx)
    m[..., 2, 0] = 2.0 * (xz - wy)
    m[..., 2, 1] = 2.0 * (yz + wx)
    m[..., 2, 2] = 1.0 - 2.0 * (xx + yy)
    return m


def from_matrix(m: ArrayLike) -> FloatArray:
    """Unit quaternions ``[..., 4]`` (``w >= 0``) of rotation matrices ``[..., 3, 3]``.

    Uses the numerically stable branch (largest diagonal term) per element.
    """
    m = np.asarray(m, dtype=np.float64)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    trace = m00 + m11 + m22
    candidates = np.stack(
        [
            np.stack(
                [
                    1.0 + trace,
                    m[..., 2, 1] - m[..., 1, 2],
                    m[..., 0, 2] - m[..., 2, 0],
                    m[..., 1, 0] - m[..., 0, 1],
                ],
                axis=-1,
            ),
            np.stack(
                [
                    m[..., 2, 1] - m[..., 1, 2],
                    1.0 + m00 - m11 - m22,
                    m[..., 0, 1] + m[..., 1, 0],
                    m[..., 0, 2] + m[..., 2, 0],
                ],
                axis=-1,
            ),
            np.stack(
                [
                    m[..., 0, 2] - m[..., 2, 0],
                    m[..., 0, 1] + m[..., 1, 0],
                    1.0 - m00 + m11 - m22,
                    m[..., 1, 2] + m[..., 2, 1],
                ],
                axis=-1,
            ),
            np.stack(
                [
                    m[..., 1, 0] - m[..., 0, 1],
                    m[..., 0, 2] + m[..., 2, 0],
                    m[..., 1, 2] + m[..., 2, 1],
                    1.0 - m00 - m11 + m22,
                ],
                axis=-1,
            ),
        ],
        axis=-2,
    )
    best = np.argmax(np.stack([trace, m00, m11, m22], axis=-1), axis=-1)
    q = np.take_along_axis(candidates, best[..., None, None], axis=-2)[..., 0, :]
    q = normalize(q)
    return np.where(q[..., :1] < 0.0, -q, q)


def _check_order(order: str) -> tuple[int, int, int]:
    upper = order.upper()
    if upper not in EULER_ORDERS:
        raise ValueError(f"Euler order must be one of {EULER_ORDERS}, not {order!r}")
    i, j, k = (_AXIS_INDEX[c] for c in upper)
    return i, j, k


def from_axis_angle(axis: ArrayLike, angle: ArrayLike) -> FloatArray:
    """Quaternions ``[..., 4]`` rotating by ``angle [...]`` radians about unit ``axis [..., 3]``."""
    axis = np.asarray(axis, dtype=np.float64)
    half = 0.5 * np.asarray(angle, dtype=np.float64)
    return np.concatenate([np.cos(half)[..., None], np.sin(half)[..., None] * axis], axis=-1)


def _cos_sin(x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(cos x, sin x)`` through ``t = tan(x / 2)``: one vectorised ``tan`` is about
    twice as fast here as ``cos`` plus ``sin``, and as accurate (~2e-16)."""
    t = np.tan(0.5 * x)
    t2 = t * t
    inv = 1.0 / (1.0 + t2)
    return (1.0 - t2) * inv, 2.0 * t * inv


def from_euler(angles: ArrayLike, order: str) -> FloatArray:
    """Quaternions ``[..., 4]`` of Euler ``angles [..., 3]`` (radians) in ``order``.

    ``angles[..., n]`` is the angle about the axis ``order[n]``; the rotation is
    ``R = R_order[0] @ R_order[1] @ R_order[2]``. Closed form of the product of
    the three elementary quaternions (``sigma`` is +1 for cyclic orders).
    """
    i, j, k = _check_order(order)
    sigma = 1.0 if (j - i) % 3 == 1 else -1.0
    half = 0.5 * np.asarray(angles, dtype=np.float64)
    cos, sin = _cos_sin(half)
    c1, c2, c3 = cos[..., 0], cos[..., 1], cos[..., 2]
    s1, s2, s3 = sin[..., 0], sin[..., 1], sin[..., 2]
    c1c2, s1s2, c1s2, s1c2 = c1 * c2, s1 * s2, c1 * s2, s1 * c2
    q = np.empty((*half.shape[:-1], 4))
    q[..., 0] = c1c2 * c3 - sigma * s1s2 * s3
    q[..., 1 + i] = s1c2 * c3 + sigma * c1s2 * s3
    q[..., 1 + j] = c1s2 * c3 - sigma * s1c2 * s3
    q[..., 1 + k] = c1c2 * s3 + sigma * s1s2 * c3
    return q


def from_euler_mixed(angles: ArrayLike, orders: list[str] | tuple[str, ...]) -> FloatArray:
    """Quaternions ``[..., n, 4]`` of Euler ``angles [..., n, 3]`` with one order per column ``n``.

    Same maths as :func:`from_euler`, done for every column at once (a BVH file
    may give each joint its own order).
    """
    axes = np.array([_check_order(order) for order in orders], dtype=np.int64).reshape(-1, 3)
    sigma = np.where((axes[:, 1] - axes[:, 0]) % 3 == 1, 1.0, -1.0)
    half = 0.5 * np.asarray(angles, dtype=np.float64)
    cos, sin = _cos_sin(half)
    c1, c2, c3 = cos[..., 0], cos[..., 1], cos[..., 2]
    s1, s2, s3 = sin[..., 0], sin[..., 1], sin[..., 2]
    c1c2, s1s2, c1s2, s1c2 = c1 * c2, s1 * s2, c1 * s2, s1 * c2
    sigma_s3 = sigma * s3
    q = np.zeros((*half.shape[:-1], 4))
    column = np.arange(len(axes))
    q[..., 0] = c1c2 * c3 - s1s2 * sigma_s3
    q[..., column, 1 + axes[:, 0]] = s1c2 * c3 + c1s2 * sigma_s3
    q[..., column, 1 + axes[:, 1]] = c1s2 * c3 - s1c2 * sigma_s3
    q[..., column, 1 + axes[:, 2]] = c1c2 * s3 + sigma * s1s2 * c3
    return q


def to_euler(q: ArrayLike, order: str) -> FloatArray:
    """Euler angles ``[..., 3]`` (radians) in ``order`` of unit quaternions ``[..., 4]``.

    The middle angle lies in ``[-pi/2, pi/2]``, the others in ``(-pi, pi]``. At
    gimbal lock the first angle takes the whole turn and the last is (to
    rounding) zero.

    The middle angle comes from ``atan2`` (not ``arcsin``, which loses half the
    digits near ±pi/2) and the last angle from what remains once the first two
    are undone, so ``from_euler(to_euler(q))`` gives back ``q`` to rounding
    error even near gimbal lock.
    """
    i, j, k = _check_order(order)
    parity = 1.0 if (j - i) % 3 == 1 else -1.0
    m = to_matrix(q)
    cos_b = np.hypot(m[..., i, i], m[..., i, j])
    b = np.arctan2(parity * m[..., i, k], cos_b)
    locked = cos_b < _GIMBAL_EPS
    a = np.where(
        locked,
        np.arctan2(parity * m[..., k, j], m[..., j, j]),
        np.arctan2(-parity * m[..., j, k], m[..., k, k]),
    )
    # Row j of R_i(-a) @ R is row j of R_k(c) = (.., cos c, ..) with sin c at column i.
    cos_a, sin_a = np.cos(a), np.sin(a)
    row_i = cos_a * m[..., j, i] + parity * sin_a * m[..., k, i]
    row_j = cos_a * m[..., j, j] + parity * sin_a * m[..., k, j]
    c = np.arctan2(parity * row_i, row_j)
    return np.stack([a, b, c], axis=-1)


def unroll(q: ArrayLike, axis: int = 0) -> FloatArray:
    """Flip signs along ``axis`` so consecutive quaternions lie in the same hemisphere.

    ``q [..., 4]``: the result represents the same rotations with
    ``dot(q[t], q[t+1]) >= 0`` along ``axis`` (no sudden sign flips, which
    interpolation and filtering need).
    """
    q = np.asarray(q, dtype=np.float64)
    q_t = np.moveaxis(q, axis, 0)
    dots = np.sum(q_t[1:] * q_t[:-1], axis=-1)
    flips = np.concatenate([np.zeros((1, *dots.shape[1:]), dtype=bool), dots < 0.0], axis=0)
    sign = np.where(np.cumsum(flips, axis=0) % 2 == 1, -1.0, 1.0)
    return np.moveaxis(q_t * sign[..., None], 0, axis)


def slerp(a: ArrayLike, b: ArrayLike, t: ArrayLike) -> FloatArray:
    """Spherical interpolation from ``a`` to ``b`` (``[..., 4]``) at ``t [...]`` in ``[0, 1]``.

    Takes the short arc; falls back to normalised lerp for nearly equal inputs.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)[..., None]
    dot = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(dot < 0.0, -b, b)
    dot = np.abs(dot)
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    sin_theta = np.sin(theta)
    near = sin_theta < 1e-6
    safe = np.where(near, 1.0, sin_theta)
    wa = np.where(near, 1.0 - t, np.sin((1.0 - t) * theta) / safe)
    wb = np.where(near, t, np.sin(t * theta) / safe)
    return normalize(wa * a + wb * b)


def to_rotvec(q: ArrayLike) -> FloatArray:
    """Rotation vectors ``[..., 3]`` (axis × angle, radians, angle in ``[0, pi]``)."""
    q = np.asarray(q, dtype=np.float64)
    q = np.where(q[..., :1] < 0.0, -q, q)
    sin_half = np.linalg.norm(q[..., 1:], axis=-1)
    angle = 2.0 * np.arctan2(sin_half, q[..., 0])
    scale = np.where(sin_half > 1e-12, angle / np.where(sin_half > 1e-12, sin_half, 1.0), 2.0)
    return q[..., 1:] * scale[..., None]


def from_rotvec(v: ArrayLike) -> FloatArray:
    """Unit quaternions ``[..., 4]`` of rotation vectors ``[..., 3]`` (radians)."""
    v = np.asarray(v, dtype=np.float64)
    angle = np.linalg.norm(v, axis=-1)
    half = 0.5 * angle
    # sin(half)/angle, with its limit 1/2 near zero (Taylor series).
    k = np.where(
        angle > 1e-8, np.sin(half) / np.where(angle > 1e-8, angle, 1.0), 0.5 - angle**2 / 48.0
    )
    return np.concatenate([np.cos(half)[..., None], v * k[..., None]], axis=-1)


def between(u: ArrayLike, v: ArrayLike) -> FloatArray:
    """Shortest-arc unit quaternions ``[..., 4]`` turning directions ``u`` onto ``v`` ``[..., 3]``.

    Opposite vectors rotate by pi about an axis perpendicular to ``u``. With
    ``s = u + v`` (unit ``u``, ``v``), ``1 + dot(u, v) = |s|**2 / 2`` and
    ``cross(u, v) = cross(u, s)``: both stay exact to rounding when ``v`` is
    nearly ``-u``, where ``1 + dot(u, v)`` and ``cross(u, v)`` would cancel.
    """
    u = _unit_vectors(u)
    v = _unit_vectors(v)
    s = u + v
    w = 0.5 * np.sum(s * s, axis=-1, keepdims=True)
    axis = np.cross(u, s)
    opposite = w[..., 0] < _OPPOSITE_EPS
    if np.any(opposite):
        helper = np.where(np.abs(u[..., :1]) < 0.9, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
        perp = np.cross(u, helper)
        axis = np.where(opposite[..., None], perp, axis)
        w = np.where(opposite[..., None], 0.0, w)
    return normalize(np.concatenate([w, axis], axis=-1))


def _unit_vectors(v: ArrayLike) -> FloatArray:
    """``v [..., 3]`` scaled to unit length (zero vectors stay zero)."""
    arr = np.asarray(v, dtype=np.float64)
    out: FloatArray = arr / np.maximum(np.linalg.norm(arr, axis=-1, keepdims=True), 1e-12)
    return out


def angle_between(a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Rotation angle (radians, ``[0, pi]``) between unit quaternions ``a`` and ``b``."""
    dot = np.abs(np.sum(np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64), axis=-1))
    return np.asarray(2.0 * np.arccos(np.clip(dot, 0.0, 1.0)), dtype=np.float64)
