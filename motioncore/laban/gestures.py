"""Gestures (seed 003 §7.1): a direction symbol → where the limb points.

The lookup table gives each of the nine directions at three levels a unit vector in
the body frame (facing +Z, left +X, up +Y). A direction's horizontal part is that
direction; ``high`` raises it 45° and ``low`` lowers it 45°. ``place`` is straight up
(``high``) or straight down (``low``, and ``middle``: a limb "in place" hangs).
Front, back, left and right are the body's, so they turn with the current facing.

A gesture moves on an arc between two positions (the direction is rotated, not
interpolated in a straight line), over the symbol's duration. A change of 180° or more
would pass through the body, so it goes round by the side: through the midway
direction bent outwards (the elbow's path for opposite directions, §7.1).

For arms, the default part (``arm``, ``hand``) and ``wrist`` point the forearm and
the whole arm; ``upper_arm`` and ``elbow`` point the upper arm; Microsoft's scores give
both.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from motioncore.laban.score import Score, Symbol

FloatArray = NDArray[np.float64]
LEVEL_ELEVATION_DEG = {"high": 45.0, "middle": 0.0, "low": -45.0}

_HORIZONTAL = {
    "forward": (0.0, 1.0),
    "backward": (0.0, -1.0),
    "left": (1.0, 0.0),
    "right": (-1.0, 0.0),
    "left_forward": (math.sqrt(0.5), math.sqrt(0.5)),
    "right_forward": (-math.sqrt(0.5), math.sqrt(0.5)),
    "left_backward": (math.sqrt(0.5), -math.sqrt(0.5)),
    "right_backward": (-math.sqrt(0.5), -math.sqrt(0.5)),
}


def direction_vector(direction: str, level: str) -> FloatArray:
    """Unit vector ``[3]`` (body frame: x left, y up, z forward) of a direction symbol."""
    if direction == "place":
        return np.array([0.0, 1.0 if level == "high" else -1.0, 0.0])
    x, z = _HORIZONTAL[direction]
    elevation = math.radians(LEVEL_ELEVATION_DEG[level])
    return np.array([x * math.cos(elevation), math.sin(elevation), z * math.cos(elevation)])


def arc(a: FloatArray, b: FloatArray, t: float, outward: FloatArray) -> FloatArray:
    """The direction ``t`` (0…1) of the way from ``a`` to ``b`` on the great circle;
    nearly opposite directions go through ``outward`` (the side of the body)."""
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    cos = float(np.clip(np.dot(a, b), -1.0, 1.0))
    if cos < -0.95:  # about 180°: go round by the side, through the outward direction
        middle = _perpendicular(a, outward)
        return arc(a, middle, 2 * t, outward) if t < 0.5 else arc(middle, b, 2 * t - 1, outward)
    angle = math.acos(cos)
    if angle < 1e-9:
        return b.copy()
    out = (math.sin((1 - t) * angle) * a + math.sin(t * angle) * b) / math.sin(angle)
    return np.asarray(out, dtype=np.float64)


def _perpendicular(a: FloatArray, preferred: FloatArray) -> FloatArray:
    """A unit vector at right angles to ``a``, as close to ``preferred`` as possible
    (then to up, then to forward, when ``preferred`` is along ``a``)."""
    for candidate in (preferred, np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0])):
        m = candidate - np.dot(candidate, a) * a
        if np.linalg.norm(m) > 1e-3:
            return np.asarray(m / np.linalg.norm(m), dtype=np.float64)
    return np.array([1.0, 0.0, 0.0])


def _smooth(t: float) -> float:
    t = min(max(t, 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


def channel(
    score: Score,
    column: str,
    parts: tuple[str, ...],
    times: FloatArray,
    rest: FloatArray,
    outward: FloatArray,
) -> FloatArray:
    """Body-frame directions ``[T, 3]`` of one limb segment at ``times`` (seconds), from
    the direction and hold symbols of ``column`` whose part is in ``parts`` (``None``
    counts as the column's default); ``rest`` before the first symbol."""
    spb = score.seconds_per_beat
    symbols = [
        s
        for s in score.column(column)
        if s.kind in ("direction", "hold") and (s.part or parts[0]) in parts
    ]
    out = np.empty((len(times), 3))
    current = rest.astype(np.float64)
    keys: list[tuple[float, float, FloatArray, FloatArray]] = []  # start, end, from, to
    for s in symbols:
        if s.kind == "direction":
            target = direction_vector(str(s.direction), str(s.level))
            keys.append((s.beat * spb, s.end * spb, current, target))
            current = target
    for i, t in enumerate(times):
        value = rest
        for start, end, a, b in keys:
            if t >= end:
                value = b
            elif t >= start:
                fraction = (t - start) / (end - start) if end > start else 1.0
                value = arc(a, b, _smooth(fraction), outward)
                break
            else:
                break
        out[i] = value
    return out


def limb_symbols(score: Score, column: str) -> list[Symbol]:
    """The direction symbols of a gesture column (for tests and the score view)."""
    return [s for s in score.column(column) if s.kind == "direction"]
