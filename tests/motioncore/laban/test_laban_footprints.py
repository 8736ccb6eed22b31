"""Supports → footprints (motioncore.laban.footprints) on the test scores written in the
format (tests/data/scores/): step lengths by direction and level within stated ranges,
turn angles exact, holds, curved paths and running flights."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from motioncore.laban import footprints as fp
from motioncore.laban import score, steps
from motioncore.laban.prints import Footprint, Footprints
from support.paths import SAMPLE_DIR

SCORES = SAMPLE_DIR / "scores"
LEG_M = 0.84  # the canonical skeleton's legs


def _prints(name: str) -> Footprints:
    return fp.footprints(score.load(SCORES / f"{name}.json"), LEG_M)


def _steps(result: Footprints) -> list[Footprint]:
    """The prints that steps made (not the starting stance), in landing order."""
    return [p for p in result.prints if p.kind != "start"]


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
    lengths = np.array([p.step_m for p in _steps(_prints(name))])
    assert len(lengths) == 8
    if name == "run":  # the first step starts from standing: no flight before it
        assert lengths[0] == pytest.approx(steps.step_length_m("forward", "middle", LEG_M))
        lengths = lengths[1:]
    assert np.all((lengths > low) & (lengths < high)), lengths


def test_consecutive_footprints_are_a_step_length_apart() -> None:
    prints = _steps(_prints("walk_forward"))
    for before, after in itertools.pairwise(prints):
        along = after.position[1] - before.position[1]  # forward is +z here
        assert along == pytest.approx(after.step_m)
        assert abs(after.position[0] - before.position[0]) == pytest.approx(
            fp.HIP_WIDTH_LEGS * LEG_M
        )


def test_side_steps_close_and_levels_change_the_length() -> None:
    side = _steps(_prints("walk_sideways"))
    assert [p.kind for p in side[:2]] == ["step", "close"]
    assert side[0].step_m == pytest.approx(steps.step_length_m("left", "middle", LEG_M))
    assert side[1].position[0] == pytest.approx(side[0].position[0] - fp.HIP_WIDTH_LEGS * LEG_M)
    # Four side steps to the left (+x), each closed: the feet end 4 steps to the left.
    assert side[-1].position[0] == pytest.approx(4 * side[0].step_m - fp.HIP_WIDTH_LEGS * LEG_M / 2)
    levels = [p.step_m for p in _steps(_prints("levels"))]
    assert levels[0] > levels[2] > levels[4]  # low > middle > high
    forward = steps.step_length_m("forward", "middle", LEG_M)
    assert forward > steps.step_length_m("right", "middle", LEG_M)


@pytest.mark.parametrize(("name", "turn_deg"), [("quarter_turn", -90.0), ("half_turn", 180.0)])
def test_pivots_turn_exactly(name: str, turn_deg: float) -> None:
    result = _prints(name)
    assert math.degrees(result.facing[-1]) == pytest.approx(turn_deg, abs=1e-9)
    last, before = _steps(result)[-1], _steps(result)[-2]
    assert math.degrees(last.heading) == pytest.approx(turn_deg, abs=1e-9)
    # The steps after the turn go the new way: forward is now along the new facing.
    facing = np.array([math.sin(result.facing[-1]), math.cos(result.facing[-1])])
    move = np.array(last.position) - np.array(before.position)
    assert np.dot(move, facing) == pytest.approx(last.step_m)


def test_a_hold_keeps_the_feet_and_a_curved_path_bends_the_walk() -> None:
    held = _prints("hold")
    second = _steps(held)[1]
    # Down from CONTACT_SHARE into its step (a beat, 0.5 s) through the 2-beat hold to
    # the next step of that foot.
    assert second.end_s - second.start_s == pytest.approx(1.5 + (1 - fp.CONTACT_SHARE) * 0.5)
    curved = _prints("curved_path")
    assert math.degrees(curved.facing[-1]) == pytest.approx(-90.0, abs=1e-9)
    assert _steps(curved)[-1].position[0] < -2.0  # it bent to the right (-x)


def test_feet_stay_on_their_own_side_and_land_in_time() -> None:
    result = _prints("walk_forward")
    for p in result.prints:
        assert (p.position[0] > 0) == (p.side == "left")
    starts = [p.start_s for p in _steps(result)]
    # The first step (beat 0, 0.5 s long) lands CONTACT_SHARE into the transfer of weight.
    assert starts == sorted(starts) and starts[0] == pytest.approx(fp.CONTACT_SHARE * 0.5)
    run = _steps(_prints("run"))
    assert {p.kind for p in run[1:]} == {"leap"}  # a run is a series of leaps
    assert all(p.end_s - p.start_s == pytest.approx(0.25) for p in run[1:-1])  # 1/2 beat down


def test_the_five_basic_jump_forms_land_as_written() -> None:
    result = _prints("jump_forms")
    landed = [(p.side, p.kind) for p in _steps(result) if p.kind not in ("step", "close")]
    assert landed == [
        ("right", "hop"),  # right → right
        ("left", "leap"),  # right → left
        ("left", "assemble"),  # left → both, the feet together
        ("right", "assemble"),
        ("left", "jump"),  # both → both, travelling together
        ("right", "jump"),
        ("right", "sissonne"),  # both → right
    ]
    assemble = [p for p in result.prints if p.kind == "assemble"]
    assert assemble[0].position[1] == pytest.approx(assemble[1].position[1])  # side by side
    jump = [p for p in result.prints if p.kind == "jump"]
    assert jump[0].start_s == jump[1].start_s and jump[0].step_m > 1.0  # flights carry


def test_a_support_in_place_on_one_foot_alone_releases_the_other() -> None:
    # jump_forms: the hop's support, place on the right foot alone (beat 0, 1 beat)
    start = {p.side: p for p in _prints("jump_forms").prints if p.kind == "start"}
    assert start["left"].released and start["left"].end_s == pytest.approx(fp.WEIGHT_SHIFT_S)
    assert not start["right"].released  # the right foot takes off for the hop itself
    # Both feet in place together change level: nothing is released.
    assert not any(p.released for p in _prints("in_place_levels").prints)
    # A gesture of the other leg right after the support lifts that foot instead, as the
    # gesture starts (beat 1 of leg_gestures, 100 bpm).
    left = _prints("leg_gestures").of("left")[0]
    assert not left.released and left.end_s == pytest.approx(0.6)


def test_a_step_size_sign_modifies_the_nearest_step_of_its_column() -> None:
    data = json.loads((SCORES / "walk_forward.json").read_text())
    first = data["symbols"][0]  # the first step
    # A "long" sign written an eighth of a beat late still measures that step (§5).
    sign = {"column": first["column"], "kind": "step_size", "beat": first["beat"] + 0.125}
    data["symbols"].append(sign | {"size": 2})
    longer = _steps(fp.footprints(score.load(data), LEG_M))[0]
    plain = _steps(_prints("walk_forward"))[0]
    assert longer.step_m == pytest.approx(plain.step_m * (1 + 2 * steps.SIZE_SCALE))
