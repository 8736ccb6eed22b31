"""The Labanotation score format (motioncore.laban.score): what it accepts, what it
refuses (every error names the symbol and its beat), its JSON Schema, and the
importers of Microsoft's two JSON layouts on every file of the corpus."""

from __future__ import annotations

import copy
import glob
import json
from typing import Any

import jsonschema
import pytest

from motioncore.laban import score
from motioncore.laban.importers import microsoft
from support.paths import shared_data_dir

WALK: dict[str, Any] = {
    "format": "kinetograph-score/1",
    "title": "Four steps forward",
    "tempo_bpm": 120,
    "meter": 2,
    "measures": 2,
    "symbols": [
        {
            "column": "support_right",
            "kind": "direction",
            "beat": 0,
            "duration": 1,
            "direction": "forward",
            "level": "middle",
        },
        {"column": "support_right", "kind": "step_size", "beat": 0, "size": 1},
        {
            "column": "support_left",
            "kind": "direction",
            "beat": 1,
            "duration": 1,
            "direction": "forward",
            "level": "middle",
        },
        {
            "column": "arm_left",
            "kind": "direction",
            "beat": 0,
            "duration": 2,
            "direction": "forward",
            "level": "high",
            "part": "hand",
        },
        {
            "column": "body",
            "kind": "turn",
            "beat": 2,
            "duration": 1,
            "turn": "right",
            "amount": 0.25,
        },
        {"column": "support_right", "kind": "hold", "beat": 3, "duration": 1},
        {
            "column": "path",
            "kind": "path",
            "beat": 0,
            "duration": 4,
            "path": "curved",
            "amount_deg": 90,
        },
    ],
}


def test_a_valid_score_loads_sorted_and_round_trips() -> None:
    loaded = score.load(json.dumps(WALK))
    assert loaded.beats == 4.0 and loaded.seconds_per_beat == 0.5
    assert [s.beat for s in loaded.symbols] == sorted(s.beat for s in loaded.symbols)
    assert [s.kind for s in loaded.column("support_right")] == ["direction", "step_size", "hold"]
    again = score.load(score.dump(loaded))
    assert again == loaded
    jsonschema.validate(json.loads(score.dump(loaded)), score.schema())


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"direction": "up"}, "symbol 0 (direction in support_right at beat 0): direction"),
        ({"level": "normal"}, "symbol 0 (direction in support_right at beat 0): level"),
        ({"column": "path"}, "a direction cannot stand in the path column"),
        ({"beat": 3.5, "duration": 1}, "ends on beat 4.5, after the score's 4"),
        ({"part": "elbow"}, "part 'elbow' is not one of foot"),
        ({"beat": -1}, "must not be negative"),
        ({"color": "red"}, "unknown field(s) color"),
    ],
)
def test_errors_name_the_symbol_and_its_beat(change: dict[str, Any], expected: str) -> None:
    data = copy.deepcopy(WALK)
    data["symbols"][0] |= change
    with pytest.raises(score.ScoreError) as raised:
        score.load(data)
    assert any(expected in problem for problem in raised.value.problems), raised.value.problems


def test_overlaps_orphan_step_sizes_and_bad_headers_are_refused() -> None:
    data = copy.deepcopy(WALK)
    data["symbols"].append(
        {
            "column": "support_left",
            "kind": "direction",
            "beat": 1.5,
            "duration": 1,
            "direction": "left",
            "level": "low",
        }
    )
    data["symbols"].append({"column": "support_left", "kind": "step_size", "beat": 3, "size": 2})
    data["tempo_bpm"] = 5
    long = copy.deepcopy(WALK) | {"measures": 10_000, "meter": 16, "tempo_bpm": 20}
    with pytest.raises(score.ScoreError, match="at most 1800 s"):
        score.load(long)
    with pytest.raises(score.ScoreError) as raised:
        score.load(data)
    text = " | ".join(raised.value.problems)
    assert "symbol 7 (direction in support_left at beat 1.5): starts before the direction" in text
    assert "symbol 8 (step_size in support_left at beat 3): no step starts within 0.25" in text
    assert "'tempo_bpm' must be a number from 20 to 400" in text
    with pytest.raises(score.ScoreError, match="not JSON"):
        score.load("{")


def test_the_schema_lists_exactly_the_python_vocabulary() -> None:
    defs = score.schema()["$defs"]["symbol"]["properties"]
    assert defs["column"]["enum"] == list(score.COLUMNS)
    assert defs["kind"]["enum"] == list(score.KINDS)
    assert defs["direction"]["enum"] == list(score.DIRECTIONS)
    assert defs["level"]["enum"] == list(score.LEVELS)
    with pytest.raises(jsonschema.ValidationError):
        bad = copy.deepcopy(WALK)
        bad["symbols"][0]["direction"] = "up"
        jsonschema.validate(bad, score.schema())


def test_microsoft_names_map_onto_the_format() -> None:
    assert microsoft.direction_of("Right Forward") == "right_forward"
    assert microsoft.direction_of(" left backward ") == "left_backward"
    assert microsoft.level_of("Normal") == "middle"
    with pytest.raises(score.ScoreError, match="unknown direction"):
        microsoft.direction_of("Upward")


def _corpus_files() -> list[str]:
    return sorted(glob.glob(str(shared_data_dir() / "laban" / "**" / "*.json"), recursive=True))


def test_every_microsoft_file_of_the_corpus_imports() -> None:
    files = _corpus_files()
    if not files:
        pytest.skip("../shared/data is absent (the corpus lives beside the checkout)")
    for path in files:
        loaded = microsoft.load_file(path)
        assert loaded.symbols, path
        jsonschema.validate(json.loads(score.dump(loaded)), score.schema())


def test_key_poses_become_movements_that_arrive_on_their_time() -> None:
    suite = {
        "wave": {
            "Position0": _pose("1", "Place", "Low"),
            "Position1": _pose("500", "Right", "High"),
            "Position2": _pose("1000", "Right", "High", rotation=["ToLeft", "90"]),
        }
    }
    loaded = microsoft.from_suite(suite)
    wrist = [s for s in loaded.column("arm_right") if s.part == "wrist"]
    assert [(s.kind, s.beat, s.duration, s.direction, s.level) for s in wrist] == [
        ("direction", 0.0, 0.0, "place", "low"),
        ("direction", 0.0, pytest.approx(0.499), "right", "high"),
        ("hold", pytest.approx(0.499), pytest.approx(0.5), None, None),
    ]
    turn = loaded.column("body")[0]
    assert (turn.kind, turn.turn, turn.amount) == ("turn", "left", 0.25)
    assert loaded.tempo_bpm == 60 and loaded.meta["source"] == "LabanotationSuite"


def _pose(ms: str, direction: str, level: str, rotation: list[str] | None = None) -> dict[str, Any]:
    limb = [direction, level]
    return {
        "start time": [ms],
        "duration": ["1"],
        "head": ["Forward", "Normal"],
        "right elbow": limb,
        "right wrist": limb,
        "left elbow": ["Place", "Low"],
        "left wrist": ["Place", "Low"],
        "rotation": rotation or ["ToRight", "0"],
    }
