"""Supports → footprints (motioncore.laban.footprints) on the test scores written in the
format (tests/data/scores/): step lengths by direction and level within stated ranges,
turn angles exact, holds, curved paths and running flights."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import SAMPLE_DIR
from motioncore.laban import footprints as fp
from motioncore.laban import score

SCORES = SAMPLE_DIR / "scores"
LEG_M = 0.84  # the canonical skeleton's legs


def _prints(name: str) -> fp.Footprints:
    return fp.footprints(score.load(SCORES / f"{name}.json"), LEG_M)


def _steps(result: fp.Footprints) -> list[fp.Footprint]:
    return [p for p in result.prints if p.kind != "start"]


def _advance(result: fp.Footprints) -> np.ndarray:
    """How far the body's centre moves at each support change, metres."""
    return np.linalg.norm(np.diff(result.centre, axis=0), axis=1)


def test_every_score_file_is_valid() -> None:
    files = sorted(SCORES.glob("*.json"))
    assert len(files) >= 10
    for path in files:
        assert score.load(path).symbols, path


@pytest.mark.parametrize(
    ("name", "low", "high"),
    [
        ("walk_forward", 0.60, 0.80),  # an ordinary walking step
        ("walk_backward", 0.40, 0.60),  # backward shorter than forward
        ("walk_diagonal", 0.45, 0.65),
        ("run", 1.00, 1.60),  # flights carry the body further
    ],
)
def test_step_lengths_depend_on_direction_and_flight(name: str, low: float, high: float) -> None:
    moved = _advance(_prints(name))
    moved = moved[moved > 0]
    assert len(moved) == 8
    if name == "run":  # the first step starts from standing: no flight before it
        assert moved[0] == pytest.approx(fp.step_length_m("forward", "middle", LEG_M))
        moved = moved[1:]
    assert np.all((moved > low) & (moved < high)), moved


def test_side_steps_close_and_levels_change_the_length() -> None:
    side = _prints("walk_sideways")
    moved = _advance(side)
    assert np.allclose(moved[::2], fp.step_length_m("left", "middle", LEG_M))
    assert np.allclose(moved[1::2], 0.0)  # closing in place
    assert side.centre[-1][0] == pytest.approx(4 * 0.55 * 0.85 * LEG_M)  # to the left: +x
    levels = _advance(_prints("levels"))
    assert levels[0] > levels[2] > levels[4]  # low > middle > high
    assert fp.step_length_m("forward", "middle", LEG_M) > fp.step_length_m("right", "middle", LEG_M)


@pytest.mark.parametrize(("name", "turn_deg"), [("quarter_turn", -90.0), ("half_turn", 180.0)])
def test_pivots_turn_exactly(name: str, turn_deg: float) -> None:
    result = _prints(name)
    assert math.degrees(result.facing[-1]) == pytest.approx(turn_deg, abs=1e-9)
    after = _steps(result)[-1]
    assert math.degrees(after.heading) == pytest.approx(turn_deg, abs=1e-9)
    # The steps after the turn go the new way: forward is now along the new facing.
    last_move = result.centre[-1] - result.centre[-2]
    facing = np.array([math.sin(result.facing[-1]), math.cos(result.facing[-1])])
    assert np.dot(last_move, facing) == pytest.approx(np.linalg.norm(last_move))


def test_a_hold_keeps_the_feet_and_a_curved_path_bends_the_walk() -> None:
    held = _prints("hold")
    moved = _advance(held)
    assert moved[2] == 0.0 and moved[3] > 0.5  # the hold, then the next step
    curved = _prints("curved_path")
    assert math.degrees(curved.facing[-1]) == pytest.approx(-90.0, abs=1e-9)
    assert curved.centre[-1][0] < -3.0  # it bent to the right (-x)


def test_feet_stay_on_their_own_side_and_times_follow_the_score() -> None:
    result = _prints("walk_forward")
    for p in result.prints:
        left_of_centre = p.position[0] > 0
        assert left_of_centre == (p.side == "left")
        assert abs(abs(p.position[0]) - fp.HIP_WIDTH_LEGS * LEG_M / 2) < 1e-9
    starts = [p.start_s for p in _steps(result)]
    assert starts == sorted(starts) and starts[0] == pytest.approx(0.5)  # arrives on beat 1
