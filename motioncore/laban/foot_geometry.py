"""The foot and leg that the ground keys (:mod:`motioncore.laban.foot_keys`) and the
flight keys (:mod:`motioncore.laban.flight_keys`) share (seed 003 §7.3-7.5): the
rigid sole and its points, the phase codes, the body's hip-local frame and one foot's
contacts as arrays.

Conventions: metres, seconds, radians, Y up. A heading is an angle about +Y, 0 = +Z;
a body facing ``f`` has its left along (cos f, 0, -sin f), as in
:mod:`motioncore.laban.synthesize` (the facing is unwrapped before use). The foot is
a rigid sole in the vertical plane of its heading: flat, the ankle stands
:attr:`FootGeometry.ankle_height_m` above the floor, the heel point
:attr:`~FootGeometry.heel_back_m` behind it and the ball
:attr:`~FootGeometry.ball_forward_m` ahead of it, both on the floor; the toes
(:attr:`~FootGeometry.toe_length_m`) hinge at the ball. *Pitch* is the sole's angle
to the floor, positive with the toes up. *Hip-local* coordinates are the body frame
of the facing (x left, y up, z forward) about one hip joint. Lengths in ``_LEGS`` are
in leg lengths (upper + lower leg).

*Toe bending* (:func:`foot_points`): the toe tip stays in line with the sole unless
that is below the floor; then it lies where the circle about the ball, radius the toe
length, meets the floor. *Toe rotation* (Fig. 6, :func:`reach_pitch`): the pitch about
the heel or the ball that brings the ankle to :data:`REACH_FACTOR` × the leg from the
hip joint, at most :data:`MAX_HEEL_PITCH_DEG` or :data:`MAX_PITCH_DEG`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
PhaseArray = NDArray[np.int8]

AIR, HEEL, FLAT, BALL, GESTURE = 0, 1, 2, 3, 4
"""Phase codes of :attr:`motioncore.laban.foot_keys.FootTrack.phase`."""

REACH_FACTOR = 0.995
MAX_PITCH_DEG = 70.0
MAX_HEEL_PITCH_DEG = 30.0

UP = np.array([0.0, 1.0, 0.0])
EPS_S = 1e-9
"""Tolerance (s) when comparing times."""


@dataclass(frozen=True)
class FootGeometry:
    """The foot and leg (metres): the rigid sole of the module docstring."""

    ankle_height_m: float
    heel_back_m: float
    ball_forward_m: float
    toe_length_m: float
    upper_leg_m: float
    lower_leg_m: float

    @classmethod
    def canonical(cls, k: float) -> FootGeometry:
        """The canonical skeleton's proportions scaled by ``k`` (1 for 0.84 m legs)."""
        return cls(0.06 * k, 0.05 * k, 0.13 * k, 0.06 * k, 0.42 * k, 0.42 * k)

    @property
    def leg_m(self) -> float:
        return self.upper_leg_m + self.lower_leg_m


@dataclass(frozen=True)
class Contacts:
    """One side's prints by start time, as arrays ``[C]``: times (s), ``position``
    ``[C, 2]`` (x, z), heading, the landing's pitch and pivot code and its length (s),
    the lift-off's length (s), whether the print is ``high``, the landing ``kind`` and
    the turns ``(start_s, end_s, angle)`` during each print. The ground keys build it;
    the flight keys read the other foot's, to go round it."""

    start: FloatArray
    end: FloatArray
    position: FloatArray
    heading: FloatArray
    land_pitch: FloatArray
    land_pivot: PhaseArray
    land_s: FloatArray
    lift_s: FloatArray
    high: NDArray[np.bool_]
    kind: tuple[str, ...]
    turns: tuple[tuple[tuple[float, float, float], ...], ...]


@dataclass(frozen=True)
class Body:
    """Frame times ``[F]`` (s), one hip joint ``[F, 3]`` (m) and the facing ``[F]``."""

    times: FloatArray
    hip: FloatArray
    facing: FloatArray

    def hip_at(self, t: FloatArray) -> FloatArray:
        return np.stack([np.interp(t, self.times, self.hip[:, i]) for i in range(3)], -1)

    def facing_at(self, t: FloatArray) -> FloatArray:
        return np.asarray(np.interp(t, self.times, self.facing), dtype=np.float64)

    def local(self, world: FloatArray, t: FloatArray) -> FloatArray:
        """World points ``[n, 3]`` at times ``t`` ``[n]`` in hip-local coordinates."""
        offset = world - self.hip_at(t)
        facing = self.facing_at(t)
        return np.stack(
            [
                np.sum(offset * left_vector(facing), axis=1),
                offset[:, 1],
                np.sum(offset * forward_vector(facing), axis=1),
            ],
            -1,
        )


def forward_vector(heading: FloatArray) -> FloatArray:
    """Unit vectors ``[n, 3]`` along headings (or facings) ``[n]`` (rad)."""
    return np.stack([np.sin(heading), np.zeros_like(heading), np.cos(heading)], -1)


def left_vector(facing: FloatArray) -> FloatArray:
    """Unit vectors ``[n, 3]`` to the left of a body facing ``[n]`` (rad)."""
    return np.stack([np.cos(facing), np.zeros_like(facing), -np.sin(facing)], -1)


def on_floor(xz: FloatArray) -> FloatArray:
    """Floor points ``[n, 3]`` (y = 0) at ``xz`` ``[n, 2]`` (m)."""
    return np.stack([xz[:, 0], np.zeros(len(xz)), xz[:, 1]], -1)


def in_plane(forward: FloatArray, along: FloatArray, up: FloatArray) -> FloatArray:
    """``along`` × ``forward`` ``[n, 3]`` + ``up`` × +Y."""
    return np.asarray(along[:, None] * forward + up[:, None] * UP, dtype=np.float64)


def foot_points(
    ankle: FloatArray, heading: FloatArray, pitch: FloatArray, g: FootGeometry
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Ball, toe tip and heel point ``[n, 3]`` of soles with ankles ``[n, 3]``, headings
    and pitches ``[n]``; the toes bend up where they would go below the floor."""
    fwd, c, s = forward_vector(heading), np.cos(pitch), np.sin(pitch)
    ha, b, hb, tl = g.ankle_height_m, g.ball_forward_m, g.heel_back_m, g.toe_length_m
    ball = ankle + in_plane(fwd, b * c + ha * s, b * s - ha * c)
    heel = ankle + in_plane(fwd, -hb * c + ha * s, -hb * s - ha * c)
    rise = np.minimum(np.maximum(tl * s, -ball[:, 1]), tl)
    run = np.where(c >= 0.0, 1.0, -1.0) * np.sqrt(np.maximum(tl**2 - rise**2, 0.0))
    return ball, ball + in_plane(fwd, run, rise), heel


def clearing_height(pitch: FloatArray, g: FootGeometry) -> FloatArray:
    """How high ``[n]`` (m) the ankle must be for heel and ball to clear the floor."""
    c, s = np.cos(pitch), np.sin(pitch)
    ha = g.ankle_height_m
    return np.maximum(g.heel_back_m * s + ha * c, -g.ball_forward_m * s + ha * c)


def pivot_along(pivot: PhaseArray, g: FootGeometry) -> FloatArray:
    """Where the fixed point is along the sole from the ankle (m): heel, ankle, ball."""
    return np.select([pivot == HEEL, pivot == BALL], [-g.heel_back_m, g.ball_forward_m], 0.0)


def pivoted_ankle(
    flat: FloatArray, heading: FloatArray, pitch: FloatArray, pivot: PhaseArray, g: FootGeometry
) -> FloatArray:
    """Ankles ``[n, 3]`` of soles turned by ``pitch`` about the heel, ankle projection
    or ball (``pivot``) of the flat foot whose ankle projection is ``flat`` ``[n, 2]``."""
    p, c, s = pivot_along(pivot, g), np.cos(pitch), np.sin(pitch)
    ha = g.ankle_height_m
    return on_floor(flat) + in_plane(forward_vector(heading), p - p * c - ha * s, ha * c - p * s)


def reach_pitch(
    flat: FloatArray, heading: FloatArray, hip: FloatArray, pivot: int, g: FootGeometry
) -> FloatArray:
    """Pitches ``[n]`` (rad) about the heel (toes up, ≥ 0) or the ball (heel up, ≤ 0),
    as ``pivot`` says, that put the ankle exactly :data:`REACH_FACTOR` × leg from the hip
    joints ``hip`` ``[n, 3]`` (seed Fig. 6), for flat feet with ankle projections
    ``flat`` ``[n, 2]``; 0 where the flat ankle is in reach or turning that way does not
    bring it nearer, at most :data:`MAX_PITCH_DEG`. The ankle turns on a circle of radius
    r about the fixed point P, ankle - P = r (cos ψ, sin ψ) along (forward, up), so
    |ankle - hip|² = |d|² + r² + 2 r M cos(ψ - δ) with d = P - hip, M cos δ = d·forward,
    M sin δ = d·up: a closed form."""
    fwd, ha = forward_vector(heading), g.ankle_height_m
    along, turn = (-g.heel_back_m, 1.0) if pivot == HEEL else (g.ball_forward_m, -1.0)
    reach, radius, flat_angle = (
        REACH_FACTOR * g.leg_m,
        math.hypot(along, ha),
        math.atan2(ha, -along),
    )
    far = np.linalg.norm(on_floor(flat) + ha * UP - hip, axis=1) > reach
    d = on_floor(flat) + along * fwd - hip
    a, b = np.sum(d * fwd, axis=1), d[:, 1]
    delta = np.arctan2(b, a)
    k = (reach**2 - np.sum(d * d, axis=1) - radius**2) / (2.0 * radius)
    spread = np.arccos(np.clip(k / np.maximum(np.hypot(a, b), 1e-12), -1.0, 1.0))
    first = np.minimum(
        np.mod(turn * (delta + spread - flat_angle), 2.0 * np.pi),
        np.mod(turn * (delta - spread - flat_angle), 2.0 * np.pi),
    )
    helps = turn * np.sin(flat_angle - delta) > 0.0
    limit = math.radians(MAX_HEEL_PITCH_DEG if pivot == HEEL else MAX_PITCH_DEG)
    return np.where(far & helps, turn * np.minimum(first, limit), 0.0)
