"""Score → animation on the canonical skeleton (seed 003 §7): footprints, an optimised
centre-of-mass path, foot keys, gestures, then the joints solved from landmark
positions.

1. **Footprints** (:mod:`motioncore.laban.footprints`) give where and when each foot
   stands and the body's centre and facing at the start and arrival of each support
   (a support in place for a standing foot is a ``level`` print: a change of level,
   not a step).
2. **Starting path** (:mod:`motioncore.laban.body_path`, as is the next step): a
   shape-preserving cubic (PCHIP) through those keys; the hips sink on low supports
   and rise on high ones, and are lowered wherever a foot would be out of the leg's
   reach, then smoothed.
3. **Centre-of-mass path** (:mod:`motioncore.laban.com_path`): that path optimised for
   physics and comfort (§7.6), segment by segment between the pivots and holds where
   the body stands still; flights come out ballistic.
4. **Foot keys** (:mod:`motioncore.laban.foot_keys`): ground keys (heel strike rolling
   to flat, the heel rising onto the ball before lift-off or when the leg cannot reach,
   toes bending above the floor), flight keys (walking, crossing, runs and jumps) and
   leg gestures with a minimum ankle height. Where a planted foot is still out of reach
   the hips are lowered (smoothly) and the keys made again, at most
   :data:`REACH_PASSES` times.
5. **Legs**: analytic two-bone IK from the hip joint to the ankle, the knee bent
   towards the facing (clamped to :data:`MAX_REACH` of the leg).
6. **Upper body**: during a leg gesture the chest leans away from the gesturing leg
   (:data:`COUNTERWEIGHT`, the waist's compensation of §7.5; the pelvis has already
   moved over the standing foot in the footprints). Arms and head follow their gesture
   channels (:mod:`motioncore.laban.gestures`) with the performed timing of
   :mod:`motioncore.laban.timing`, in the body's facing frame.
7. **Joints**: the landmark positions go through the retargeting solver
   (:func:`motioncore.skeleton.retarget.solve`) on the canonical skeleton.

Measured on the solved skeleton and reported: the lowest foot point, the skate (how far
a contact point slides within one ground phase) and ε_physics/ε_comfort
(:mod:`motioncore.laban.com_errors`) of the hips over the solved ankles.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, measures, quat
from motioncore.clip import Clip
from motioncore.laban import body_path, foot_keys, gestures, timing
from motioncore.laban.body_path import CANONICAL_LEG_M, FPS, MAX_REACH, SIDES
from motioncore.laban.com_errors import com_errors
from motioncore.laban.footprints import footprints
from motioncore.laban.prints import Footprints
from motioncore.laban.score import Score
from motioncore.skeleton import canonical, landmarks, retarget

FloatArray = NDArray[np.float64]
REACH_PASSES = 3
COUNTERWEIGHT = 0.12
"""The chest's shift per metre of a gesturing foot's reach from its hip: a leg is about
16 % of the body's mass with its centre 0.45 of the way to the foot, the upper body
about 60 %: 0.16 × 0.45 / 0.6 ≈ 0.12."""
_J = canonical.JOINT_OF_ROLE
UPPER_ARM, FOREARM = 0.28, 0.25
"""Shoulder joint to elbow and elbow to wrist, as fractions of the canonical leg scale."""
FOLD_REACH = 0.3
"""How near the shoulder joint the hand comes when an arm reverses (§7.1), as a share of
the arm's length: about as near as an elbow bent to 150° allows."""


@dataclass(frozen=True)
class Synthesis:
    """The animation, its footprints and the body-centre path ``[F, 2]`` (x, z m)."""

    clip: Clip
    prints: Footprints
    centre: FloatArray
    min_foot_height_m: float
    ground_skate_m: float
    eps_physics_m2_s4: float
    eps_comfort_m2: float
    measured: dict[str, object] | None = None
    """:meth:`motioncore.measures.Measures.as_dict` of the animation on the ground
    plane (independent of the footprints and phases that made it)."""

    def as_dict(self) -> dict[str, object]:
        return {
            "frames": self.clip.num_frames,
            "fps": self.clip.fps,
            "footprints": [
                {
                    "side": p.side,
                    "start_s": p.start_s,
                    "end_s": p.end_s,
                    "position_m": list(p.position),
                    "heading_rad": p.heading,
                    "level": p.level,
                    "kind": p.kind,
                }
                for p in self.prints.prints
            ],
            "centre_path_m": self.centre[:: max(1, int(FPS // 10))].round(4).tolist(),
            "min_foot_height_m": self.min_foot_height_m,
            "ground_skate_m": self.ground_skate_m,
            "eps_physics_m2_s4": self.eps_physics_m2_s4,
            "eps_comfort_m2": self.eps_comfort_m2,
            "foot_slide_mps": (self.measured or {}).get("slide_mean_mps"),
            "penetration_worst_m": (self.measured or {}).get("penetration_worst_m"),
            "measures": self.measured,
        }


def _frames(forward: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """World (left, up, forward) unit vectors ``[F, 3]`` for facings ``forward`` (rad)."""
    f = np.stack([np.sin(forward), np.zeros_like(forward), np.cos(forward)], -1)
    left = np.stack([np.cos(forward), np.zeros_like(forward), -np.sin(forward)], -1)
    up = np.broadcast_to([0.0, 1.0, 0.0], f.shape).copy()
    return left, up, f


def _world(v: FloatArray, left: FloatArray, up: FloatArray, forward: FloatArray) -> FloatArray:
    """Body-frame vectors ``[F, 3]`` (x left, y up, z forward) in the world."""
    return v[:, :1] * left + v[:, 1:2] * up + v[:, 2:3] * forward


def _knee(
    hip: FloatArray,
    ankle: FloatArray,
    pole: FloatArray,
    upper: float,
    lower: float,
    *,
    limit: float = MAX_REACH,
) -> FloatArray:
    """Two-bone IK: the knee ``[F, 3]`` between ``hip`` and ``ankle``, bent towards ``pole``
    (the reach clamped to ``limit`` × the limb's length)."""
    reach = ankle - hip
    d = np.linalg.norm(reach, axis=1, keepdims=True)
    d = np.clip(d, 1e-6, limit * (upper + lower))
    u = reach / np.linalg.norm(reach, axis=1, keepdims=True)
    a = (upper**2 - lower**2 + d**2) / (2 * d)
    h = np.sqrt(np.maximum(upper**2 - a**2, 0.0))
    p = pole - np.sum(pole * u, axis=1, keepdims=True) * u
    p /= np.maximum(np.linalg.norm(p, axis=1, keepdims=True), 1e-9)
    return np.asarray(hip + a * u + h * p, dtype=np.float64)


Progress = Callable[[float, str], None]
"""Told the share done (0–1) and the step now starting, in words."""

STEPS = (
    (0.0, "Timing and footprints"),
    (0.15, "Centre-of-mass path"),
    (0.55, "Foot keys"),
    (0.75, "Gestures"),
    (0.85, "Solving the joints (IK)"),
)
"""The steps :func:`synthesize` reports (share done when each starts); the shares are
rough times of a walking score."""


def _quiet(done: float, step: str) -> None:
    """A :data:`Progress` that tells no one."""


def synthesize(score: Score, progress: Progress = _quiet) -> Synthesis:
    """Animate ``score`` on the canonical skeleton at :data:`FPS`, telling ``progress``
    as each of :data:`STEPS` starts."""
    step = iter(STEPS)
    progress(*next(step))
    k = CANONICAL_LEG_M / 0.84  # offsets below are the canonical proportions
    prints = footprints(score, CANONICAL_LEG_M)
    duration = score.beats * score.seconds_per_beat
    times = np.arange(round(duration * FPS) + 1) / FPS
    centre, facing = body_path.centre_and_facing(prints, times)
    left, up, forward = _frames(facing)
    feet, down = body_path.contacts(prints, times)
    level = np.array([body_path.support_level(prints.prints, t) for t in times])
    wanted_y = canonical.HIPS_HEIGHT_M + level * CANONICAL_LEG_M
    hips_y = body_path.reachable_hips(centre, wanted_y, left, feet, down, k)
    start = np.stack([centre[:, 0], hips_y, centre[:, 1]], -1)
    progress(*next(step))
    hips = body_path.optimised_path(score, times, start, feet, down, left, up, k, prints).path
    offsets = {side: sign * 0.09 * k * left - 0.05 * k * up for side, sign in SIDES}
    geometry = foot_keys.FootGeometry.canonical(k)
    progress(*next(step))
    for made in range(REACH_PASSES + 1):  # lower the hips where a foot is out of reach
        hip_joints = {side: hips + offsets[side] for side, _ in SIDES}
        tracks = foot_keys.foot_tracks(score, prints, times, hip_joints, facing, geometry)
        drop = body_path.reach_drop(hip_joints, tracks, MAX_REACH * geometry.leg_m)
        if drop.max() < 1e-4 or made == REACH_PASSES:  # the keys are made for these hips
            break
        hips = hips - drop[:, None] * up
    points: dict[str, FloatArray] = {"hips": hips}
    for side, _ in SIDES:
        track = tracks[side]
        points[f"{side}_upper_leg"] = hip_joints[side]
        points[f"{side}_foot"] = track.ankle
        points[f"{side}_lower_leg"] = _knee(
            hip_joints[side], track.ankle, forward, 0.42 * k, 0.42 * k
        )
        points[f"{side}_toe"] = track.ball
        points[f"{side}_toe_end"] = track.toe_end
    lean = _counterweight(tracks, hip_joints)
    points["spine"] = hips + 0.10 * k * up  # the lean starts above: it would tilt the pelvis
    points["chest"] = hips + 0.30 * k * up + lean
    points["neck"] = points["chest"] + 0.22 * k * up
    points["head"] = points["neck"] + 0.10 * k * up
    progress(*next(step))
    performed = timing.interpret(score)
    head_dir = gestures.channel(
        performed, "head", ("head",), times, np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0])
    )
    points["head_end"] = points["head"] + 0.18 * k * _world(head_dir, left, up, forward)
    points.update(_arms(score, performed, points["chest"], times, (left, up, forward), k))
    progress(*next(step))
    clip = _solve(points, len(times))
    return _measured(clip, prints, centre, down, tracks, geometry)


def _counterweight(
    tracks: dict[str, foot_keys.FootTrack], hip_joints: dict[str, FloatArray]
) -> FloatArray:
    """The chest's shift ``[F, 3]`` (m) that balances a leg gesture (§7.5): the upper
    body leans away from the gesturing leg by :data:`COUNTERWEIGHT` × the foot's
    horizontal distance from its hip joint, so the whole body's centre of mass stays
    over the standing foot."""
    lean = np.zeros_like(hip_joints["left"])
    for side, _ in SIDES:
        gesture = tracks[side].phase == foot_keys.GESTURE
        reach = tracks[side].ankle - hip_joints[side]
        reach[:, 1] = 0.0
        lean -= np.where(gesture[:, None], COUNTERWEIGHT * reach, 0.0)
    return body_path.smoothed(lean)


def _arms(
    score: Score,
    performed: timing.Interpretation,
    chest: FloatArray,
    times: FloatArray,
    frame: tuple[FloatArray, FloatArray, FloatArray],
    k: float,
) -> dict[str, FloatArray]:
    """Shoulder, arm, elbow, hand and hand-end positions of both arms from their gesture
    channels (§7.1, in the body frame ``frame`` = left, up, forward)."""
    left, up, forward = frame
    points: dict[str, FloatArray] = {}
    hanging = np.array([0.0, -1.0, 0.0])
    for side, sign in SIDES:
        column = f"arm_{side}"
        outward = np.array([sign, 0.0, 0.0])
        whole = gestures.channel(
            performed, column, ("arm", "hand", "wrist", "forearm"), times, hanging, outward
        )
        upper_parts = ("upper_arm", "elbow")
        has_upper = any((s.part or "arm") in upper_parts for s in score.column(column))
        upper_dir = (
            gestures.channel(performed, column, upper_parts, times, hanging, outward)
            if has_upper
            else whole
        )
        shoulder = chest + sign * 0.03 * k * left + 0.17 * k * up
        arm = shoulder + sign * 0.15 * k * left
        points[f"{side}_shoulder"], points[f"{side}_upper_arm"] = shoulder, arm
        elbow = arm + UPPER_ARM * k * _world(upper_dir, left, up, forward)
        hand = elbow + FOREARM * k * _world(whole, left, up, forward)
        if not has_upper:  # the whole arm reverses: fold the elbow (§7.1)
            wholes = ("arm", "hand", "wrist", "forearm")
            for turn in gestures.reversals(performed, column, wholes, hanging):
                _fold(turn, times, arm, elbow, hand, frame, k, outward)
        forearm_dir = (hand - elbow) / np.linalg.norm(hand - elbow, axis=1, keepdims=True)
        points[f"{side}_forearm"], points[f"{side}_hand"] = elbow, hand
        points[f"{side}_hand_end"] = hand + 0.08 * k * forearm_dir
    return points


def _fold(
    turn: gestures.Reversal,
    times: FloatArray,
    arm: FloatArray,
    elbow: FloatArray,
    hand: FloatArray,
    frame: tuple[FloatArray, FloatArray, FloatArray],
    k: float,
    outward: FloatArray,
) -> None:
    """Seed 003 §7.1 for an arm reversing (front middle to back middle): the hand goes
    in a straight line to the shoulder, the elbow bending, then straight out to the new
    direction as the arm unfolds. Over the move's span the hand follows those two lines
    (body frame, eased) to :data:`FOLD_REACH` × the arm's length beside the shoulder
    joint on the side the direction would have swung by; the elbow is solved by two-bone
    IK, pointing down. Writes ``elbow`` and ``hand`` ``[F, 3]`` in place."""
    moving = (times >= turn.start_s) & (times < turn.end_s)
    if not moving.any():
        return
    left, up, forward = (axis[moving] for axis in frame)
    f = gestures.smooth((times[moving] - turn.start_s) / (turn.end_s - turn.start_s))[:, None]
    reach = (UPPER_ARM + FOREARM) * k
    start, end = reach * turn.a, reach * turn.b
    middle = FOLD_REACH * reach * gestures.arc(turn.a, turn.b, 0.5, outward)
    offset = np.where(
        f < 0.5, start + (middle - start) * 2 * f, middle + (end - middle) * (2 * f - 1)
    )
    hand[moving] = arm[moving] + _world(offset, left, up, forward)
    elbow[moving] = _knee(arm[moving], hand[moving], -up, UPPER_ARM * k, FOREARM * k, limit=1.0)


def _solve(points: dict[str, FloatArray], frames: int) -> Clip:
    skeleton = canonical.skeleton()
    rig = landmarks.Rig.of(skeleton, canonical.rest_positions(), canonical.roles())
    rest_rot = quat.identity((skeleton.num_joints,))
    rest_tr = skeleton.offsets.copy()
    rest_tr[0] = (0.0, canonical.HIPS_HEIGHT_M, 0.0)
    rotations, translations = retarget.solve(
        rig, rest_rot, rest_tr, retarget.targets(points, 1.0), points["hips"]
    )
    return Clip(skeleton, rotations, translations, FPS, meta={"generator": "laban"})


def _measured(
    clip: Clip,
    prints: Footprints,
    centre: FloatArray,
    on_print: NDArray[np.bool_],
    tracks: dict[str, foot_keys.FootTrack],
    geometry: foot_keys.FootGeometry,
) -> Synthesis:
    """The measures of the solved animation: the lowest foot point, the skate (how far a
    contact point moves within one ground phase of a print, recomputed from the solved
    ankle and ball joints) and ε_physics/ε_comfort of the hips over the solved ankles,
    counting a foot as down where it is on its print (``on_print`` ``[F, 2]``) in a
    ground phase."""
    positions = fk.positions(clip)
    feet = [_J[f"{s}_{p}"] for s, _ in SIDES for p in ("foot", "toe")]
    feet += [canonical.NAMES.index(f"{s}Toe_End") for s in ("Left", "Right")]
    lowest = float(positions[:, feet, 1].min())
    skate = max(_skate(positions, side, tracks[side], geometry) for side, _ in SIDES)
    planted = (foot_keys.HEEL, foot_keys.FLAT, foot_keys.BALL)
    down = np.stack([np.isin(tracks[side].phase, planted) for side, _ in SIDES], 1)
    ankles = positions[:, [_J[f"{side}_foot"] for side, _ in SIDES]]
    hips = positions[:, _J["hips"]]
    errors = com_errors(hips, ankles, down & on_print, clip.fps, body_path.nominal_leg_m())
    measured = measures.measure(clip, canonical.roles(), floor_m=0.0).as_dict()
    return Synthesis(
        clip, prints, centre, lowest, skate, errors.physics_m2_s4, errors.comfort_m2, measured
    )


def _skate(
    positions: FloatArray, side: str, track: foot_keys.FootTrack, geometry: foot_keys.FootGeometry
) -> float:
    """The largest distance (m) a contact point moves within one run of frames of the
    same ground phase."""
    ankle, ball = positions[:, _J[f"{side}_foot"]], positions[:, _J[f"{side}_toe"]]
    anchor = foot_keys.anchor_points(ankle, ball, track.phase, geometry)
    ground = np.isin(track.phase, (foot_keys.HEEL, foot_keys.FLAT, foot_keys.BALL))
    change = np.flatnonzero(np.diff(track.phase, prepend=-1) != 0)
    worst = 0.0
    for a, b in zip(change, [*change[1:], len(track.phase)], strict=True):
        if ground[a] and b - a >= 2:
            run = anchor[a:b]
            worst = max(worst, float(np.linalg.norm(run - run[0], axis=1).max()))
    return worst
