"""Foot contacts: when each foot is planted on the ground.

A foot is its ``foot`` joint (the ankle) and, when the rig has one, its
``toe`` joint, found through :mod:`motioncore.skeleton` roles. A joint is
*planted* at a frame when its world speed is below ``speed_threshold_mps`` and
its height above its own stance height is below ``height_threshold_m``. The
stance height of the ankles (and of the toes) is a low percentile of their
world heights over the clip, both feet pooled: the floor as that joint sees it.
A foot is in contact when its ankle or its toe is planted; gaps shorter than
``closing_s`` are filled by a morphological closing (the clip's ends count as
"same as the nearest frame", so contacts touching them are kept).

Seed 002 §3.2: speed threshold 0.08 m/s ("阈值选 0.08 m/s 量级比较稳") and a
3-frame binary closing at 30-60 Hz, here 0.1 s so that it means the same at any
frame rate. The seed gives no height threshold: 5 cm above the joint's stance
height is ours. Heights are Y (metres, world frame); speeds are 3-D, m/s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import binary_closing

from motioncore import fk
from motioncore import skeleton as roles_mod
from motioncore.clip import Clip
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
Side = Literal["left", "right"]
SIDES: tuple[Side, Side] = ("left", "right")


@dataclass(frozen=True)
class FootContacts:
    """Contacts of one foot.

    Attributes:
        side: ``"left"`` or ``"right"``.
        foot: index of the foot (ankle) joint.
        toe: index of the toe joint, ``None`` when the rig has none.
        contact: ``[F]`` the foot touches the ground (ankle or toe planted; closed).
        ankle: ``[F]`` the ankle itself is planted (a subset of ``contact``); where
            ``contact`` holds and ``ankle`` does not, only the toe is down.
    """

    side: Side
    foot: int
    toe: int | None
    contact: BoolArray
    ankle: BoolArray

    @property
    def frames(self) -> int:
        """Number of contact frames."""
        return int(np.count_nonzero(self.contact))


@dataclass(frozen=True)
class Contacts:
    """Contacts of every foot the rig has (see the module docstring).

    Attributes:
        feet: one entry per resolved foot, left first.
        stance_heights_m: world height (metres) of the ankles' and toes' floor
            (``{"foot": ..., "toe": ...}``; ``toe`` absent without toe joints).
    """

    feet: tuple[FootContacts, ...]
    stance_heights_m: dict[str, float]

    def get(self, side: Side) -> FootContacts | None:
        """The contacts of ``side``, ``None`` when that foot is not resolved."""
        return next((f for f in self.feet if f.side == side), None)


def speeds(positions: FloatArray, fps: float) -> FloatArray:
    """World speeds ``[F, ...]`` (m/s) of positions ``[F, ..., 3]`` (central differences)."""
    positions = np.asarray(positions, dtype=np.float64)
    if positions.shape[0] < 2:
        return np.zeros(positions.shape[:-1])
    return np.asarray(np.linalg.norm(np.gradient(positions, axis=0), axis=-1) * fps)


def close(mask: BoolArray, frames: int) -> BoolArray:
    """Binary closing of ``mask [F]`` with a ``frames``-long structuring element.

    Fills gaps shorter than ``frames``. The ends are padded with their own
    values, so a contact that touches the first or last frame is not eroded
    (``scipy``'s default border would cut it).
    """
    mask = np.asarray(mask, dtype=bool)
    if frames <= 1 or mask.size == 0:
        return mask.copy()
    padded = np.pad(mask, frames, mode="edge")
    closed = binary_closing(padded, structure=np.ones(frames, dtype=bool))
    return np.asarray(closed[frames:-frames], dtype=bool)


def planted(
    positions: FloatArray,
    fps: float,
    stance_height_m: float,
    *,
    speed_threshold_mps: float = 0.08,
    height_threshold_m: float = 0.05,
) -> BoolArray:
    """``[F]`` frames where a joint (world positions ``[F, 3]``, metres) is slow and low."""
    low = np.asarray(positions)[:, 1] - stance_height_m < height_threshold_m
    return np.asarray((speeds(positions, fps) < speed_threshold_mps) & low, dtype=bool)


def detect(
    clip: Clip,
    roles: JointRoles | None = None,
    *,
    speed_threshold_mps: float = 0.08,
    height_threshold_m: float = 0.05,
    floor_percentile: float = 5.0,
    closing_s: float = 0.1,
    positions: FloatArray | None = None,
) -> Contacts:
    """Foot contacts of ``clip``.

    Args:
        clip: the clip (world Y up, metres).
        roles: joint roles; inferred from the skeleton when ``None``.
        speed_threshold_mps: a joint is planted below this speed, m/s (seed 002 §3.2).
        height_threshold_m: ... and below this height above its stance height, metres.
        floor_percentile: percentile (0-100) of a joint's heights taken as its stance height.
        closing_s: gaps shorter than this are filled, seconds.
        positions: ``[F, J, 3]`` world positions if already computed (``fk.positions``).

    Returns:
        The contacts of every foot whose ``foot`` role is resolved (none when
        the rig has no feet).
    """
    roles = roles if roles is not None else roles_mod.infer(clip.skeleton)
    pos = fk.positions(clip) if positions is None else np.asarray(positions)
    feet = _feet(roles) if pos.shape[0] else []
    heights = _stance_heights(pos, feet, floor_percentile)
    window = max(round(closing_s * clip.fps), 1)

    def down(joint: int, kind: str) -> BoolArray:
        return planted(
            pos[:, joint],
            clip.fps,
            heights[kind],
            speed_threshold_mps=speed_threshold_mps,
            height_threshold_m=height_threshold_m,
        )

    out: list[FootContacts] = []
    for side, foot, toe in feet:
        ankle = down(foot, "foot")
        toe_down = down(toe, "toe") if toe is not None else np.zeros_like(ankle)
        contact = close(ankle | toe_down, window)
        out.append(FootContacts(side, foot, toe, contact, close(ankle, window) & contact))
    return Contacts(tuple(out), heights)


def segments(mask: BoolArray) -> list[tuple[int, int]]:
    """Runs of ``True`` in ``mask [F]`` as ``(start, stop)`` frame pairs (``stop`` exclusive)."""
    padded = np.concatenate([[False], np.asarray(mask, dtype=bool), [False]])
    edges = np.flatnonzero(np.diff(padded.astype(np.int8)))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def _feet(roles: JointRoles) -> list[tuple[Side, int, int | None]]:
    """``(side, foot, toe)`` of every side whose foot role is resolved."""
    found = [(side, roles.get(f"{side}_foot"), roles.get(f"{side}_toe")) for side in SIDES]
    return [(side, foot, toe) for side, foot, toe in found if foot is not None]


def _stance_heights(
    pos: FloatArray, feet: list[tuple[Side, int, int | None]], percentile: float
) -> dict[str, float]:
    """Floor height per joint kind: a low percentile of both feet's ankle (toe) heights."""
    kinds = {"foot": [f for _, f, _ in feet], "toe": [t for _, _, t in feet if t is not None]}
    return {
        kind: float(np.percentile(pos[:, joints, 1], percentile))
        for kind, joints in kinds.items()
        if joints
    }
