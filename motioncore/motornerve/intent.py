"""The 12-D intent vector (seed 001 §2.2): what the user wants, one per frame.

Layout (:data:`SIZE` = 12), every direction in the character's *heading frame* (the
world turned about +Y so that the character faces +Z; its left is +X):

====  =========================  ==========================================================
0-1   ``direction``              unit ground vector (x, z) of the wanted movement; zero
                                 when the wanted speed is zero
2     ``speed``                  wanted ground speed, m/s
3-4   ``facing``                 (sin, cos) of the wanted facing relative to the current
                                 one (0, 1): keep facing ahead
5-8   ``action``                 one-hot over :data:`ACTIONS`: idle, walk, run, interact
9     ``strength``               interaction strength, 0-1 (0 unless interacting)
10-11 reserved                   0 (the seed keeps them for e.g. holding/aiming)
====  =========================  ==========================================================

:func:`from_motion` derives the intents of recorded motion from the motion itself: the
root's mean velocity over the next :data:`HORIZON_S`, its facing that far ahead, the
action from speed bands (:data:`WALK_FROM_MPS`, :data:`RUN_FROM_MPS`) or, on frames
the caller marks as interacting, ``interact``. :func:`make` builds one from controls
(what the keyboard, a gamepad or a timeline gives).

Shapes: ``[F, SIZE]`` or ``[SIZE]``; speeds m/s, angles radians.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
Action = Literal["idle", "walk", "run", "interact"]

SIZE = 12
ACTIONS: tuple[Action, ...] = ("idle", "walk", "run", "interact")
DIRECTION = slice(0, 2)
SPEED = 2
FACING = slice(3, 5)
ACTION = slice(5, 9)
STRENGTH = 9

HORIZON_S = 0.5
"""How far ahead the recorded motion's intent looks (the seed's 0.5 s target)."""
WALK_FROM_MPS = 0.3
"""Slower is ``idle`` (the PFNN data card's standing band)."""
RUN_FROM_MPS = 2.0
"""Faster is ``run``."""
MAX_SPEED_MPS = 6.0
"""The fastest speed an intent may ask for (validation of user input)."""


def action_of_speed(speed_mps: ArrayLike) -> NDArray[np.int64]:
    """Index into :data:`ACTIONS` (idle, walk, run) of ground speeds ``[...]`` m/s."""
    speed = np.asarray(speed_mps, dtype=np.float64)
    return np.asarray(
        (speed >= WALK_FROM_MPS).astype(np.int64) + (speed >= RUN_FROM_MPS), dtype=np.int64
    )


def make(
    direction: ArrayLike,
    speed_mps: ArrayLike,
    facing_rad: ArrayLike = 0.0,
    action: ArrayLike | None = None,
    strength: ArrayLike = 0.0,
) -> FloatArray:
    """Intents ``[..., SIZE]`` from controls: ``direction [..., 2]`` (heading frame,
    normalised here; zero means none), ``speed_mps [...]``, the wanted facing relative
    to the current one (radians, positive turns left: towards +X), ``action [...]``
    (indices into :data:`ACTIONS`; default: from the speed bands) and ``strength``
    (0-1, only kept for ``interact``)."""
    d = np.asarray(direction, dtype=np.float64)
    speed = np.asarray(speed_mps, dtype=np.float64)
    shape = np.broadcast_shapes(d.shape[:-1], speed.shape, np.shape(facing_rad))
    norm = np.linalg.norm(d, axis=-1, keepdims=True)
    unit = np.divide(d, norm, out=np.zeros_like(d), where=norm > 1e-9)
    moving = (speed > 0.0)[..., None] & (norm > 1e-9)
    kind = action_of_speed(speed) if action is None else np.asarray(action, dtype=np.int64)
    out = np.zeros((*shape, SIZE))
    out[..., DIRECTION] = np.where(moving, unit, 0.0)
    out[..., SPEED] = np.where(moving[..., 0], speed, 0.0)
    turn = np.asarray(facing_rad, dtype=np.float64)
    out[..., FACING] = np.stack([np.sin(turn), np.cos(turn)], axis=-1)
    out[..., ACTION] = np.eye(len(ACTIONS))[np.broadcast_to(kind, shape)]
    interacting = np.broadcast_to(kind, shape) == ACTIONS.index("interact")
    out[..., STRENGTH] = np.where(interacting, np.clip(strength, 0.0, 1.0), 0.0)
    return out


def in_heading_frame(vectors: FloatArray, facing_rad: FloatArray) -> FloatArray:
    """World ground vectors ``[..., 2]`` (x, z) in the heading frame of a character
    facing ``facing_rad [...]`` (radians about +Y, 0 facing +Z)."""
    c, s = np.cos(facing_rad), np.sin(facing_rad)
    x, z = vectors[..., 0], vectors[..., 1]
    return np.stack([c * x - s * z, s * x + c * z], axis=-1)


def to_world(vectors: FloatArray, facing_rad: FloatArray) -> FloatArray:
    """The inverse of :func:`in_heading_frame`."""
    return in_heading_frame(vectors, -np.asarray(facing_rad))


def from_motion(
    ground: FloatArray,
    facing_rad: FloatArray,
    fps: float,
    interacting: NDArray[np.bool_] | None = None,
    strength: FloatArray | None = None,
    *,
    horizon_s: float = HORIZON_S,
) -> FloatArray:
    """The intents ``[F, SIZE]`` of recorded motion (see the module docstring).

    Args:
        ground: ``[F, 2]`` the root's ground position (x, z), metres, world frame.
        facing_rad: ``[F]`` facing about +Y (0 facing +Z), radians, unwrapped.
        fps: frames per second.
        interacting: ``[F]`` frames whose action is ``interact`` (default none).
        strength: ``[F]`` interaction strength 0-1 on those frames.
        horizon_s: how far ahead the wanted velocity and facing look; near the clip's
            end the window shortens to what is left (the last frame wants to stand).
    """
    frames = len(ground)
    ahead = np.minimum(np.arange(frames) + max(round(horizon_s * fps), 1), frames - 1)
    span = np.maximum(ahead - np.arange(frames), 1) / fps
    velocity = (ground[ahead] - ground) / span[:, None]
    local = in_heading_frame(velocity, facing_rad)
    speed = np.linalg.norm(local, axis=-1)
    action = action_of_speed(speed)
    if interacting is not None:
        action = np.where(interacting, ACTIONS.index("interact"), action)
    kept = np.zeros(frames) if strength is None else np.asarray(strength, dtype=np.float64)
    return make(local, speed, facing_rad[ahead] - facing_rad, action, kept)


def describe(intent: ArrayLike) -> dict[str, object]:
    """A JSON-able reading of one intent ``[SIZE]`` (for pages and logs)."""
    v = np.asarray(intent, dtype=np.float64)
    return {
        "direction": [float(v[0]), float(v[1])],
        "speed_mps": float(v[SPEED]),
        "facing_deg": float(np.degrees(np.arctan2(v[3], v[4]))),
        "action": ACTIONS[int(np.argmax(v[ACTION]))],
        "strength": float(v[STRENGTH]),
    }


def localise(command: ArrayLike, facing_rad: float) -> FloatArray:
    """A *world* command ``[12]`` as the intent of a character facing ``facing_rad``.

    A command has the intent's layout with ``direction`` a world ground vector and
    ``facing`` the (sin, cos) of the wanted world facing (radians about +Y); all zeros
    in ``facing`` mean "face where you move" (or keep facing when standing). What the
    keyboard, a gamepad or a timeline gives is a command; the network reads intents."""
    world = np.asarray(command, dtype=np.float64)
    out = world.copy()
    out[DIRECTION] = in_heading_frame(world[DIRECTION], np.asarray(facing_rad))
    if np.linalg.norm(world[FACING]) > 1e-9:
        turn = np.arctan2(world[3], world[4]) - facing_rad
    elif world[SPEED] > 0.0 and np.linalg.norm(world[DIRECTION]) > 1e-9:
        turn = np.arctan2(out[0], out[1])
    else:
        turn = 0.0
    turn = (turn + np.pi) % (2.0 * np.pi) - np.pi
    out[FACING] = (np.sin(turn), np.cos(turn))
    return out


def command(
    direction: ArrayLike,
    speed_mps: float,
    action: Action | None = None,
    strength: float = 0.0,
    facing_rad: float | None = None,
) -> FloatArray:
    """A world command ``[12]`` (see :func:`localise`): ``direction`` a world ground
    vector (x, z), ``facing_rad`` the wanted world facing or ``None`` to face where the
    character moves."""
    kind = None if action is None else ACTIONS.index(action)
    out = make(direction, speed_mps, 0.0, kind, strength)
    out[FACING] = (0.0, 0.0) if facing_rad is None else (np.sin(facing_rad), np.cos(facing_rad))
    return out
