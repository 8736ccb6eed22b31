"""The blend's length and kind follow the mismatch at the join, within the user's bounds
(:mod:`motioncore.transition.blend_choice`)."""

from __future__ import annotations

import pytest

from motioncore.errors import MotionCoreError
from motioncore.transition import blend_choice as bc

BOUNDS = bc.BlendBounds(0.1, 0.5)


def chosen(**overrides: object) -> bc.BlendChoice:
    args: dict[str, object] = {
        "pose_m": 0.05,
        "velocity_jump_m_per_s": 0.1,
        "angle_deg": 10.0,
        "frames_after_cut": 200,
        "fps": 60.0,
        "bounds": BOUNDS,
    }
    return bc.choose(**{**args, **overrides})  # type: ignore[arg-type]


def test_a_continuous_join_gets_the_seed_s_short_blend() -> None:
    small = chosen()
    assert small.blend_s == pytest.approx(bc.BASE_S)
    assert small.method == "inertialize" and small.automatic_length and small.automatic_method


def test_the_length_grows_with_the_pose_and_velocity_jumps() -> None:
    pose = chosen(pose_m=0.3)
    assert pose.blend_s == pytest.approx(1.5 * 0.3 / bc.POSE_SPEED_M_PER_S)
    assert "pose jump 0.300 m" in pose.reason
    velocity = chosen(velocity_jump_m_per_s=1.0)
    assert velocity.blend_s == pytest.approx(1.5 * 1.0 / bc.ACCELERATION_M_PER_S2)
    assert velocity.method == "crossfade" and "velocity jump 1.00 m/s" in velocity.reason


def test_a_reversal_gets_a_longer_blend_and_bounds_clamp_it() -> None:
    slow_reversal = chosen(angle_deg=170.0, velocity_jump_m_per_s=0.3)
    assert (
        slow_reversal.blend_s == pytest.approx(bc.REVERSAL_S) and "reversal" in slow_reversal.reason
    )
    capped = chosen(velocity_jump_m_per_s=3.0, bounds=bc.BlendBounds(0.1, 0.3))
    assert capped.blend_s == pytest.approx(0.3) and "longest allowed is 0.3 s" in capped.reason
    floored = chosen(bounds=bc.BlendBounds(0.2, 0.5))
    assert floored.blend_s == pytest.approx(0.2) and "shortest allowed" in floored.reason


def test_a_crossfade_is_not_chosen_where_a_ends_within_the_blend() -> None:
    near_end = chosen(velocity_jump_m_per_s=1.0, frames_after_cut=3)
    assert near_end.method == "inertialize" and "A ends 3 frames after the cut" in near_end.reason


def test_the_user_s_length_and_kind_are_kept() -> None:
    given = chosen(velocity_jump_m_per_s=2.0, method="crossfade", blend_s=0.05)
    assert (given.method, given.blend_s) == ("crossfade", 0.05)
    assert not given.automatic_length and not given.automatic_method
    with pytest.raises(MotionCoreError, match="blend bounds"):
        bc.BlendBounds(0.5, 0.1)
