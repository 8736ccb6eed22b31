"""Score → animation on the canonical skeleton (seed 003 §7): footprints, a body-centre
path, foot keys, gestures, then the joints solved from landmark positions.

1. **Footprints** (:mod:`motioncore.laban.footprints`) give where and when each foot
   stands and the body's centre and facing at the start and arrival of each support.
2. **Centre path**: a shape-preserving cubic (PCHIP) through those keys, so the body
   moves only while a support symbol transfers the weight and never overshoots; the
   hips sink on low supports and rise on high ones, and are lowered wherever a foot
   would be out of the leg's reach (the leg-line limit), then smoothed.
3. **Foot keys**: a foot on the ground stays exactly on its print (ankle at its
   height, the foot along the print's heading); in the air it travels from one print to
   the next on a smoothstep with a lift of :data:`LIFT_LEGS` leg lengths.
4. **Legs**: analytic two-bone IK from the hip joint to the ankle, the knee bent
   towards the facing (clamped to :data:`MAX_REACH` of the leg).
5. **Gestures** (:mod:`motioncore.laban.gestures`): arms, head and their arcs, in the
   body's facing frame.
6. **Joints**: the landmark positions go through the retargeting solver
   (:func:`motioncore.retarget.solve`) on the canonical skeleton.

The path's ε_physics and ε_comfort (§7.6, :mod:`motioncore.laban.com_errors`) are
measured and reported. Not yet: optimising the path to lower them (flights are not
ballistic yet), heel-to-toe roll and flight keys for crossing feet (§7.3-7.4), pelvis
compensation for one-leg gestures, leg gestures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.interpolate import PchipInterpolator

from motioncore import canonical, fk, quat, retarget
from motioncore.clip import Clip
from motioncore.laban import gestures
from motioncore.laban.com_errors import com_errors
from motioncore.laban.footprints import Footprint, Footprints, footprints
from motioncore.laban.score import Score

FloatArray = NDArray[np.float64]
FPS = 60.0
LIFT_LEGS = 0.12
MAX_REACH = 0.995
HIPS_SMOOTHING_S = 0.15
LEVEL_DIP_LEGS = {"low": -0.12, "middle": 0.0, "high": 0.05}
"""Hips height change by the level of the supporting step, in leg lengths."""

_REST = canonical.rest_positions()
_J = canonical.JOINT_OF_ROLE
CANONICAL_LEG_M = float(
    np.linalg.norm(_REST[_J["left_upper_leg"]] - _REST[_J["left_lower_leg"]])
    + np.linalg.norm(_REST[_J["left_lower_leg"]] - _REST[_J["left_foot"]])
)


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


def _foot_track(
    prints: tuple[Footprint, ...], times: FloatArray, ankle_m: float, lift_m: float
) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
    """Ankle positions ``[F, 3]``, foot headings ``[F]`` and on-ground mask of one foot."""
    ordered = sorted(prints, key=lambda p: p.start_s)
    ankle = np.zeros((len(times), 3))
    heading = np.zeros(len(times))
    ground = np.zeros(len(times), dtype=bool)
    for i, t in enumerate(times):
        on = next((p for p in ordered if p.start_s - 1e-9 <= t <= p.end_s + 1e-9), None)
        if on is not None:
            ankle[i] = (on.position[0], ankle_m, on.position[1])
            heading[i], ground[i] = on.heading, True
            continue
        before = max((p for p in ordered if p.end_s < t), key=lambda p: p.end_s, default=ordered[0])
        after = min(
            (p for p in ordered if p.start_s > t), key=lambda p: p.start_s, default=ordered[-1]
        )
        span = max(after.start_s - before.end_s, 1e-9)
        u = min(max((t - before.end_s) / span, 0.0), 1.0)
        s = u * u * (3.0 - 2.0 * u)
        a, b = np.array(before.position), np.array(after.position)
        xz = (1 - s) * a + s * b
        ankle[i] = (xz[0], ankle_m + lift_m * math.sin(math.pi * u), xz[1])
        heading[i] = (1 - s) * before.heading + s * after.heading
    return ankle, heading, ground


def _knee(
    hip: FloatArray, ankle: FloatArray, pole: FloatArray, upper: float, lower: float
) -> FloatArray:
    """Two-bone IK: the knee ``[F, 3]`` between ``hip`` and ``ankle``, bent towards ``pole``."""
    reach = ankle - hip
    d = np.linalg.norm(reach, axis=1, keepdims=True)
    d = np.clip(d, 1e-6, MAX_REACH * (upper + lower))
    u = reach / np.linalg.norm(reach, axis=1, keepdims=True)
    a = (upper**2 - lower**2 + d**2) / (2 * d)
    h = np.sqrt(np.maximum(upper**2 - a**2, 0.0))
    p = pole - np.sum(pole * u, axis=1, keepdims=True) * u
    p /= np.maximum(np.linalg.norm(p, axis=1, keepdims=True), 1e-9)
    return np.asarray(hip + a * u + h * p, dtype=np.float64)


def synthesize(score: Score) -> Synthesis:
    """Animate ``score`` on the canonical skeleton at :data:`FPS`."""
    k = CANONICAL_LEG_M / 0.84  # offsets below are the canonical proportions
    prints = footprints(score, CANONICAL_LEG_M)
    duration = score.beats * score.seconds_per_beat
    times = np.arange(round(duration * FPS) + 1) / FPS
    keys_t = np.unique(prints.times)
    last = np.array([np.flatnonzero(prints.times == t)[-1] for t in keys_t])
    centre_keys, facing_keys = prints.centre[last], prints.facing[last]
    if len(keys_t) >= 2:
        centre = PchipInterpolator(keys_t, centre_keys, extrapolate=True)(
            np.clip(times, keys_t[0], keys_t[-1])
        )
        facing = PchipInterpolator(keys_t, facing_keys)(np.clip(times, keys_t[0], keys_t[-1]))
    else:
        centre = np.repeat(centre_keys[:1], len(times), axis=0)
        facing = np.repeat(facing_keys[:1], len(times))
    left, up, forward = _frames(facing)
    level = np.array([_support_level(prints.prints, t) for t in times])
    ankle_m = 0.06 * k
    tracks = {
        side: _foot_track(prints.of(side), times, ankle_m, LIFT_LEGS * CANONICAL_LEG_M)
        for side in ("left", "right")
    }
    wanted_y = canonical.HIPS_HEIGHT_M + level * CANONICAL_LEG_M
    hips_y = _reachable_hips(centre, wanted_y, left, tracks, k)
    hips = np.stack([centre[:, 0], hips_y, centre[:, 1]], -1)
    points: dict[str, FloatArray] = {"hips": hips}
    for side, sign in (("left", 1.0), ("right", -1.0)):
        ankle, foot_heading, _ = tracks[side]
        foot_forward = np.stack(
            [np.sin(foot_heading), np.zeros_like(foot_heading), np.cos(foot_heading)], -1
        )
        hip = hips + sign * 0.09 * k * left - 0.05 * k * up
        points[f"{side}_upper_leg"] = hip
        points[f"{side}_foot"] = ankle
        points[f"{side}_lower_leg"] = _knee(hip, ankle, forward, 0.42 * k, 0.42 * k)
        points[f"{side}_toe"] = ankle + 0.13 * k * foot_forward - 0.06 * k * up
        points[f"{side}_toe_end"] = points[f"{side}_toe"] + 0.06 * k * foot_forward
    points["spine"] = hips + 0.10 * k * up
    points["chest"] = points["spine"] + 0.20 * k * up
    points["neck"] = points["chest"] + 0.22 * k * up
    points["head"] = points["neck"] + 0.10 * k * up
    outward_up = np.array([0.0, 1.0, 0.0])
    head_dir = gestures.channel(
        score, "head", ("head",), times, outward_up, np.array([0.0, 0.0, 1.0])
    )
    points["head_end"] = points["head"] + 0.18 * k * _world(head_dir, left, up, forward)
    down = np.array([0.0, -1.0, 0.0])
    for side, sign in (("left", 1.0), ("right", -1.0)):
        column = f"arm_{side}"
        outward = np.array([sign, 0.0, 0.0])
        whole = gestures.channel(
            score, column, ("arm", "hand", "wrist", "forearm"), times, down, outward
        )
        upper_parts = ("upper_arm", "elbow")
        has_upper = any((s.part or "arm") in upper_parts for s in score.column(column))
        upper_dir = (
            gestures.channel(score, column, upper_parts, times, down, outward)
            if has_upper
            else whole
        )
        shoulder = points["chest"] + sign * 0.03 * k * left + 0.17 * k * up
        arm = shoulder + sign * 0.15 * k * left
        points[f"{side}_shoulder"], points[f"{side}_upper_arm"] = shoulder, arm
        elbow = arm + 0.28 * k * _world(upper_dir, left, up, forward)
        hand = elbow + 0.25 * k * _world(whole, left, up, forward)
        points[f"{side}_forearm"], points[f"{side}_hand"] = elbow, hand
        points[f"{side}_hand_end"] = hand + 0.08 * k * _world(whole, left, up, forward)
    clip = _solve(points, len(times))
    return _measured(clip, prints, centre)


def _reachable_hips(
    centre: FloatArray,
    wanted_y: FloatArray,
    left: FloatArray,
    tracks: dict[str, tuple[FloatArray, FloatArray, NDArray[np.bool_]]],
    k: float,
) -> FloatArray:
    """Hips heights ``[F]``: the wanted ones, lowered where a foot on the ground would
    be out of reach of its hip (the leg-line limit, :data:`MAX_REACH`), then smoothed
    over :data:`HIPS_SMOOTHING_S` without rising above the limit."""
    limit = np.array(wanted_y, dtype=np.float64)
    reach = MAX_REACH * 0.84 * k
    for side, sign in (("left", 1.0), ("right", -1.0)):
        ankle, _, ground = tracks[side]
        hip_xz = centre + sign * 0.09 * k * left[:, [0, 2]]
        horizontal = np.linalg.norm(ankle[:, [0, 2]] - hip_xz, axis=1)
        vertical = np.sqrt(np.maximum(reach**2 - horizontal**2, 0.0))
        reachable = ankle[:, 1] + vertical + 0.05 * k
        limit = np.where(ground, np.minimum(limit, reachable), limit)  # a foot in the air bends
    window = max(1, round(HIPS_SMOOTHING_S * FPS))
    kernel = np.hanning(2 * window + 1)
    kernel /= kernel.sum()
    smooth = np.convolve(np.pad(limit, window, mode="edge"), kernel, mode="valid")
    return np.asarray(np.minimum(smooth, limit), dtype=np.float64)


def _support_level(prints: tuple[Footprint, ...], t: float) -> float:
    """Hips offset (leg lengths) from the levels of the feet on the ground at ``t``."""
    levels = [LEVEL_DIP_LEGS.get(p.level, 0.0) for p in prints if p.start_s <= t <= p.end_s]
    return float(np.mean(levels)) if levels else 0.0


def _solve(points: dict[str, FloatArray], frames: int) -> Clip:
    skeleton = canonical.skeleton()
    rig = retarget.Rig.of(skeleton, canonical.rest_positions(), canonical.roles())
    rest_rot = quat.identity((skeleton.num_joints,))
    rest_tr = skeleton.offsets.copy()
    rest_tr[0] = (0.0, canonical.HIPS_HEIGHT_M, 0.0)
    rotations, translations = retarget.solve(
        rig, rest_rot, rest_tr, retarget.targets(points, 1.0), points["hips"]
    )
    return Clip(skeleton, rotations, translations, FPS, meta={"generator": "laban"})


def _measured(clip: Clip, prints: Footprints, centre: FloatArray) -> Synthesis:
    positions = fk.positions(clip)
    feet = [canonical.JOINT_OF_ROLE[f"{s}_{p}"] for s in ("left", "right") for p in ("foot", "toe")]
    feet += [canonical.NAMES.index(f"{s}Toe_End") for s in ("Left", "Right")]
    lowest = float(positions[:, feet, 1].min())
    times = np.arange(clip.num_frames) / clip.fps
    skate = 0.0
    for p in prints.prints:
        inside = (times >= p.start_s) & (times <= p.end_s)
        if inside.sum() >= 2:
            ankle = positions[inside, canonical.JOINT_OF_ROLE[f"{p.side}_foot"]][:, [0, 2]]
            skate = max(skate, float(np.linalg.norm(ankle - ankle[0], axis=1).max()))
    sides = ("left", "right")
    down = np.stack(
        [
            np.any([(times >= p.start_s) & (times <= p.end_s) for p in prints.of(side)], axis=0)
            for side in sides
        ],
        axis=1,
    )
    ankles = positions[:, [canonical.JOINT_OF_ROLE[f"{side}_foot"] for side in sides]]
    hips = positions[:, canonical.JOINT_OF_ROLE["hips"]]
    standing = canonical.rest_positions()
    nominal = float(
        np.linalg.norm(
            standing[canonical.JOINT_OF_ROLE["hips"]]
            - standing[canonical.JOINT_OF_ROLE["left_foot"]]
        )
    )
    errors = com_errors(hips, ankles, down, clip.fps, nominal)
    return Synthesis(clip, prints, centre, lowest, skate, errors.physics_m2_s4, errors.comfort_m2)
