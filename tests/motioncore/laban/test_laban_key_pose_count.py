"""Every key pose of every Microsoft Labanotation file of the corpus survives the import.

For each gestureBotDesignKit and LabanotationSuite file under ``../shared/data/laban``
(found by walking the folders), the raw key poses are read here with a few lines of
JSON reading, independent of :mod:`motioncore.laban.importers.microsoft`, and the
imported score must hold each of them, per body part, in order: a direction symbol
(or a hold, when the pose repeats the one before) that arrives on the pose's time.

What the raw formats say (Microsoft's own readers are the reference):

* gestureBot: a list of entries ``{"time": s, "<part>": {"dur": s, "dir", "lvl"}}``;
  a part's movement starts on ``time`` and lasts ``dur``, so its key pose is reached
  on ``time + dur`` (gestureBotDesignKit ``jointLaban.convertToKeyFrames``). Every
  entry's motion part is one key pose; entries without one (``text``/``midi``/
  ``audio`` only, or an end-time marker) hold none.
* LabanotationSuite: ``{"<name>": {"PositionN": {"start time": ["ms"], "head": [dir,
  lvl], ...}}}``; each position is one key pose of the five parts on its start time.
  A position without a start time is counted and kept in its place after the one
  before, but its time is not checked (the file does not give it).

Times are compared in beats from the score's first key pose (60 beats per minute:
one beat is one second). Two small hand-made files pin the rules for key poses that
arrive together (merged; for one part, the later stands) and for untimed positions.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from motioncore.laban.importers import microsoft
from motioncore.laban.score import Score
from support.paths import SHARED_DATA_ABSENT, shared_data_dir

FOLDERS = ("gesturebot-design-kit", "labanotation-suite")
BOT_LANES = {
    "head": ("head", None),
    "relbow": ("arm_right", "elbow"),
    "rwrist": ("arm_right", "wrist"),
    "lelbow": ("arm_left", "elbow"),
    "lwrist": ("arm_left", "wrist"),
}
SUITE_LANES = {
    "head": ("head", None),
    "right elbow": ("arm_right", "elbow"),
    "right wrist": ("arm_right", "wrist"),
    "left elbow": ("arm_left", "elbow"),
    "left wrist": ("arm_left", "wrist"),
}
LEVELS = {"low": "low", "normal": "middle", "high": "high"}

Lane = tuple[str, str | None]
RawPose = tuple[float | None, str, str]
"""(time in seconds, or None where the file gives none; direction; level)."""


def _corpus_files() -> list[Path]:
    """Every ``.json`` file under the two Microsoft folders, walked, sorted."""
    root = shared_data_dir() / "laban"
    found = []
    for folder in FOLDERS:
        for directory, _, names in os.walk(root / folder):
            found += [Path(directory) / n for n in names if n.endswith(".json")]
    return sorted(found)


def _params() -> list[Any]:
    files = _corpus_files()
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SHARED_DATA_ABSENT))]
    root = shared_data_dir() / "laban"
    return [pytest.param(path, id=str(path.relative_to(root))) for path in files]


def _direction(name: str) -> str:
    return "_".join(name.lower().split())


def _raw_gesturebot(entries: list[dict[str, Any]]) -> dict[Lane, list[RawPose]]:
    """Lane → its key poses in file order, each reached on ``time + dur``."""
    lanes: dict[Lane, list[RawPose]] = {}
    for entry in entries:
        for part, lane in BOT_LANES.items():
            if part in entry:
                pose = entry[part]
                arrival = float(entry["time"]) + float(pose["dur"])
                lanes.setdefault(lane, []).append(
                    (arrival, _direction(pose["dir"]), LEVELS[pose["lvl"].lower()])
                )
    return lanes


def _raw_suite(document: dict[str, Any]) -> dict[Lane, list[RawPose]]:
    """Lane → its key poses in position order (``Position0``, ``Position1``, …)."""
    ((_, positions),) = document.items()
    labels = sorted(positions, key=lambda label: int("".join(c for c in label if c.isdigit())))
    lanes: dict[Lane, list[RawPose]] = {}
    for label in labels:
        body = positions[label]
        time_s = float(body["start time"][0]) / 1000.0 if "start time" in body else None
        for part, lane in SUITE_LANES.items():
            direction, level = body[part]
            lanes.setdefault(lane, []).append(
                (time_s, _direction(direction), LEVELS[level.lower()])
            )
    return lanes


def _in_time_order(poses: list[RawPose]) -> list[RawPose]:
    """Stable sort by time; a pose without one stays right after the pose before it."""
    keyed, last = [], float("-inf")
    for index, pose in enumerate(poses):
        last = pose[0] if pose[0] is not None else last
        keyed.append(((last, index), pose))
    return [pose for _, pose in sorted(keyed)]


def _imported(score: Score) -> dict[Lane, list[tuple[float, str, str]]]:
    """Lane → (arrival beat, direction, level) of each direction or hold, by arrival."""
    lanes: dict[Lane, list[tuple[float, str, str]]] = {}
    current: dict[Lane, tuple[str, str]] = {}
    movements = [s for s in score.symbols if s.kind in ("direction", "hold")]
    for s in sorted(movements, key=lambda s: s.end):
        lane = (s.column, s.part)
        if s.kind == "direction":
            current[lane] = (str(s.direction), str(s.level))
        assert lane in current, f"a hold with no pose before it in {lane} at beat {s.beat}"
        lanes.setdefault(lane, []).append((s.end, *current[lane]))
    return lanes


@pytest.mark.parametrize("path", _params())
def test_every_raw_key_pose_is_in_the_imported_score(path: Path, shared_data: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8-sig"))
    raw = _raw_gesturebot(document) if isinstance(document, list) else _raw_suite(document)
    timed = [pose[0] for poses in raw.values() for pose in poses if pose[0] is not None]
    origin = min(timed)
    imported = _imported(microsoft.load_file(path))

    assert sorted(imported) == sorted(raw), "body parts"
    for lane, poses in raw.items():
        expected = _in_time_order(poses)
        got = imported[lane]
        assert len(got) == len(expected), f"{lane}: {len(got)} of {len(expected)} key poses"
        for (time_s, direction, level), (beat, got_direction, got_level) in zip(
            expected, got, strict=True
        ):
            assert (got_direction, got_level) == (direction, level), f"{lane} at {time_s}"
            if time_s is not None:
                assert beat == pytest.approx(time_s - origin, abs=1e-6), f"{lane} {direction}"


def _bot(time_s: float, dur: float, **parts: tuple[str, str]) -> dict[str, Any]:
    return {"time": time_s} | {p: {"dur": dur, "dir": d, "lvl": lv} for p, (d, lv) in parts.items()}


def test_gesturebot_poses_arrive_on_time_plus_dur_and_simultaneous_ones_merge() -> None:
    frames = [
        _bot(0.0, 0.0, head=("Forward", "Normal"), rwrist=("Place", "Low")),
        _bot(0.0, 1.0, rwrist=("Right", "High")),  # shares time 0 with the first
        _bot(0.5, 0.5, head=("Left", "Low")),  # arrives with the one before: merged
        _bot(1.0, 0.0, head=("Right", "Low")),  # same part, same time: the later stands
        {"time": 3.0},  # an end mark
    ]
    loaded = _imported(microsoft.from_gesturebot(frames))
    assert loaded[("arm_right", "wrist")] == [(0.0, "place", "low"), (1.0, "right", "high")]
    assert loaded[("head", None)] == [(0.0, "forward", "middle"), (1.0, "right", "low")]
    assert microsoft.from_gesturebot(frames).measures == 1  # 3 beats


def test_a_suite_position_without_a_start_time_stays_a_key_pose() -> None:
    limbs = {p: ["Place", "Low"] for p in SUITE_LANES if p != "head"}
    positions = {
        f"Position{i}": {"head": [direction, "Normal"], **limbs}
        | ({"start time": [ms]} if ms else {})
        for i, (ms, direction) in enumerate([("0", "Forward"), (None, "Left"), ("1000", "Right")])
    } | {"Position3": {"head": ["Forward", "High"], **limbs}}
    loaded = microsoft.from_suite({"nod": positions})
    head = _imported(loaded)[("head", None)]
    assert head == [
        (0.0, "forward", "middle"),
        (0.5, "left", "middle"),  # half-way between its neighbours
        (1.0, "right", "middle"),
        (2.0, "forward", "high"),  # one beat after the last timed one
    ]
    assert loaded.meta["untimed_positions"] == ["Position1", "Position3"]
