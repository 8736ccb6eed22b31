"""Foot-skate cleanup: the stance locked with the foot's roll, the feet above the floor.

Graded by the independent measures (:mod:`motioncore.measures`) and by the scripted
walk's own geometry, never by the contacts the cleanup locked.
"""

from __future__ import annotations

import numpy as np
import pytest

from motioncore import contacts, fk, measures, quat, skeleton
from motioncore.clean import footskate
from motioncore.clip import Clip
from motioncore.contacts import foot_points
from support import synthetic_gait

LEG_AND_TOE = {"LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToe", "RightUpLeg", "RightLeg"}
LEG_AND_TOE |= {"RightFoot", "RightToe"}


def _clean(clip: Clip, *, floor_m: float | None = None) -> tuple[Clip, contacts.Contacts]:
    roles = skeleton.infer(clip.skeleton)
    found = contacts.detect(clip, roles, floor_m=floor_m)
    return footskate.cleanup(clip, found, roles), found


@pytest.mark.parametrize("fps", [30.0, 120.0])
def test_a_skating_walk_is_locked_and_only_legs_and_toes_turn(fps: float) -> None:
    clip = synthetic_gait.walk(fps, duration_s=6.0, skate_mps=0.15).clip
    out, _ = _clean(clip)
    before = measures.measure(clip, floor_m=0.0)
    after = measures.measure(out, floor_m=0.0, feet=before.geometry)
    assert before.slide_median_mps == pytest.approx(0.15, rel=0.1)
    assert after.slide_median_mps is not None and after.slide_median_mps < 0.005
    assert after.slide_p95_mps is not None and after.slide_p95_mps < 0.02
    names = clip.skeleton.names
    changed = {
        names[j]
        for j in range(len(names))
        if not np.allclose(out.rotations[:, j], clip.rotations[:, j])
    }
    assert changed <= LEG_AND_TOE and changed
    np.testing.assert_array_equal(out.translations, clip.translations)


def test_the_heel_holds_until_heel_off_then_the_ball_until_toe_off() -> None:
    walk = synthetic_gait.walk(60.0, duration_s=6.0, skate_mps=0.15)
    out, found = _clean(walk.clip)
    g_rot, g_pos = fk.forward(out.rotations, out.translations, out.skeleton.parents)
    foot = found.get("left")
    assert foot is not None and foot.geometry is not None
    heel = foot_points.point(foot.geometry, "heel", g_rot, g_pos)
    ball = foot_points.point(foot.geometry, "ball", g_rot, g_pos)
    for cycle in (1, 2, 3):
        start = int(cycle * 60)
        # heel strike to 0.35 of the cycle: on the heel; 0.45 to toe off (0.6): on the ball
        on_heel = slice(start + 1, start + 21)
        on_ball = slice(start + 28, start + 35)
        assert np.ptp(heel[on_heel][:, [0, 2]], axis=0).max() < 0.002
        assert np.ptp(ball[on_ball][:, [0, 2]], axis=0).max() < 0.002


def test_no_foot_point_stays_under_a_known_floor() -> None:
    clip = synthetic_gait.walk(60.0, duration_s=4.0, sink_m=0.03).clip
    out, _ = _clean(clip, floor_m=0.0)
    got = measures.measure(out, floor_m=0.0)
    assert got.penetration_worst_m < 0.005
    assert measures.measure(clip, floor_m=0.0).penetration_worst_m > 0.025


def test_a_target_out_of_reach_is_raised_not_dragged() -> None:
    hip = np.array([[0.0, 1.0, 0.0]])
    knee = np.array([[0.0, 0.5, 0.1]])
    ankle = np.array([[0.0, 0.0, 0.0]])
    reach = float(np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))
    far = np.array([[0.0, 1.0 - reach, 0.3]])  # straight below plus 0.3 ahead: too far
    got = footskate.within_reach(far, hip, knee, ankle)
    np.testing.assert_allclose(got[0, [0, 2]], far[0, [0, 2]])
    assert got[0, 1] > far[0, 1]
    np.testing.assert_allclose(np.linalg.norm(got - hip), footskate.REACH_SHARE * reach)
    near = np.array([[0.0, 0.2, 0.1]])
    np.testing.assert_array_equal(footskate.within_reach(near, hip, knee, ankle), near)


def test_a_toe_tip_under_the_floor_turns_the_toe_up() -> None:
    clip = synthetic_gait.walk(60.0, duration_s=2.0).clip
    toe = clip.skeleton.index("LeftToe")
    down = clip.rotations.copy()
    down[:, toe] = quat.mul(
        quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), 0.5), clip.rotations[:, toe]
    )  # toes curled 29° down: the tip goes under the floor
    curled = clip.with_arrays(rotations=down)
    out, _ = _clean(curled, floor_m=0.0)
    tip = clip.skeleton.index("LeftToe_End")
    assert fk.positions(curled)[:, tip, 1].min() < -0.02
    assert fk.positions(out)[:, tip, 1].min() > -1e-6


def test_no_contacts_means_no_change() -> None:
    clip = synthetic_gait.walk(60.0, duration_s=2.0).clip
    found = contacts.detect(clip)
    empty = contacts.Contacts((), found.floor_m, found.leg_m, {}, found.fps)
    out = footskate.cleanup(clip, empty, skeleton.infer(clip.skeleton))
    np.testing.assert_array_equal(out.rotations, clip.rotations)
