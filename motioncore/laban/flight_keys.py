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
* a foot that lifts and never lands again goes to hang under its hip joint,
  :data:`SWING_LIFT_LEGS` leg lengths up, over :data:`HANG_S`.

**Leg gestures** (§7.5): a direction symbol in ``leg_left``/``leg_right`` moves that
foot, while it is in the air, to hip joint + :data:`GESTURE_REACH` × leg ×
:func:`~motioncore.laban.gestures.direction_vector` (body frame, turned with the
facing) on an arc about the hip (:func:`~motioncore.laban.gestures.arc`, the knee
drawn in by :data:`GESTURE_TUCK_LEGS` leg lengths halfway, :data:`ARC_KEYS` keys, the
sole pitched :data:`GESTURE_PITCH_DEG`), arriving when the symbol ends; it holds there
until :data:`GESTURE_RETURN_S` s before the next landing (to the end when there is
none). The first gesture of a flight starts from the lift-off. The ankle stays at
least its flat height (phase ``GESTURE``). Parts of a gesture while the foot is on the
ground, or within the return time, are ignored, and so are gestures without duration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore.laban import gestures, pchip
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

GESTURE_REACH = 0.98
GESTURE_TUCK_LEGS = 0.1
GESTURE_RETURN_S = 0.25
GESTURE_PITCH_DEG = -30.0
ARC_KEYS = 8


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
class _Key:
    """A flight key: time (s), hip-local ankle ``[3]`` (m) and pitch (rad)."""

    time_s: float
    local: FloatArray
    pitch: float


@dataclass(frozen=True)
class Flights:
    """What one foot's flights depend on besides its own prints: the other foot's
    contacts, this leg's gestures ``(start_s, end_s, body-frame direction [3])``, every
    print's ``(start_s, end_s)`` ``[P, 2]``, which of them are this foot's, and the
    side's sign (+1 left, -1 right)."""

    standing: Contacts
    gestures: tuple[tuple[float, float, FloatArray], ...]
    print_times: FloatArray
    own: NDArray[np.bool_]
    sign: float

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
        return cls(standing, _leg_gestures(score, side), times.reshape(-1, 2), own, sign)


def _leg_gestures(score: Score, side: str) -> tuple[tuple[float, float, FloatArray], ...]:
    spb = score.seconds_per_beat
    return tuple(
        (s.beat * spb, s.end * spb, gestures.direction_vector(str(s.direction), str(s.level)))
        for s in score.column(f"leg_{side}")
        if s.kind == "direction"
    )


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
) -> tuple[End, list[_Key], tuple[float, float] | None]:
    """A foot that lifts and never lands again: it goes to hang :data:`SWING_LIFT_LEGS`
    leg lengths up under its hip joint over :data:`HANG_S`, or holds its gestures to
    the end (a landing that never comes, :data:`GESTURE_RETURN_S` after the last frame)."""
    if any(end > lift.time_s for _, end, _ in flights.gestures):
        at = float(body.times[-1]) + GESTURE_RETURN_S
    else:
        at = lift.time_s + HANG_S
    under = body.hip_at(np.array([at]))
    under[:, 1] = g.ankle_height_m + SWING_LIFT_LEGS * g.leg_m
    facing = body.facing_at(np.array([at]))
    land = flight_ends(np.array([at]), under, facing, np.zeros(1), body, on_floor=False)[0]
    found = _gesture_keys(lift, land, flights, body, g)
    return (land, *found) if found is not None else (land, [], None)


def _keys(
    kind: str, lift: End, land: End, flights: Flights, body: Body, g: FootGeometry
) -> tuple[list[_Key], tuple[float, float] | None]:
    """The interior keys of a flight and the span (s) of its gestures, if any."""
    found = _gesture_keys(lift, land, flights, body, g)
    if found is not None:
        return found[0], found[1]
    if kind in FLIGHT_KINDS:
        return _run_keys(lift, land, flights.air_before(land.time_s), body, g), None
    return _walk_keys(lift, land, flights.standing, body, g), None


def _local_ends(lift: End, land: End) -> FloatArray:
    """Hip-local ankles ``[2, 3]`` at lift-off and landing."""
    return np.stack([lift.local, land.local])


def _walk_keys(lift: End, land: End, standing: Contacts, body: Body, g: FootGeometry) -> list[_Key]:
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
        return [_Key(float(s), p, 0.0) for s, p in zip(at, body.local(world, at), strict=True)]
    middle = 0.5 * (lift.time_s + land.time_s)
    local = _local_ends(lift, land).mean(axis=0)
    local[1] = ha + rise - body.hip_at(np.array([middle]))[0, 1]
    return [_Key(middle, local, 0.0)]


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


def _run_keys(lift: End, land: End, air_s: float, body: Body, g: FootGeometry) -> list[_Key]:
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
        _Key(kick_t, kick, math.radians(KICK_PITCH_DEG)),
        _Key(prep_t, prep, land.pitch),
    ]


def _gesture_keys(
    lift: End, land: End, flights: Flights, body: Body, g: FootGeometry
) -> tuple[list[_Key], tuple[float, float]] | None:
    """Arc, hold and return keys of the leg gestures inside a flight, and their span."""
    until = land.time_s - GESTURE_RETURN_S
    parts = [
        (max(s0, lift.time_s), min(s1, until), target)
        for s0, s1, target in flights.gestures
        if min(s1, until) > max(s0, lift.time_s) + 1e-3
    ]
    if not parts:
        return None
    parts[0] = (lift.time_s, parts[0][1], parts[0][2])  # it rises into the first one
    reach, tuck = GESTURE_REACH * g.leg_m, GESTURE_TUCK_LEGS * g.leg_m
    outward = np.array([flights.sign, 0.0, 0.0])
    last = _local_ends(lift, land)[0]
    last_t, last_pitch = lift.time_s, lift.pitch
    keys: list[_Key] = []
    for s0, s1, target in parts:
        if s0 > last_t + 1e-6:
            keys.append(_Key(s0, last, last_pitch))
        origin, r0 = last / np.linalg.norm(last), float(np.linalg.norm(last))
        for j in range(1, ARC_KEYS + 1):
            f = j / ARC_KEYS
            w = f * f * (3.0 - 2.0 * f)
            radius = r0 + (reach - r0) * w - tuck * math.sin(math.pi * w)
            pitch = last_pitch + (math.radians(GESTURE_PITCH_DEG) - last_pitch) * w
            direction = gestures.arc(origin, target, w, outward)
            keys.append(_Key(s0 + f * (s1 - s0), radius * direction, pitch))
        last_t, last, last_pitch = s1, keys[-1].local, keys[-1].pitch
    if until > last_t + 1e-6:
        keys.append(_Key(until, last, last_pitch))
    return keys, (lift.time_s, keys[-1].time_s)


def _interpolate(
    lift: End,
    land: End,
    keys: list[_Key],
    span: tuple[float, float] | None,
    frames: NDArray[np.intp],
    body: Body,
    g: FootGeometry,
) -> tuple[FloatArray, FloatArray, FloatArray, PhaseArray]:
    """Ankle ``[n, 3]``, heading, pitch and phase ``[n]`` at flight ``frames``: a cubic
    through the hip-local keys with PCHIP's slopes inside and, at lift-off and
    landing, the velocity that keeps the foot still in the world; the ankle kept high
    enough for the sole."""
    t, facing = body.times[frames], body.facing[frames]
    ends = _local_ends(lift, land)
    knots = [(lift.time_s, ends[0], lift.pitch)]
    for k in keys:
        if knots[-1][0] + 1e-6 < k.time_s < land.time_s - 1e-6:
            knots.append((k.time_s, k.local, k.pitch))
    knots.append((land.time_s, ends[1], land.pitch))
    at = np.array([k[0] for k in knots])
    values = np.array([[*local, pitch] for _, local, pitch in knots])
    slopes = pchip.slopes(at, values)
    slopes[0, :3] = lift.still
    if land.on_floor:
        slopes[-1, :3] = land.still
    y = pchip.hermite(at, values, slopes, np.clip(t, lift.time_s, land.time_s))  # then held
    ankle = body.hip[frames] + (
        y[:, :1] * left_vector(facing) + y[:, 1:2] * UP + y[:, 2:3] * forward_vector(facing)
    )
    before = lift.heading - lift.facing
    turn = (land.heading - land.facing - before + math.pi) % (2.0 * math.pi) - math.pi
    u = np.clip((t - lift.time_s) / (land.time_s - lift.time_s), 0.0, 1.0)
    heading = facing + before + turn * u * u * (3.0 - 2.0 * u)
    gesture = np.zeros(len(t), bool) if span is None else (t >= span[0]) & (t <= span[1])
    floor = clearing_height(y[:, 3], g)
    ankle[:, 1] = np.maximum(
        ankle[:, 1], np.where(gesture, np.maximum(floor, g.ankle_height_m), floor)
    )
    return ankle, heading, y[:, 3], np.where(gesture, GESTURE, AIR).astype(np.int8)
