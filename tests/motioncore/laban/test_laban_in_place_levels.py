"""Supports in place on a foot that already carries weight change level, not contact
(issue 19; seed 003 §2, §7.2: the support columns' level is bent, straight or on the
toes; only a gap in both supports is time in the air).

Everything is measured on the animation as written out (BVH text read back, then
forward kinematics), not on the synthesizer's footprints or keys: a foot is off the
floor where its lowest point (ankle, ball, toe tip) is above :data:`AIR_M`, the pelvis
is the root joint, and levels are compared by the pelvis height averaged over the held
part of each support.
"""

from __future__ import annotations

import numpy as np
import pytest

from motioncore import bvh, fk
from motioncore.laban import score
from motioncore.laban.synthesize import synthesize
from support.paths import SAMPLE_DIR

SCORES = SAMPLE_DIR / "scores"
AIR_M = 0.03
"""A foot whose lowest point is higher than this (m) is off the floor."""
DOWN_M = 0.005
"""A ball of the foot at most this high (m) stands on the floor."""
LOW_UNDER_MIDDLE_M = 0.05
HIGH_OVER_MIDDLE_M = 0.04
HEEL_RISE_M = 0.04
"""On the toes (high) the ankle stands at least this much (m) higher than flat."""
DRIFT_M = 0.01
HELD = (0.4, 0.8)
"""The held part of a support: this share of its span (after the change of level)."""
FOOT_POINTS = ("Foot", "Toe", "Toe_End")


def _animated(name: str) -> tuple[score.Score, np.ndarray, list[str], float]:
    """The score, its animation's joint positions ``[F, J, 3]`` (m, from the BVH
    written out), joint names and frame rate."""
    loaded = score.load(SCORES / f"{name}.json")
    clip = bvh.load(bvh.dump(synthesize(loaded).clip))
    return loaded, fk.positions(clip), list(clip.skeleton.names), clip.fps


def _lowest(positions: np.ndarray, names: list[str], side: str) -> np.ndarray:
    """The height ``[F]`` (m) of the lowest point of the ``side`` foot."""
    joints = [names.index(f"{side}{p}") for p in FOOT_POINTS]
    return np.asarray(positions[:, joints, 1].min(axis=1))


def _flights(positions: np.ndarray, names: list[str], fps: float) -> list[tuple[float, float]]:
    """The spans ``(start_s, end_s)`` when both feet are off the floor."""
    up = (_lowest(positions, names, "Left") > AIR_M) & (_lowest(positions, names, "Right") > AIR_M)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], up.astype(np.int8), [0]])))
    return [(a / fps, b / fps) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def _held(loaded: score.Score, fps: float) -> list[tuple[str, slice]]:
    """Each support's level and the frames of its held part (see :data:`HELD`)."""
    spb = loaded.seconds_per_beat
    out = []
    for s in loaded.column("support_left"):
        a = s.beat + HELD[0] * s.duration
        b = s.beat + HELD[1] * s.duration
        out.append((str(s.level), slice(round(a * spb * fps), round(b * spb * fps))))
    return out


def test_in_place_levels_stay_on_the_floor_and_bend_or_rise() -> None:
    loaded, positions, names, fps = _animated("in_place_levels")
    lowest = np.stack([_lowest(positions, names, side) for side in ("Left", "Right")], 1)
    assert _flights(positions, names, fps) == [], f"feet up to {lowest.min(axis=1).max():.3f} m"
    pelvis = positions[:, names.index("Hips"), 1]
    ankles = positions[:, [names.index("LeftFoot"), names.index("RightFoot")], 1].mean(axis=1)
    by_level: dict[str, list[float]] = {"low": [], "middle": [], "high": []}
    ankle_by_level: dict[str, list[float]] = {"low": [], "middle": [], "high": []}
    for level, frames in _held(loaded, fps):
        by_level[level].append(float(pelvis[frames].mean()))
        ankle_by_level[level].append(float(ankles[frames].mean()))
    low, middle, high = (float(np.mean(by_level[k])) for k in ("low", "middle", "high"))
    assert low <= middle - LOW_UNDER_MIDDLE_M, (low, middle, high)
    assert high >= middle + HIGH_OVER_MIDDLE_M, (low, middle, high)
    heel_rise = np.mean(ankle_by_level["high"]) - np.mean(ankle_by_level["middle"])
    assert heel_rise >= HEEL_RISE_M, heel_rise


def test_a_plie_before_a_jump_is_no_hop_and_the_jump_flies() -> None:
    loaded, positions, names, fps = _animated("plie_jump")
    spb = loaded.seconds_per_beat
    flights = _flights(positions, names, fps)
    assert len(flights) == 1, flights  # the written gap, and only that
    (start, end), gap = flights[0], (2.0 * spb, 2.5 * spb)
    assert start >= gap[0] - 1.0 / fps and end <= gap[1] + 1.0 / fps, (flights, gap)
    assert end - start > 0.5 * (gap[1] - gap[0])
    pelvis = positions[:, names.index("Hips"), 1]
    held = _held(loaded, fps)
    middle = float(pelvis[held[0][1]].mean())
    plie = float(pelvis[held[1][1]].mean())
    assert plie <= middle - LOW_UNDER_MIDDLE_M, (plie, middle)


@pytest.mark.parametrize("name", ["in_place_levels", "plie_jump"])
def test_in_place_supports_keep_the_feet_where_they_stand(name: str) -> None:
    _, positions, names, _ = _animated(name)
    for side in ("Left", "Right"):  # the ball of the foot, while on the floor, stays put
        ball = positions[:, names.index(f"{side}Toe")]
        ball = ball[ball[:, 1] <= DOWN_M][:, [0, 2]]
        drift = float(np.linalg.norm(ball - ball[0], axis=1).max())
        assert drift < DRIFT_M, f"{side} foot drifts {drift:.3f} m"
