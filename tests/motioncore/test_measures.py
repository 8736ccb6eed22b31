"""The independent motion measures: each catches the defect it names."""

from __future__ import annotations

import numpy as np
import pytest

from motioncore import contacts, measures
from motioncore.contacts import detection
from support import synthetic_gait

RATES = (30.0, 60.0, 120.0)


@pytest.mark.parametrize("fps", RATES)
def test_a_clean_walk_reads_no_slide_no_penetration_and_its_cadence(fps: float) -> None:
    walk = synthetic_gait.walk(fps, duration_s=6.0)
    got = measures.measure(walk.clip, floor_m=0.0)
    assert got.slide_median_mps is not None and got.slide_median_mps < 0.005
    assert got.slide_p95_mps is not None and got.slide_p95_mps < 0.02
    # the script's toes dip 1 mm as they curl at lift-off
    assert got.penetration_worst_m < 0.002 and got.penetration_share == 0.0
    for foot in got.feet:
        assert foot.contact_share == pytest.approx(walk.duty, abs=0.06)
        assert foot.slide_per_step_m is not None and foot.slide_per_step_m < 0.005
    # one step per foot per 1 s cycle: 120 steps a minute
    assert got.cadence_steps_per_min == pytest.approx(120.0, abs=12.0)
    assert got.stance_swing_ratio == pytest.approx(walk.duty / (1 - walk.duty), rel=0.3)


@pytest.mark.parametrize("fps", RATES)
@pytest.mark.parametrize("skate", [0.05, 0.2])
def test_a_skating_foot_reads_its_skate_speed(fps: float, skate: float) -> None:
    walk = synthetic_gait.walk(fps, duration_s=6.0, skate_mps=skate)
    got = measures.measure(walk.clip, floor_m=0.0)
    assert got.slide_median_mps == pytest.approx(skate, rel=0.1)
    for foot in got.feet:
        assert foot.slide_per_step_m is not None
        assert foot.slide_per_step_m > 0.5 * skate * 0.3  # at least half of a 0.3 s plant


def test_a_foot_turning_about_its_ankle_reads_as_sliding() -> None:
    """The ankle stays put while the sole spins on the floor about it (what a foot lock
    that holds only the ankle leaves): the sole points sweep the ground, and the slide
    is the slowest of them (the heel, 4 cm behind the ankle), not the ankle's 0."""
    fps, frames, spin = 60.0, 120, 0.5  # rad/s about +Y
    angle = spin * np.arange(frames) / fps
    local = np.array([[0.0, -0.08, -0.04], [0.0, 0.0, 0.0], [0.0, -0.08, 0.12], [0.0, -0.08, 0.18]])
    c, s_ = np.cos(angle)[:, None], np.sin(angle)[:, None]
    x, z = local[:, 0], local[:, 2]
    points = np.stack(
        [c * x + s_ * z, np.broadcast_to(local[:, 1], (frames, 4)), -s_ * x + c * z], axis=-1
    )
    points[..., 1] += 0.08  # the ankle 8 cm up, the sole on the floor
    slide, kept = measures.foot_slide(points, 1, fps)
    assert kept.sum() > frames // 2
    assert np.median(slide[kept]) == pytest.approx(spin * 0.04, rel=0.05)


def test_a_foot_under_the_floor_reads_its_depth_and_share() -> None:
    walk = synthetic_gait.walk(60.0, duration_s=6.0, sink_m=0.03)
    got = measures.measure(walk.clip, floor_m=0.0)
    assert got.penetration_worst_m == pytest.approx(0.03, abs=0.002)
    # a planted foot is under the floor: each foot ~60 % of the time, so most frames
    assert got.penetration_share > 0.8
    # with the floor estimated from the feet, the same clip sits on its own floor
    own = measures.measure(walk.clip)
    assert own.floor_m == pytest.approx(-0.03, abs=0.003)
    assert own.penetration_share < 0.05


def test_the_measures_do_not_use_the_contact_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("measures called contacts.detect")

    monkeypatch.setattr(contacts, "detect", refuse)
    monkeypatch.setattr(detection, "detect", refuse)  # where the package's detect lives
    walk = synthetic_gait.walk(60.0, duration_s=2.0, skate_mps=0.1)
    assert measures.measure(walk.clip, floor_m=0.0).slide_median_mps is not None


def test_a_window_measures_only_its_frames_and_speeds_are_rate_independent() -> None:
    walk = synthetic_gait.walk(60.0, duration_s=6.0)
    clip = walk.clip
    skating = synthetic_gait.walk(60.0, duration_s=6.0, skate_mps=0.2).clip
    mixed = clip.with_arrays(
        rotations=np.concatenate([clip.rotations[:180], skating.rotations[180:]]),
        translations=np.concatenate([clip.translations[:180], skating.translations[180:]]),
    )
    first = measures.measure(mixed, floor_m=0.0, frames=slice(0, 170))
    assert first.slide_median_mps is not None and first.slide_median_mps < 0.005
    # a point moving at 1 m/s reads 1 m/s at 30 and at 120 Hz
    for fps in (30.0, 120.0):
        t = np.arange(int(fps)) / fps
        line = np.stack([t, np.zeros_like(t), np.zeros_like(t)], axis=-1)[:, None]
        np.testing.assert_allclose(measures.speeds(line, fps), 1.0, rtol=1e-9)


def test_as_dict_is_json_ready() -> None:
    import json

    got = measures.measure(synthetic_gait.walk(30.0, duration_s=2.0).clip)
    data = json.loads(json.dumps(got.as_dict()))
    assert set(data["feet"]) == {"left", "right"}
    assert data["floor_given"] is False
