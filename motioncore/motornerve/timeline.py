"""Intent timelines: keyframed commands for the batch runtime (the studio API, the
command line).

A timeline is JSON::

    {"duration_s": 12.0,
     "keys": [
        {"t": 0.0, "action": "idle"},
        {"t": 1.0, "action": "walk", "speed_mps": 1.3, "direction_deg": 0},
        {"t": 5.0, "action": "run", "speed_mps": 3.0, "direction_deg": -90},
        {"t": 9.0, "action": "interact", "strength": 0.8}
     ]}

Each key holds from its time ``t`` (seconds, the first at 0, strictly increasing)
until the next key. ``direction_deg`` is the world direction of movement (0 along +Z,
positive turns left, towards +X), ``speed_mps`` the wanted speed (0 to
:data:`~motioncore.motornerve.intent.MAX_SPEED_MPS`; default: 1.3 for walk, 3.0 for run,
0 otherwise), ``facing_deg`` the wanted world facing (default: face where the
character moves), ``strength`` an interaction's (0–1, default 1). ``duration_s``
(default: the last key's time plus 2 s) is at most :data:`MAX_DURATION_S`.

:func:`parse` checks everything and raises :class:`motioncore.errors.TimelineError`
naming the field; :func:`commands` gives the world commands ``[F, 12]`` at 60 Hz.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from motioncore.errors import TimelineError
from motioncore.motornerve import intent, state

FloatArray = NDArray[np.float64]
MAX_DURATION_S = 600.0
MAX_KEYS = 10_000
DEFAULT_SPEED_MPS = {"walk": 1.3, "run": 3.0}
TAIL_S = 2.0
_KEY_FIELDS = {"t", "action", "speed_mps", "direction_deg", "facing_deg", "strength"}


@dataclass(frozen=True)
class Key:
    """One key: from ``t`` seconds, this command (angles in degrees, world frame)."""

    t: float
    action: intent.Action
    speed_mps: float
    direction_deg: float
    facing_deg: float | None
    strength: float


@dataclass(frozen=True)
class Timeline:
    keys: tuple[Key, ...]
    duration_s: float

    def as_dict(self) -> dict[str, Any]:
        return {"duration_s": self.duration_s, "keys": [vars(k) for k in self.keys]}


def _number(
    value: object, where: str, low: float, high: float, default: float | None = None
) -> float:
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TimelineError(where, "must be a number")
    number = float(value)
    if not math.isfinite(number):
        raise TimelineError(where, "must be a finite number (no NaN or infinity)")
    if not low <= number <= high:
        raise TimelineError(where, f"must be between {low:g} and {high:g}")
    return number


def _key(raw: object, where: str) -> Key:
    if not isinstance(raw, Mapping):
        raise TimelineError(where, "must be an object")
    unknown = sorted(set(raw) - _KEY_FIELDS)
    if unknown:
        raise TimelineError(
            f"{where}.{unknown[0]}", f"unknown field; use {', '.join(sorted(_KEY_FIELDS))}"
        )
    action = raw.get("action", "walk")
    if action not in intent.ACTIONS:
        raise TimelineError(f"{where}.action", f"must be one of {', '.join(intent.ACTIONS)}")
    if "t" not in raw:
        raise TimelineError(f"{where}.t", "is required (seconds from the start)")
    t = _number(raw["t"], f"{where}.t", 0.0, MAX_DURATION_S)
    speed = _number(
        raw.get("speed_mps"), f"{where}.speed_mps", 0.0, intent.MAX_SPEED_MPS,
        DEFAULT_SPEED_MPS.get(action, 0.0),
    )  # fmt: skip
    facing = raw.get("facing_deg")
    return Key(
        t,
        action,
        speed,
        _number(raw.get("direction_deg"), f"{where}.direction_deg", -3600.0, 3600.0, 0.0),
        None if facing is None else _number(facing, f"{where}.facing_deg", -3600.0, 3600.0),
        _number(
            raw.get("strength"), f"{where}.strength", 0.0, 1.0, 1.0 if action == "interact" else 0.0
        ),
    )


def parse(document: object) -> Timeline:
    """A checked :class:`Timeline` of a decoded JSON document (module docstring)."""
    if not isinstance(document, Mapping):
        raise TimelineError("timeline", "must be an object with keys and duration_s")
    unknown = sorted(set(document) - {"keys", "duration_s"})
    if unknown:
        raise TimelineError(unknown[0], "unknown field; use keys, duration_s")
    raw_keys = document.get("keys")
    if not isinstance(raw_keys, list) or not raw_keys:
        raise TimelineError("keys", "must be a non-empty list of keys")
    if len(raw_keys) > MAX_KEYS:
        raise TimelineError("keys", f"at most {MAX_KEYS} keys")
    keys = tuple(_key(k, f"keys[{i}]") for i, k in enumerate(raw_keys))
    if keys[0].t != 0.0:
        raise TimelineError("keys[0].t", "the first key must be at 0 s")
    for i in range(1, len(keys)):
        if keys[i].t <= keys[i - 1].t:
            raise TimelineError(
                f"keys[{i}].t", f"must be later than keys[{i - 1}].t ({keys[i - 1].t:g} s)"
            )
    default = min(keys[-1].t + TAIL_S, MAX_DURATION_S)
    duration = _number(document.get("duration_s"), "duration_s", 0.0, MAX_DURATION_S, default)
    if duration <= keys[-1].t:
        raise TimelineError("duration_s", f"must be later than the last key ({keys[-1].t:g} s)")
    return Timeline(keys, duration)


def command_of(key: Key) -> FloatArray:
    """The world command ``[12]`` of a key."""
    a = math.radians(key.direction_deg)
    moving = key.action in ("walk", "run") and key.speed_mps > 0.0
    facing = None if key.facing_deg is None else math.radians(key.facing_deg)
    return intent.command(
        (math.sin(a), math.cos(a)),
        key.speed_mps if moving else 0.0,
        key.action,
        key.strength,
        facing,
    )


def commands(timeline: Timeline, fps: float = state.FPS) -> FloatArray:
    """World commands ``[F, 12]`` at ``fps`` (each key held until the next)."""
    frames = max(round(timeline.duration_s * fps) + 1, 2)
    times = np.arange(frames) / fps
    starts = np.array([k.t for k in timeline.keys])
    which = np.searchsorted(starts, times, side="right") - 1
    table = np.stack([command_of(k) for k in timeline.keys])
    return np.asarray(table[which], dtype=np.float64)
