"""Flight keys and leg gestures (seed 003 §7.4-7.5): the ankle, heading and pitch of a
foot in the air, between the lift-off and landing poses that the ground keys
(:mod:`motioncore.laban.foot_keys`) give.

Conventions: metres, seconds, radians, Y up; headings, pitch, the rigid sole and
hip-local coordinates as in :mod:`motioncore.laban.foot_geometry`. Lengths in ``_LEGS``
are in leg lengths (upper + lower leg).

**Flight keys** (§7.4), in hip-local coordinates so that they follow the body; the
lift-off and landing poses come from the ground keys. Positions and pitch go through a
cubic in time with PCHIP's shape-preserving slopes at the inner keys and, at lift-off
and landing, the velocity that keeps the foot still in the world (it leaves and
arrives without a jolt); the heading relative to the facing goes on a smoothstep; the
ankle is then kept at least as high as the pitched sole needs to clear the floor.

* *walking*: one key midway in time, between the two ends, the ankle
  :data:`SWING_LIFT_LEGS` leg lengths above its flat height, the sole level;
* *crossing*: where the straight path from lift-off to landing passes within
  :data:`FOOT_CLEARANCE_LEGS` leg lengths of a foot standing meanwhile, three keys
  :data:`DETOUR_SCALE` × that from it, at ±:data:`DETOUR_SPREAD_DEG` about the side
  it goes round, replace the midway key: in front or behind, on the side the landing
  is (in front when level); timed by distance along the way and lifted on a sine of
  the same height;
* *runs and jumps* (landing ``hop``, ``leap``, ``jump``, ``assemble``, ``sissonne``):
  a *kick* at :data:`KICK_AT` of the foot's air time, the ankle
  :data:`KICK_BACK_LEGS` leg lengths behind the hip joint and raised
  :data:`KICK_BASE_LEGS` + :data:`KICK_LEGS_PER_S` × (the body's air time before the
  landing, s) leg lengths, at most :data:`KICK_MAX_LEGS`, toes down
  :data:`KICK_PITCH_DEG`; and a *landing preparation* :data:`PREP_S` s (at most
  :data:`PREP_SHARE` of the air time) before landing, where the landing is relative
  to the hip (under or ahead of it) and :data:`PREP_LIFT_LEGS` leg lengths above the
  landing pose, already pitched for it;
* a *released* foot (freed by a support of the other foot alone) hovers
  (:func:`~motioncore.laban.free_leg.hover_keys`): its hover keys replace the midway
  or crossing keys of a walking step and the kick of a run or jump (the landing
  preparation stays);
* a foot that lifts and never lands again goes to hang under its hip joint,
  :data:`SWING_LIFT_LEGS` leg lengths up, over :data:`HANG_S` (a released one to its
  first hover key).

**Leg gestures** (§7.5) take the place of all of these in the flights they fall in
(:func:`~motioncore.laban.free_leg.gesture_keys`); there the ankle stays at least its
flat height (phase ``GESTURE``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore.laban import pchip
from motioncore.laban.floor_keys import clear_height, peel_keys, touch_keys, travel_heading
from motioncore.laban.foot_geometry import (
    AIR,
    EPS_S,
    GESTURE,
    REACH_FACTOR,
    UP,
    Body,
    Contacts,
    FloatArray,
    FootGeometry,
    PhaseArray,
    clearing_height,
    forward_vector,
    left_vector,
)
from motioncore.laban.free_leg import (
    GESTURE_RETURN_S,
    HOVER_APPROACH_S,
    HOVER_RISE_S,
    Gesture,
    Key,
    gesture_keys,
    hover_keys,
    leg_gestures,
)
from motioncore.laban.prints import Footprints
from motioncore.laban.score import Score

FLIGHT_KINDS = frozenset({"hop", "leap", "jump", "assemble", "sissonne"})
"""Landings from the air: on the ball, after a kick and a landing preparation."""

SWING_LIFT_LEGS = 0.1
FOOT_CLEARANCE_LEGS = 0.17
DETOUR_SCALE = 1.25
DETOUR_SPREAD_DEG = 50.0
KICK_AT = 0.35
KICK_BACK_LEGS = 0.25
KICK_BASE_LEGS, KICK_LEGS_PER_S, KICK_MAX_LEGS = 0.15, 1.2, 0.7
KICK_PITCH_DEG = -60.0
PREP_S, PREP_SHARE = 0.1, 0.2
PREP_LIFT_LEGS = 0.05
HANG_S = 0.4


@dataclass(frozen=True)
class End:
    """A flight's lift-off or landing: time (s), ankle ``[3]`` (world and hip-local),
    heading, pitch and the body's facing (rad), the hip-local velocity ``[3]`` (m/s)
    of a point at rest in the world there, and whether the foot is on the floor."""

    time_s: float
    ankle: FloatArray
    heading: float
    pitch: float
    local: FloatArray
    facing: float
    still: FloatArray
    on_floor: bool = True


@dataclass(frozen=True)
class Flights:
    """What one foot's flights depend on besides its own prints: the other foot's
    contacts, this leg's gestures ``(start_s, end_s, body-frame direction [3])``, every
    print's ``(start_s, end_s)`` ``[P, 2]``, which of them are this foot's, the side's
    sign (+1 left, -1 right) and the times (s) this foot was released ``[R]``."""

    standing: Contacts
    gestures: tuple[Gesture, ...]
    print_times: FloatArray
    own: NDArray[np.bool_]
    sign: float
    released: FloatArray

    def released_at(self, lift_s: float) -> bool:
        """Whether the lift-off at ``lift_s`` (s) released the foot (it hovers)."""
        return bool(np.any(np.abs(self.released - lift_s) < 1e-6))

    def air_before(self, landing_s: float) -> float:
        """How long (s) no foot was on the ground before a landing at ``landing_s``."""
        start, end = self.print_times[:, 0], self.print_times[:, 1]
        done = (end <= landing_s + EPS_S) & ~(self.own & (np.abs(start - landing_s) < 1e-6))
        return landing_s - float(end[done].max()) if done.any() else 0.0

    @classmethod
    def of(cls, score: Score, prints: Footprints, side: str, standing: Contacts) -> Flights:
        """The flights of the ``side`` foot in ``score`` with ``prints``, the other foot's
        contacts ``standing``."""
        times = np.array([(p.start_s, p.end_s) for p in prints.prints], dtype=np.float64)
        own = np.array([p.side == side for p in prints.prints], dtype=bool)
        sign = 1.0 if side == "left" else -1.0
        released = np.array([p.end_s for p in prints.of(side) if p.released], dtype=np.float64)
        gestures = leg_gestures(score, side)
        return cls(standing, gestures, times.reshape(-1, 2), own, sign, released)


def flight(
    lift: End,
    landing: tuple[End, str] | None,
    frames: NDArray[np.intp],
    flights: Flights,
    body: Body,
    g: FootGeometry,
) -> tuple[FloatArray, FloatArray, FloatArray, PhaseArray]:
    """Ankle ``[n, 3]``, heading, pitch and phase ``[n]`` at the air ``frames`` after
    ``lift``, up to ``landing`` (its end and the landing print's kind) or, if ``None``, a
    foot lifted for good: it hangs under the hip, or holds its gestures to the end."""
    if landing is not None:
        land, kind = landing
        keys, span = _keys(kind, lift, land, flights, body, g)
    else:
        land, keys, span = _last_flight(lift, flights, body, g)
    return _interpolate(lift, land, keys, span, frames, body, g)


def flight_ends(
    times: FloatArray,
    ankle: FloatArray,
    heading: FloatArray,
    pitch: FloatArray,
    body: Body,
    on_floor: bool = True,
) -> list[End]:
    """Lift-offs or landings at ``times`` ``[n]`` (s) with ankles ``[n, 3]``, headings
    and pitches ``[n]``, their hip-local ankles and the hip-local velocity of a point at
    rest in the world there (the hip's and the facing's motion, by central differences)."""
    step, n = 1e-3, len(times)
    around = np.concatenate([times, times - step, times + step])
    hip, facing = body.hip_at(around), body.facing_at(around)
    left, forward = left_vector(facing[:n]), forward_vector(facing[:n])
    offset = ankle - hip[:n]
    local = np.stack([np.sum(offset * left, 1), offset[:, 1], np.sum(offset * forward, 1)], -1)
    velocity = (hip[2 * n :] - hip[n : 2 * n]) / (2 * step)
    turning = (facing[2 * n :] - facing[n : 2 * n]) / (2 * step)
    still = np.stack(
        [
            -np.sum(velocity * left, 1) - turning * local[:, 2],
            -velocity[:, 1],
            -np.sum(velocity * forward, 1) + turning * local[:, 0],
        ],
        -1,
    )
    return [
        End(
            float(times[i]),
            ankle[i],
            float(heading[i]),
            float(pitch[i]),
            local[i],
            float(facing[i]),
            still[i],
            on_floor,
        )
        for i in range(n)
    ]


def _last_flight(
    lift: End, flights: Flights, body: Body, g: FootGeometry
) -> tuple[End, list[Key], tuple[float, float] | None]:
    """A foot that lifts and never lands again: it goes to hang :data:`SWING_LIFT_LEGS`
    leg lengths up under its hip joint over :data:`HANG_S` (released, to its first
    hover key), or holds its gestures to the end (a landing that never comes,
    :data:`GESTURE_RETURN_S` after the last frame)."""
    gesturing = any(end > lift.time_s for _, end, _ in flights.gestures)
    hovers = not gesturing and flights.released_at(lift.time_s)
    at = lift.time_s + (HOVER_RISE_S if hovers else HANG_S)
    if gesturing:
        at = float(body.times[-1]) + GESTURE_RETURN_S
    under, facing = body.hip_at(np.array([at])), body.facing_at(np.array([at]))
    under[:, 1], pitch = g.ankle_height_m + SWING_LIFT_LEGS * g.leg_m, np.zeros(1)
    if hovers:  # the first hover key, from hip-local to the world
        span = HOVER_RISE_S + HOVER_APPROACH_S
        key = hover_keys(lift.time_s, lift.time_s + span, flights.sign, body, g)[0]
        x, y, z = key.local
        under = body.hip_at(np.array([at])) + x * left_vector(facing) + y * UP
        under, pitch = under + z * forward_vector(facing), np.full(1, key.pitch)
    land = flight_ends(np.array([at]), under, facing, pitch, body, on_floor=False)[0]
    found = _gestures(lift, land, flights, g, [])
    return (land, *found) if found is not None else (land, [], None)


def _keys(
    kind: str, lift: End, land: End, flights: Flights, body: Body, g: FootGeometry
) -> tuple[list[Key], tuple[float, float] | None]:
    """The interior keys of a flight and the span (s) of its gestures, if any."""
    hover: list[Key] = []
    if flights.released_at(lift.time_s):
        hover = hover_keys(lift.time_s, land.time_s, flights.sign, body, g)
    found = _gestures(lift, land, flights, g, hover)
    if found is not None:
        return found[0], found[1]
    if kind in FLIGHT_KINDS:
        run = _run_keys(lift, land, flights.air_before(land.time_s), body, g)
        return (hover + run[1:] if hover else run), None  # the hover replaces the kick
    return (hover or _walk_keys(lift, land, flights.standing, body, g)), None


def _gestures(
    lift: End, land: End, flights: Flights, g: FootGeometry, hover: list[Key]
) -> tuple[list[Key], tuple[float, float]] | None:
    """:func:`~motioncore.laban.free_leg.gesture_keys` of this flight."""
    start = Key(lift.time_s, lift.local, lift.pitch)
    return gesture_keys(start, land.time_s, flights.gestures, flights.sign, g, hover)


def _local_ends(lift: End, land: End) -> FloatArray:
    """Hip-local ankles ``[2, 3]`` at lift-off and landing."""
    return np.stack([lift.local, land.local])


def _walk_keys(lift: End, land: End, standing: Contacts, body: Body, g: FootGeometry) -> list[Key]:
    """One lifted key midway, or the keys round a standing foot in the way."""
    rise, ha = SWING_LIFT_LEGS * g.leg_m, g.ankle_height_m
    p0, p1 = lift.ankle[[0, 2]], land.ankle[[0, 2]]
    during = (standing.start < land.time_s) & (standing.end > lift.time_s)
    for c in np.flatnonzero(during):
        clearance = FOOT_CLEARANCE_LEGS * g.leg_m
        way = _detour(p0, p1, standing.position[c], float(standing.heading[c]), clearance)
        if way is None:
            continue
        path = np.vstack([p0, way, p1])
        along = np.cumsum(np.linalg.norm(np.diff(path, axis=0), axis=1))
        share = along[:-1] / along[-1]
        at = lift.time_s + share * (land.time_s - lift.time_s)
        world = np.stack([way[:, 0], ha + rise * np.sin(np.pi * share), way[:, 1]], -1)
        return [Key(float(s), p, 0.0) for s, p in zip(at, body.local(world, at), strict=True)]
    middle = 0.5 * (lift.time_s + land.time_s)
    local = _local_ends(lift, land).mean(axis=0)
    local[1] = ha + rise - body.hip_at(np.array([middle]))[0, 1]
    return [Key(middle, local, 0.0)]


def _detour(
    p0: FloatArray, p1: FloatArray, stand: FloatArray, heading: float, clearance: float
) -> FloatArray | None:
    """Three points ``[3, 2]`` (x, z) on a circle :data:`DETOUR_SCALE` × ``clearance``
    (m) about ``stand``, at ±:data:`DETOUR_SPREAD_DEG` about the side the foot goes
    round, when the segment ``p0``-``p1`` passes within ``clearance`` of ``stand``
    between its ends; ``None`` otherwise. It goes round in front of the standing foot
    (``heading``) unless the landing ``p1`` is behind it; when the path runs along the
    standing foot, round the side it passes on."""
    seg = p1 - p0
    u = float(np.dot(stand - p0, seg) / max(float(np.dot(seg, seg)), 1e-12))
    closest = p0 + u * seg
    if not 0.0 < u < 1.0 or np.linalg.norm(closest - stand) >= clearance:
        return None
    along = seg / np.linalg.norm(seg)
    normal = np.array([-along[1], along[0]])
    front = np.array([math.sin(heading), math.cos(heading)])
    side = front if np.dot(p1 - stand, front) >= 0.0 else -front
    if abs(np.dot(normal, side)) < 0.3:
        side = closest - stand
    normal = normal if np.dot(normal, side) >= 0.0 else -normal
    spread = math.radians(DETOUR_SPREAD_DEG) * np.array([-1.0, 0.0, 1.0])
    offsets = np.cos(spread)[:, None] * normal + np.sin(spread)[:, None] * along
    return np.asarray(stand + DETOUR_SCALE * clearance * offsets)


def _run_keys(lift: End, land: End, air_s: float, body: Body, g: FootGeometry) -> list[Key]:
    """The kick behind the hip (higher for a longer flight) and the landing preparation."""
    leg, span = g.leg_m, land.time_s - lift.time_s
    kick_t = lift.time_s + KICK_AT * span
    prep_t = land.time_s - min(PREP_S, PREP_SHARE * span)
    rise = min(KICK_MAX_LEGS, KICK_BASE_LEGS + KICK_LEGS_PER_S * air_s) * leg
    hip_y = body.hip_at(np.array([kick_t]))[0, 1]
    ends = _local_ends(lift, land)
    kick = np.array([ends[:, 0].mean(), g.ankle_height_m + rise - hip_y, -KICK_BACK_LEGS * leg])
    kick *= min(1.0, REACH_FACTOR * leg / float(np.linalg.norm(kick)))
    prep = ends[1].copy()  # where the landing is relative to the hip, a little higher
    prep[1] = land.ankle[1] + PREP_LIFT_LEGS * leg - body.hip_at(np.array([prep_t]))[0, 1]
    return [
        Key(kick_t, kick, math.radians(KICK_PITCH_DEG)),
        Key(prep_t, prep, land.pitch),
    ]


def _interpolate(
    lift: End,
    land: End,
    keys: list[Key],
    span: tuple[float, float] | None,
    frames: NDArray[np.intp],
    body: Body,
    g: FootGeometry,
) -> tuple[FloatArray, FloatArray, FloatArray, PhaseArray]:
    """Ankle ``[n, 3]``, heading, pitch and phase ``[n]`` at flight ``frames``: a cubic
    through the hip-local keys with PCHIP's slopes inside; at lift-off, landing and the
    peel and touch keys (:mod:`motioncore.laban.floor_keys`) the velocity that keeps
    the foot still in the world; the ankle kept high enough for the sole, and between
    the clear keys for its clearance. The heading turns between the clear keys."""
    t = body.times[frames]
    fixed, travel = _floor_ends(lift, land, body, g)
    inside = [k for k in keys if travel[0] + 1e-6 < k.time_s < travel[1] - 1e-6]
    before = [e for e in fixed if e.time_s <= travel[0] + 1e-6]
    after = [e for e in fixed if e.time_s >= travel[1] - 1e-6]
    knots = [(e.time_s, e.local, e.pitch) for e in before]
    knots += [(k.time_s, k.local, k.pitch) for k in inside]
    knots += [(e.time_s, e.local, e.pitch) for e in after]
    at = np.array([k[0] for k in knots])
    values = np.array([[*local, pitch] for _, local, pitch in knots])
    slopes = pchip.slopes(at, values)
    for i, e in enumerate(before):
        slopes[i, :3] = e.still
        slopes[i, 3] = slopes[i, 3] if i == 0 else 0.0
    for i, e in enumerate(after, start=len(knots) - len(after)):
        if e.on_floor:
            slopes[i, :3] = e.still
            slopes[i, 3] = slopes[i, 3] if i == len(knots) - 1 else 0.0
    y = pchip.hermite(at, values, slopes, np.clip(t, lift.time_s, land.time_s))  # then held
    facing = body.facing[frames]
    ankle = body.hip[frames] + (
        y[:, :1] * left_vector(facing) + y[:, 1:2] * UP + y[:, 2:3] * forward_vector(facing)
    )
    heading = travel_heading(lift.heading, land.heading, travel, t, body)
    gesture = np.zeros(len(t), bool) if span is None else (t >= span[0]) & (t <= span[1])
    floor = clearing_height(y[:, 3], g)
    moving = (t > travel[0]) & (t < travel[1])
    floor = np.where(moving, np.maximum(floor, clear_height(y[:, 3], g)), floor)
    ankle[:, 1] = np.maximum(
        ankle[:, 1], np.where(gesture, np.maximum(floor, g.ankle_height_m), floor)
    )
    return ankle, heading, y[:, 3], np.where(gesture, GESTURE, AIR).astype(np.int8)


def _floor_ends(
    lift: End, land: End, body: Body, g: FootGeometry
) -> tuple[list[End], tuple[float, float]]:
    """The lift-off, its peel keys, the touch keys and the landing (a landing off the
    floor has none) as :class:`End` in time order, and the travel between the clear
    keys ``(start_s, end_s)``."""
    span_s = land.time_s - lift.time_s
    peel = peel_keys(lift.time_s, lift.ankle, lift.heading, lift.pitch, span_s, body, g)
    out, travel_end = [lift, *_ends_at(*peel, lift, body)], land.time_s
    if land.on_floor:
        touch = touch_keys(land.time_s, land.ankle, land.heading, land.pitch, span_s, body, g)
        out, travel_end = out + _ends_at(*touch, land, body), float(touch[0][0])
    return [*out, land], (out[len(peel[0])].time_s, travel_end)


def _ends_at(
    times: FloatArray, ankles: FloatArray, pitches: FloatArray, like: End, body: Body
) -> list[End]:
    """Floor keys at ``times`` ``[k]``, ankles ``[k, 3]``, ``pitches``; ``like``'s heading."""
    return flight_ends(times, ankles, np.full(len(times), like.heading), pitches, body)
