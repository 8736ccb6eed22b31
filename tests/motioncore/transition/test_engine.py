"""Unity / Unreal settings for known cuts."""

from __future__ import annotations

import pytest

from motioncore.errors import MotionCoreError
from motioncore.transition import engine


def test_a_cut_at_75_percent_gives_the_seed_settings_without_notes() -> None:
    # A: 121 frames at 60 Hz (2 s), cut at frame 90; B: 241 frames, entered at frame 30.
    got = engine.parameters(90, 121, 30, 241, 60.0, 0.12)
    assert got == {
        "unity": {
            "has_exit_time": True,
            "exit_time": 0.75,
            "transition_duration": 0.12,
            "fixed_duration": True,
            "transition_offset": 0.125,
        },
        "unreal": {
            "blend_duration_s": 0.12,
            "automatic_rule_time_remaining_s": 0.5,
            "start_position_s": 0.5,
        },
        "notes": [],
    }


def test_cuts_outside_the_band_are_noted() -> None:
    end = engine.parameters(120, 121, 0, 61, 60.0, 0.25)
    assert end["unity"]["exit_time"] == 1.0
    assert end["unreal"]["automatic_rule_time_remaining_s"] == 0.0
    assert end["unity"]["transition_offset"] == 0.0
    assert len(end["notes"]) == 2
    assert "exit_time 1.000" in end["notes"][0] and "0.6-0.75" in end["notes"][0]
    assert "0.25 s" in end["notes"][1]
    early = engine.parameters(48, 121, 0, 61, 60.0, 0.1)
    assert early["unity"]["exit_time"] == pytest.approx(0.4)
    assert early["unreal"]["automatic_rule_time_remaining_s"] == pytest.approx(1.2)
    assert [n[:13] for n in early["notes"]] == ["exit_time 0.4"]


def test_bad_frames_are_rejected() -> None:
    with pytest.raises(MotionCoreError, match="cut frame 121"):
        engine.parameters(121, 121, 0, 61, 60.0, 0.12)
    with pytest.raises(MotionCoreError, match="entry"):
        engine.parameters(0, 121, 0, 1, 60.0, 0.12)
    with pytest.raises(MotionCoreError, match="fps"):
        engine.parameters(10, 121, 0, 61, 0.0, 0.12)
