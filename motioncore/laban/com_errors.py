"""How plausible a centre-of-mass path is for its footprints (seed 003 §7.6, after van de
Panne 1997): ε_physics and ε_comfort.

* **ε_physics** (m²/s⁴): the mean squared part of the acceleration the legs cannot
  produce. The simplified leg model pushes only along the line from a foot on the
  ground to the centre of mass (a leg can push, not pull), so the centre's
  acceleration minus gravity, ``a - g``, must be a non-negative combination of those
  lines. With one foot down, that is the component of ``a - g`` along its line
  (clipped at zero); with two, the non-negative least-squares combination of both; in
  the air, nothing (the residual is ``a - g`` itself, zero for a ballistic flight).
* **ε_comfort** (m²): the mean squared difference between each standing leg's
  length (centre of mass to the foot) and its nominal length standing upright: how much
  the legs must stretch or bend.

Both are averaged over the frames (and, for comfort, the standing feet); lower is
better. The centre of mass is taken at the hips, 0.05 leg lengths above the hip
joints, which is where the canonical skeleton carries its mass centre closely enough
for this measure.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
GRAVITY = np.array([0.0, -9.81, 0.0])


@dataclass(frozen=True)
class ComErrors:
    physics_m2_s4: float
    comfort_m2: float


def _unit(v: FloatArray) -> FloatArray:
    out: FloatArray = v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-9)
    return out


def com_errors(
    com: FloatArray,
    feet: FloatArray,
    down: NDArray[np.bool_],
    fps: float,
    nominal_m: float,
) -> ComErrors:
    """ε_physics and ε_comfort of a centre-of-mass path.

    Args:
        com: ``[F, 3]`` centre-of-mass positions, metres.
        feet: ``[F, 2, 3]`` contact points of the left and right foot, metres.
        down: ``[F, 2]`` whether each foot is on the ground.
        fps: frames per second.
        nominal_m: a standing leg's length from the centre of mass to its contact point.
    """
    residual = physics_residuals(com, feet, down, fps)
    physics = float(np.mean(np.sum(residual**2, axis=1)))
    lengths = np.linalg.norm(com[:, None, :] - feet, axis=-1)
    stretch = (lengths - nominal_m)[down]
    comfort = float(np.mean(stretch**2)) if stretch.size else 0.0
    return ComErrors(physics, comfort)


def physics_residuals(
    com: FloatArray, feet: FloatArray, down: NDArray[np.bool_], fps: float
) -> FloatArray:
    """The part ``[F, 3]`` (m/s²) of each frame's ``a - g`` the standing legs cannot
    supply (arguments as :func:`com_errors`); the acceleration is the centred second
    difference (one-sided at the ends, as :func:`numpy.gradient` twice)."""
    accel = np.gradient(np.gradient(com, axis=0, edge_order=2), axis=0, edge_order=2) * fps * fps
    need = accel - GRAVITY  # what the legs must supply, per unit mass
    residual: FloatArray = np.einsum("fij,fj->fi", unreachable(com, feet, down, need), need)
    return residual


def unreachable(
    com: FloatArray, feet: FloatArray, down: NDArray[np.bool_], need: FloatArray
) -> FloatArray:
    """Per frame, the projection ``[F, 3, 3]`` taking what the legs must supply,
    ``need`` ``[F, 3]`` (m/s²), to the part they cannot: the identity in the air, the
    complement of the leg's line when one foot pushes, of the plane of both legs when
    two push (the best non-negative combination; a leg that would have to pull does
    not count)."""
    frames = len(com)
    eye = np.eye(3)
    out = np.broadcast_to(eye, (frames, 3, 3)).copy()
    lines = _unit(com[:, None, :] - feet)  # [F, 2, 3], from each foot towards the centre
    count = down.sum(axis=1)
    one = count == 1
    if one.any():
        line = np.where(down[one][:, :1], lines[one][:, 0], lines[one][:, 1])
        pushes = np.sum(need[one] * line, axis=1) > 0.0
        out[np.flatnonzero(one)[pushes]] = eye - _outer(line[pushes])
    two = np.flatnonzero(count == 2)
    if two.size:
        out[two] = _two_legs(need[two], lines[two])
    return out


def _outer(u: FloatArray) -> FloatArray:
    out: FloatArray = np.einsum("ni,nj->nij", u, u)
    return out


def _two_legs(need: FloatArray, lines: FloatArray) -> FloatArray:
    """The projections ``[N, 3, 3]`` leaving the residual of the best non-negative push
    along two legs' lines (both, one of them, or none)."""
    eye = np.eye(3)
    u, v = lines[:, 0], lines[:, 1]
    uu, vv, uv = np.sum(u * u, 1), np.sum(v * v, 1), np.sum(u * v, 1)
    nu, nv = np.sum(need * u, 1), np.sum(need * v, 1)
    det = uu * vv - uv * uv
    ok = det > 1e-9
    safe = np.where(ok, det, 1.0)
    a = np.where(ok, (nu * vv - nv * uv) / safe, 0.0)
    b = np.where(ok, (nv * uu - nu * uv) / safe, 0.0)
    # Projection onto span(u, v): [u v] (W^T W)^-1 [u v]^T.
    inverse = np.stack([np.stack([vv, -uv], -1), np.stack([-uv, uu], -1)], -2) / safe[:, None, None]
    basis = np.stack([u, v], -1)  # [N, 3, 2]
    plane = np.einsum("nik,nkl,njl->nij", basis, inverse, basis)
    candidates = np.stack(
        [
            np.where((nu > 0)[:, None, None], eye - _outer(u), eye),
            np.where((nv > 0)[:, None, None], eye - _outer(v), eye),
            np.where(((a >= 0) & (b >= 0) & ok)[:, None, None], eye - plane, eye),
        ]
    )
    norms = np.sum(np.einsum("cnij,nj->cni", candidates, need) ** 2, axis=2)
    best = np.argmin(norms, axis=0)
    return np.asarray(candidates[best, np.arange(len(need))], dtype=np.float64)
