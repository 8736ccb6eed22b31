"""Where a foot stands flat: the pitch of its bones when the sole is on the ground.

Retargeting (:mod:`motioncore.skeleton.retarget`) matches bone directions, and a foot's
bones have no direction of their own when the foot is flat: each release puts its
ankle and ball joints its own way, so the ankle-to-ball line of a flat foot is
13-14° below the horizontal in the iClone release of CMU, 19° in the 3ds Max one,
20-21° in MotionBuilder and GAMES-105, 24-31° in Daz and ReActIdle. Matched as they
are, one release's flat foot is another's tiptoe on the canonical skeleton, whose flat
sole (ball and tip on the ground, the ankle 6 cm above them) has the ankle-to-ball
line :func:`canonical_pitches` (24.8°) below the horizontal and the toe level.

:func:`flat_pitches` reads a clip's own flat foot from its motion: the frames where
the ankle and the ball both rest on the ground (each within :data:`FLAT_BAND_M` of its
lowest and slower than :data:`FLAT_SPEED_MPS`; a foot up on its ball turns about it,
so its ankle moves, and one up on its heel moves its ball) and, over them, the median
pitch of the foot's bone (ankle to ball) and of its toe (ball to tip). Retargeting
turns each bone about its own lateral axis by the difference (:func:`turned`), so the
clip's flat foot stands flat on the canonical sole, and back again onto a rig.

Conventions: ``F`` frames; metres (after the caller's scale), Y up; angles in radians,
positive below the horizontal.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

import numpy as np
from numpy.typing import NDArray

from motioncore.skeleton import canonical
from motioncore.skeleton.landmarks import Rig, landmarks

FloatArray = NDArray[np.float64]

FLAT_BAND_M = 0.03
"""How far above its own lowest (:data:`LOWEST_PERCENTILE`) an ankle or ball may be in a
flat-foot frame, metres."""
FLAT_SPEED_MPS = 0.15
"""How fast an ankle or ball may move in a flat-foot frame, m/s (central differences)."""
LOWEST_PERCENTILE = 5.0
"""The percentile of a point's height taken as its lowest (a glitch frame is not)."""
MIN_FLAT_S = 0.2
"""Flat-foot frames a clip needs (seconds in all) for its pitch to be read; with fewer
its bones keep their directions."""
MAX_TURN_RAD = np.radians(20.0)
"""The largest turn of a foot trusted: a clip whose flat foot reads further from the
canonical one (a take that never puts its sole down: tiptoe, a crouch, a broken rig)
keeps its directions. The corpus's releases read 13-31°, 4-17° from the canonical."""

BONES: dict[str, tuple[str, str]] = {
    f"{side}_{bone}": (f"{side}_{bone}", toward)
    for side in ("left", "right")
    for bone, toward in (("foot", f"{side}_toe"), ("toe", f"{side}_toe_end"))
}
"""Each turned role → (the landmark it starts at, the landmark it points to)."""


def pitch(direction: FloatArray) -> FloatArray:
    """``[...]`` the angle of ``direction [..., 3]`` below the horizontal, radians."""
    across = np.linalg.norm(direction[..., [0, 2]], axis=-1)
    return np.asarray(np.arctan2(-direction[..., 1], across))


@cache
def canonical_pitches() -> dict[str, float]:
    """Role → the pitch of that bone of the canonical skeleton standing flat (its rest
    pose), radians: the foot 24.8° (0.433 rad), the toe 0."""
    rest = canonical.rest_positions()
    points = landmarks(Rig.of(canonical.skeleton(), rest, canonical.roles()), rest[None])
    return {
        role: float(pitch(points[toward][0] - points[start][0]))
        for role, (start, toward) in BONES.items()
    }


def _speeds(points: FloatArray, fps: float) -> FloatArray:
    """``[F]`` speeds of ``points [F, 3]`` (m/s), central differences, one-sided at the ends."""
    if points.shape[0] < 2:
        return np.zeros(points.shape[0])
    return np.asarray(np.linalg.norm(np.gradient(points, axis=0), axis=-1) * fps)


def flat_frames(ankle: FloatArray, ball: FloatArray, fps: float) -> NDArray[np.bool_]:
    """``[F]`` the frames where ``ankle`` and ``ball`` (``[F, 3]``, metres) both rest on
    the ground (module docstring)."""
    out = np.ones(ankle.shape[0], dtype=bool)
    for point in (ankle, ball):
        low = point[:, 1] - np.percentile(point[:, 1], LOWEST_PERCENTILE) < FLAT_BAND_M
        out &= low & (_speeds(point, fps) < FLAT_SPEED_MPS)
    return out


def flat_pitches(points: Mapping[str, FloatArray], metres: float, fps: float) -> dict[str, float]:
    """Role → the clip's own pitch of that bone (:data:`BONES`) when its foot is flat,
    radians; a foot with fewer than :data:`MIN_FLAT_S` of flat frames is left out.

    Args:
        points: landmarks ``[F, 3]`` (:func:`motioncore.skeleton.landmarks.landmarks`).
        metres: metres per unit of ``points``.
        fps: frame rate, Hz.
    """
    out: dict[str, float] = {}
    for side in ("left", "right"):
        ankle, ball = points[f"{side}_foot"] * metres, points[f"{side}_toe"] * metres
        flat = flat_frames(ankle, ball, fps)
        if flat.sum() < MIN_FLAT_S * fps:
            continue
        for role, (start, toward) in BONES.items():
            if role.startswith(side):
                out[role] = float(np.median(pitch(points[toward][flat] - points[start][flat])))
    return out


def turns(source: Mapping[str, float], target: Mapping[str, float]) -> dict[str, float]:
    """Role → how far (radians, positive: toe down) to turn a bone whose flat pitch is
    ``source``'s so that it is ``target``'s. A side is left out whole when one of its
    bones is missing from either, or when its foot is further from the target's than
    :data:`MAX_TURN_RAD` (its flat frames were no flat foot); its toe turns as far as it
    takes (a rig without a toe tip reads its toe along the foot, to be levelled)."""
    out: dict[str, float] = {}
    for side in ("left", "right"):
        roles = [role for role in BONES if role.startswith(side)]
        if not all(role in source and role in target for role in roles):
            continue
        if abs(target[f"{side}_foot"] - source[f"{side}_foot"]) <= MAX_TURN_RAD:
            out.update({role: target[role] - source[role] for role in roles})
    return out


def turned(primary: FloatArray, secondary: FloatArray, down: float) -> FloatArray:
    """``primary [F, 3]`` (unit) turned ``down`` radians towards minus ``secondary``
    (``[F, 3]``, e.g. the body's up) about the axis square to both: a fixed turn in the
    bone's own frame, which adds ``down`` to its pitch wherever ``secondary`` is up."""
    across = secondary - np.sum(secondary * primary, axis=-1, keepdims=True) * primary
    across /= np.maximum(np.linalg.norm(across, axis=-1, keepdims=True), 1e-12)
    out: FloatArray = np.cos(down) * primary - np.sin(down) * across
    return out
