"""Foot measures: slide, penetration, contact share, stance/swing and cadence
(definitions in :mod:`motioncore.measures`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore import fk
from motioncore import skeleton as roles_mod
from motioncore.clip import Clip
from motioncore.contacts import foot_points
from motioncore.contacts.foot_points import Foot
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

PLANTED_BAND_M = 0.02
PLANTED_SPEED_MPS = 1.0
STANDING_PERCENTILE = 5.0
FLOOR_PERCENTILE = 10.0
GROUNDED_BAND_M = 0.02
PENETRATION_BAND_M = 0.01
TOUCH_BAND_M = 0.01
SPEED_SPAN_S = 1.0 / 60.0
MIN_RUN_S = 0.1


@dataclass(frozen=True)
class FootMeasures:
    """One foot's measures (see the module docstring); ``None`` where unmeasurable.

    Attributes:
        side: ``"left"`` or ``"right"``.
        planted_frames: frames the module's planted test holds.
        slide_median_mps, slide_p95_mps, slide_mean_mps: foot slide over those frames, m/s.
        slide_per_step_m: median over steps of the slide per step, metres.
        contact_share: share (0-1) of grounded frames.
        lowest_m: the lowest any point of this foot goes, metres above the floor.
    """

    side: str
    planted_frames: int
    slide_median_mps: float | None
    slide_p95_mps: float | None
    slide_mean_mps: float | None
    slide_per_step_m: float | None
    contact_share: float
    lowest_m: float

    def as_dict(self) -> dict[str, object]:
        """JSON-able form; units in the keys."""
        return dict(vars(self))


@dataclass(frozen=True)
class Measures:
    """The measures of one clip.

    Attributes:
        floor_m: the floor used, metres (world height).
        floor_given: whether the caller gave it (else estimated).
        feet: one entry per resolved foot.
        geometry: the feet's points the measures used.
        penetration_worst_m: deepest any foot point goes under the floor, metres
            (0 when none goes under).
        penetration_share: share of frames with a foot point more than 1 cm under.
        stance_swing_ratio: grounded over not-grounded frames, both feet (``None``
            without swing frames).
        cadence_steps_per_min: grounded onsets per minute, both feet (``None`` for a
            clip shorter than a second).
    """

    floor_m: float
    floor_given: bool
    feet: tuple[FootMeasures, ...]
    geometry: tuple[Foot, ...]
    penetration_worst_m: float
    penetration_share: float
    stance_swing_ratio: float | None
    cadence_steps_per_min: float | None

    def get(self, side: str) -> FootMeasures | None:
        """The measures of ``side``'s foot, if it is resolved."""
        return next((f for f in self.feet if f.side == side), None)

    @property
    def slide_median_mps(self) -> float | None:
        """The worse foot's median slide, m/s."""
        return _worst([f.slide_median_mps for f in self.feet])

    @property
    def slide_mean_mps(self) -> float | None:
        """The worse foot's mean slide, m/s."""
        return _worst([f.slide_mean_mps for f in self.feet])

    @property
    def slide_p95_mps(self) -> float | None:
        """The worse foot's 95th percentile slide, m/s."""
        return _worst([f.slide_p95_mps for f in self.feet])

    def as_dict(self) -> dict[str, object]:
        """JSON-able form; units in the keys."""
        return {
            "floor_m": self.floor_m,
            "floor_given": self.floor_given,
            "feet": {f.side: f.as_dict() for f in self.feet},
            "slide_median_mps": self.slide_median_mps,
            "slide_p95_mps": self.slide_p95_mps,
            "slide_mean_mps": self.slide_mean_mps,
            "penetration_worst_m": self.penetration_worst_m,
            "penetration_share": self.penetration_share,
            "stance_swing_ratio": self.stance_swing_ratio,
            "cadence_steps_per_min": self.cadence_steps_per_min,
        }


def measure(
    clip: Clip,
    roles: JointRoles | None = None,
    *,
    floor_m: float | None = None,
    frames: slice | None = None,
    feet: tuple[Foot, ...] | None = None,
) -> Measures:
    """Every measure of ``clip`` (see the module docstring).

    Args:
        clip: the clip (metres, Y up).
        roles: joint roles; inferred when ``None``.
        floor_m: the floor's height when known (metres); estimated when ``None``.
        frames: measure only these frames (e.g. a transition's blend); the floor
            and standing heights still come from the whole clip.
        feet: the feet's points (:func:`motioncore.contacts.foot_points.feet`) to measure;
            estimated from this clip when ``None``. Pass the ones estimated on a
            clip before it was edited to measure the same heel after the edit:
            the heel is a point of the foot, not of the motion.

    Returns:
        The measures; a rig without feet has no foot entries and no penetration.
    """
    roles = roles if roles is not None else roles_mod.infer(clip.skeleton)
    g_rot, g_pos = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    if feet is None:
        feet = foot_points.feet(clip.skeleton, roles, g_rot, g_pos)
    world = [foot_points.points(f, g_rot, g_pos) for f in feet]
    floor = floor_m if floor_m is not None else estimate_floor(world)
    window = frames if frames is not None else slice(None)
    per_foot, grounded = [], []
    for foot, pts in zip(feet, world, strict=True):
        entry, on = _foot(foot, pts, clip.fps, floor, window)
        per_foot.append(entry)
        grounded.append(on)
    depth, share = penetration([p[window] for p in world], floor)
    return Measures(
        floor_m=float(floor),
        floor_given=floor_m is not None,
        feet=tuple(per_foot),
        geometry=feet,
        penetration_worst_m=depth,
        penetration_share=share,
        stance_swing_ratio=_stance_swing(grounded),
        cadence_steps_per_min=cadence(grounded, clip.fps),
    )


def estimate_floor(world: list[FloatArray]) -> float:
    """The floor from the feet alone: :data:`FLOOR_PERCENTILE` of the lowest point, metres.

    Args:
        world: per foot, ``[F, P, 3]`` world positions of its points.
    """
    if not world or world[0].shape[0] == 0:
        return 0.0
    lowest = np.min([p[..., 1].min(axis=1) for p in world], axis=0)
    return float(np.percentile(lowest, FLOOR_PERCENTILE))


def planted(ankle: FloatArray, fps: float) -> BoolArray:
    """``[F]`` this module's planted test on the ankle's world positions ``[F, 3]``."""
    standing = np.percentile(ankle[:, 1], STANDING_PERCENTILE)
    slow = speeds(ankle, fps) < PLANTED_SPEED_MPS
    return np.asarray((ankle[:, 1] - standing < PLANTED_BAND_M) & slow, dtype=bool)


def speeds(points: FloatArray, fps: float, *, horizontal: bool = False) -> FloatArray:
    """Speeds ``[F, ...]`` (m/s) of ``points [F, ..., 3]``: displacement over ±:data:`SPEED_SPAN_S`.

    Frames near the ends use the span that fits (one-sided at the ends).
    """
    frames = points.shape[0]
    if frames < 2:
        return np.zeros(points.shape[:-1])
    span = max(round(SPEED_SPAN_S * fps), 1)
    index = np.arange(frames)
    ahead, behind = np.minimum(index + span, frames - 1), np.maximum(index - span, 0)
    moved = points[ahead] - points[behind]
    if horizontal:
        moved = moved[..., [0, 2]]
    dt = (ahead - behind) / fps
    return np.asarray(np.linalg.norm(moved, axis=-1) / dt.reshape((-1,) + (1,) * (moved.ndim - 2)))


def foot_slide(points: FloatArray, ankle: int, fps: float) -> tuple[FloatArray, BoolArray]:
    """Horizontal speed ``[F]`` of a foot's slowest touching point (m/s) and the mask ``[F]``
    of the frames it is measured on.

    The foot is *on the ground* while its lowest point is within :data:`TOUCH_BAND_M`
    of where that lowest point rests (its median over the planted frames): a foot
    still on its way down is not sliding. A frame is measured when the foot is
    planted (:func:`planted`) and on the ground; a planted run's first and last
    :data:`SPEED_SPAN_S` are left out (the foot is arriving or leaving), and each
    speed is measured inside what is left of its run, so the swing around a plant
    does not leak into it. ``0`` and ``False`` elsewhere.

    Args:
        points: ``[F, P, 3]`` world positions of the foot's points.
        ankle: which of the ``P`` points is the ankle.
        fps: frame rate, Hz.
    """
    span = max(round(SPEED_SPAN_S * fps), 1)
    plant = planted(points[:, ankle], fps)
    # the points that touch are the sole's: a foot turning about its ankle sweeps them
    sole = [i for i in range(points.shape[1]) if i != ankle] or [ankle]
    lowest = points[..., 1].min(axis=1)
    resting = float(np.median(lowest[plant] if plant.any() else lowest))
    on_ground = lowest - resting < TOUCH_BAND_M
    slide = np.zeros(points.shape[0])
    kept = np.zeros(points.shape[0], dtype=bool)
    for start, stop in _runs(plant & on_ground, 2 * span + 2):
        first, last = start + span, stop - span
        index = np.arange(first, last)
        ahead, behind = np.minimum(index + span, last - 1), np.maximum(index - span, first)
        moved = np.linalg.norm((points[ahead] - points[behind])[:, sole][..., [0, 2]], axis=-1)
        slide[first:last] = moved.min(axis=1) / ((ahead - behind) / fps)
        kept[first:last] = True
    return slide, kept


def penetration(world: list[FloatArray], floor_m: float) -> tuple[float, float]:
    """Worst depth under the floor (m, 0 if none) and the share of frames > 1 cm under.

    Args:
        world: per foot, ``[F, P, 3]`` world positions of its points.
        floor_m: the floor's height, metres.
    """
    if not world or world[0].shape[0] == 0:
        return 0.0, 0.0
    lowest = np.min([p[..., 1].min(axis=1) for p in world], axis=0) - floor_m
    return float(max(-lowest.min(), 0.0)), float(np.mean(lowest < -PENETRATION_BAND_M))


def grounded(points: FloatArray, floor_m: float, fps: float) -> BoolArray:
    """``[F]`` the foot's lowest point is within 2 cm of the floor and slower than 1 m/s."""
    low = np.argmin(points[..., 1], axis=1)
    frames = np.arange(points.shape[0])
    height = points[frames, low, 1] - floor_m
    speed = speeds(points, fps)[frames, low]
    return np.asarray((height < GROUNDED_BAND_M) & (speed < PLANTED_SPEED_MPS), dtype=bool)


def cadence(grounded_masks: list[BoolArray], fps: float) -> float | None:
    """Grounded onsets (runs of at least :data:`MIN_RUN_S`) per minute, all feet together."""
    if not grounded_masks or grounded_masks[0].size < fps:
        return None
    minutes = grounded_masks[0].size / fps / 60.0
    return sum(len(_runs(m, max(round(MIN_RUN_S * fps), 1))) for m in grounded_masks) / minutes


def _foot(
    foot: Foot, points: FloatArray, fps: float, floor: float, window: slice
) -> tuple[FootMeasures, BoolArray]:
    ankle = foot.names.index("ankle")
    slide, down = foot_slide(points, ankle, fps)
    slide, down = slide[window], down[window]
    on = grounded(points, floor, fps)[window]
    values = slide[down]
    steps = [float(np.sum(slide[a:b]) / fps) for a, b in _runs(down, 1)]
    return (
        FootMeasures(
            side=foot.side,
            planted_frames=int(down.sum()),
            slide_median_mps=float(np.median(values)) if values.size else None,
            slide_p95_mps=float(np.percentile(values, 95.0)) if values.size else None,
            slide_mean_mps=float(np.mean(values)) if values.size else None,
            slide_per_step_m=float(np.median(steps)) if steps else None,
            contact_share=float(on.mean()) if on.size else 0.0,
            lowest_m=float(points[window][..., 1].min() - floor) if on.size else math.nan,
        ),
        on,
    )


def _stance_swing(masks: list[BoolArray]) -> float | None:
    if not masks:
        return None
    on = int(sum(int(m.sum()) for m in masks))
    off = int(sum(m.size for m in masks)) - on
    return on / off if off else None


def _runs(mask: BoolArray, shortest: int) -> list[tuple[int, int]]:
    padded = np.concatenate([[False], np.asarray(mask, dtype=bool), [False]])
    edges = np.flatnonzero(np.diff(padded.astype(np.int8)))
    return [
        (int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True) if b - a >= shortest
    ]


def _worst(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None
