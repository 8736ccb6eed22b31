"""Foot keys (seed 003 §7.3-7.5): the ankle (the IK target), the ball of the foot and
the toe tip in every frame, from the footprints, the hip joints and the leg gestures.

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

from motioncore.laban import gestures
from motioncore.laban.footprints import Footprint, Footprints
from motioncore.laban.score import SUPPORTS, Score

FloatArray = NDArray[np.float64]
PhaseArray = NDArray[np.int8]

AIR, HEEL, FLAT, BALL, GESTURE = 0, 1, 2, 3, 4
"""Phase codes of :attr:`FootTrack.phase`."""
FLIGHT_KINDS = frozenset({"hop", "leap", "jump", "assemble", "sissonne"})

REACH_FACTOR = 0.995
MAX_PITCH_DEG = 70.0
MAX_HEEL_PITCH_DEG = 30.0
HEEL_STRIKE_PITCH_DEG = 18.0
HEEL_STRIKE_MIN_COS = 0.5
MIN_TRAVEL_LEGS = 0.06
BALL_LANDING_PITCH_DEG = 25.0
CONTACT_S, CONTACT_SHARE = 0.1, 0.2
LIFTOFF_PITCH_DEG = 30.0
LIFTOFF_S, LIFTOFF_SHARE = 0.1, 0.2
HIGH_PITCH_DEG = 40.0
PIVOT_PITCH_DEG = 20.0

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

_UP = np.array([0.0, 1.0, 0.0])
_EPS_S = 1e-9


@dataclass(frozen=True)
class FootGeometry:
    """The foot and leg (metres): see the module docstring."""

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
class FootTrack:
    """One foot over ``F`` frames: ``ankle``, ``ball`` and ``toe_end`` ``[F, 3]`` (m,
    world), ``phase`` ``[F]`` (the codes above) and ``anchor`` ``[F, 3]``, the contact
    point that must not slide in a ground phase (NaN in ``AIR`` and ``GESTURE``)."""

    ankle: FloatArray
    ball: FloatArray
    toe_end: FloatArray
    phase: PhaseArray
    anchor: FloatArray


@dataclass(frozen=True)
class _Pose:
    """Feet at ``n`` instants: ankles ``[n, 3]``, headings, pitches, phases, anchors."""

    ankle: FloatArray
    heading: FloatArray
    pitch: FloatArray
    phase: PhaseArray
    anchor: FloatArray


@dataclass(frozen=True)
class _End:
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
class _Contacts:
    """One side's prints by start time, as arrays ``[C]``: times (s), ``position``
    ``[C, 2]`` (x, z), heading, the landing's pitch and pivot code and its length (s),
    the lift-off's length (s), whether the print is ``high``, the landing ``kind`` and
    the turns ``(start_s, end_s, angle)`` during each print."""

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
class _Body:
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
                np.sum(offset * _left(facing), axis=1),
                offset[:, 1],
                np.sum(offset * _forward(facing), axis=1),
            ],
            -1,
        )


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
    turns = _turns(score)
    end_s = score.beats * score.seconds_per_beat
    contacts = {s: _contacts(prints.of(s), turns, end_s, geometry) for s in ("left", "right")}
    tracks, facing = {}, np.unwrap(np.asarray(facing, np.float64))
    for side, other in (("left", "right"), ("right", "left")):
        body = _Body(np.asarray(times, np.float64), hip_joints[side], facing)
        flights = _flights(score, prints, side, contacts[other])
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
    out[heel] = _foot_points(ankle[heel], heading, pitch, g)[2]
    return out


# --- the foot as a rigid sole -------------------------------------------------------


def _forward(heading: FloatArray) -> FloatArray:
    return np.stack([np.sin(heading), np.zeros_like(heading), np.cos(heading)], -1)


def _left(facing: FloatArray) -> FloatArray:
    return np.stack([np.cos(facing), np.zeros_like(facing), -np.sin(facing)], -1)


def _on_floor(xz: FloatArray) -> FloatArray:
    return np.stack([xz[:, 0], np.zeros(len(xz)), xz[:, 1]], -1)


def _in_plane(forward: FloatArray, along: FloatArray, up: FloatArray) -> FloatArray:
    """``along`` × ``forward`` ``[n, 3]`` + ``up`` × +Y."""
    return np.asarray(along[:, None] * forward + up[:, None] * _UP, dtype=np.float64)


def _foot_points(
    ankle: FloatArray, heading: FloatArray, pitch: FloatArray, g: FootGeometry
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Ball, toe tip and heel point ``[n, 3]`` of soles with ankles ``[n, 3]``, headings
    and pitches ``[n]``; the toes bend up where they would go below the floor."""
    fwd, c, s = _forward(heading), np.cos(pitch), np.sin(pitch)
    ha, b, hb, tl = g.ankle_height_m, g.ball_forward_m, g.heel_back_m, g.toe_length_m
    ball = ankle + _in_plane(fwd, b * c + ha * s, b * s - ha * c)
    heel = ankle + _in_plane(fwd, -hb * c + ha * s, -hb * s - ha * c)
    rise = np.minimum(np.maximum(tl * s, -ball[:, 1]), tl)
    run = np.where(c >= 0.0, 1.0, -1.0) * np.sqrt(np.maximum(tl**2 - rise**2, 0.0))
    return ball, ball + _in_plane(fwd, run, rise), heel


def _depth(pitch: FloatArray, g: FootGeometry) -> FloatArray:
    """How high ``[n]`` (m) the ankle must be for heel and ball to clear the floor."""
    c, s = np.cos(pitch), np.sin(pitch)
    ha = g.ankle_height_m
    return np.maximum(g.heel_back_m * s + ha * c, -g.ball_forward_m * s + ha * c)


def _pivot_along(pivot: PhaseArray, g: FootGeometry) -> FloatArray:
    """Where the fixed point is along the sole from the ankle (m): heel, ankle, ball."""
    return np.select([pivot == HEEL, pivot == BALL], [-g.heel_back_m, g.ball_forward_m], 0.0)


def _pivoted_ankle(
    flat: FloatArray, heading: FloatArray, pitch: FloatArray, pivot: PhaseArray, g: FootGeometry
) -> FloatArray:
    """Ankles ``[n, 3]`` of soles turned by ``pitch`` about the heel, ankle projection
    or ball (``pivot``) of the flat foot whose ankle projection is ``flat`` ``[n, 2]``."""
    p, c, s = _pivot_along(pivot, g), np.cos(pitch), np.sin(pitch)
    ha = g.ankle_height_m
    return _on_floor(flat) + _in_plane(_forward(heading), p - p * c - ha * s, ha * c - p * s)


def _reach_pitch(
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
    fwd, ha = _forward(heading), g.ankle_height_m
    along, turn = (-g.heel_back_m, 1.0) if pivot == HEEL else (g.ball_forward_m, -1.0)
    reach, radius, flat_angle = (
        REACH_FACTOR * g.leg_m,
        math.hypot(along, ha),
        math.atan2(ha, -along),
    )
    far = np.linalg.norm(_on_floor(flat) + ha * _UP - hip, axis=1) > reach
    d = _on_floor(flat) + along * fwd - hip
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


# --- ground keys --------------------------------------------------------------------


def _turns(score: Score) -> tuple[tuple[float, float, float], ...]:
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


def _contacts(
    prints: tuple[Footprint, ...],
    turns: tuple[tuple[float, float, float], ...],
    end_s: float,
    g: FootGeometry,
) -> _Contacts:
    """One side's prints as :class:`_Contacts`, for a score ``end_s`` seconds long."""
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
    lifts = np.array(
        [i < len(ordered) - 1 or p.end_s < end_s - 1e-6 for i, p in enumerate(ordered)]
    )
    return _Contacts(
        start=np.array([p.start_s for p in ordered]),
        end=np.array([p.end_s for p in ordered]),
        position=np.array([p.position for p in ordered], dtype=np.float64),
        heading=np.array([p.heading for p in ordered]),
        land_pitch=np.radians([pitch[s] for s in styles]),
        land_pivot=np.array(styles, dtype=np.int8),
        land_s=np.where(np.array(styles) != FLAT, np.minimum(CONTACT_S, CONTACT_SHARE * span), 0),
        lift_s=np.where(lifts, np.minimum(LIFTOFF_S, LIFTOFF_SHARE * span), 0.0),
        high=np.array([p.level == "high" for p in ordered]),
        kind=tuple(p.kind for p in ordered),
        turns=tuple(during),
    )


def _schedule(cs: _Contacts, ci: NDArray[np.intp], t: FloatArray) -> tuple[FloatArray, PhaseArray]:
    """Pitch (rad) and pivot code ``[n]`` at times ``t`` in contacts ``ci``: landing
    roll, flat, lift-off; ``high`` on the ball throughout."""
    start, end, land, lift = cs.start[ci], cs.end[ci], cs.land_s[ci], cs.lift_s[ci]
    landing = (t < start + land) & (land > 0)
    lifting = (t > end - lift) & (lift > 0)
    u_land = np.clip((t - start) / np.maximum(land, 1e-12), 0.0, 1.0)
    u_lift = np.clip((t - end + lift) / np.maximum(lift, 1e-12), 0.0, 1.0)
    pitch = np.where(landing, cs.land_pitch[ci] * (1.0 - u_land), 0.0)
    pitch = np.where(lifting, -math.radians(LIFTOFF_PITCH_DEG) * u_lift, pitch)
    pitch = np.where(cs.high[ci], -math.radians(HIGH_PITCH_DEG), pitch)
    pivot = np.where(landing, cs.land_pivot[ci], FLAT)
    pivot = np.where(lifting | cs.high[ci], BALL, pivot)
    return pitch, pivot.astype(np.int8)


def _progress(t: FloatArray, a: float, b: float, body: _Body) -> FloatArray:
    """How far ``[n]`` (0-1) a turn from ``a`` to ``b`` (s) is at ``t``, by the facing."""
    if b - a < _EPS_S:
        return (t > a).astype(np.float64)
    fa, fb = body.facing_at(np.array([a, b]))
    if abs(fb - fa) < 1e-6:
        return np.clip((t - a) / (b - a), 0.0, 1.0)
    done = (body.facing_at(np.clip(t, a, b)) - fa) / (fb - fa)
    return np.asarray(np.clip(done, 0.0, 1.0), dtype=np.float64)


def _pivoted(
    cs: _Contacts,
    c: int,
    t: FloatArray,
    pitch: FloatArray,
    pivot: PhaseArray,
    body: _Body,
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
        share = np.clip((t - start) / max(end - start, _EPS_S), 0.0, 1.0)
        rise = -math.radians(PIVOT_PITCH_DEG) * np.sin(np.pi * share)
        pitch = np.where(inside, np.minimum(np.where(pivot == HEEL, 0.0, pitch), rise), pitch)
        pivot = np.where(inside, BALL, pivot).astype(np.int8)
        h += angle
        here = ball - b * np.array([math.sin(h), math.cos(h)])
    return heading, flat, pitch, pivot


def _ground(
    cs: _Contacts,
    ci: NDArray[np.intp],
    t: FloatArray,
    hip: FloatArray,
    body: _Body,
    g: FootGeometry,
) -> _Pose:
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
    pitch = np.where(free, np.minimum(pitch, _reach_pitch(flat, heading, hip, BALL, g)), pitch)
    pivot = np.where(free & (pitch < 0.0), BALL, pivot).astype(np.int8)
    anchor = _on_floor(flat) + _pivot_along(pivot, g)[:, None] * _forward(heading)
    return _Pose(_pivoted_ankle(flat, heading, pitch, pivot, g), heading, pitch, pivot, anchor)


def _heel_until_reached(
    cs: _Contacts,
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
    toes_up = _reach_pitch(flat, heading, hip, HEEL, g)
    ready = struck & (t >= cs.start[ci] + cs.land_s[ci]) & (toes_up <= 0.0)
    flat_from = np.full(len(cs.start), np.inf)
    np.minimum.at(flat_from, ci[ready], t[ready])
    on_heel = struck & (t < flat_from[ci]) & (pivot != BALL)
    pitch = np.where(on_heel, np.maximum(np.where(pivot == HEEL, pitch, 0.0), toes_up), pitch)
    return pitch, np.where(on_heel, HEEL, pivot).astype(np.int8)


# --- flight keys --------------------------------------------------------------------


@dataclass(frozen=True)
class _Flights:
    """What one foot's flights depend on besides its own prints: the other foot's
    contacts, this leg's gestures ``(start_s, end_s, body-frame direction [3])``, every
    print's ``(start_s, end_s)`` ``[P, 2]``, which of them are this foot's, and the
    side's sign (+1 left, -1 right)."""

    standing: _Contacts
    gestures: tuple[tuple[float, float, FloatArray], ...]
    print_times: FloatArray
    own: NDArray[np.bool_]
    sign: float

    def air_before(self, landing_s: float) -> float:
        """How long (s) no foot was on the ground before a landing at ``landing_s``."""
        start, end = self.print_times[:, 0], self.print_times[:, 1]
        done = (end <= landing_s + _EPS_S) & ~(self.own & (np.abs(start - landing_s) < 1e-6))
        return landing_s - float(end[done].max()) if done.any() else 0.0


def _leg_gestures(score: Score, side: str) -> tuple[tuple[float, float, FloatArray], ...]:
    spb = score.seconds_per_beat
    return tuple(
        (s.beat * spb, s.end * spb, gestures.direction_vector(str(s.direction), str(s.level)))
        for s in score.column(f"leg_{side}")
        if s.kind == "direction"
    )


def _flights(score: Score, prints: Footprints, side: str, standing: _Contacts) -> _Flights:
    return _Flights(
        standing,
        _leg_gestures(score, side),
        np.array([(p.start_s, p.end_s) for p in prints.prints], dtype=np.float64).reshape(-1, 2),
        np.array([p.side == side for p in prints.prints], dtype=bool),
        1.0 if side == "left" else -1.0,
    )


def _track(cs: _Contacts, flights: _Flights, body: _Body, g: FootGeometry) -> FootTrack:
    """One foot: ground keys on its contacts, flight keys between them."""
    times, frames, count = body.times, len(body.times), len(cs.start)
    idx = np.maximum(np.searchsorted(cs.start, times + _EPS_S, side="right") - 1, 0)
    ground = (times <= cs.end[idx] + _EPS_S) | (times < cs.start[0])
    rows = np.flatnonzero(ground)
    n, every = len(rows), np.arange(count)
    t = np.concatenate([np.clip(times[rows], cs.start[0], cs.end[-1]), cs.start, cs.end])
    hip = np.concatenate([body.hip[rows], body.hip_at(cs.start), body.hip_at(cs.end)])
    pose = _ground(cs, np.concatenate([idx[rows], every, every]), t, hip, body, g)
    ankle, heading, pitch = np.empty((frames, 3)), np.empty(frames), np.empty(frames)
    phase, anchor = np.empty(frames, np.int8), np.full((frames, 3), np.nan)
    ankle[rows], heading[rows], pitch[rows] = pose.ankle[:n], pose.heading[:n], pose.pitch[:n]
    phase[rows], anchor[rows] = pose.phase[:n], pose.anchor[:n]
    at = slice(n, n + 2 * count)  # the landings, then the lift-offs
    when = np.concatenate([cs.start, cs.end])
    ends = _ends(when, pose.ankle[at], pose.heading[at], pose.pitch[at], body)
    for i in range(count):
        air = np.flatnonzero(~ground & (idx == i))
        if len(air) == 0:
            continue
        lift = ends[count + i]
        if i + 1 < count:
            land = ends[i + 1]
            keys, span = _keys(cs.kind[i + 1], lift, land, flights, body, g)
        else:  # lifted for good: hang under the hip, or hold the gestures to the end
            land, keys, span = _last_flight(lift, flights, body, g)
        ankle[air], heading[air], pitch[air], phase[air] = _interpolate(
            lift, land, keys, span, air, body, g
        )
    ball, toe_end, _ = _foot_points(ankle, heading, pitch, g)
    return FootTrack(ankle, ball, toe_end, phase, anchor)


def _last_flight(
    lift: _End, flights: _Flights, body: _Body, g: FootGeometry
) -> tuple[_End, list[_Key], tuple[float, float] | None]:
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
    land = _ends(np.array([at]), under, facing, np.zeros(1), body, on_floor=False)[0]
    found = _gesture_keys(lift, land, flights, body, g)
    return (land, *found) if found is not None else (land, [], None)


def _ends(
    times: FloatArray,
    ankle: FloatArray,
    heading: FloatArray,
    pitch: FloatArray,
    body: _Body,
    on_floor: bool = True,
) -> list[_End]:
    """Lift-offs or landings at ``times`` ``[n]`` (s) with ankles ``[n, 3]``, headings
    and pitches ``[n]``, their hip-local ankles and the hip-local velocity of a point at
    rest in the world there (the hip's and the facing's motion, by central differences)."""
    step, n = 1e-3, len(times)
    around = np.concatenate([times, times - step, times + step])
    hip, facing = body.hip_at(around), body.facing_at(around)
    left, forward = _left(facing[:n]), _forward(facing[:n])
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
        _End(
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


def _keys(
    kind: str, lift: _End, land: _End, flights: _Flights, body: _Body, g: FootGeometry
) -> tuple[list[_Key], tuple[float, float] | None]:
    """The interior keys of a flight and the span (s) of its gestures, if any."""
    found = _gesture_keys(lift, land, flights, body, g)
    if found is not None:
        return found[0], found[1]
    if kind in FLIGHT_KINDS:
        return _run_keys(lift, land, flights.air_before(land.time_s), body, g), None
    return _walk_keys(lift, land, flights.standing, body, g), None


def _local_ends(lift: _End, land: _End) -> FloatArray:
    """Hip-local ankles ``[2, 3]`` at lift-off and landing."""
    return np.stack([lift.local, land.local])


def _walk_keys(
    lift: _End, land: _End, standing: _Contacts, body: _Body, g: FootGeometry
) -> list[_Key]:
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


def _run_keys(lift: _End, land: _End, air_s: float, body: _Body, g: FootGeometry) -> list[_Key]:
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
    lift: _End, land: _End, flights: _Flights, body: _Body, g: FootGeometry
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


def _pchip_slopes(x: FloatArray, y: FloatArray) -> FloatArray:
    """Slopes ``[K, C]`` of the shape-preserving cubic (PCHIP, Fritsch-Carlson, as
    :class:`scipy.interpolate.PchipInterpolator`) through knots ``x`` ``[K]``, ``y``
    ``[K, C]``."""
    h = np.diff(x)[:, None]
    m = np.diff(y, axis=0) / h
    if len(x) == 2:
        return np.vstack([m, m])
    out = np.zeros_like(y)
    w1, w2 = 2.0 * h[1:] + h[:-1], h[1:] + 2.0 * h[:-1]
    same = (np.sign(m[1:]) == np.sign(m[:-1])) & (m[1:] != 0.0) & (m[:-1] != 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = (w1 + w2) / (w1 / m[:-1] + w2 / m[1:])
    out[1:-1] = np.where(same, inner, 0.0)
    out[0], out[-1] = _pchip_end(h[0], h[1], m[0], m[1]), _pchip_end(h[-1], h[-2], m[-1], m[-2])
    return out


def _pchip_end(h0: FloatArray, h1: FloatArray, m0: FloatArray, m1: FloatArray) -> FloatArray:
    """PCHIP's one-sided three-point slope at an end."""
    d = ((2.0 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    d = np.where(np.sign(d) != np.sign(m0), 0.0, d)
    steep = (np.sign(m0) != np.sign(m1)) & (np.abs(d) > 3.0 * np.abs(m0))
    return np.asarray(np.where(steep, 3.0 * m0, d), dtype=np.float64)


def _hermite(x: FloatArray, y: FloatArray, slope: FloatArray, t: FloatArray) -> FloatArray:
    """The cubic Hermite ``[n, C]`` through knots ``x`` ``[K]``, ``y`` and ``slope``
    ``[K, C]``, at ``t`` ``[n]`` (within the knots)."""
    i = np.clip(np.searchsorted(x, t, side="right") - 1, 0, len(x) - 2)
    h = (x[i + 1] - x[i])[:, None]
    s = ((t - x[i]) / (x[i + 1] - x[i]))[:, None]
    s2, s3 = s * s, s * s * s
    return np.asarray(
        (2 * s3 - 3 * s2 + 1) * y[i]
        + (s3 - 2 * s2 + s) * h * slope[i]
        + (3 * s2 - 2 * s3) * y[i + 1]
        + (s3 - s2) * h * slope[i + 1],
        dtype=np.float64,
    )


def _interpolate(
    lift: _End,
    land: _End,
    keys: list[_Key],
    span: tuple[float, float] | None,
    frames: NDArray[np.intp],
    body: _Body,
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
    slopes = _pchip_slopes(at, values)
    slopes[0, :3] = lift.still
    if land.on_floor:
        slopes[-1, :3] = land.still
    y = _hermite(at, values, slopes, np.clip(t, lift.time_s, land.time_s))  # then held
    ankle = body.hip[frames] + (
        y[:, :1] * _left(facing) + y[:, 1:2] * _UP + y[:, 2:3] * _forward(facing)
    )
    before = lift.heading - lift.facing
    turn = (land.heading - land.facing - before + math.pi) % (2.0 * math.pi) - math.pi
    u = np.clip((t - lift.time_s) / (land.time_s - lift.time_s), 0.0, 1.0)
    heading = facing + before + turn * u * u * (3.0 - 2.0 * u)
    gesture = np.zeros(len(t), bool) if span is None else (t >= span[0]) & (t <= span[1])
    floor = _depth(y[:, 3], g)
    ankle[:, 1] = np.maximum(
        ankle[:, 1], np.where(gesture, np.maximum(floor, g.ankle_height_m), floor)
    )
    return ankle, heading, y[:, 3], np.where(gesture, GESTURE, AIR).astype(np.int8)
