"""Gestures (seed 003 §7.1): a direction symbol → where the limb points.

The lookup table gives each of the nine directions at three levels a unit vector in
the body frame (facing +Z, left +X, up +Y). A direction's horizontal part is that
direction; ``high`` raises it 45° and ``low`` lowers it 45°. ``place`` is straight up
(``high``) or straight down (``low``, and ``middle``: a limb "in place" hangs).
Front, back, left and right are the body's, so they turn with the current facing.

A gesture moves on an arc between two positions (the direction is rotated, not
interpolated in a straight line), over its *performed* span
(:mod:`motioncore.laban.timing`: it starts a little before its written beat, or with
the legs, and arrives on its written end). A change of 180° or more
would pass through the body, so its direction goes round by the side, through the
midway direction bent outwards; for a whole arm :func:`reversals` lists those moves
and the synthesis folds the elbow through them instead (§7.1: the hand goes in a
straight line to the shoulder, the elbow bending, then the arm unfolds).

For arms, the default part (``arm``, ``hand``) and ``wrist`` point the forearm and
the whole arm; ``upper_arm`` and ``elbow`` point the upper arm; Microsoft's scores give
both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore.laban import timing
from motioncore.laban.score import DIRECTION_XZ, Score, Symbol
from motioncore.laban.timing import Interpretation

FloatArray = NDArray[np.float64]
LEVEL_ELEVATION_DEG = {"high": 45.0, "middle": 0.0, "low": -45.0}
REVERSAL_COS = -0.95
"""Directions whose cosine is under this (about 162° apart or more) reverse the limb."""


def direction_vector(direction: str, level: str) -> FloatArray:
    """Unit vector ``[3]`` (body frame: x left, y up, z forward) of a direction symbol."""
    if direction == "place":
        return np.array([0.0, 1.0 if level == "high" else -1.0, 0.0])
    x, z = DIRECTION_XZ[direction]
    elevation = math.radians(LEVEL_ELEVATION_DEG[level])
    return np.array([x * math.cos(elevation), math.sin(elevation), z * math.cos(elevation)])


def arc(a: FloatArray, b: FloatArray, t: float, outward: FloatArray) -> FloatArray:
    """The direction ``t`` (0…1) of the way from ``a`` to ``b`` on the great circle;
    nearly opposite directions go through ``outward`` (the side of the body)."""
    return np.asarray(arcs(a, b, np.array([t], dtype=np.float64), outward)[0], dtype=np.float64)


def arcs(a: FloatArray, b: FloatArray, t: FloatArray, outward: FloatArray) -> FloatArray:
    """Directions ``[N, 3]`` at fractions ``t`` ``[N]`` (0…1) of the way from ``a`` to
    ``b`` ``[3]`` on the great circle; about 180° apart they go round by the side,
    through the direction at right angles to ``a`` nearest ``outward``."""
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    cos = float(np.clip(np.dot(a, b), -1.0, 1.0))
    if cos < REVERSAL_COS:  # about 180°: go round by the side, through the outward direction
        middle = _perpendicular(a, outward)
        first = t < 0.5
        out = np.empty((len(t), 3))
        out[first] = arcs(a, middle, 2 * t[first], outward)
        out[~first] = arcs(middle, b, 2 * t[~first] - 1, outward)
        return out
    angle = math.acos(cos)
    if angle < 1e-9:
        return np.tile(b, (len(t), 1))
    w_a, w_b = np.sin((1 - t) * angle), np.sin(t * angle)
    return np.asarray((w_a[:, None] * a + w_b[:, None] * b) / math.sin(angle), dtype=np.float64)


@dataclass(frozen=True)
class Reversal:
    """A move of about 180° (cosine under :data:`REVERSAL_COS`) from direction ``a`` to
    ``b`` (body frame ``[3]``) over its performed span ``start_s`` … ``end_s`` (s)."""

    start_s: float
    end_s: float
    a: FloatArray
    b: FloatArray


def reversals(
    source: Score | Interpretation, column: str, parts: tuple[str, ...], rest: FloatArray
) -> list[Reversal]:
    """The moves of :func:`channel`'s limb (same keys, same order) that reverse it."""
    performed = source if isinstance(source, Interpretation) else timing.interpret(source)
    found = []
    current = np.asarray(rest, dtype=np.float64)
    for key in sorted(_keys(performed, column, parts), key=lambda k: k.start_s):
        target = direction_vector(str(key.symbol.direction), str(key.symbol.level))
        if key.end_s > key.start_s and float(np.dot(current, target)) < REVERSAL_COS:
            found.append(Reversal(key.start_s, key.end_s, current, target))
        current = target
    return found


def _keys(
    performed: Interpretation, column: str, parts: tuple[str, ...]
) -> list[timing.TimedSymbol]:
    """The column's direction symbols whose part is in ``parts`` (``None``: ``parts[0]``)."""
    return [
        t
        for t in performed.channel(column)
        if t.symbol.kind == "direction" and (t.symbol.part or parts[0]) in parts
    ]


def _perpendicular(a: FloatArray, preferred: FloatArray) -> FloatArray:
    """A unit vector at right angles to ``a``, as close to ``preferred`` as possible
    (then to up, then to forward, when ``preferred`` is along ``a``)."""
    for candidate in (preferred, np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0])):
        m = candidate - np.dot(candidate, a) * a
        if np.linalg.norm(m) > 1e-3:
            return np.asarray(m / np.linalg.norm(m), dtype=np.float64)
    return np.array([1.0, 0.0, 0.0])


def smooth(t: FloatArray) -> FloatArray:
    """Smoothstep of ``t`` clipped to 0…1: eases in and out."""
    t = np.clip(t, 0.0, 1.0)
    return np.asarray(t * t * (3.0 - 2.0 * t), dtype=np.float64)


def channel(
    source: Score | Interpretation,
    column: str,
    parts: tuple[str, ...],
    times: FloatArray,
    rest: FloatArray,
    outward: FloatArray,
) -> FloatArray:
    """Body-frame directions ``[T, 3]`` of one limb segment at ``times`` ``[T]``
    (seconds), from the direction symbols of ``column`` whose part is in ``parts``
    (``None`` counts as ``parts[0]``), each moving over its *performed* span
    (:func:`motioncore.laban.timing.interpret`; a :class:`Score` is interpreted here
    with the default rules, so pass one interpretation when calling this for several
    columns): it arrives on its written end unless the arm–leg sync or the leg rule
    moved it. ``rest`` ``[3]`` before the first; ``outward`` ``[3]``: the side a 180°
    change goes round by."""
    performed = source if isinstance(source, Interpretation) else timing.interpret(source)
    keys = _keys(performed, column, parts)
    out = np.repeat(np.asarray(rest, dtype=np.float64)[None], len(times), axis=0)
    current = np.asarray(rest, dtype=np.float64)
    for key in sorted(keys, key=lambda k: k.start_s):  # a later start cuts an earlier move
        target = direction_vector(str(key.symbol.direction), str(key.symbol.level))
        out[times >= key.end_s] = target
        moving = (times >= key.start_s) & (times < key.end_s)
        if moving.any():
            fraction = (times[moving] - key.start_s) / (key.end_s - key.start_s)
            out[moving] = arcs(current, target, smooth(fraction), outward)
        current = target
    return out


def limb_symbols(score: Score, column: str) -> list[Symbol]:
    """The direction symbols of a gesture column (for tests and the score view)."""
    return [s for s in score.column(column) if s.kind == "direction"]
