"""The body's centre for the animation (seed 003 §7.2, §7.6): the starting path through
the footprints' keys, the optimised centre-of-mass path (:mod:`motioncore.laban.com_path`)
and the reach limit the foot keys need. Metres, seconds, Y up; ``F`` frames at
:data:`FPS`; a body facing ``f`` has its left along (cos f, 0, -sin f).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.interpolate import PchipInterpolator
from scipy.ndimage import maximum_filter1d

from motioncore.laban import com_path, foot_keys
from motioncore.laban.footprints import weight_shift_s
from motioncore.laban.prints import Footprint, Footprints
from motioncore.laban.score import SUPPORTS, Score
from motioncore.skeleton import canonical

FloatArray = NDArray[np.float64]
FPS = 60.0
SIDES = (("left", 1.0), ("right", -1.0))
MAX_REACH_DROP_M = 0.15
MAX_REACH = 0.995
ROLL_S = 0.12
ROLL_REACH_LEGS = 0.1
"""Within :data:`ROLL_S` before it lifts, the foot rolls onto its ball, which lets the
leg reach this much further (leg lengths) than with the foot flat; landing on the heel
gains nothing (the ankle is no farther from the heel than flat)."""
ANKLE_LEGS = 0.06 / 0.84
"""The ankle's height above the floor with the foot flat, in leg lengths."""
HIPS_SMOOTHING_S = 0.15
LEVEL_DIP_LEGS = {"low": -0.12, "middle": 0.0, "high": 0.05}
"""Hips height change by the level of the supporting step, in leg lengths."""

_REST = canonical.rest_positions()
_J = canonical.JOINT_OF_ROLE
CANONICAL_LEG_M = float(
    np.linalg.norm(_REST[_J["left_upper_leg"]] - _REST[_J["left_lower_leg"]])
    + np.linalg.norm(_REST[_J["left_lower_leg"]] - _REST[_J["left_foot"]])
)


def centre_and_facing(prints: Footprints, times: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The footprints' centre ``[F, 2]`` (x, z m) and facing ``[F]`` (rad) at ``times``:
    a shape-preserving cubic (PCHIP) through their keys, so the body moves only while a
    support symbol transfers the weight and never overshoots."""
    keys_t = np.unique(prints.times)
    last = np.array([np.flatnonzero(prints.times == t)[-1] for t in keys_t])
    centre_keys, facing_keys = prints.centre[last], prints.facing[last]
    if len(keys_t) < 2:
        return np.repeat(centre_keys[:1], len(times), axis=0), np.repeat(
            facing_keys[:1], len(times)
        )
    clipped = np.clip(times, keys_t[0], keys_t[-1])
    centre = PchipInterpolator(keys_t, centre_keys)(clipped)
    facing = PchipInterpolator(keys_t, facing_keys)(clipped)
    return np.asarray(centre, dtype=np.float64), np.asarray(facing, dtype=np.float64)


def contacts(prints: Footprints, times: FloatArray) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Each foot's print at ankle height ``[F, 2, 3]`` (left, right; m) and whether it is
    on the ground ``[F, 2]``."""
    feet = np.zeros((len(times), 2, 3))
    down = np.zeros((len(times), 2), dtype=bool)
    for i, (side, _) in enumerate(SIDES):
        for p in prints.of(side):
            inside = (times >= p.start_s - 1e-9) & (times <= p.end_s + 1e-9)
            feet[inside, i] = (p.position[0], ANKLE_LEGS * CANONICAL_LEG_M, p.position[1])
            down[inside, i] = True
    return feet, down


def reach_drop(
    hip_joints: dict[str, FloatArray], tracks: dict[str, foot_keys.FootTrack], reach_m: float
) -> FloatArray:
    """How far ``[F]`` (m) to lower the hips so that every foot on the ground is within
    ``reach_m`` of its hip joint (the optimiser's limit is soft and the foot keys
    cannot lengthen a leg whose foot is ahead), spread over :data:`HIPS_SMOOTHING_S`
    so that the hips never drop abruptly."""
    need = np.zeros(len(hip_joints["left"]))
    for side, _ in SIDES:
        track = tracks[side]
        planted = np.isin(track.phase, (foot_keys.HEEL, foot_keys.FLAT, foot_keys.BALL))
        to_hip = hip_joints[side] - track.ankle
        across = np.hypot(to_hip[:, 0], to_hip[:, 2])
        height = np.sqrt(np.maximum(reach_m**2 - np.minimum(across, reach_m) ** 2, 0.0))
        need = np.maximum(need, np.where(planted, np.maximum(to_hip[:, 1] - height, 0.0), 0.0))
    need = np.minimum(need, MAX_REACH_DROP_M)
    widened = maximum_filter1d(need, 2 * _window() + 1, mode="nearest")
    return np.asarray(np.maximum(smoothed(widened[:, None])[:, 0], need), dtype=np.float64)


def _window() -> int:
    """Half the smoothing window, in frames."""
    return max(1, round(HIPS_SMOOTHING_S * FPS))


def smoothed(values: FloatArray) -> FloatArray:
    """``values`` ``[F, n]`` smoothed by a Hann window of :data:`HIPS_SMOOTHING_S`."""
    window = _window()
    kernel = np.hanning(2 * window + 1)
    kernel /= kernel.sum()
    padded = np.pad(values, ((window, window), (0, 0)), mode="edge")
    columns = [np.convolve(padded[:, a], kernel, mode="valid") for a in range(values.shape[1])]
    return np.stack(columns, -1)


def optimised_path(
    score: Score,
    times: FloatArray,
    start: FloatArray,
    feet: FloatArray,
    down: NDArray[np.bool_],
    left: FloatArray,
    up: FloatArray,
    k: float,
    prints: Footprints,
) -> com_path.Optimised:
    """The centre-of-mass (hips) path optimised for physics and comfort, fixed where the
    body pivots or holds (:mod:`motioncore.laban.com_path`); ``prints``: the score's
    footprints (their levels set each leg's comfortable length)."""
    reach = np.full(down.shape, MAX_REACH * 0.84 * k)
    for i in range(2):
        lifts = np.flatnonzero(np.diff(down[:, i].astype(np.int8), append=0) < 0)
        for edge in lifts:  # before lifting, the heel rises and the foot rolls on its ball
            near = (times <= times[edge]) & (times > times[edge] - ROLL_S)
            reach[near & down[:, i], i] += ROLL_REACH_LEGS * CANONICAL_LEG_M
    offsets = np.stack([sign * 0.09 * k * left - 0.05 * k * up for _, sign in SIDES], 1)
    level = level_offsets_m(prints, times) * k
    # on the toes (high) the foot stands on its ball, as when rolling before a lift
    reach += np.where(level > 0.0, ROLL_REACH_LEGS * CANONICAL_LEG_M * k, 0.0)
    legs = com_path.Legs(feet, down, nominal_leg_m(), offsets, reach, nominal_leg_m() + level)
    fixed = com_path.fixed_spans(times, _still_spans(score))
    return com_path.optimise(times, start, legs, fixed, FPS)


def level_offsets_m(prints: Footprints, times: FloatArray) -> FloatArray:
    """Each foot's comfortable leg length change ``[F, 2]`` (m; left, right) at
    ``times`` from the level of its print (:data:`LEVEL_DIP_LEGS`: bent low, stretched
    on the toes; seed 003 §2), 0 in the air and at the middle level."""
    out = np.zeros((len(times), 2))
    for i, (side, _) in enumerate(SIDES):
        for p in prints.of(side):
            inside = (times >= p.start_s - 1e-9) & (times <= p.end_s + 1e-9)
            out[inside, i] = LEVEL_DIP_LEGS.get(p.level, 0.0) * CANONICAL_LEG_M
    return out


def _still_spans(score: Score) -> list[tuple[float, float]]:
    """Where the body stands still (s): holds and turns of the body through their span,
    pivots on one foot once the centre is over its ball (§7.6)."""
    spb = score.seconds_per_beat
    spans = []
    for s in score.symbols:
        if (s.column in SUPPORTS and s.kind == "hold") or (s.column == "body" and s.kind == "turn"):
            spans.append((s.beat * spb, s.end * spb))
        elif s.column in SUPPORTS and s.kind == "turn":
            spans.append((s.beat * spb + weight_shift_s(s, spb), s.end * spb))
    return spans


def nominal_leg_m() -> float:
    """A standing leg's length from the hips (the centre of mass) to the ankle."""
    standing = canonical.rest_positions()
    return float(np.linalg.norm(standing[_J["hips"]] - standing[_J["left_foot"]]))


def reachable_hips(
    centre: FloatArray,
    wanted_y: FloatArray,
    left: FloatArray,
    feet: FloatArray,
    down: NDArray[np.bool_],
    k: float,
) -> FloatArray:
    """Hips heights ``[F]`` for the starting path: the wanted ones, lowered where a foot
    on the ground would be out of reach of its hip (the leg-line limit,
    :data:`MAX_REACH`), then smoothed over :data:`HIPS_SMOOTHING_S` without rising
    above the limit."""
    limit = np.array(wanted_y, dtype=np.float64)
    reach = MAX_REACH * 0.84 * k
    for i, (_, sign) in enumerate(SIDES):
        hip_xz = centre + sign * 0.09 * k * left[:, [0, 2]]
        horizontal = np.linalg.norm(feet[:, i, [0, 2]] - hip_xz, axis=1)
        vertical = np.sqrt(np.maximum(reach**2 - horizontal**2, 0.0))
        reachable = feet[:, i, 1] + vertical + 0.05 * k
        limit = np.where(down[:, i], np.minimum(limit, reachable), limit)
    return np.asarray(np.minimum(smoothed(limit[:, None])[:, 0], limit), dtype=np.float64)


def support_level(prints: tuple[Footprint, ...], t: float) -> float:
    """Hips offset (leg lengths) from the levels of the feet on the ground at ``t``."""
    levels = [LEVEL_DIP_LEGS.get(p.level, 0.0) for p in prints if p.start_s <= t <= p.end_s]
    return float(np.mean(levels)) if levels else 0.0
