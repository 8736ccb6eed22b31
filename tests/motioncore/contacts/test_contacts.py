"""Foot contacts: a scripted walk known to the frame, thresholds that scale, hysteresis.

The corpus check (every steady walk and run of the corpus has a plausible duty
factor, left and right alternate) is in ``test_contacts_corpus.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from motioncore import bvh, contacts, quat
from motioncore.clip import Clip, Skeleton
from support import synthetic_gait
from support.paths import SAMPLE_DIR

RATES = (30.0, 60.0, 120.0)


def _edges(mask: np.ndarray) -> list[tuple[int, int]]:
    return contacts.segments(mask)


def _tolerance(fps: float) -> int:
    """One frame, or 1/60 s where frames are shorter."""
    return max(1, round(fps / 60.0))


@pytest.mark.parametrize("fps", RATES)
def test_a_scripted_walk_is_found_to_the_frame_at_30_60_and_120_hz(fps: float) -> None:
    walk = synthetic_gait.walk(fps)
    found = contacts.detect(walk.clip)
    assert [f.side for f in found.feet] == ["left", "right"]
    for foot in found.feet:
        truth, got = _edges(walk.contact[foot.side]), _edges(foot.contact)
        assert len(got) == len(truth), (truth, got)
        for (ta, tb), (ga, gb) in zip(truth, got, strict=True):
            assert abs(ga - ta) <= _tolerance(fps) or ta == 0, (ta, ga)
            assert abs(gb - tb) <= _tolerance(fps), (tb, gb)
    np.testing.assert_allclose(found.floor_m, 0.0, atol=0.002)
    np.testing.assert_allclose(found.leg_m, 2 * synthetic_gait.BONE_M, atol=1e-6)


@pytest.mark.parametrize("fps", RATES)
def test_step_events_match_the_script(fps: float) -> None:
    """Heel strike at 0, foot flat at 0.1, heel off at 0.4, toe off at 0.6 of each cycle.

    Heel off is read once the heel is 1 cm up (the touch band), which the script's
    smoothstep rise reaches 0.04-0.07 s after it starts.
    """
    walk = synthetic_gait.walk(fps)
    end = walk.clip.num_frames
    steps = [s for s in contacts.detect(walk.clip).steps() if s.start > 0 and s.stop < end]
    assert len(steps) >= 5
    frame = 1.0 / fps
    for step in steps:
        strike = step.start / fps
        cycle_start = round(strike) if step.side == "left" else round(strike - 0.5) + 0.5
        assert step.first_point == "heel"
        assert step.heel_strike_s is not None and step.foot_flat_s is not None
        assert step.heel_off_s is not None
        assert abs(step.heel_strike_s - cycle_start) <= max(frame, 1 / 60) + 1e-9
        assert abs(step.foot_flat_s - (cycle_start + 0.1)) <= 0.02 + frame
        assert 0.0 <= step.heel_off_s - (cycle_start + 0.4) <= 0.08 + frame
        assert abs(step.toe_off_s - (cycle_start + 0.6)) <= max(frame, 1 / 60) + 1e-9


@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_thresholds_scale_with_the_leg(scale: float) -> None:
    """A child and a giant walking the same way touch down on the same frames."""
    walk = synthetic_gait.walk(60.0)
    big = walk.clip.with_arrays(translations=walk.clip.translations * scale)
    same, scaled = contacts.detect(walk.clip), contacts.detect(big)
    np.testing.assert_allclose(scaled.leg_m, same.leg_m * scale, rtol=1e-9)
    for a, b in zip(same.feet, scaled.feet, strict=True):
        np.testing.assert_array_equal(a.contact, b.contact)


def test_uneven_ground_keeps_each_footprint_and_the_floor_is_the_lower_one() -> None:
    walk = synthetic_gait.walk(60.0, raised_m=0.06)
    found = contacts.detect(walk.clip)
    np.testing.assert_allclose(found.floor_m, 0.0, atol=0.002)
    for foot in found.feet:
        truth, got = _edges(walk.contact[foot.side]), _edges(foot.contact)
        assert len(got) == len(truth)
        for (ta, tb), (ga, gb) in zip(truth, got, strict=True):
            assert abs(gb - tb) <= 1 and (ta == 0 or abs(ga - ta) <= 1)


def test_the_seed_speed_rule_misses_most_of_a_real_stance() -> None:
    """Why 0.08 m/s is not the default: GAMES-105's walk reads a fraction of its stance."""
    clip = bvh.load(SAMPLE_DIR / "games105" / "walk60.bvh")
    default = contacts.detect(clip)
    seed = contacts.detect(clip, speed_threshold_mps=0.08)
    for ours, theirs in zip(default.feet, seed.feet, strict=True):
        assert 0.45 <= ours.contact.mean() <= 0.72
        assert theirs.contact.mean() < 0.6 * ours.contact.mean()


# --- the parts -------------------------------------------------------------------------


def test_hysteresis_turns_on_at_enter_and_off_when_stay_ends() -> None:
    enter = np.array([0, 0, 1, 0, 0, 0, 0, 1, 0], dtype=bool)
    stay = np.array([1, 1, 1, 1, 0, 1, 1, 1, 1], dtype=bool)
    got = contacts.hysteresis(enter, stay)
    np.testing.assert_array_equal(got, [0, 0, 1, 1, 0, 0, 0, 1, 1])


def test_gaps_are_filled_before_short_contacts_are_dropped() -> None:
    mask = np.array([1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0], dtype=bool)
    np.testing.assert_array_equal(contacts.fill_gaps(mask, 2), [1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0])
    np.testing.assert_array_equal(
        contacts.drop_short(mask, 2), [1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    )


@given(st.lists(st.booleans(), max_size=60), st.integers(1, 6))
def test_filling_only_adds_dropping_only_removes_and_segments_round_trip(
    bits: list[bool], frames: int
) -> None:
    mask = np.array(bits, dtype=bool)
    filled, dropped = contacts.fill_gaps(mask, frames), contacts.drop_short(mask, frames)
    assert np.all(filled >= mask) and np.all(dropped <= mask)
    rebuilt = np.zeros(mask.shape, dtype=bool)
    for start, stop in contacts.segments(mask):
        assert stop > start
        rebuilt[start:stop] = True
    np.testing.assert_array_equal(rebuilt, mask)


def test_a_foot_held_still_in_the_air_and_a_fast_low_foot_are_not_in_contact() -> None:
    walk = synthetic_gait.walk(60.0)
    clip = walk.clip
    frames = clip.num_frames
    translations = clip.translations.copy()
    hold = slice(frames // 2, frames)
    left_foot = clip.skeleton.index("LeftFoot")
    # the left foot: held 25 cm up for the second half (the ankle is a child of the
    # knee, so lift the whole left leg's chain root: the upper leg's translation)
    translations[hold, clip.skeleton.index("LeftUpLeg"), 1] += 0.25
    lifted = contacts.detect(clip.with_arrays(translations=translations)).get("left")
    assert lifted is not None and lifted.foot == left_foot
    assert not lifted.contact[frames // 2 + 30 :].any()
    # the right foot: skimming the floor at 3 m/s is no contact
    skim = _skimming_clip(60.0, 3.0)
    right = contacts.detect(skim).get("right")
    assert right is not None and not right.contact[10:-10].any()


def _skimming_clip(fps: float, speed: float) -> Clip:
    """The scripted walk with the right foot gliding 5 mm above the floor at ``speed``."""
    walk = synthetic_gait.walk(fps, duration_s=2.0)
    clip = walk.clip
    from motioncore import fk

    g_rot, g_pos = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    t = np.arange(clip.num_frames) / fps
    foot = clip.skeleton.index("RightFoot")
    knee = clip.skeleton.index("RightLeg")
    target = np.stack([np.full_like(t, -0.1), np.full_like(t, 0.075), speed * t], axis=-1)
    translations = clip.translations.copy()
    rotations = clip.rotations.copy()
    # foot and toes flat, the ankle placed directly (its local translation from the knee)
    rotations[:, foot] = quat.conjugate(g_rot[:, knee])
    rotations[:, foot + 1] = quat.identity((clip.num_frames,))
    translations[:, foot] = quat.rotate(quat.conjugate(g_rot[:, knee]), target - g_pos[:, knee])
    return clip.with_arrays(rotations=rotations, translations=translations)


def test_a_rig_without_feet_has_no_contacts() -> None:
    skeleton = Skeleton(
        names=("Root", "Child"),
        parents=np.array([-1, 0]),
        offsets=np.zeros((2, 3)),
        channels=(("Xposition", "Yposition", "Zposition"), ()),
        kinds=("ROOT", "End Site"),
    )
    clip = Clip(skeleton, quat.identity((10, 2)), np.zeros((10, 2, 3)), 30.0)
    found = contacts.detect(clip)
    assert found.feet == () and found.steps() == []
    assert np.isnan(found.floor_m)


def test_inputs_are_not_modified() -> None:
    walk = synthetic_gait.walk(30.0, duration_s=1.0)
    before = walk.clip.rotations.copy(), walk.clip.translations.copy()
    contacts.detect(walk.clip)
    np.testing.assert_array_equal(walk.clip.rotations, before[0])
    np.testing.assert_array_equal(walk.clip.translations, before[1])
