"""Ground keys (seed 003 §7.3): the foot on its footprints, for :mod:`motioncore.laban.foot_keys`.

Conventions: metres, seconds, radians, Y up; headings, the rigid sole
(:class:`FootGeometry`), *pitch* (the sole's angle to the floor, positive with the toes
up) and *hip-local* coordinates (x left, y up, z forward about one hip joint) as in
:mod:`motioncore.laban.foot_geometry`. Lengths in ``_LEGS`` are in leg lengths (upper
+ lower leg).

**Ground keys** (§7.3), in world space. A print's time on the ground is split into:

* *partial contact*: a walking ``step`` whose travel from the foot's previous print
  points within 60° of its heading at landing (:data:`HEEL_STRIKE_MIN_COS`; a travel
  shorter than :data:`MIN_TRAVEL_LEGS` counts as none) strikes with the heel: the heel
  point stays put while the pitch falls linearly from :data:`HEEL_STRIKE_PITCH_DEG` to
  0 over the first :data:`CONTACT_S` s or :data:`CONTACT_SHARE` of the contact,
  whichever is shorter (phase ``HEEL``). If the flat foot would still be out of reach
  then, it stays on its heel, toes up as much as the reach needs (at most
  :data:`MAX_HEEL_PITCH_DEG`), until the flat foot is in reach: so the sole always
  goes flat before the heel can rise. Other steps (backward, sideways) and landings
  from the air (``hop``, ``leap``, ``jump``, ``assemble``, ``sissonne``) come down on
  the ball, the heel lowering from :data:`BALL_LANDING_PITCH_DEG` over the same time
  (``BALL``). ``close`` and the starting stance are put down flat;
* *flat* (``FLAT``): the ankle :attr:`~FootGeometry.ankle_height_m` above the print;
* *lift-off*: the heel rises about the ball to :data:`LIFTOFF_PITCH_DEG` over the last
  :data:`LIFTOFF_S` s or :data:`LIFTOFF_SHARE` of the contact (``BALL``); a print that
  lasts to the end of the score does not lift.

``high`` supports stand on the ball the whole time, heel up :data:`HIGH_PITCH_DEG`.
*Level changes in place*: a ``level`` print follows the foot's previous print without a
gap (the foot never left the floor, :mod:`motioncore.laban.footprints`): the print
before it does not lift off, and going onto or off the toes the heel rises or lowers
about the ball between 0 and :data:`HIGH_PITCH_DEG` over :data:`LEVEL_CHANGE_S` s or
:data:`LEVEL_CHANGE_SHARE` of the print, whichever is shorter (``BALL``).
*Toe rotation* (Fig. 6): wherever the ankle of a flat or ball contact would be farther
from the hip joint than :data:`REACH_FACTOR` × the leg, the heel rises about the ball
until the ankle is exactly that far (a closed form; at most :data:`MAX_PITCH_DEG`;
``BALL``). That cannot help a foot far ahead of the hip: lowering the hips is the
caller's business. *Pivots* (§7.6): during a turn sign in a support or the body column
a foot on the ground rises on its ball (heel up to :data:`PIVOT_PITCH_DEG`, on a sine)
and turns about it with the body's facing, by the turn's amount, then stands flat
where that leaves it (the ankle up to twice the ball distance from its print after a
half turn). *Toe bending*: the toe tip stays in line with the sole unless that is
below the floor; then it lies where the circle about the ball, radius the toe length,
meets the floor. A ground phase keeps its contact point, the ``anchor``, fixed: the
heel point (``HEEL``), the ankle's floor projection (``FLAT``) or the ball (``BALL``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore.laban.flight_keys import FLIGHT_KINDS
from motioncore.laban.foot_geometry import (
    BALL,
    EPS_S,
    FLAT,
    HEEL,
    Body,
    Contacts,
    FloatArray,
    FootGeometry,
    PhaseArray,
    forward_vector,
    on_floor,
    pivot_along,
    pivoted_ankle,
    reach_pitch,
)
from motioncore.laban.prints import Footprint
from motioncore.laban.score import SUPPORTS, Score

HEEL_STRIKE_PITCH_DEG = 18.0
HEEL_STRIKE_MIN_COS = 0.5
MIN_TRAVEL_LEGS = 0.06
BALL_LANDING_PITCH_DEG = 25.0
CONTACT_S, CONTACT_SHARE = 0.1, 0.2
LIFTOFF_PITCH_DEG = 30.0
LIFTOFF_S, LIFTOFF_SHARE = 0.1, 0.2
HIGH_PITCH_DEG = 40.0
PIVOT_PITCH_DEG = 20.0
LEVEL_CHANGE_S, LEVEL_CHANGE_SHARE = 0.3, 0.5
"""A ``level`` print that follows the foot's print without a gap (a support for a foot
that already carries weight, :mod:`motioncore.laban.footprints`) lifts or lowers the
heel over this long (s) or this share of the print, whichever is shorter: about the
time the hips take to change height (twice ``body_path.HIPS_SMOOTHING_S``)."""


@dataclass(frozen=True)
class Pose:
    """Feet at ``n`` instants: ankles ``[n, 3]``, headings, pitches, phases, anchors."""

    ankle: FloatArray
    heading: FloatArray
    pitch: FloatArray
    phase: PhaseArray
    anchor: FloatArray


def turns_of(score: Score) -> tuple[tuple[float, float, float], ...]:
    """Pivots: ``(start_s, end_s, heading change)`` of the support and body turns."""
    spb = score.seconds_per_beat
    return tuple(
        (s.beat * spb, s.end * spb, 2.0 * math.pi * float(s.amount or 0.0) * sign)
        for s in score.symbols
        if s.kind == "turn" and s.column in (*SUPPORTS, "body")
        for sign in ((1.0 if s.turn == "left" else -1.0),)
    )


def _landing(p: Footprint, previous: Footprint | None, heading: float, leg_m: float) -> int:
    """How ``p`` is reached, the foot along ``heading`` (rad) when it lands: ``HEEL``
    (forward walking), ``BALL`` or ``FLAT``."""
    if p.kind in FLIGHT_KINDS:
        return BALL
    if p.kind != "step" or previous is None:
        return FLAT
    x, z = p.position[0] - previous.position[0], p.position[1] - previous.position[1]
    travel = math.hypot(x, z)
    if travel < MIN_TRAVEL_LEGS * leg_m:
        return FLAT
    along = (x * math.sin(heading) + z * math.cos(heading)) / travel
    return HEEL if along >= HEEL_STRIKE_MIN_COS else BALL


def contacts_of(
    prints: tuple[Footprint, ...],
    turns: tuple[tuple[float, float, float], ...],
    end_s: float,
    g: FootGeometry,
) -> Contacts:
    """One side's prints as :class:`Contacts`, for a score ``end_s`` seconds long."""
    ordered = sorted(prints, key=lambda p: p.start_s)
    if not ordered:
        raise ValueError("a foot without footprints")
    during = [tuple(w for w in turns if w[0] < p.end_s and w[1] > p.start_s) for p in ordered]
    landing = [  # the print's heading is the one after its turns; not yet when it lands
        p.heading - sum(w[2] for w in ws if w[0] >= p.start_s)
        for p, ws in zip(ordered, during, strict=True)
    ]
    styles = [
        _landing(p, ordered[i - 1] if i else None, landing[i], g.leg_m)
        for i, p in enumerate(ordered)
    ]
    span = np.array([p.end_s - p.start_s for p in ordered])
    pitch = {HEEL: HEEL_STRIKE_PITCH_DEG, BALL: -BALL_LANDING_PITCH_DEG, FLAT: 0.0}
    land_pitch = np.radians([pitch[s] for s in styles])
    land_s = np.where(np.array(styles) != FLAT, np.minimum(CONTACT_S, CONTACT_SHARE * span), 0)
    high = np.array([p.level == "high" for p in ordered])
    follows = np.array(  # a change of level in place: the foot never left the ground
        [
            i > 0 and p.kind == "level" and p.start_s <= ordered[i - 1].end_s + 1e-6
            for i, p in enumerate(ordered)
        ]
    )
    for i in np.flatnonzero(follows):  # the heel rises or lowers from the pitch before
        land_pitch[i] = -math.radians(HIGH_PITCH_DEG) if high[i - 1] else 0.0
        styles[i] = BALL if high[i - 1] or high[i] else FLAT
        changes = high[i - 1] != high[i]
        land_s[i] = min(LEVEL_CHANGE_S, LEVEL_CHANGE_SHARE * span[i]) if changes else 0.0
    lifts = np.array(
        [i < len(ordered) - 1 or p.end_s < end_s - 1e-6 for i, p in enumerate(ordered)]
    )
    lifts[:-1] &= ~follows[1:]  # no lift-off into a change of level
    return Contacts(
        start=np.array([p.start_s for p in ordered]),
        end=np.array([p.end_s for p in ordered]),
        position=np.array([p.position for p in ordered], dtype=np.float64),
        heading=np.array([p.heading for p in ordered]),
        land_pitch=land_pitch,
        land_pivot=np.array(styles, dtype=np.int8),
        land_s=land_s,
        lift_s=np.where(lifts, np.minimum(LIFTOFF_S, LIFTOFF_SHARE * span), 0.0),
        high=high,
        kind=tuple(p.kind for p in ordered),
        turns=tuple(during),
    )


def _schedule(cs: Contacts, ci: NDArray[np.intp], t: FloatArray) -> tuple[FloatArray, PhaseArray]:
    """Pitch (rad) and pivot code ``[n]`` at times ``t`` in contacts ``ci``: landing
    roll, flat, lift-off; ``high`` on the ball throughout."""
    start, end, land, lift = cs.start[ci], cs.end[ci], cs.land_s[ci], cs.lift_s[ci]
    landing = (t < start + land) & (land > 0)
    lifting = (t > end - lift) & (lift > 0)
    u_land = np.clip((t - start) / np.maximum(land, 1e-12), 0.0, 1.0)
    u_lift = np.clip((t - end + lift) / np.maximum(lift, 1e-12), 0.0, 1.0)
    pitch = np.where(landing, cs.land_pitch[ci] * (1.0 - u_land), 0.0)
    pitch = np.where(lifting, -math.radians(LIFTOFF_PITCH_DEG) * u_lift, pitch)
    standing = np.where(cs.high[ci], -math.radians(HIGH_PITCH_DEG), 0.0)
    pitch = np.where(cs.high[ci], standing, pitch)
    level = np.array([k == "level" for k in cs.kind], dtype=bool)[ci] & landing
    pitch = np.where(level, cs.land_pitch[ci] * (1.0 - u_land) + standing * u_land, pitch)
    pivot = np.where(landing, cs.land_pivot[ci], FLAT)
    pivot = np.where(lifting | cs.high[ci], BALL, pivot)
    return pitch, pivot.astype(np.int8)


def _progress(t: FloatArray, a: float, b: float, body: Body) -> FloatArray:
    """How far ``[n]`` (0-1) a turn from ``a`` to ``b`` (s) is at ``t``, by the facing."""
    if b - a < EPS_S:
        return (t > a).astype(np.float64)
    fa, fb = body.facing_at(np.array([a, b]))
    if abs(fb - fa) < 1e-6:
        return np.clip((t - a) / (b - a), 0.0, 1.0)
    done = (body.facing_at(np.clip(t, a, b)) - fa) / (fb - fa)
    return np.asarray(np.clip(done, 0.0, 1.0), dtype=np.float64)


def _pivoted(
    cs: Contacts,
    c: int,
    t: FloatArray,
    pitch: FloatArray,
    pivot: PhaseArray,
    body: Body,
    g: FootGeometry,
) -> tuple[FloatArray, FloatArray, FloatArray, PhaseArray]:
    """Heading, flat ankle projection ``[n, 2]``, pitch and pivot of contact ``c``
    turning on its ball through its turns (the print's heading and position are the
    ones after them, see :func:`motioncore.laban.footprints.footprints`)."""
    b = g.ball_forward_m
    h, here = float(cs.heading[c]), cs.position[c]
    for _, _, angle in reversed(cs.turns[c]):  # the print is where its turns leave the foot
        ball = here + b * np.array([math.sin(h), math.cos(h)])
        h -= angle
        here = ball - b * np.array([math.sin(h), math.cos(h)])
    heading, flat = np.full(len(t), h), np.tile(here, (len(t), 1))
    for start, end, angle in cs.turns[c]:
        ball = here + b * np.array([math.sin(h), math.cos(h)])
        turned = h + angle * _progress(t, start, end, body)
        after, inside = t > start, (t > start) & (t < end)
        heading = np.where(after, turned, heading)
        flat = np.where(
            after[:, None], ball - b * np.stack([np.sin(turned), np.cos(turned)], -1), flat
        )
        share = np.clip((t - start) / max(end - start, EPS_S), 0.0, 1.0)
        rise = -math.radians(PIVOT_PITCH_DEG) * np.sin(np.pi * share)
        pitch = np.where(inside, np.minimum(np.where(pivot == HEEL, 0.0, pitch), rise), pitch)
        pivot = np.where(inside, BALL, pivot).astype(np.int8)
        h += angle
        here = ball - b * np.array([math.sin(h), math.cos(h)])
    return heading, flat, pitch, pivot


def ground_pose(
    cs: Contacts,
    ci: NDArray[np.intp],
    t: FloatArray,
    hip: FloatArray,
    body: Body,
    g: FootGeometry,
) -> Pose:
    """The foot at times ``t`` ``[n]`` on contacts ``ci``, hip joint ``hip`` ``[n, 3]``."""
    heading, flat = cs.heading[ci].copy(), cs.position[ci].copy()
    pitch, pivot = _schedule(cs, ci, t)
    for c in (int(c) for c in np.unique(ci) if cs.turns[c]):
        rows = ci == c
        heading[rows], flat[rows], pitch[rows], pivot[rows] = _pivoted(
            cs, c, t[rows], pitch[rows], pivot[rows], body, g
        )
    pitch, pivot = _heel_until_reached(cs, ci, t, flat, heading, hip, pitch, pivot, g)
    free = pivot != HEEL
    pitch = np.where(free, np.minimum(pitch, reach_pitch(flat, heading, hip, BALL, g)), pitch)
    pivot = np.where(free & (pitch < 0.0), BALL, pivot).astype(np.int8)
    anchor = on_floor(flat) + pivot_along(pivot, g)[:, None] * forward_vector(heading)
    return Pose(pivoted_ankle(flat, heading, pitch, pivot, g), heading, pitch, pivot, anchor)


def _heel_until_reached(
    cs: Contacts,
    ci: NDArray[np.intp],
    t: FloatArray,
    flat: FloatArray,
    heading: FloatArray,
    hip: FloatArray,
    pitch: FloatArray,
    pivot: PhaseArray,
    g: FootGeometry,
) -> tuple[FloatArray, PhaseArray]:
    """A heel strike whose flat foot would be out of reach stays on the heel, toes up as
    much as the reach needs, until the first instant the flat foot is in reach (so it
    goes flat before any heel rise); lift-off, pivots and ``high`` take precedence."""
    struck = cs.land_pivot[ci] == HEEL
    toes_up = reach_pitch(flat, heading, hip, HEEL, g)
    ready = struck & (t >= cs.start[ci] + cs.land_s[ci]) & (toes_up <= 0.0)
    flat_from = np.full(len(cs.start), np.inf)
    np.minimum.at(flat_from, ci[ready], t[ready])
    on_heel = struck & (t < flat_from[ci]) & (pivot != BALL)
    pitch = np.where(on_heel, np.maximum(np.where(pivot == HEEL, pitch, 0.0), toes_up), pitch)
    return pitch, np.where(on_heel, HEEL, pivot).astype(np.int8)
