"""Importers for Microsoft's two Labanotation JSON layouts (MIT; the corpus's ``laban`` folder).

Both describe upper-body gestures as a list of key poses, each giving a direction and
a level for the head, both elbows and both wrists:

* **LabanotationSuite** (``{"<name>": {"Position0": {"start time": ["ms"],
  "duration": ["flag"], "head": [direction, level], "right elbow": […], "right
  wrist": […], "left elbow": […], "left wrist": […], "rotation": ["ToLeft"|"ToRight",
  "degrees"]}, …}}``): times in milliseconds; ``duration`` is a flag of the editor
  (kept in ``meta``, not used for timing); ``rotation`` turns the whole body;
* **gestureBotDesignKit** (``[{"time": s, "head": {"dur": s, "dir", "lvl"},
  "relbow": …, "rwrist": …, "lelbow": …, "lwrist": …}, …]``): times and
  durations in seconds. ``time`` is when a part's movement *starts* and ``dur`` how
  long it lasts, so the part reaches the entry's pose on ``time + dur`` (Microsoft's
  converter writes each entry's ``time`` as the previous pose's time, and its player
  keys each part on ``time + dur``). The first two entries therefore usually share
  ``time`` 0: the starting pose (``dur`` 0) and the first movement. An entry may
  leave parts out (the format example's last entry only marks the end time;
  ``text``, ``midi`` and ``audio`` are not motion and are ignored).

Into the score format (:mod:`motioncore.laban.score`) at 60 beats per minute (one beat
= one second) in 4/4: each body part's key poses become direction symbols in its
column (``head``; ``arm_left``/``arm_right`` with the pre-sign ``elbow`` or ``wrist``)
that start on the previous key pose and arrive on this one; the first key pose is a
starting position (duration 0); a key pose that repeats the one before becomes a hold.
Key poses that arrive at one time are merged, never dropped: their parts are united
(gestureBot entries may give different parts) and, where two give the same part (a
part holds one pose at an instant), the later in the file stands. A LabanotationSuite
position without a ``start time`` keeps its place: half-way between the timed
positions around it, or :data:`UNTIMED_GAP_S` after the last one (listed in
``meta["untimed_positions"]``).
A non-zero LabanotationSuite rotation becomes a turn in the ``body`` column.
Direction names map one to one (``"Right Forward"`` → ``right_forward``), levels
``Low``/``Normal``/``High`` → ``low``/``middle``/``high``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from motioncore import jsontext
from motioncore.laban.score import DIRECTIONS, FORMAT, Score, ScoreError, load

TEMPO_BPM = 60.0
METER = 4
LEVEL_NAMES = {"low": "low", "normal": "middle", "middle": "middle", "high": "high"}
SUITE_PARTS = {
    "head": ("head", None),
    "right elbow": ("arm_right", "elbow"),
    "right wrist": ("arm_right", "wrist"),
    "left elbow": ("arm_left", "elbow"),
    "left wrist": ("arm_left", "wrist"),
}
BOT_PARTS = {
    "head": ("head", None),
    "relbow": ("arm_right", "elbow"),
    "rwrist": ("arm_right", "wrist"),
    "lelbow": ("arm_left", "elbow"),
    "lwrist": ("arm_left", "wrist"),
}

UNTIMED_GAP_S = 1.0
"""Where a LabanotationSuite position without a ``start time`` and no timed position
after it arrives: this long (seconds, one beat) after the position before."""
SAME_TIME_S = 1e-9
"""Key poses closer in time than this (seconds) arrive together and are merged."""

Lane = tuple[str, str | None]
"""(column, pre-sign part or None): one body part's line of symbols."""
KeyPose = tuple[float, dict[Lane, tuple[str, str]], float]
"""(arrival time s, (column, part) → (direction, level), body rotation in degrees)."""


def direction_of(name: str) -> str:
    """``"Right Forward"`` → ``right_forward`` (``ScoreError`` if unknown)."""
    key = "_".join(name.strip().lower().split())
    if key not in DIRECTIONS:
        raise ScoreError([f"unknown direction {name!r}"])
    return key


def level_of(name: str) -> str:
    """``Low``/``Normal``/``High`` → ``low``/``middle``/``high``."""
    key = LEVEL_NAMES.get(name.strip().lower())
    if key is None:
        raise ScoreError([f"unknown level {name!r}"])
    return key


def load_file(path: str | Path) -> Score:
    """A score from either Microsoft layout (detected) or the native format."""
    return load_bytes(Path(path).read_bytes(), Path(path).stem)


def load_bytes(data: bytes, title: str = "") -> Score:
    """A score from JSON bytes in the native format or either Microsoft layout."""
    try:
        parsed = jsontext.loads(data.decode("utf-8-sig"))
    except jsontext.TooDeep as error:
        raise ScoreError([str(error)]) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ScoreError([f"not a JSON score: {error}"]) from None
    if isinstance(parsed, dict) and parsed.get("format") == FORMAT:
        return load(parsed)
    if isinstance(parsed, list):
        return from_gesturebot(parsed, title=title)
    if isinstance(parsed, dict) and "format" not in parsed:
        return from_suite(parsed)
    if isinstance(parsed, dict):
        return load(parsed)  # a native score with a wrong format: say so
    raise ScoreError(["neither a kinetograph-score/1 nor a Microsoft Labanotation score"])


def from_suite(data: Mapping[str, Any]) -> Score:
    """A LabanotationSuite score (its first gesture, ``{"<name>": {"Position0": …}}``)."""
    if len(data) != 1:
        raise ScoreError([f"expected one gesture, found {len(data)}"])
    ((name, positions),) = data.items()
    if not isinstance(positions, dict) or not all(isinstance(b, dict) for b in positions.values()):
        raise ScoreError([f"{name}: expected {{'Position0': {{...}}, ...}} key poses"])
    ordered = sorted(positions.items(), key=lambda kv: _position_number(str(kv[0])))
    times: list[float | None] = []
    parsed: list[tuple[dict[Lane, tuple[str, str]], float]] = []
    for label, body in ordered:
        try:
            times.append(float(body["start time"][0]) / 1000.0 if "start time" in body else None)
            poses = {
                column: (direction_of(body[part][0]), level_of(body[part][1]))
                for part, column in SUITE_PARTS.items()
            }
            turn = body.get("rotation", ["ToRight", "0"])
            parsed.append((poses, float(turn[1]) * (-1.0 if turn[0] == "ToLeft" else 1.0)))
        except (KeyError, IndexError, ValueError, TypeError, AttributeError) as error:
            raise ScoreError([f"{name} {label}: {error}"]) from None
    keys = [(t, poses, deg) for t, (poses, deg) in zip(_fill_times(times), parsed, strict=True)]
    meta: dict[str, Any] = {
        "source": "LabanotationSuite",
        "duration_flags": [str((body.get("duration") or [""])[0]) for _, body in ordered],
    }
    untimed = [str(label) for (label, _), t in zip(ordered, times, strict=True) if t is None]
    if untimed:
        meta["untimed_positions"] = untimed
    return _score(keys, title=name, meta=meta)


def _fill_times(times: Sequence[float | None]) -> list[float]:
    """Start times (s) in position order, a missing one (``None``) filled in place:
    half-way between the times before and after it when the one after is later, else
    :data:`UNTIMED_GAP_S` after the one before (before the one after, when it is the
    first; 0 when no position has a time), so that it stays a key pose of its own."""
    out: list[float] = []
    for i, time_s in enumerate(times):
        if time_s is not None:
            out.append(time_s)
            continue
        before = out[-1] if out else None
        after = next((t for t in times[i + 1 :] if t is not None), None)
        if before is not None and after is not None and after > before:
            out.append((before + after) / 2.0)
        elif before is not None:
            out.append(before + UNTIMED_GAP_S)
        else:
            out.append(after - UNTIMED_GAP_S if after is not None else 0.0)
    return out


def from_gesturebot(frames: Sequence[Mapping[str, Any]], title: str = "") -> Score:
    """A gestureBotDesignKit key-pose list.

    Each part of an entry is a key pose reached on ``time + dur`` (seconds; ``dur``
    0 when absent), so parts with different ``dur`` arrive apart; an entry with no
    motion part only marks a time (the end of the gesture). The key poses arriving
    together are merged by :func:`_score`.
    """
    keys: list[KeyPose] = []
    for i, frame in enumerate(frames):
        try:
            keys += _bot_entry(frame)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ScoreError([f"key pose {i}: {error}"]) from None
    return _score(keys, title=title, meta={"source": "gestureBotDesignKit"})


def _bot_entry(frame: Mapping[str, Any]) -> list[KeyPose]:
    """One gestureBot entry → one key pose per motion part, on ``time + dur`` (s); an
    entry with none → one key pose without parts on ``time`` (a time mark)."""
    start = float(frame["time"])
    keys: list[KeyPose] = [
        (
            start + float(frame[part].get("dur", 0.0)),
            {lane: (direction_of(frame[part]["dir"]), level_of(frame[part]["lvl"]))},
            0.0,
        )
        for part, lane in BOT_PARTS.items()
        if part in frame
    ]
    return keys or [(start, {}, 0.0)]


def _position_number(label: str) -> int:
    digits = "".join(c for c in label if c.isdigit())
    return int(digits) if digits else 0


def _merged(keys: Sequence[KeyPose]) -> list[KeyPose]:
    """Key poses by arrival time, those within :data:`SAME_TIME_S` of each other merged
    into one: their parts united (where two give one part, the later in ``keys``
    stands) and their body rotations added."""
    out: list[KeyPose] = []
    for time_s, poses, degrees in sorted(keys, key=lambda k: k[0]):  # stable: file order
        if out and time_s - out[-1][0] <= SAME_TIME_S:
            first, united, turned = out[-1]
            out[-1] = (first, united | poses, turned + degrees)
        else:
            out.append((time_s, dict(poses), degrees))
    return out


def _score(keys: list[KeyPose], title: str, meta: dict[str, Any]) -> Score:
    """The score of key poses (any order; see the module docstring for the rules)."""
    if not keys:
        raise ScoreError(["no key poses"])
    start = min(k[0] for k in keys)
    symbols: list[dict[str, Any]] = []
    previous: dict[Lane, tuple[float, tuple[str, str]]] = {}
    for time_s, poses, degrees in _merged(keys):
        beat = (time_s - start) / (60.0 / TEMPO_BPM)
        for (column, part), pose in poses.items():
            before = previous.get((column, part))
            begin = before[0] if before else beat
            symbol: dict[str, Any] = {"column": column, "beat": begin, "duration": beat - begin}
            if part is not None:
                symbol["part"] = part
            if before is not None and before[1] == pose:
                symbol["kind"] = "hold"
            else:
                symbol |= {"kind": "direction", "direction": pose[0], "level": pose[1]}
            if before is None:
                symbol["duration"] = 0.0
            symbols.append(symbol)
            previous[(column, part)] = (beat, pose)
        if abs(degrees) > 1.0:
            turn = "right" if degrees > 0 else "left"
            symbols.append(
                {
                    "column": "body",
                    "kind": "turn",
                    "beat": beat,
                    "turn": turn,
                    "amount": min(abs(degrees) / 360.0, 4.0),
                }
            )
    last = max(
        [(max(k[0] for k in keys) - start) / (60.0 / TEMPO_BPM)]
        + [s["beat"] + s.get("duration", 0.0) for s in symbols]
    )
    measures = max(1, math.ceil((last + 1e-9) / METER))
    return load(
        {
            "format": FORMAT,
            "title": title,
            "tempo_bpm": TEMPO_BPM,
            "meter": METER,
            "measures": measures,
            "symbols": symbols,
            "meta": meta,
        }
    )
