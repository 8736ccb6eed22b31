"""The shape-preserving piecewise cubic (PCHIP, Fritsch-Carlson) as
:class:`scipy.interpolate.PchipInterpolator` builds it, in two steps so that a caller
can set some slopes itself: :func:`slopes` at the knots, then :func:`hermite`, the
cubic Hermite through knots and slopes.

Conventions: knots ``x`` ``[K]`` strictly increasing, values and slopes ``[K, C]``
(``C`` channels interpolated independently), in the caller's units.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


def slopes(x: FloatArray, y: FloatArray) -> FloatArray:
    """Slopes ``[K, C]`` of the shape-preserving cubic (PCHIP, Fritsch-Carlson, as
    :class:`scipy.interpolate.PchipInterpolator`) through knots ``x`` ``[K]``, ``y``
    ``[K, C]``."""
    h = np.diff(x)[:, None]
    m = np.diff(y, axis=0) / h
    if len(x) == 2:
        return np.vstack([m, m])
    out = np.zeros_like(y)
    w1, w2 = 2.0 * h[1:] + h[:-1], h[1:] + 2.0 * h[:-1]
    same = (np.sign(m[1:]) == np.sign(m[:-1])) & (m[1:] != 0.0) & (m[:-1] != 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = (w1 + w2) / (w1 / m[:-1] + w2 / m[1:])
    out[1:-1] = np.where(same, inner, 0.0)
    out[0], out[-1] = _end_slope(h[0], h[1], m[0], m[1]), _end_slope(h[-1], h[-2], m[-1], m[-2])
    return out


def _end_slope(h0: FloatArray, h1: FloatArray, m0: FloatArray, m1: FloatArray) -> FloatArray:
    """PCHIP's one-sided three-point slope at an end."""
    d = ((2.0 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    d = np.where(np.sign(d) != np.sign(m0), 0.0, d)
    steep = (np.sign(m0) != np.sign(m1)) & (np.abs(d) > 3.0 * np.abs(m0))
    return np.asarray(np.where(steep, 3.0 * m0, d), dtype=np.float64)


def hermite(x: FloatArray, y: FloatArray, slope: FloatArray, t: FloatArray) -> FloatArray:
    """The cubic Hermite ``[n, C]`` through knots ``x`` ``[K]``, ``y`` and ``slope``
    ``[K, C]``, at ``t`` ``[n]`` (within the knots)."""
    i = np.clip(np.searchsorted(x, t, side="right") - 1, 0, len(x) - 2)
    h = (x[i + 1] - x[i])[:, None]
    s = ((t - x[i]) / (x[i + 1] - x[i]))[:, None]
    s2, s3 = s * s, s * s * s
    return np.asarray(
        (2 * s3 - 3 * s2 + 1) * y[i]
        + (s3 - 2 * s2 + s) * h * slope[i]
        + (3 * s2 - 2 * s3) * y[i + 1]
        + (s3 - s2) * h * slope[i + 1],
        dtype=np.float64,
    )
