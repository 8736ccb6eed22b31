"""Foot keys (seed 003 §7.3-7.5): the ankle (the IK target), the ball of the foot and
the toe tip in every frame, from the footprints, the hip joints and the leg gestures.

Conventions: metres, seconds, radians, Y up; headings, the rigid sole
(:class:`FootGeometry`), *pitch* (the sole's angle to the floor, positive with the toes
up) and *hip-local* coordinates (x left, y up, z forward about one hip joint) as in
:mod:`motioncore.laban.foot_geometry`. Lengths in ``_LEGS`` are in leg lengths (upper
+ lower leg).

**Ground keys** (§7.3), in world space: see :mod:`motioncore.laban.ground_keys`.

**Flight keys** (§7.4), between the contacts: see :mod:`motioncore.laban.flight_keys`;
the hover of a released foot and the **leg gestures** (§7.5) in them:
:mod:`motioncore.laban.free_leg`. The phase codes, :class:`FootGeometry` and the
constants named above are importable from here, and so are those flight and gesture
constants that the tests use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from motioncore.laban.flight_keys import (
    FLIGHT_KINDS,
    FOOT_CLEARANCE_LEGS,
    SWING_LIFT_LEGS,
    Flights,
    flight,
    flight_ends,
)
from motioncore.laban.foot_geometry import (
    AIR,
    BALL,
    EPS_S,
    FLAT,
    GESTURE,
    HEEL,
    MAX_HEEL_PITCH_DEG,
    MAX_PITCH_DEG,
    REACH_FACTOR,
    Body,
    Contacts,
    FloatArray,
    FootGeometry,
    PhaseArray,
    foot_points,
)
from motioncore.laban.free_leg import GESTURE_REACH, GESTURE_RETURN_S
from motioncore.laban.ground_keys import (
    BALL_LANDING_PITCH_DEG,
    CONTACT_S,
    CONTACT_SHARE,
    HEEL_STRIKE_MIN_COS,
    HEEL_STRIKE_PITCH_DEG,
    HIGH_PITCH_DEG,
    LIFTOFF_PITCH_DEG,
    LIFTOFF_S,
    LIFTOFF_SHARE,
    MIN_TRAVEL_LEGS,
    PIVOT_PITCH_DEG,
    contacts_of,
    ground_pose,
    turns_of,
)
from motioncore.laban.prints import Footprints
from motioncore.laban.score import Score

__all__ = [  # and the constants of flight_keys, free_leg, foot_geometry named above or in tests
    "AIR",
    "BALL",
    "BALL_LANDING_PITCH_DEG",
    "CONTACT_S",
    "CONTACT_SHARE",
    "FLAT",
    "FLIGHT_KINDS",
    "FOOT_CLEARANCE_LEGS",
    "GESTURE",
    "GESTURE_REACH",
    "GESTURE_RETURN_S",
    "HEEL",
    "HEEL_STRIKE_MIN_COS",
    "HEEL_STRIKE_PITCH_DEG",
    "HIGH_PITCH_DEG",
    "LIFTOFF_PITCH_DEG",
    "LIFTOFF_S",
    "LIFTOFF_SHARE",
    "MAX_HEEL_PITCH_DEG",
    "MAX_PITCH_DEG",
    "MIN_TRAVEL_LEGS",
    "PIVOT_PITCH_DEG",
    "REACH_FACTOR",
    "SWING_LIFT_LEGS",
    "FootGeometry",
    "FootTrack",
    "anchor_points",
    "foot_tracks",
]


@dataclass(frozen=True)
class FootTrack:
    """One foot over ``F`` frames: ``ankle``, ``ball`` and ``toe_end`` ``[F, 3]`` (m,
    world), ``phase`` ``[F]`` (the phase codes) and ``anchor`` ``[F, 3]``, the contact
    point that must not slide in a ground phase (NaN in ``AIR`` and ``GESTURE``)."""

    ankle: FloatArray
    ball: FloatArray
    toe_end: FloatArray
    phase: PhaseArray
    anchor: FloatArray


def foot_tracks(
    score: Score,
    prints: Footprints,
    times: FloatArray,
    hip_joints: dict[str, FloatArray],
    facing: FloatArray,
    geometry: FootGeometry,
) -> dict[str, FootTrack]:
    """Both feet's tracks (see the module docstring) at ``times`` ``[F]`` (s), for hip
    joints ``{"left", "right"}`` ``[F, 3]`` (m, world) and the body's facing ``[F]``."""
    turns = turns_of(score)
    end_s = score.beats * score.seconds_per_beat
    contacts = {s: contacts_of(prints.of(s), turns, end_s, geometry) for s in ("left", "right")}
    tracks, facing = {}, np.unwrap(np.asarray(facing, np.float64))
    for side, other in (("left", "right"), ("right", "left")):
        body = Body(np.asarray(times, np.float64), hip_joints[side], facing)
        flights = Flights.of(score, prints, side, contacts[other])
        tracks[side] = _track(contacts[side], flights, body, geometry)
    return tracks


def anchor_points(
    ankle: FloatArray, ball: FloatArray, phase: PhaseArray, geometry: FootGeometry
) -> FloatArray:
    """The contact point ``[F, 3]`` (m) of solved ankles and balls ``[F, 3]``: the heel
    point in ``HEEL``, the ankle's floor projection in ``FLAT``, the ball in ``BALL``;
    NaN elsewhere."""
    out = np.full(ankle.shape, np.nan)
    flat, on_ball, heel = phase == FLAT, phase == BALL, phase == HEEL
    out[flat] = ankle[flat] * np.array([1.0, 0.0, 1.0])
    out[on_ball] = ball[on_ball]
    sole = ball[heel] - ankle[heel]
    heading = np.arctan2(sole[:, 0], sole[:, 2])
    g = geometry
    pitch = np.arctan2(sole[:, 1], np.hypot(sole[:, 0], sole[:, 2])) - math.atan2(
        -g.ankle_height_m, g.ball_forward_m
    )
    out[heel] = foot_points(ankle[heel], heading, pitch, g)[2]
    return out


def _track(cs: Contacts, flights: Flights, body: Body, g: FootGeometry) -> FootTrack:
    """One foot: ground keys on its contacts, flight keys between them."""
    times, frames, count = body.times, len(body.times), len(cs.start)
    idx = np.maximum(np.searchsorted(cs.start, times + EPS_S, side="right") - 1, 0)
    ground = (times <= cs.end[idx] + EPS_S) | (times < cs.start[0])
    rows = np.flatnonzero(ground)
    n, every = len(rows), np.arange(count)
    t = np.concatenate([np.clip(times[rows], cs.start[0], cs.end[-1]), cs.start, cs.end])
    hip = np.concatenate([body.hip[rows], body.hip_at(cs.start), body.hip_at(cs.end)])
    pose = ground_pose(cs, np.concatenate([idx[rows], every, every]), t, hip, body, g)
    ankle, heading, pitch = np.empty((frames, 3)), np.empty(frames), np.empty(frames)
    phase, anchor = np.empty(frames, np.int8), np.full((frames, 3), np.nan)
    ankle[rows], heading[rows], pitch[rows] = pose.ankle[:n], pose.heading[:n], pose.pitch[:n]
    phase[rows], anchor[rows] = pose.phase[:n], pose.anchor[:n]
    at = slice(n, n + 2 * count)  # the landings, then the lift-offs
    when = np.concatenate([cs.start, cs.end])
    ends = flight_ends(when, pose.ankle[at], pose.heading[at], pose.pitch[at], body)
    for i in range(count):
        air = np.flatnonzero(~ground & (idx == i))
        if len(air) == 0:
            continue
        landing = (ends[i + 1], cs.kind[i + 1]) if i + 1 < count else None  # None: for good
        ankle[air], heading[air], pitch[air], phase[air] = flight(
            ends[count + i], landing, air, flights, body, g
        )
    ball, toe_end, _ = foot_points(ankle, heading, pitch, g)
    return FootTrack(ankle, ball, toe_end, phase, anchor)
