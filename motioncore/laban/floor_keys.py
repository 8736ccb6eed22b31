"""How a flying foot leaves and meets the floor (seed 003 §7.4): the keys just after
a lift-off and just before a landing, for the flight keys
(:mod:`motioncore.laban.flight_keys`) to go through, and the clearance of the sole
in between.

Conventions: metres, seconds, radians, Y up, the floor at y = 0; headings, the rigid
sole (:class:`~motioncore.laban.foot_geometry.FootGeometry`) and *pitch* (the sole's
angle to the floor, positive with the toes up) as in
:mod:`motioncore.laban.foot_geometry`. Lengths in ``_LEGS`` are in leg lengths.

A foot does not slide on the floor as it leaves it or comes down on it: it travels
only once it is clear, and comes down vertically.

* **Peel** (lift-off): the foot leaves with the pitch of its lift-off. When the heel is
  up (pitch < 0) the toes lie bent on the floor; first the ball rises on the circle
  about the toe tip, the tip staying put, until the toes are in line with the sole
  (the *toe key*, :data:`PEEL_S` s or :data:`PEEL_SHARE` of the flight after the
  lift-off); then the whole foot rises straight up until its lowest point is
  :data:`AIR_CLEARANCE_LEGS` leg lengths above the floor (the *clear key*,
  :data:`CLEAR_S` s or :data:`CLEAR_SHARE` of the flight after the lift-off). A
  flat foot has no toe key.
* **Touch** (landing): the same in reverse, the landing's pitch held: the clear key
  above the landing (:data:`CLEAR_S` or :data:`CLEAR_SHARE` before it), then for a
  ball landing the toe key (the toe tip already where it lands, :data:`PEEL_S` or
  :data:`PEEL_SHARE` before it), the ball coming down on the circle about the tip.
  A heel landing comes straight down on its heel, a flat one on its sole.
* **Travel**: between the clear keys the sole's lowest point, the toe tip in line
  with the sole or the heel (:func:`sole_clearance`), stays
  :data:`AIR_CLEARANCE_LEGS` above the floor.

The foot is at rest in the world at each of these keys (a short stop, as the foot's
speed is near zero at toe-off and heel strike). The numbers are ours: 2.5 cm of
clearance on the canonical legs is about the lowest toe clearance of a walking swing
(1-3 cm), and the keys take at most 0.04 s (a few frames) at each end of a flight, the
foot's lowest point rising at about 0.6 m/s.
"""

from __future__ import annotations

import math

import numpy as np

from motioncore.laban.foot_geometry import (
    MAX_HEEL_PITCH_DEG,
    MAX_PITCH_DEG,
    REACH_FACTOR,
    UP,
    Body,
    FloatArray,
    FootGeometry,
    forward_vector,
    in_plane,
)

PEEL_S, PEEL_SHARE = 0.02, 0.05
CLEAR_S, CLEAR_SHARE = 0.04, 0.1
AIR_CLEARANCE_LEGS = 0.03


def sole_clearance(pitch: FloatArray, g: FootGeometry) -> FloatArray:
    """How high ``[n]`` (m) the ankle is when the lowest point of a sole pitched
    ``pitch`` ``[n]`` (rad), its toes in line, touches the floor: the heel (toes up)
    or the toe tip (heel up)."""
    c, s = np.cos(pitch), np.sin(pitch)
    ha, tip = g.ankle_height_m, g.ball_forward_m + g.toe_length_m
    return np.asarray(np.maximum(ha * c + g.heel_back_m * s, ha * c - tip * s))


def clear_height(pitch: FloatArray, g: FootGeometry) -> FloatArray:
    """The lowest ankle height ``[n]`` (m) of a travelling foot pitched ``pitch``:
    its sole :data:`AIR_CLEARANCE_LEGS` clear of the floor."""
    return sole_clearance(pitch, g) + AIR_CLEARANCE_LEGS * g.leg_m


def peel_keys(
    time_s: float,
    ankle: FloatArray,
    heading: float,
    pitch: float,
    span_s: float,
    body: Body,
    g: FootGeometry,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Times ``[k]`` (s), world ankles ``[k, 3]`` and pitches ``[k]`` (rad) of the keys
    after a lift-off at ``time_s`` with ``ankle`` ``[3]``, ``heading`` and ``pitch``
    (rad), of a flight ``span_s`` long, hip joint ``body``: the toe key (heel up only)
    and the clear key."""
    return _keys(time_s, ankle, heading, pitch, span_s, body, g, 1.0)


def touch_keys(
    time_s: float,
    ankle: FloatArray,
    heading: float,
    pitch: float,
    span_s: float,
    body: Body,
    g: FootGeometry,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Times ``[k]`` (s, rising), world ankles ``[k, 3]`` and pitches ``[k]`` (rad) of
    the keys before a landing at ``time_s`` with ``ankle`` ``[3]``, ``heading`` and
    ``pitch`` (rad), of a flight ``span_s`` long, hip joint ``body``: the clear key and
    the toe key (ball landings only)."""
    times, ankles, pitches = _keys(time_s, ankle, heading, pitch, span_s, body, g, -1.0)
    return times[::-1], ankles[::-1], pitches[::-1]


def _keys(
    time_s: float,
    ankle: FloatArray,
    heading: float,
    pitch: float,
    span_s: float,
    body: Body,
    g: FootGeometry,
    way: float,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The toe and clear keys from the floor pose, in order away from it (``way`` +1
    after a lift-off, -1 before a landing). The point that stays put (the toe tip with
    the heel up, the heel with the toes up, the ankle of a flat foot) keeps its place
    on the floor, then rises straight up; the sole turns further about it where the
    ankle would be out of the leg's reach (:func:`_reached`)."""
    fwd = forward_vector(np.array([heading]))[0]
    at = time_s + way * np.array(
        [min(PEEL_S, PEEL_SHARE * span_s), min(CLEAR_S, CLEAR_SHARE * span_s)]
    )
    clear = AIR_CLEARANCE_LEGS * g.leg_m
    if pitch < 0.0:  # the toes lie bent on the floor, the tip toe_length ahead of the ball
        ball = ankle + in_plane(fwd[None], *_sole(np.array([pitch]), g.ball_forward_m, g))[0]
        fixed, along, limit = (
            ball + g.toe_length_m * fwd,
            g.ball_forward_m + g.toe_length_m,
            -MAX_PITCH_DEG,
        )
        fixed[1] = 0.0
        rises: tuple[float, ...] = (0.0, clear)
    elif pitch > 0.0:
        fixed = ankle + in_plane(fwd[None], *_sole(np.array([pitch]), -g.heel_back_m, g))[0]
        along, limit, rises, at = -g.heel_back_m, MAX_HEEL_PITCH_DEG, (clear,), at[1:]
    else:
        fixed, along, limit, rises, at = ankle - g.ankle_height_m * UP, 0.0, 0.0, (clear,), at[1:]
    keys = [
        _reached(fixed + r * UP, fwd, along, pitch, limit, body.hip_at(np.array([t]))[0], g)
        for r, t in zip(rises, at, strict=True)
    ]
    return at, np.array([k[0] for k in keys]), np.array([k[1] for k in keys])


def _sole(pitch: FloatArray, along: float, g: FootGeometry) -> tuple[FloatArray, FloatArray]:
    """How far forward and up ``[n]`` (m) the sole point ``along`` (m) ahead of the
    ankle's floor projection is from the ankle, at ``pitch`` ``[n]`` (toes in line)."""
    c, s = np.cos(pitch), np.sin(pitch)
    return along * c + g.ankle_height_m * s, along * s - g.ankle_height_m * c


def _reached(
    point: FloatArray,
    fwd: FloatArray,
    along: float,
    pitch: float,
    limit_deg: float,
    hip: FloatArray,
    g: FootGeometry,
) -> tuple[FloatArray, float]:
    """The ankle ``[3]`` and pitch of a sole whose point ``along`` (m) ahead of the ankle
    is at ``point`` ``[3]``: at ``pitch`` or, where that ankle is farther than
    :data:`REACH_FACTOR` × leg from ``hip`` ``[3]``, the nearest pitch towards
    ``limit_deg`` that is in reach (the one nearest the hip if none is)."""
    pitches = np.linspace(pitch, math.radians(limit_deg), 61)
    forward, up = _sole(pitches, along, g)
    ankles = point - forward[:, None] * fwd - up[:, None] * UP
    far = np.linalg.norm(ankles - hip, axis=1) - REACH_FACTOR * g.leg_m
    best = int(np.argmax(far <= 0.0)) if (far <= 0.0).any() else int(np.argmin(far))
    return ankles[best], float(pitches[best])


def travel_heading(
    lift: float, land: float, travel: tuple[float, float], t: FloatArray, body: Body
) -> FloatArray:
    """Headings ``[n]`` (rad) of a flying foot at ``t`` ``[n]``: its lift-off heading
    ``lift`` until the travel ``(start_s, end_s)`` starts, then turning with the body's
    facing and towards the landing's ``land`` (smoothstep), ``land`` once it ends."""
    a, b = body.facing_at(np.array(travel))
    before = lift - a
    turn = (land - b - before + math.pi) % (2.0 * math.pi) - math.pi
    u = np.clip((t - travel[0]) / max(travel[1] - travel[0], 1e-9), 0.0, 1.0)
    facing = body.facing_at(np.clip(t, *travel))
    return np.asarray(facing + before + turn * u * u * (3.0 - 2.0 * u), dtype=np.float64)
