"""Tests of motioncore.analysis.phases: motion units and four-phase labels (seed 000 §2.3, §6.2).

Analytic curves whose phase boundaries follow from the definitions in the
module docstring (steady: ≥ 0.9 of the peak with |slope| ≤ 0.5 of the unit's
steepest; transition: ≥ alpha of the peak), computed here from the formulas.
"""

from __future__ import annotations

import json
import math
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from motioncore import bvh
from motioncore.analysis import momentum, mtp, phases
from motioncore.errors import MotionCoreError
from support.paths import SAMPLE_DIR

START, STEADY, TRANSITION, ENDING = range(4)
N = 201  # samples of one sine bell; x_i = i / 200
FPS = 100.0


def bell() -> np.ndarray:
    """speed = sin(πx), x in [0, 1]: one unit, peak at frame 100."""
    return np.sin(np.pi * np.linspace(0.0, 1.0, N))


def first_frame_at_or_after(x: float) -> int:
    """First sample index i with i / (N - 1) >= x."""
    return math.ceil(x * (N - 1))


def runs_of(labels: phases.PhaseLabels) -> list[tuple[str, int, int]]:
    return [(r.phase, r.start, r.stop) for r in labels.runs()]


def test_sine_bell_phases_follow_the_definitions_to_the_frame() -> None:
    """steady: sin(πx) ≥ 0.9 (cos(πx) ≤ 0.5 there, so the slope test does not bind);
    transition: sin(πx) ≥ 0.6 after the steady run; ending after."""
    labels = phases.label(bell(), FPS, alpha=0.6)
    x_steady = math.asin(0.9) / math.pi
    assert math.cos(math.pi * x_steady) < 0.5
    steady_from = first_frame_at_or_after(x_steady)  # 72
    steady_to = first_frame_at_or_after(1.0 - x_steady)  # 129
    ending_from = first_frame_at_or_after(1.0 - math.asin(0.6) / math.pi)  # 160
    assert runs_of(labels) == [
        ("start", 0, steady_from),
        ("steady", steady_from, steady_to),
        ("transition", steady_to, ending_from),
        ("ending", ending_from, N),
    ]
    assert (steady_from, steady_to, ending_from) == (72, 129, 160)
    # Seed 000 §2.3 puts the transition at 60-85 % of the action, the ending after.
    assert steady_to / N >= 0.60 and ending_from / N <= 0.85
    assert labels.fractions == pytest.approx(
        {"start": 72 / N, "steady": 57 / N, "transition": 31 / N, "ending": 41 / N}
    )


@pytest.mark.parametrize("alpha", [0.5, 0.6, 0.65, 0.7])
def test_mtp_cut_lies_in_the_transition_phase(alpha: float) -> None:
    speed = bell()
    labels = phases.label(speed, FPS, alpha=alpha)
    best = mtp.detect(speed, np.outer(speed, [1.0, 0.0, 0.0]), FPS, alpha=alpha).best
    assert best is not None
    assert labels.codes[best.frame] == TRANSITION
    ending_from = first_frame_at_or_after(1.0 - math.asin(alpha) / math.pi)
    assert best.frame == ending_from - 1  # the cut is the transition's last frame


def test_two_peaks_split_at_the_valley_and_use_their_own_peak() -> None:
    t = np.linspace(0.0, 2.0 * np.pi, N)  # t[100] = π: the valley
    speed = np.abs(np.sin(t)) * np.where(t < np.pi, 1.0, 0.4)
    units = phases.units(speed, FPS)
    assert [(u.start, u.peak, u.stop) for u in units] == [(0, 50, 100), (100, 150, N)]
    assert units[1].peak_value == pytest.approx(0.4)
    labels = phases.label(speed, FPS)
    # Within each lobe (100 frames for π), ending starts where sin < 0.6.
    lobe_ending = math.ceil(100 * (1.0 - math.asin(0.6) / math.pi))
    for u in units:
        codes = labels.codes[u.start : u.stop]
        assert np.all(np.diff(codes) >= 0) and codes[0] == START
        assert np.flatnonzero(codes == ENDING)[0] == lobe_ending
    assert units[1].as_dict()["start_s"] == pytest.approx(1.0)


def test_constant_acceleration_is_all_start() -> None:
    t = np.arange(60) / 30.0
    labels = phases.label(2.0 * t, 30.0)
    assert runs_of(labels) == [("start", 0, 60)]
    assert [(u.start, u.peak, u.stop) for u in labels.units] == [(0, 59, 60)]


def test_constant_deceleration_from_the_first_frame_has_no_start() -> None:
    speed = 1.0 - np.arange(101) / 100.0  # peak on frame 0, slope constant
    labels = phases.label(speed, FPS, alpha=0.6)
    assert runs_of(labels) == [("transition", 0, 41), ("ending", 41, 101)]  # 1 - i/100 ≥ 0.6


def test_clip_starting_at_a_smooth_peak_is_steady_then_falls() -> None:
    speed = np.cos(np.linspace(0.0, np.pi / 2, 101))  # flat at frame 0
    labels = phases.label(speed, FPS)
    names = [r.phase for r in labels.runs()]
    assert names == ["steady", "transition", "ending"]
    steady_to = labels.runs()[0].stop
    assert steady_to == math.floor(100 * math.acos(0.9) / (np.pi / 2)) + 1  # cos ≥ 0.9


def test_zero_curve_is_all_ending_and_constant_motion_all_steady() -> None:
    assert runs_of(phases.label(np.zeros(10), 30.0)) == [("ending", 0, 10)]
    assert runs_of(phases.label(np.full(10, 1.5), 30.0)) == [("steady", 0, 10)]
    quiet = phases.label(np.full(10, 0.05), 30.0, min_peak=0.1)
    assert runs_of(quiet) == [("ending", 0, 10)]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0.0, 10.0, allow_nan=False), min_size=3, max_size=80),
    st.floats(0.3, 0.9),
)
def test_every_frame_is_labelled_and_monotone_within_units(
    values: list[float], alpha: float
) -> None:
    curve = np.array(values)
    labels = phases.label(curve, 30.0, alpha=alpha)
    assert labels.codes.shape == curve.shape and labels.codes.dtype == np.int8
    assert set(np.unique(labels.codes)) <= {0, 1, 2, 3}
    edges = [(u.start, u.stop) for u in labels.units]
    assert edges[0][0] == 0 and edges[-1][1] == curve.size
    assert all(a[1] == b[0] for a, b in pairwise(edges))
    for u in labels.units:
        assert u.start <= u.peak < u.stop
        assert np.all(np.diff(labels.codes[u.start : u.stop]) >= 0)
    runs = labels.runs()
    assert runs[0].start == 0 and runs[-1].stop == curve.size
    assert all(a.stop == b.start for a, b in pairwise(runs))
    assert sum(labels.fractions.values()) == pytest.approx(1.0)


def test_units_agree_with_mtp_peaks() -> None:
    rng = np.random.default_rng(3)
    curve = np.abs(np.sin(np.linspace(0, 9 * np.pi, 500))) + 0.05 * rng.random(500)
    units = phases.units(curve, 60.0, prominence_ratio=0.2)
    assert [u.peak for u in units] == mtp.peaks(curve, 0.2).tolist()


def test_as_dict_is_json_and_the_input_is_untouched() -> None:
    speed = bell()
    before = speed.copy()
    data = json.loads(json.dumps(phases.label(speed, FPS).as_dict(), allow_nan=False))
    np.testing.assert_array_equal(speed, before)
    assert data["phases"] == list(phases.PHASES)
    assert data["runs"][1] == {
        "phase": "steady",
        "start_frame": 72,
        "stop_frame": 129,
        "start_s": 0.72,
        "stop_s": 1.29,
    }
    assert data["units"][0]["peak_frame"] == 100 and data["units"][0]["peak_s"] == 1.0


@pytest.mark.parametrize(
    ("curve", "fps", "kwargs"),
    [
        (np.ones(2), 30.0, {}),
        (np.ones((4, 2)), 30.0, {}),
        (np.ones(5), 0.0, {}),
        (np.array([1.0, -0.1, 1.0]), 30.0, {}),
        (np.array([1.0, np.nan, 1.0]), 30.0, {}),
        (np.ones(5), 30.0, {"alpha": 0.95}),  # above steady_ratio 0.9
        (np.ones(5), 30.0, {"alpha": 0.0}),
    ],
)
def test_bad_input_raises(curve: np.ndarray, fps: float, kwargs: dict[str, float]) -> None:
    with pytest.raises(MotionCoreError):
        phases.label(curve, fps, **kwargs)


def test_start_walk_stop_sample_has_units_and_all_four_phases() -> None:
    """CMU 131_02 (start, walk, stop): the COM speed rises from rest, pulses with
    every step and falls back to rest, so every phase appears."""
    clip = bvh.load(SAMPLE_DIR / "cmu-bvh11" / "131_02.bvh")
    labels = phases.label(momentum.measure(clip).speed, clip.fps)
    assert len(labels.units) >= 10
    assert {r.phase for r in labels.runs()} == set(phases.PHASES)


def test_walk_units_are_steps() -> None:
    """GAMES-105 walk60: one unit per step (half a 1.2 s gait cycle); the COM speed
    of a steady walk never falls below alpha of its step peak, so there is no ending."""
    clip = bvh.load(SAMPLE_DIR / "games105" / "walk60.bvh")
    labels = phases.label(momentum.measure(clip).speed, clip.fps)
    peaks = np.array([u.peak for u in labels.units])
    assert len(peaks) == 5
    np.testing.assert_allclose(np.diff(peaks) / clip.fps, 0.6, atol=0.05)
    assert labels.fractions["ending"] == 0.0
    assert {"start", "steady", "transition"} <= {r.phase for r in labels.runs()}
