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
    accel = np.gradient(np.gradient(com, axis=0, edge_order=2), axis=0, edge_order=2) * fps * fps
    need = accel - GRAVITY  # what the legs must supply, per unit mass
    lines = _unit(com[:, None, :] - feet)  # [F, 2, 3], from each foot towards the centre
    residual = need.copy()
    one = down.sum(axis=1) == 1
    two = down.sum(axis=1) == 2
    if one.any():
        line = np.where(down[one][:, :1, None], lines[one][:, 0], lines[one][:, 1])[:, 0]
        push = np.maximum(np.sum(need[one] * line, axis=1), 0.0)
        residual[one] = need[one] - push[:, None] * line
    if two.any():
        residual[two] = _two_legs(need[two], lines[two])
    physics = float(np.mean(np.sum(residual**2, axis=1)))
    lengths = np.linalg.norm(com[:, None, :] - feet, axis=-1)
    stretch = (lengths - nominal_m)[down]
    comfort = float(np.mean(stretch**2)) if stretch.size else 0.0
    return ComErrors(physics, comfort)


def _two_legs(need: FloatArray, lines: FloatArray) -> FloatArray:
    """Residuals ``[N, 3]`` of the best non-negative push along two legs' lines."""
    u, v = lines[:, 0], lines[:, 1]
    uu, vv, uv = np.sum(u * u, 1), np.sum(v * v, 1), np.sum(u * v, 1)
    nu, nv = np.sum(need * u, 1), np.sum(need * v, 1)
    det = uu * vv - uv * uv
    ok = det > 1e-9
    a = np.where(ok, (nu * vv - nv * uv) / np.where(ok, det, 1.0), 0.0)
    b = np.where(ok, (nv * uu - nu * uv) / np.where(ok, det, 1.0), 0.0)
    both = need - a[:, None] * u - b[:, None] * v
    only_u = need - np.maximum(nu, 0.0)[:, None] * u
    only_v = need - np.maximum(nv, 0.0)[:, None] * v
    candidates = np.stack(
        [only_u, only_v, np.where(((a >= 0) & (b >= 0) & ok)[:, None], both, need)]
    )
    norms = np.sum(candidates**2, axis=2)
    best = np.argmin(norms, axis=0)
    return np.asarray(candidates[best, np.arange(len(need))], dtype=np.float64)
