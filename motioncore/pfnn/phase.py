"""The phase function: how much of each expert's weights a layer uses at phase φ.

A phase-functioned layer keeps ``K`` expert weight sets and uses, at phase φ, their
blend ``W(φ) = Σ_k c_k(φ) W_k`` (seed 002 §3.1; Holden et al. 2017). Two blends:

* ``"smoothstep"`` (the seed): φ scaled to ``[0, K)``, the two surrounding experts
  mixed with ``t = s²(3 - 2s)`` of the fractional part ``s``;
* ``"catmull-rom"`` (the original, ``K = 4``): the cyclic Catmull-Rom spline through
  the experts, four of them weighted at each φ (C¹-continuous in φ).

Coefficients are computed for a whole batch at once; every row sums to 1.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore.errors import MotionCoreError

FloatArray = NDArray[np.float64]
Blend = Literal["smoothstep", "catmull-rom"]
BLENDS: tuple[Blend, ...] = ("smoothstep", "catmull-rom")
TAU = 2.0 * np.pi


def coefficients(phase: ArrayLike, experts: int, blend: Blend) -> FloatArray:
    """``[B, K]`` blend weights of the ``K = experts`` experts at ``phase [B]`` radians."""
    if blend not in BLENDS:
        raise MotionCoreError(f"unknown phase blend {blend!r}; use one of {', '.join(BLENDS)}")
    if experts < (4 if blend == "catmull-rom" else 2):
        raise MotionCoreError(
            f"{blend} needs at least {4 if blend == 'catmull-rom' else 2} experts"
        )
    phi = np.mod(np.atleast_1d(np.asarray(phase, dtype=np.float64)), TAU)
    scaled = phi / TAU * experts
    base = np.floor(scaled).astype(np.int64) % experts
    s = scaled - np.floor(scaled)
    out = np.zeros((phi.shape[0], experts))
    rows = np.arange(phi.shape[0])
    if blend == "smoothstep":
        t = s * s * (3.0 - 2.0 * s)
        out[rows, base] += 1.0 - t
        out[rows, (base + 1) % experts] += t
        return out
    s2, s3 = s * s, s * s * s
    weights = (
        -0.5 * s + s2 - 0.5 * s3,
        1.0 - 2.5 * s2 + 1.5 * s3,
        0.5 * s + 2.0 * s2 - 1.5 * s3,
        -0.5 * s2 + 0.5 * s3,
    )
    for shift, w in zip((-1, 0, 1, 2), weights, strict=True):
        np.add.at(out, (rows, (base + shift) % experts), w)
    return out
