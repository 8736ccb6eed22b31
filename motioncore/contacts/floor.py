"""The floor under the feet: the clip's floor and each point's local floor.

The clip has **one floor**: the height its feet's sole points (heel, ball, tip) rest
at most, the mode of the lowest sole point's height over the clip
(:func:`floor_height`). A point is measured by its height above its **local floor**
(:func:`local_lift`), so uneven ground and drifting captures keep each footprint.

Conventions: metres, Y up, world frame; ``F`` frames, ``P`` points of a foot.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import gaussian_filter1d, minimum_filter1d

from motioncore.contacts.foot_points import SOLE, Foot, Side

FloatArray = NDArray[np.float64]

FLOOR_BIN_M = 0.0025
"""Histogram bin of the floor's mode, metres."""
FLOOR_SMOOTH_M = 0.005
"""Gaussian smoothing of that histogram, metres (sensor noise of a still foot)."""


def floor_height(feet: tuple[Foot, ...], world: dict[Side, FloatArray]) -> float:
    """The floor, metres: the mode of the lowest sole point's height over the frames.

    Args:
        feet: the feet (:func:`motioncore.contacts.foot_points.feet`).
        world: side -> ``[F, P, 3]`` world positions of that foot's points.

    Returns:
        The most frequent height (histogram of :data:`FLOOR_BIN_M` bins smoothed
        by :data:`FLOOR_SMOOTH_M`) of the lowest heel, ball or tip of both feet;
        ``nan`` without feet.
    """
    lows = [
        world[f.side][:, [i for i, n in enumerate(f.names) if n in SOLE], 1].min(axis=1)
        for f in feet
    ]
    if not lows or lows[0].size == 0:
        return float("nan")
    sole = np.min(lows, axis=0)
    edges = np.arange(sole.min(), sole.max() + 2 * FLOOR_BIN_M, FLOOR_BIN_M)
    counts, edges = np.histogram(sole, bins=edges)
    density = gaussian_filter1d(counts.astype(np.float64), FLOOR_SMOOTH_M / FLOOR_BIN_M)
    peak = int(np.argmax(density))
    return float(0.5 * (edges[peak] + edges[peak + 1]))


def local_lift(lift: FloatArray, frames: int, max_step_m: float) -> FloatArray:
    """Heights ``[F, P]`` over each point's local floor (metres).

    The local floor of a point at a frame is its lowest height within ``frames``
    frames either side (the footprint it stands in), so ground that is uneven, or
    a capture whose floor drifts, does not lift a planted foot out of the band.
    A local floor is never below the clip's (a point dipping under it is low
    anyway, and one glitch must not lower the footprints around it), and one more
    than ``max_step_m`` above it is no floor (a foot held still in the air): there
    the height over the clip's floor is kept.
    """
    floor = np.maximum(minimum_filter1d(lift, size=2 * frames + 1, axis=0, mode="nearest"), 0.0)
    return np.where(floor <= max_step_m, lift - floor, lift)
