"""Forward kinematics over whole clips.

Inputs are local rotations ``[F, J, 4]`` (unit quaternions ``w, x, y, z``) and
local translations ``[F, J, 3]`` (metres, parent frame); ``parents [J]`` has
``-1`` for roots and every parent precedes its children. Outputs are global
(world) rotations and positions, Y up.

Joints are processed a tree *level* at a time: every joint whose parent was
finished in the previous level is updated in one vectorised step, so the Python
loop runs over the tree depth (about 10 for a humanoid), never over frames.
The work is done with 3×3 matrices laid out frames-last (``[J, 3, 3, F]``), so
each product is nine long vector operations; that is cheaper than chained
quaternion products or ``matmul`` on stacks of tiny matrices.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from motioncore.clip import Clip

FloatArray = NDArray[np.float64]


def levels(parents: NDArray[np.integer]) -> tuple[NDArray[np.int64], ...]:
    """Joint indices grouped by depth: roots first, then their children, and so on."""
    return _levels_cached(tuple(int(p) for p in parents))


@lru_cache(maxsize=256)
def _levels_cached(parents: tuple[int, ...]) -> tuple[NDArray[np.int64], ...]:
    depth = np.zeros(len(parents), dtype=np.int64)
    for j, p in enumerate(parents):
        if p >= j:
            raise ValueError(f"joint {j} has parent {p}: parents must precede children")
        depth[j] = 0 if p < 0 else depth[p] + 1
    return tuple(np.flatnonzero(depth == d) for d in range(int(depth.max(initial=-1)) + 1))


def _matrices_soa(rotations: FloatArray) -> FloatArray:
    """Rotation matrices ``[J, 3, 3, F]`` of local quaternions ``[F, J, 4]`` (frames last)."""
    w, x, y, z = (np.ascontiguousarray(rotations[..., i].T) for i in range(4))
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    m = np.empty((w.shape[0], 3, 3, w.shape[1]))
    m[:, 0, 0] = 1.0 - 2.0 * (yy + zz)
    m[:, 0, 1] = 2.0 * (xy - wz)
    m[:, 0, 2] = 2.0 * (xz + wy)
    m[:, 1, 0] = 2.0 * (xy + wz)
    m[:, 1, 1] = 1.0 - 2.0 * (xx + zz)
    m[:, 1, 2] = 2.0 * (yz - wx)
    m[:, 2, 0] = 2.0 * (xz - wy)
    m[:, 2, 1] = 2.0 * (yz + wx)
    m[:, 2, 2] = 1.0 - 2.0 * (xx + yy)
    return m


def _forward_soa(
    rotations: FloatArray, translations: FloatArray, parents: NDArray[np.integer]
) -> tuple[FloatArray, FloatArray]:
    """Global matrices ``[J, 3, 3, F]`` and positions ``[J, 3, F]``, frames last.

    The frames-last layout lets every 3×3 product run as nine long vector
    operations (``einsum`` over ``F``) instead of many tiny matrix products.
    """
    parents = np.asarray(parents)
    local = _matrices_soa(np.asarray(rotations, dtype=np.float64))
    offsets = np.ascontiguousarray(np.asarray(translations, dtype=np.float64).transpose(1, 2, 0))
    g_rot = np.empty_like(local)
    g_pos = np.empty_like(offsets)
    for level in levels(parents):
        par = parents[level]
        if par[0] < 0:
            g_rot[level] = local[level]
            g_pos[level] = offsets[level]
            continue
        parent_rot = g_rot[par]
        g_rot[level] = np.einsum("nikf,nkjf->nijf", parent_rot, local[level])
        g_pos[level] = g_pos[par] + np.einsum("nikf,nkf->nif", parent_rot, offsets[level])
    return g_rot, g_pos


def forward_matrices(
    rotations: FloatArray, translations: FloatArray, parents: NDArray[np.integer]
) -> tuple[FloatArray, FloatArray]:
    """Global rotation matrices ``[F, J, 3, 3]`` and positions ``[F, J, 3]`` (metres)."""
    g_rot, g_pos = _forward_soa(rotations, translations, parents)
    return g_rot.transpose(3, 0, 1, 2), g_pos.transpose(2, 0, 1)


def forward(
    rotations: FloatArray, translations: FloatArray, parents: NDArray[np.integer]
) -> tuple[FloatArray, FloatArray]:
    """Global rotations ``[F, J, 4]`` (quaternions, ``w >= 0``) and positions ``[F, J, 3]``.

    Args:
        rotations: ``[F, J, 4]`` local unit quaternions.
        translations: ``[F, J, 3]`` local translations, metres.
        parents: ``[J]`` parent indices, ``-1`` for roots.
    """
    parents = np.asarray(parents)
    g_pos = _forward_soa(rotations, translations, parents)[1]
    local = np.ascontiguousarray(np.asarray(rotations, dtype=np.float64).transpose(1, 2, 0))
    g_quat = np.empty_like(local)  # [J, 4, F]
    for level in levels(parents):
        par = parents[level]
        g_quat[level] = local[level] if par[0] < 0 else _mul_soa(g_quat[par], local[level])
    g_quat *= np.where(g_quat[:, :1] < 0.0, -1.0, 1.0)
    return g_quat.transpose(2, 0, 1), g_pos.transpose(2, 0, 1)


def _mul_soa(a: FloatArray, b: FloatArray) -> FloatArray:
    """Hamilton products of quaternion stacks laid out ``[n, 4, F]``."""
    aw, ax, ay, az = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
    bw, bx, by, bz = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    out = np.empty_like(a)
    out[:, 0] = aw * bw - ax * bx - ay * by - az * bz
    out[:, 1] = aw * bx + ax * bw + ay * bz - az * by
    out[:, 2] = aw * by - ax * bz + ay * bw + az * bx
    out[:, 3] = aw * bz + ax * by - ay * bx + az * bw
    return out


def positions(clip: Clip) -> FloatArray:
    """World positions ``[F, J, 3]`` (metres, Y up) of every joint of ``clip``."""
    g_pos = _forward_soa(clip.rotations, clip.translations, clip.skeleton.parents)[1]
    return np.ascontiguousarray(g_pos.transpose(2, 0, 1))


def rest_positions(offsets: FloatArray, parents: NDArray[np.integer]) -> FloatArray:
    """World positions ``[J, 3]`` of the zero pose (identity rotations, OFFSETs only)."""
    offsets = np.asarray(offsets, dtype=np.float64)
    out = np.zeros_like(offsets)
    for j, p in enumerate(np.asarray(parents)):
        out[j] = offsets[j] if p < 0 else out[p] + offsets[j]
    return out
