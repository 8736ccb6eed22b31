"""Foot contacts: when each foot is planted, on which of its points, and its steps.

A foot is the points of :mod:`motioncore.foot_points` (heel, ankle, ball, toe tip;
as many as the rig has). The clip has **one floor**: the height its feet's sole
points (heel, ball, tip) rest at most, the mode of the lowest sole point's height
over the clip (:func:`floor_height`). Each point has a **clearance**, its lowest
usual height above that floor (the ankle stands some 6-10 cm up; a rig's toe
joint may sit 4-8 cm above the sole). A point is measured by its height above
its **local floor** (:func:`local_lift`: its lowest height within ``footprint_s``
either side, never under the clip's floor + clearance, nor more than
``max_step_of_leg`` above it), so uneven ground and drifting captures keep each
footprint.

A point is **down** by hysteresis: it touches down on a frame where it is lower
than ``enter_height_of_leg`` x leg and slower than ``enter_speed_legs_per_s`` x
leg per second (or lower than ``touch_height_of_leg`` x leg and slower than
``touch_speed_legs_per_s`` x leg per second: a planted foot the capture slides),
and stays down until it rises above ``leave_height_of_leg`` x leg or moves faster
than ``leave_speed_legs_per_s`` x leg per second. Thresholds are
fractions of the leg (thigh + shin), so a child and a giant are read alike, and
speeds are taken from positions smoothed over ``smoothing_s`` seconds (a
Savitzky-Golay derivative), so noise weighs the same at 30, 60 and 120 Hz. A foot
is in **contact** while any of its points is down; contact gaps shorter than
``min_gap_s`` are filled, then contacts shorter than ``min_contact_s`` dropped.

Each contact run is a **step** with its events (:class:`Step`): heel strike
(the heel touches first), foot flat (heel and forefoot both on their floor, within
the touch band), heel off and toe off (the contact ends), in seconds.

Why not seed 002 §3.2's 0.08 m/s as the default ("阈值选 0.08 m/s 量级比较稳",
with a closing of 3 frames): a real ankle is that slow only for a few frames of
each stance (the foot rolls heel to ball while the body passes over it), so
walking feet read 5-27 % planted where they are planted 55-65 % of the time, and
everything built on contacts (the phase, the foot lock, skate) inherits the
error (measured: the GAMES-105 walk reads 10-20 % by the seed's rule, 50-60 % by
this one). The seed's rule stays available: ``speed_threshold_mps=0.08`` replaces
every speed threshold by that fixed speed.

Conventions: ``F`` frames, ``fps`` Hz; metres, seconds, Y up, world frame;
masks ``[F]`` bool.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import gaussian_filter1d, minimum_filter1d
from scipy.signal import savgol_filter

from motioncore import fk, foot_points
from motioncore import skeleton as roles_mod
from motioncore.clip import Clip
from motioncore.foot_points import SIDES, SOLE, Foot, PointName, Side
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

__all__ = ["SIDES", "Contacts", "FootContacts", "Side", "Step", "detect", "segments"]

FLOOR_BIN_M = 0.0025
"""Histogram bin of the floor's mode, metres."""
FLOOR_SMOOTH_M = 0.005
"""Gaussian smoothing of that histogram, metres (sensor noise of a still foot)."""


@dataclass(frozen=True)
class Step:
    """One contact of one foot, its events in seconds from the clip's start.

    ``heel_strike_s`` is ``None`` when the forefoot touched first (a toe-first
    landing, or a rig without heel and forefoot both), ``foot_flat_s`` and
    ``heel_off_s`` when heel and forefoot were never down together.
    """

    side: Side
    start: int
    stop: int
    first_point: PointName
    heel_strike_s: float | None
    foot_flat_s: float | None
    heel_off_s: float | None
    toe_off_s: float

    def as_dict(self) -> dict[str, object]:
        """JSON-able form (frames and seconds)."""
        return {
            "side": self.side,
            "start_frame": self.start,
            "stop_frame": self.stop,
            "first_point": self.first_point,
            "heel_strike_s": self.heel_strike_s,
            "foot_flat_s": self.foot_flat_s,
            "heel_off_s": self.heel_off_s,
            "toe_off_s": self.toe_off_s,
        }


@dataclass(frozen=True)
class FootContacts:
    """Contacts of one foot.

    Attributes:
        side: ``"left"`` or ``"right"``.
        foot: index of the ankle joint (``foot`` role).
        toe: index of the ball joint (``toe`` role), ``None`` when the rig has none.
        contact: ``[F]`` the foot touches the ground (some point down; gaps filled).
        points: point name -> ``[F]`` that point is down (inside ``contact``).
        on_floor: point name -> ``[F]`` that point lies on its floor, within the
            touch band (inside ``contact``): the heel and the forefoot both on the
            floor is the foot flat; the events of :class:`Step` come from these.
        geometry: the foot's points on the rig (heel estimate included).
    """

    side: Side
    foot: int
    toe: int | None
    contact: BoolArray
    points: dict[PointName, BoolArray] = field(default_factory=dict)
    on_floor: dict[PointName, BoolArray] = field(default_factory=dict)
    geometry: Foot | None = None

    @property
    def frames(self) -> int:
        """Number of contact frames."""
        return int(np.count_nonzero(self.contact))

    def rear(self, masks: dict[PointName, BoolArray] | None = None) -> BoolArray:
        """``[F]`` the heel (or the ankle) is down (``masks``: :attr:`points` by default)."""
        return self._any(masks if masks is not None else self.points, ("heel", "ankle"))

    def fore(self, masks: dict[PointName, BoolArray] | None = None) -> BoolArray:
        """``[F]`` the ball (or the tip) is down (``masks``: :attr:`points` by default)."""
        return self._any(masks if masks is not None else self.points, ("ball", "tip"))

    def _any(self, masks: dict[PointName, BoolArray], names: tuple[PointName, ...]) -> BoolArray:
        found = [masks[p] for p in names if p in masks]
        return np.logical_or.reduce(found) if found else np.zeros_like(self.contact)


@dataclass(frozen=True)
class Contacts:
    """Contacts of every foot the rig has (see the module docstring).

    Attributes:
        feet: one entry per resolved foot, left first.
        floor_m: world height of the floor, metres.
        leg_m: leg length (thigh + shin) the thresholds scale with, metres.
        clearance_m: ``"<side>_<point>"`` -> that point's clearance, metres.
        fps: frame rate, Hz.
    """

    feet: tuple[FootContacts, ...]
    floor_m: float
    leg_m: float
    clearance_m: dict[str, float]
    fps: float

    def get(self, side: Side) -> FootContacts | None:
        """The contacts of ``side``, ``None`` when that foot is not resolved."""
        return next((f for f in self.feet if f.side == side), None)

    def steps(self) -> list[Step]:
        """Every contact of both feet as a :class:`Step`, in time order."""
        found = [s for foot in self.feet for s in steps(foot, self.fps)]
        return sorted(found, key=lambda s: (s.start, s.side))


def detect(
    clip: Clip,
    roles: JointRoles | None = None,
    *,
    enter_height_of_leg: float = 0.03,
    leave_height_of_leg: float = 0.05,
    enter_speed_legs_per_s: float = 0.6,
    leave_speed_legs_per_s: float = 1.0,
    speed_threshold_mps: float | None = None,
    min_contact_s: float = 0.05,
    min_gap_s: float = 0.05,
    smoothing_s: float = 0.05,
    footprint_s: float = 0.4,
    floor_m: float | None = None,
    touch_height_of_leg: float = 0.012,
    touch_speed_legs_per_s: float = 1.2,
    max_step_of_leg: float = 0.15,
    positions: FloatArray | None = None,
    rotations: FloatArray | None = None,
) -> Contacts:
    """Foot contacts of ``clip`` (see the module docstring).

    Args:
        clip: the clip (world Y up, metres).
        roles: joint roles; inferred from the skeleton when ``None``.
        enter_height_of_leg, leave_height_of_leg: a point touches down below the
            first and lifts above the second, as fractions of the leg, over its
            local floor + clearance (0.03 and 0.05: 2.5 and 4.2 cm on a 0.84 m leg).
        enter_speed_legs_per_s, leave_speed_legs_per_s: ... and slower than the
            first, faster than the second, in legs per second (0.6 and 1.0:
            0.5 and 0.84 m/s on a 0.84 m leg).
        speed_threshold_mps: a fixed speed for every speed rule instead (seed 002
            §3.2's 0.08 m/s; not the default, see the module docstring), m/s.
        min_contact_s: shorter contacts are dropped, seconds.
        min_gap_s: shorter gaps between contacts are filled, seconds.
        smoothing_s: window of the speed estimate, seconds.
        footprint_s: a point's local floor is its lowest height within this many
            seconds either side (:func:`local_lift`).
        max_step_of_leg: a local floor higher than this (fraction of the leg)
            over the clip's floor is no footprint (a foot held up).
        touch_height_of_leg, touch_speed_legs_per_s: a point this close to its
            floor (fraction of the leg) touches down while slower than the second
            (legs per second) even when the first speed rule says no: a capture
            whose planted feet slide (0.012: 1 cm on a 0.84 m leg; 1.2: 1 m/s).
        floor_m: the floor's height when it is known (motion made on the ground
            plane: 0), metres; estimated (:func:`floor_height`) when ``None``.
        positions: ``[F, J, 3]`` world positions if already computed.
        rotations: ``[F, J, 4]`` global rotations if already computed (with
            ``positions``; computed by forward kinematics otherwise).

    Returns:
        The contacts of every foot whose ``foot`` role is resolved (none when
        the rig has no feet).
    """
    roles = roles if roles is not None else roles_mod.infer(clip.skeleton)
    g_rot, g_pos = _kinematics(clip, positions, rotations)
    geometry = foot_points.feet(clip.skeleton, roles, g_rot, g_pos)
    leg = foot_points.leg_length_m(geometry)
    leg = leg if math.isfinite(leg) else 0.84
    world = {f.side: foot_points.points(f, g_rot, g_pos) for f in geometry}
    floor = floor_m if floor_m is not None else floor_height(geometry, world)
    if speed_threshold_mps is not None:
        speeds_in = speeds_out = speed_touch = speed_threshold_mps
    else:
        speeds_in, speeds_out = enter_speed_legs_per_s * leg, leave_speed_legs_per_s * leg
        speed_touch = touch_speed_legs_per_s * leg
    heights = (enter_height_of_leg * leg, leave_height_of_leg * leg)
    feet: list[FootContacts] = []
    clearance: dict[str, float] = {}
    for foot in geometry:
        pts = world[foot.side]
        lift = pts[..., 1] - floor
        low = np.maximum(np.percentile(lift, 5.0, axis=0), 0.0)
        clearance |= {f"{foot.side}_{n}": float(c) for n, c in zip(foot.names, low, strict=True)}
        local = local_lift(lift - low, _frames(footprint_s, clip.fps), max_step_of_leg * leg)
        speed = point_speeds(pts, clip.fps, smoothing_s=smoothing_s)
        on_floor = local < touch_height_of_leg * leg
        touching = on_floor & (speed < speed_touch)
        down = {
            name: hysteresis(
                enter=((local[:, i] < heights[0]) & (speed[:, i] < speeds_in)) | touching[:, i],
                stay=(local[:, i] <= heights[1]) & (speed[:, i] <= speeds_out),
            )
            for i, name in enumerate(foot.names)
        }
        contact = np.logical_or.reduce(list(down.values()))
        contact = fill_gaps(contact, _frames(min_gap_s, clip.fps))
        contact = drop_short(contact, _frames(min_contact_s, clip.fps))
        masks = {name: m & contact for name, m in down.items()}
        floor_masks = {name: on_floor[:, i] & contact for i, name in enumerate(foot.names)}
        feet.append(
            FootContacts(foot.side, foot.ankle, foot.ball, contact, masks, floor_masks, foot)
        )
    return Contacts(tuple(feet), floor, leg, clearance, clip.fps)


def floor_height(feet: tuple[Foot, ...], world: dict[Side, FloatArray]) -> float:
    """The floor, metres: the mode of the lowest sole point's height over the frames.

    Args:
        feet: the feet (:func:`motioncore.foot_points.feet`).
        world: side -> ``[F, P, 3]`` world positions of that foot's points.

    Returns:
        The most frequent height (histogram of :data:`FLOOR_BIN_M` bins smoothed
        by :data:`FLOOR_SMOOTH_M`) of the lowest heel, ball or tip of both feet;
        ``nan`` without feet.
    """
    lows = [
        world[f.side][:, [i for i, n in enumerate(f.names) if n in SOLE], 1].min(axis=1)
        for f in feet
    ]
    if not lows or lows[0].size == 0:
        return float("nan")
    sole = np.min(lows, axis=0)
    edges = np.arange(sole.min(), sole.max() + 2 * FLOOR_BIN_M, FLOOR_BIN_M)
    counts, edges = np.histogram(sole, bins=edges)
    density = gaussian_filter1d(counts.astype(np.float64), FLOOR_SMOOTH_M / FLOOR_BIN_M)
    peak = int(np.argmax(density))
    return float(0.5 * (edges[peak] + edges[peak + 1]))


def local_lift(lift: FloatArray, frames: int, max_step_m: float) -> FloatArray:
    """Heights ``[F, P]`` over each point's local floor (metres).

    The local floor of a point at a frame is its lowest height within ``frames``
    frames either side (the footprint it stands in), so ground that is uneven, or
    a capture whose floor drifts, does not lift a planted foot out of the band.
    A local floor is never below the clip's (a point dipping under it is low
    anyway, and one glitch must not lower the footprints around it), and one more
    than ``max_step_m`` above it is no floor (a foot held still in the air): there
    the height over the clip's floor is kept.
    """
    floor = np.maximum(minimum_filter1d(lift, size=2 * frames + 1, axis=0, mode="nearest"), 0.0)
    return np.where(floor <= max_step_m, lift - floor, lift)


def point_speeds(points: FloatArray, fps: float, *, smoothing_s: float = 0.05) -> FloatArray:
    """Speeds ``[F, P]`` (m/s) of points ``[F, P, 3]``: a Savitzky-Golay derivative.

    The window is ``smoothing_s`` seconds (at least 3 frames, odd), quadratic, so
    a still point reads the same small noise at any frame rate.
    """
    frames = points.shape[0]
    if frames < 3:
        return np.zeros(points.shape[:-1])
    window = min(max(2 * round(smoothing_s * fps / 2) + 1, 3), frames - (1 - frames % 2))
    order = min(2, window - 1)
    velocity = savgol_filter(points, window, order, deriv=1, axis=0, mode="interp") * fps
    return np.asarray(np.linalg.norm(velocity, axis=-1))


def hysteresis(enter: BoolArray, stay: BoolArray) -> BoolArray:
    """``[F]`` on from a frame where ``enter`` holds until ``stay`` stops holding.

    ``enter`` is taken inside ``stay``; each run of ``stay`` is on from its first
    ``enter`` frame to its end.
    """
    stay = np.asarray(stay, dtype=bool) | np.asarray(enter, dtype=bool)
    out = np.zeros_like(stay)
    for start, stop in segments(stay):
        hits = np.flatnonzero(enter[start:stop])
        if hits.size:
            out[start + int(hits[0]) : stop] = True
    return out


def fill_gaps(mask: BoolArray, frames: int) -> BoolArray:
    """``mask [F]`` with gaps shorter than ``frames`` between two runs filled."""
    out = np.asarray(mask, dtype=bool).copy()
    runs = segments(out)
    for (_, stop), (start, _) in itertools.pairwise(runs):
        if start - stop < frames:
            out[stop:start] = True
    return out


def drop_short(mask: BoolArray, frames: int) -> BoolArray:
    """``mask [F]`` without runs shorter than ``frames``, except runs that touch the
    first or the last frame (the clip cuts them: their length is not seen)."""
    out = np.asarray(mask, dtype=bool).copy()
    for start, stop in segments(out):
        if stop - start < frames and start > 0 and stop < out.size:
            out[start:stop] = False
    return out


def steps(foot: FootContacts, fps: float) -> list[Step]:
    """The contact runs of ``foot`` with their events (see :class:`Step`).

    The heel strikes when the rear foot is down on the contact's first frame;
    the foot is flat from the first frame the heel and the forefoot both lie on
    the floor (:attr:`FootContacts.on_floor`); the heel is off after the last
    frame it lies there; the toes are off when the contact ends.
    """
    out = []
    rear, flat_rear, flat_fore = foot.rear(), foot.rear(foot.on_floor), foot.fore(foot.on_floor)
    for start, stop in segments(foot.contact):
        flat = np.flatnonzero(flat_rear[start:stop] & flat_fore[start:stop])
        heel = np.flatnonzero(flat_rear[start:stop])
        out.append(
            Step(
                side=foot.side,
                start=start,
                stop=stop,
                first_point="heel" if rear[start] else "ball",
                heel_strike_s=start / fps if rear[start] else None,
                foot_flat_s=(start + int(flat[0])) / fps if flat.size else None,
                heel_off_s=(start + int(heel[-1]) + 1) / fps if flat.size else None,
                toe_off_s=stop / fps,
            )
        )
    return out


def segments(mask: BoolArray) -> list[tuple[int, int]]:
    """Runs of ``True`` in ``mask [F]`` as ``(start, stop)`` frame pairs (``stop`` exclusive)."""
    padded = np.concatenate([[False], np.asarray(mask, dtype=bool), [False]])
    edges = np.flatnonzero(np.diff(padded.astype(np.int8)))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def _frames(seconds: float, fps: float) -> int:
    return max(round(seconds * fps), 1)


def _kinematics(
    clip: Clip, positions: FloatArray | None, rotations: FloatArray | None
) -> tuple[FloatArray, FloatArray]:
    if positions is not None and rotations is not None:
        return np.asarray(rotations), np.asarray(positions, dtype=np.float64)
    g_rot, g_pos = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    return g_rot, (g_pos if positions is None else np.asarray(positions, dtype=np.float64))
