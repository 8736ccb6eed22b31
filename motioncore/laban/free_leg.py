"""A free leg (seed 003 §7.4-7.5): the keys of a foot in the air that neither steps
nor jumps, for the flight keys (:mod:`motioncore.laban.flight_keys`) to go through.

Conventions: metres, seconds, radians, Y up; *hip-local* coordinates (x left, y up,
z forward about the foot's own hip joint, in the body's facing frame) and *pitch* (the
sole's angle to the floor, positive with the toes up) as in
:mod:`motioncore.laban.foot_geometry`. Lengths in ``_LEGS`` are in leg lengths (upper
+ lower leg).

**Hover**: a *released* foot (the weight taken by a support of the other foot alone,
:attr:`motioncore.laban.prints.Footprint.released`) is held off the floor until it is
written down again, as a hopping dancer holds the free leg. :data:`HOVER_RISE_S` after
its lift-off the ankle is :data:`HOVER_IN_LEGS` leg lengths in from its hip joint
(towards the other), :data:`HOVER_BACK_LEGS` behind it and :data:`HOVER_DROP_LEGS`
below it, the knee bent and the foot beside the standing leg's calf, pitched
:data:`HOVER_PITCH_DEG` (the sole level). It stays there in the body's frame (it rides
with the hips through the other foot's hops), one key every :data:`HOVER_KEY_S`, each
raised where a low hip (a landing's plié) would bring the sole's lowest point within
:data:`HOVER_CLEAR_LEGS` leg lengths of the floor; the last key is
:data:`HOVER_APPROACH_S` before the landing (the foot then goes down to it, through
the landing preparation of a jump) or before the first leg gesture. No keys when the
foot is in the air for less than :data:`HOVER_RISE_S` + :data:`HOVER_APPROACH_S`. A
released foot that is never written down again goes to its first hover key and stays
there in the body's frame. The numbers are ours (the seed gives none for a free leg):
on the canonical legs the ankle is 0.59 m under the hip joint (the knee bent about
90°), the sole about 0.25 m up while the hips stand at their standing height and at
least 0.10 m up at every key.

**Leg gestures** (§7.5): a direction symbol in ``leg_left``/``leg_right`` moves that
foot, while it is in the air, to hip joint + :data:`GESTURE_REACH` × leg ×
:func:`~motioncore.laban.gestures.direction_vector` (body frame, turned with the
facing) on an arc about the hip (:func:`~motioncore.laban.gestures.arc`, the knee
drawn in by :data:`GESTURE_TUCK_LEGS` leg lengths halfway, :data:`ARC_KEYS` keys, the
sole pitched :data:`GESTURE_PITCH_DEG`), arriving when the symbol ends; it holds there
until :data:`GESTURE_RETURN_S` s before the next landing (to the end when there is
none). The first gesture of a flight starts from the lift-off, or from the hover when
the foot is already hovering as it starts. Parts of a gesture while the foot is on
the ground, or within the return time, are ignored, and so are gestures without
duration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from motioncore.laban import gestures
from motioncore.laban.foot_geometry import Body, FloatArray, FootGeometry
from motioncore.laban.score import Score

HOVER_RISE_S = 0.2
HOVER_APPROACH_S = 0.3
HOVER_IN_LEGS = 0.08
HOVER_BACK_LEGS = 0.1
HOVER_DROP_LEGS = 0.7
HOVER_PITCH_DEG = 0.0
HOVER_KEY_S = 0.1
HOVER_CLEAR_LEGS = 0.12

GESTURE_REACH = 0.98
GESTURE_TUCK_LEGS = 0.1
GESTURE_RETURN_S = 0.25
GESTURE_PITCH_DEG = -30.0
ARC_KEYS = 8

Gesture = tuple[float, float, FloatArray]
"""A leg gesture: ``(start_s, end_s, body-frame direction [3])``."""


@dataclass(frozen=True)
class Key:
    """A flight key: time (s), hip-local ankle ``[3]`` (m) and pitch (rad)."""

    time_s: float
    local: FloatArray
    pitch: float


def leg_gestures(score: Score, side: str) -> tuple[Gesture, ...]:
    """The direction symbols of ``score``'s ``leg_{side}`` column as :data:`Gesture`."""
    spb = score.seconds_per_beat
    return tuple(
        (s.beat * spb, s.end * spb, gestures.direction_vector(str(s.direction), str(s.level)))
        for s in score.column(f"leg_{side}")
        if s.kind == "direction"
    )


def hover_keys(lift_s: float, land_s: float, sign: float, body: Body, g: FootGeometry) -> list[Key]:
    """The hover's keys (see the module docstring) of a foot released at ``lift_s`` that
    lands at ``land_s`` (s), on the side ``sign`` (+1 left, -1 right)."""
    start, end = lift_s + HOVER_RISE_S, land_s - HOVER_APPROACH_S
    if end < start:
        return []
    times = np.linspace(start, end, math.ceil((end - start) / HOVER_KEY_S - 1e-9) + 1)
    leg, pitch = g.leg_m, math.radians(HOVER_PITCH_DEG)
    c, s = math.cos(pitch), math.sin(pitch)  # the sole's lowest point: toe tip or heel
    sole = g.ankle_height_m * c + max(g.heel_back_m * s, -(g.ball_forward_m + g.toe_length_m) * s)
    lowest_ankle = HOVER_CLEAR_LEGS * leg + sole
    drop = np.minimum(HOVER_DROP_LEGS * leg, body.hip_at(times)[:, 1] - lowest_ankle)
    inward, back = -sign * HOVER_IN_LEGS * leg, -HOVER_BACK_LEGS * leg
    return [
        Key(float(t), np.array([inward, -d, back]), pitch) for t, d in zip(times, drop, strict=True)
    ]


def gesture_keys(
    lift: Key,
    land_s: float,
    moves: tuple[Gesture, ...],
    sign: float,
    g: FootGeometry,
    hover: list[Key],
) -> tuple[list[Key], tuple[float, float]] | None:
    """Arc, hold and return keys of the leg gestures ``moves`` of a flight from ``lift``
    (its lift-off pose) to a landing at ``land_s`` (s), on the side ``sign`` (+1 left,
    -1 right), after the ``hover`` keys that come before the first gesture; and the
    span (s) of the gestures. ``None`` when no gesture falls in the flight."""
    until = land_s - GESTURE_RETURN_S
    parts = [
        (max(s0, lift.time_s), min(s1, until), target)
        for s0, s1, target in moves
        if min(s1, until) > max(s0, lift.time_s) + 1e-3
    ]
    if not parts:
        return None
    keys = [k for k in hover if k.time_s < parts[0][0] - 1e-6]
    if not keys:  # it rises into the first one
        parts[0] = (lift.time_s, parts[0][1], parts[0][2])
    begins = parts[0][0]
    reach, tuck = GESTURE_REACH * g.leg_m, GESTURE_TUCK_LEGS * g.leg_m
    outward = np.array([sign, 0.0, 0.0])
    start = keys[-1] if keys else lift
    last_t, last, last_pitch = start.time_s, start.local, start.pitch
    for s0, s1, target in parts:
        if s0 > last_t + 1e-6:
            keys.append(Key(s0, last, last_pitch))
        origin, r0 = last / np.linalg.norm(last), float(np.linalg.norm(last))
        for j in range(1, ARC_KEYS + 1):
            f = j / ARC_KEYS
            w = f * f * (3.0 - 2.0 * f)
            radius = r0 + (reach - r0) * w - tuck * math.sin(math.pi * w)
            pitch = last_pitch + (math.radians(GESTURE_PITCH_DEG) - last_pitch) * w
            direction = gestures.arc(origin, target, w, outward)
            keys.append(Key(s0 + f * (s1 - s0), radius * direction, pitch))
        last_t, last, last_pitch = s1, keys[-1].local, keys[-1].pitch
    if until > last_t + 1e-6:
        keys.append(Key(until, last, last_pitch))
    return keys, (begins, keys[-1].time_s)
