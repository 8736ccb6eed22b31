"""Foot contacts: when each foot is planted, on which of its points, and its steps.

A foot is the points of :mod:`motioncore.contacts.foot_points` (heel, ankle, ball, toe tip;
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

**Parameters of** :func:`detect` **and their defaults.** ``enter_height_of_leg`` and
``leave_height_of_leg`` (0.03 and 0.05: 2.5 and 4.2 cm on a 0.84 m leg, over the local
floor + clearance); ``enter_speed_legs_per_s`` and ``leave_speed_legs_per_s`` (0.6 and
1.0: 0.5 and 0.84 m/s on a 0.84 m leg); ``touch_height_of_leg`` and
``touch_speed_legs_per_s`` (0.012: 1 cm on a 0.84 m leg; 1.2: 1 m/s), for a capture
whose planted feet slide; ``speed_threshold_mps`` (none: a fixed speed for every speed
rule, seed 002 §3.2's 0.08 m/s); ``min_contact_s`` and ``min_gap_s`` (0.05 s each);
``smoothing_s`` (0.05 s); ``footprint_s`` (0.4 s either side) and ``max_step_of_leg``
(0.15: a local floor higher than this over the clip's floor is no footprint, a foot held
up); ``floor_m``, the floor's height when it is known (motion made on the ground plane:
0), estimated by :func:`~motioncore.contacts.floor.floor_height` otherwise.

Conventions: ``F`` frames, ``fps`` Hz; metres, seconds, Y up, world frame;
masks ``[F]`` bool.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy.signal import savgol_filter

from motioncore import fk
from motioncore import skeleton as roles_mod
from motioncore.clip import Clip
from motioncore.contacts import foot_points
from motioncore.contacts.floor import floor_height, local_lift
from motioncore.contacts.foot_points import Foot, PointName, Side
from motioncore.contacts.masks import drop_short, fill_gaps, hysteresis, segments
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


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
    """Foot contacts of ``clip`` (the module docstring states the rules and each
    parameter's meaning and default).

    Args:
        clip: the clip (world Y up, metres); ``roles``: inferred when ``None``.
        enter_height_of_leg, leave_height_of_leg, enter_speed_legs_per_s,
            leave_speed_legs_per_s: the hysteresis, in legs and legs per second.
        speed_threshold_mps: one fixed speed for every speed rule instead, m/s.
        touch_height_of_leg, touch_speed_legs_per_s: the touch rule.
        min_contact_s, min_gap_s: shorter contacts are dropped, shorter gaps filled.
        smoothing_s: window of the speed estimate, seconds.
        footprint_s, max_step_of_leg: the local floor (:func:`local_lift`).
        floor_m: the floor's height when known, metres; estimated when ``None``.
        positions, rotations: ``[F, J, 3]`` world positions and ``[F, J, 4]`` global
            rotations if already computed (both, or the rotations are computed).

    Returns:
        The contacts of every foot whose ``foot`` role is resolved (none when
        the rig has no feet).
    """
    roles = roles if roles is not None else roles_mod.infer(clip.skeleton)
    geometry, world, leg = _feet(clip, roles, positions, rotations)
    floor = floor_m if floor_m is not None else floor_height(geometry, world)
    rules = _Rules.of(
        leg,
        clip.fps,
        heights_of_leg=(enter_height_of_leg, leave_height_of_leg, touch_height_of_leg),
        speeds_legs_per_s=(enter_speed_legs_per_s, leave_speed_legs_per_s, touch_speed_legs_per_s),
        speed_threshold_mps=speed_threshold_mps,
        seconds=(footprint_s, min_gap_s, min_contact_s, smoothing_s),
        max_step_of_leg=max_step_of_leg,
    )
    found = [_foot_contacts(foot, world[foot.side], floor, rules) for foot in geometry]
    clearance = {name: c for _, foot_clearance in found for name, c in foot_clearance.items()}
    return Contacts(tuple(foot for foot, _ in found), floor, leg, clearance, clip.fps)


@dataclass(frozen=True)
class _Rules:
    """:func:`detect`'s thresholds for one clip, in metres, m/s and frames."""

    enter_m: float
    leave_m: float
    touch_m: float
    enter_mps: float
    leave_mps: float
    touch_mps: float
    footprint: int
    min_gap: int
    min_contact: int
    smoothing_s: float
    max_step_m: float
    fps: float

    @classmethod
    def of(
        cls,
        leg: float,
        fps: float,
        *,
        heights_of_leg: tuple[float, float, float],
        speeds_legs_per_s: tuple[float, float, float],
        speed_threshold_mps: float | None,
        seconds: tuple[float, float, float, float],
        max_step_of_leg: float,
    ) -> _Rules:
        """The rules for a leg ``leg`` metres long at ``fps`` (heights and speeds: enter,
        leave, touch; seconds: footprint, min gap, min contact, smoothing)."""
        if speed_threshold_mps is not None:
            speeds = (speed_threshold_mps, speed_threshold_mps, speed_threshold_mps)
        else:
            speeds = (
                speeds_legs_per_s[0] * leg,
                speeds_legs_per_s[1] * leg,
                speeds_legs_per_s[2] * leg,
            )
        enter, leave, touch = (h * leg for h in heights_of_leg)
        footprint_s, min_gap_s, min_contact_s, smoothing_s = seconds
        return cls(
            enter,
            leave,
            touch,
            *speeds,
            _frames(footprint_s, fps),
            _frames(min_gap_s, fps),
            _frames(min_contact_s, fps),
            smoothing_s,
            max_step_of_leg * leg,
            fps,
        )


def _feet(
    clip: Clip, roles: JointRoles, positions: FloatArray | None, rotations: FloatArray | None
) -> tuple[tuple[Foot, ...], dict[Side, FloatArray], float]:
    """The feet, side -> ``[F, P, 3]`` world positions of their points, and the leg (m;
    0.84 when the rig has no measurable leg)."""
    g_rot, g_pos = _kinematics(clip, positions, rotations)
    geometry = foot_points.feet(clip.skeleton, roles, g_rot, g_pos)
    leg = foot_points.leg_length_m(geometry)
    leg = leg if math.isfinite(leg) else 0.84
    world = {f.side: foot_points.points(f, g_rot, g_pos) for f in geometry}
    return geometry, world, leg


def _foot_contacts(
    foot: Foot, pts: FloatArray, floor: float, rules: _Rules
) -> tuple[FootContacts, dict[str, float]]:
    """The contacts of one foot whose points are at ``pts [F, P, 3]``, and its points'
    clearances (``"<side>_<point>"`` -> metres)."""
    lift = pts[..., 1] - floor
    low = np.maximum(np.percentile(lift, 5.0, axis=0), 0.0)
    clearance = {f"{foot.side}_{n}": float(c) for n, c in zip(foot.names, low, strict=True)}
    local = local_lift(lift - low, rules.footprint, rules.max_step_m)
    speed = point_speeds(pts, rules.fps, smoothing_s=rules.smoothing_s)
    on_floor = local < rules.touch_m
    touching = on_floor & (speed < rules.touch_mps)
    down = {
        name: hysteresis(
            enter=((local[:, i] < rules.enter_m) & (speed[:, i] < rules.enter_mps))
            | touching[:, i],
            stay=(local[:, i] <= rules.leave_m) & (speed[:, i] <= rules.leave_mps),
        )
        for i, name in enumerate(foot.names)
    }
    contact = np.logical_or.reduce(list(down.values()))
    contact = fill_gaps(contact, rules.min_gap)
    contact = drop_short(contact, rules.min_contact)
    masks = {name: m & contact for name, m in down.items()}
    floor_masks = {name: on_floor[:, i] & contact for i, name in enumerate(foot.names)}
    found = FootContacts(foot.side, foot.ankle, foot.ball, contact, masks, floor_masks, foot)
    return found, clearance


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


def _frames(seconds: float, fps: float) -> int:
    return max(round(seconds * fps), 1)


def _kinematics(
    clip: Clip, positions: FloatArray | None, rotations: FloatArray | None
) -> tuple[FloatArray, FloatArray]:
    if positions is not None and rotations is not None:
        return np.asarray(rotations), np.asarray(positions, dtype=np.float64)
    g_rot, g_pos = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    return g_rot, (g_pos if positions is None else np.asarray(positions, dtype=np.float64))
