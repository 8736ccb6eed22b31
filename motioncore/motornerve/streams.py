"""Scripted command streams for evaluation (seed 001 §3.5, §4.3): straight ahead, turns
of 45, 90 and 180 degrees, walk → run → walk, stop → go, a long steady walk (drift) and
a row of interaction triggers at varying intervals.

A stream is world commands ``[F, 12]`` at 60 Hz (:func:`motioncore.motornerve.intent.command`),
optionally the recorded *opening* a play continues from (a held-out clip's first frames;
a scripted stream has none and a player starts from its own standing pose), and its
*events*: the frames where the command changes, with the command before (what
a counterfactual play keeps) and the change of commanded ground velocity (world (x, z),
m/s; ``None`` for a pose command such as an interaction). Every stream starts with a
second standing still.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from motioncore.clip import Clip
from motioncore.motornerve import intent, state

FloatArray = NDArray[np.float64]
FPS = state.FPS
WALK_MPS = 1.3
RUN_MPS = 3.0
STAND_S = 1.0


@dataclass(frozen=True)
class Event:
    """A change of command at ``frame``: the command before it and the change of the
    commanded world ground velocity (``None``: a pose command)."""

    frame: int
    before: FloatArray
    velocity_change: FloatArray | None


@dataclass(frozen=True)
class Stream:
    name: str
    commands: FloatArray
    events: tuple[Event, ...] = field(default=())
    opening: Clip | None = None


def _velocity(command: FloatArray) -> FloatArray:
    return np.asarray(command[intent.DIRECTION] * command[intent.SPEED], dtype=np.float64)


def _built(name: str, parts: list[tuple[float, FloatArray]], pose_events: bool = False) -> Stream:
    """A stream of ``(seconds, command)`` parts; an event where each part begins."""
    commands: list[FloatArray] = []
    events: list[Event] = []
    for seconds, command in parts:
        frames = max(round(seconds * FPS), 1)
        if commands:
            before = commands[-1]
            change = _velocity(command) - _velocity(before)
            interacting = np.argmax(command[intent.ACTION]) == intent.ACTIONS.index("interact")
            by_pose = pose_events and interacting
            if by_pose or np.linalg.norm(change) > 1e-6:
                events.append(Event(len(commands), before, None if by_pose else change))
        commands += [command] * frames
    return Stream(name, np.stack(commands), tuple(events))


def _walk(angle_deg: float, speed: float = WALK_MPS) -> FloatArray:
    """A command to move at ``speed`` towards the world direction ``angle_deg`` (0 is
    +Z, positive turns left, towards +X)."""
    a = np.radians(angle_deg)
    return intent.command((np.sin(a), np.cos(a)), speed)


def stand() -> FloatArray:
    return intent.command((0.0, 0.0), 0.0, "idle")


def straight(seconds: float = 20.0) -> Stream:
    return _built("straight", [(STAND_S, stand()), (seconds, _walk(0.0))])


def turn(degrees: float) -> Stream:
    """Walk ahead for 4 s, then towards ``degrees`` to the right for 6 s."""
    return _built(
        f"turn {degrees:g}°",
        [(STAND_S, stand()), (4.0, _walk(0.0)), (6.0, _walk(-degrees))],
    )


def walk_run_walk() -> Stream:
    return _built(
        "walk → run → walk",
        [(STAND_S, stand()), (4.0, _walk(0.0)), (4.0, _walk(0.0, RUN_MPS)), (4.0, _walk(0.0))],
    )


def stop_go() -> Stream:
    return _built(
        "stop → go",
        [(STAND_S, stand()), (4.0, _walk(0.0)), (3.0, stand()), (4.0, _walk(0.0))],
    )


def long_walk(seconds: float = 65.0) -> Stream:
    """A steady walk, for drift over the last minute."""
    return _built("steady 65 s", [(STAND_S, stand()), (seconds, _walk(0.0))])


def interactions(count: int = 50, seed: int = 1) -> Stream:
    """``count`` interaction triggers (strength 1, 1.2 s each) standing, at intervals
    drawn between 0.8 and 1.6 s (a fixed seed)."""
    rng = np.random.default_rng(seed)
    act = intent.command((0.0, 0.0), 0.0, "interact", 1.0)
    parts: list[tuple[float, FloatArray]] = [(STAND_S, stand())]
    for _ in range(count):
        parts += [(1.2, act), (float(rng.uniform(0.8, 1.6)), stand())]
    return _built(f"{count} interactions", parts, pose_events=True)


def scripted(interaction_count: int = 50) -> list[Stream]:
    """Every scripted stream of the evaluation."""
    return [
        straight(),
        *(turn(d) for d in (45.0, 90.0, 180.0)),
        walk_run_walk(),
        stop_go(),
        long_walk(),
        interactions(interaction_count),
    ]


def of_recording(
    name: str, intents: FloatArray, face: FloatArray, opening: Clip | None = None
) -> Stream:
    """The world commands of a recording: its own intents ``[F, 12]`` (60 Hz) turned
    into the world by its facing ``face [F]`` (radians, relative to its first frame's,
    since a play starts facing +Z): a held-out clip driven by what it did, from its
    own ``opening`` frames when given."""
    face = face - face[0]
    commands = intents.copy()
    commands[:, intent.DIRECTION] = intent.to_world(intents[:, intent.DIRECTION], face)
    wanted = face + np.arctan2(intents[:, 3], intents[:, 4])
    commands[:, intent.FACING] = np.stack([np.sin(wanted), np.cos(wanted)], axis=-1)
    return Stream(name, commands, opening=opening)
