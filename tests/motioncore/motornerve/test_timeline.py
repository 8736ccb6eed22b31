"""Intent timelines: keyframed commands, every bad input a TimelineError naming its field."""

from __future__ import annotations

import math

import numpy as np
import pytest

from motioncore.errors import TimelineError
from motioncore.motornerve import intent, timeline

GOOD = {
    "duration_s": 6.0,
    "keys": [
        {"t": 0.0, "action": "idle"},
        {"t": 1.0, "action": "walk", "speed_mps": 1.3, "direction_deg": 0},
        {"t": 3.0, "action": "run", "direction_deg": -90},
        {"t": 5.0, "action": "interact", "strength": 0.5},
    ],
}


def test_a_timeline_holds_each_key_until_the_next() -> None:
    planned = timeline.parse(GOOD)
    commands = timeline.commands(planned)
    assert commands.shape == (361, intent.SIZE)
    described = [intent.describe(commands[f]) for f in (0, 60, 200, 330)]
    assert [d["action"] for d in described] == ["idle", "walk", "run", "interact"]
    assert described[1]["speed_mps"] == pytest.approx(1.3)
    assert described[2]["speed_mps"] == pytest.approx(3.0)  # the run's default
    np.testing.assert_allclose(commands[200, intent.DIRECTION], (-1.0, 0.0), atol=1e-12)
    assert commands[330, intent.STRENGTH] == pytest.approx(0.5)
    assert commands[330, intent.SPEED] == 0.0
    # No facing asked: face where the character moves (zeros in the command).
    assert np.all(commands[60, intent.FACING] == 0.0)


def test_the_duration_defaults_to_two_seconds_after_the_last_key() -> None:
    planned = timeline.parse({"keys": [{"t": 0}, {"t": 4, "action": "idle"}]})
    assert planned.duration_s == pytest.approx(6.0)


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ({"keys": [{"t": 0, "speed_mps": math.nan}]}, "keys[0].speed_mps"),
        ({"keys": [{"t": 0, "speed_mps": 40.0}]}, "keys[0].speed_mps"),
        ({"keys": [{"t": 0, "speed_mps": -1.0}]}, "keys[0].speed_mps"),
        ({"keys": [{"t": 0, "action": "wave"}]}, "keys[0].action"),
        ({"keys": [{"t": 0}, {"t": 2}, {"t": 1}]}, "keys[2].t"),
        ({"keys": [{"t": 0}, {"t": 0}]}, "keys[1].t"),
        ({"keys": [{"t": 1}]}, "keys[0].t"),
        ({"keys": [{"action": "walk"}]}, "keys[0].t"),
        ({"keys": [{"t": 0, "strength": 2}]}, "keys[0].strength"),
        ({"keys": [{"t": 0, "direction_deg": "left"}]}, "keys[0].direction_deg"),
        ({"keys": [{"t": 0, "facing_deg": math.inf}]}, "keys[0].facing_deg"),
        ({"keys": [{"t": 0, "speed": 1.0}]}, "keys[0].speed"),
        ({"keys": [{"t": 0, "speed_mps": True}]}, "keys[0].speed_mps"),
        ({"keys": []}, "keys"),
        ({"keys": "walk"}, "keys"),
        ({"keys": [3]}, "keys[0]"),
        ({"keys": [{"t": 0}], "duration_s": 9999}, "duration_s"),
        ({"keys": [{"t": 0}, {"t": 5}], "duration_s": 4}, "duration_s"),
        ({"keys": [{"t": 0}], "loop": True}, "loop"),
        ([1, 2], "timeline"),
    ],
)
def test_bad_input_names_the_field(document: object, field: str) -> None:
    with pytest.raises(TimelineError) as error:
        timeline.parse(document)
    assert error.value.field == field
    assert str(error.value).startswith(field)
    assert error.value.as_dict() == {"field": field, "message": error.value.message}
