"""Tests of motioncore.analysis.mtp on analytic motions whose MTPs are known to the frame."""

from __future__ import annotations

import json

import numpy as np
import pytest

from motioncore.analysis import mtp
from motioncore.errors import MotionCoreError

X = np.array([1.0, 0.0, 0.0])


def along_x(v: np.ndarray) -> np.ndarray:
    """[F] signed speed along x → [F, 3] velocity."""
    return np.outer(v, X)


def pendulum() -> tuple[np.ndarray, np.ndarray, float]:
    """Seed 000 §5.1: v = sin(t) on [0, 2π], 200 frames; speed |v|."""
    t = np.linspace(0.0, 2.0 * np.pi, 200)
    return t, np.sin(t), 1.0 / (t[1] - t[0])


def lobe_window(t: np.ndarray, speed: np.ndarray, lo: float, alpha: float) -> set[int]:
    """Frames after the sampled peak of the lobe (lo, lo + π) keeping alpha of it."""
    lobe = (t > lo) & (t < lo + np.pi)
    peak = np.flatnonzero(lobe)[np.argmax(speed[lobe])]
    keep = lobe & (np.arange(t.size) > peak) & (speed >= alpha * speed[peak])
    return set(np.flatnonzero(keep).tolist())


def test_pendulum_candidates_are_the_decelerating_side_of_each_peak() -> None:
    t, v, fps = pendulum()
    speed = np.abs(v)
    result = mtp.detect(speed, along_x(v), fps, alpha=0.6)
    expected = lobe_window(t, speed, 0.0, 0.6) | lobe_window(t, speed, np.pi, 0.6)
    assert set(result.order.tolist()) == expected
    assert len(expected) == 58
    peaks = {int(np.argmax(speed[:100])), 100 + int(np.argmax(speed[100:]))}
    assert peaks.isdisjoint(expected)
    values = [c.value for c in result.candidates]
    assert values == sorted(values, reverse=True)
    assert all(c.breakdown["direction"]["skipped"] for c in result.candidates)
    assert result.reason is None and result.recommendation is None
    assert result.best is not None and result.best.frame in expected


def test_constant_acceleration_has_no_candidate() -> None:
    t = np.arange(60) / 30.0
    v = 2.0 * t
    result = mtp.detect(v, along_x(v), 30.0)
    assert result.order.size == 0 and result.best is None
    assert result.reason == "no reliable candidate: the curve never decelerates"


def test_reversal_fails_theta_and_recommends_a_transition() -> None:
    t = np.linspace(0.0, np.pi, 90)
    v = np.sin(t)
    opposite = mtp.detect(v, along_x(v), 30.0, next_velocity=-X)
    assert opposite.best is None and not opposite.candidates
    assert opposite.reason is not None and "theta_max" in opposite.reason
    assert opposite.recommendation == "insert a transition or use a longer blend"
    assert opposite.breakdown(60)["direction"]["value"] == pytest.approx(180.0)
    same = mtp.detect(v, along_x(v), 30.0, next_velocity=2.0 * X)
    assert same.best is not None and same.recommendation is None
    assert same.best.breakdown["direction"]["margin"] == pytest.approx(75.0)


def test_velocity_flip_keeps_only_the_swing_that_matches_the_next_clip() -> None:
    t, v, fps = pendulum()
    speed = np.abs(v)
    result = mtp.detect(speed, along_x(v), fps, next_velocity=-X)
    assert set(result.order.tolist()) == lobe_window(t, speed, np.pi, 0.6)
    assert result.recommendation is None


def test_two_peaks_each_uses_its_own_peak_not_the_global_max() -> None:
    t = np.linspace(0.0, 2.0 * np.pi, 200)
    v = np.sin(t) * np.where(t < np.pi, 1.0, 0.4)
    speed = np.abs(v)
    result = mtp.detect(speed, along_x(v), 1.0 / (t[1] - t[0]))
    small = lobe_window(t, speed, np.pi, 0.6)
    assert small and small <= set(result.order.tolist())
    assert speed[sorted(small)].max() < 0.6 * speed.max()  # the listing would drop them
    assert set(result.order.tolist()) == lobe_window(t, speed, 0.0, 0.6) | small
    assert result.best is not None and result.best.peak_frame < 100


def test_low_momentum_has_no_reliable_candidate() -> None:
    _, v, fps = pendulum()
    slow = 0.05 * v
    result = mtp.detect(np.abs(slow), along_x(slow), fps, min_peak=0.1)
    assert result.best is None
    assert result.reason is not None
    assert result.reason.startswith("no reliable candidate: the motion never builds momentum")
    assert not result.candidates
    assert result.breakdown(60)["retention"]["value"] >= 0.6  # it keeps α of a weak peak


def test_a_weak_unit_gives_no_candidates_next_to_a_strong_one() -> None:
    """Two swings of the pendulum, the first at 5 % of the second's speed: only the
    strong swing's decelerating side is a candidate (a sway is no momentum, §6.2)."""
    t, v, fps = pendulum()
    scaled = np.where(t < np.pi, 0.05 * v, v)
    speed = np.abs(scaled)
    result = mtp.detect(speed, along_x(scaled), fps, min_peak=0.1)
    assert set(result.order.tolist()) == lobe_window(t, speed, np.pi, 0.6)
    assert result.reason is None and result.best is not None


def test_higher_alpha_moves_the_cut_towards_the_peak() -> None:
    t = np.linspace(0.0, np.pi, 120)
    speed = np.sin(t)
    peak = int(np.argmax(speed))
    cuts = []
    for alpha in (0.5, 0.6, 0.7, 0.8):
        best = mtp.detect(speed, along_x(speed), 60.0, alpha=alpha).best
        assert best is not None
        assert speed[best.frame] >= alpha * speed[peak] > speed[best.frame + 1]
        cuts.append(best.frame)
    assert cuts == sorted(cuts, reverse=True) and len(set(cuts)) == 4
    assert min(cuts) > peak


def test_breakdown_reports_each_condition_with_margins() -> None:
    t = np.linspace(0.0, np.pi, 121)
    speed = np.sin(t)
    result = mtp.detect(speed, along_x(speed), 60.0)
    peak = int(np.argmax(speed))
    at_peak = result.breakdown(peak)
    assert not at_peak["non_extremum"]["passed"] and at_peak["non_extremum"]["margin"] == 0.0
    rising = result.breakdown(10)
    assert not rising["deceleration"]["passed"] and rising["deceleration"]["margin"] < 0
    assert not rising["retention"]["passed"] and rising["retention"]["value"] is None
    late = result.breakdown(115)
    assert not late["retention"]["passed"] and late["retention"]["margin"] < 0
    guarded = mtp.detect(speed, along_x(speed), 60.0, extremum_guard_s=0.1)
    assert result.order.min() == peak + 1 and guarded.order.min() == peak + 6


def test_as_dict_is_json_and_inputs_are_untouched() -> None:
    _, v, fps = pendulum()
    speed, velocity = np.abs(v), along_x(v)
    before = speed.copy(), velocity.copy()
    result = mtp.detect(speed, velocity, fps, next_velocity=X)
    text = json.dumps(result.as_dict(), allow_nan=False)
    assert json.loads(text)["best"]["frame"] == result.best_frame
    np.testing.assert_array_equal(speed, before[0])
    np.testing.assert_array_equal(velocity, before[1])


@pytest.mark.parametrize(
    ("curve", "velocity", "fps", "next_velocity"),
    [
        (np.ones(5), np.ones((4, 3)), 30.0, None),
        (np.ones(2), np.ones((2, 3)), 30.0, None),
        (np.ones(5), np.ones((5, 3)), 0.0, None),
        (np.ones(5), np.ones((5, 3)), 30.0, np.ones(2)),
    ],
)
def test_bad_input_raises(
    curve: np.ndarray, velocity: np.ndarray, fps: float, next_velocity: np.ndarray | None
) -> None:
    with pytest.raises(MotionCoreError):
        mtp.detect(curve, velocity, fps, next_velocity=next_velocity)


def test_frames_after_a_units_valley_are_not_tested_against_the_previous_peak() -> None:
    """Peak 1.0, valley 0.7 (still ≥ α of the first peak), a small bump that slows down
    (0.8 → 0.75, too small to be a unit), then the second peak: the slowing frames in
    the bump are in the second unit, before its peak, so they are no candidates."""
    fps = 30.0
    knots_t = [0, 10, 20, 26, 30, 40, 50]
    knots_v = [0.2, 1.0, 0.7, 0.8, 0.75, 1.0, 0.2]
    curve = np.interp(np.arange(51), knots_t, knots_v)
    result = mtp.detect(curve, along_x(curve), fps, alpha=0.6)
    bump = set(range(27, 30))  # strictly decelerating, not extrema, retention ≥ 0.75
    assert bump.isdisjoint(result.order.tolist())
    assert all(result.peak_frame[f] == -1 for f in range(20, 40))
    # first lobe: 1.0 → 0.7 keeps ≥ α throughout; second: 1 - 0.08k ≥ 0.6 for k ≤ 5
    assert set(result.order.tolist()) == set(range(11, 20)) | set(range(41, 46))
