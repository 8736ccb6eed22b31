"""Foot skid per ground contact: how far each sole point travels while it touches the
floor (definition in :mod:`motioncore.measures`).

:func:`motioncore.measures.foot_slide` grades the planted foot, slower than
:data:`~motioncore.measures.feet.PLANTED_SPEED_MPS`; a foot that skids fast as it lands
or drags as it lifts off is not planted by that test and never graded. Here contact is
height alone, with no speed gate: a sole point (heel, ball, tip) is on the floor while
it is within :data:`CONTACT_BAND_M` of it, each point judged on its own (a rolling foot
keeps its ball down while its heel lifts). A foot that turns on its ball sweeps its
heel and tip over the floor (the tip of a half turn on the ball travels the 12 cm
across its arc): a point's contact that another point of the same foot spans, in
contact and still (within :data:`ANCHOR_STILL_M`) from when it touches until it
leaves (to within :data:`ANCHOR_EDGE_FRAMES`), is the foot turning about that point,
not skidding (``turned_about``); the worst skid leaves those out and lists them.

Conventions: ``F`` frames; metres, seconds, Y up, world frame.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from motioncore import fk
from motioncore import skeleton as roles_mod
from motioncore.clip import Clip
from motioncore.contacts import foot_points
from motioncore.contacts.foot_points import Foot
from motioncore.measures.feet import _runs, estimate_floor, speeds
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]

CONTACT_BAND_M = 0.01
"""A sole point within this of the floor (metres) touches it: the 1 cm a foot resting on
the floor may stand off it on a rig whose sole points sit a little above the sole."""

ANCHOR_STILL_M = 0.005
"""The most a point may move (metres) and still be the axis a foot turns about: the
2 mm that millimetre jitter reads, and the few millimetres a ball moves as the foot
rolls off it onto the toes."""
ANCHOR_EDGE_FRAMES = 1
"""Frames the axis's contact may start after, or end before, the turning point's: a
contact's ends are found to a frame, and a foot peeling off its ball leaves the toe
tip down a frame longer."""


@dataclass(frozen=True)
class Contact:
    """One sole point's contact with the floor.

    Attributes:
        side: ``"left"`` or ``"right"``.
        point: ``"heel"``, ``"ball"`` or ``"tip"``.
        first_frame, last_frame: the first and last frames it touches (inclusive).
        skid_m: the furthest it gets, horizontally, from where it touched down while it
            touches (see :func:`point_skids`), metres.
        peak_speed_mps: its fastest horizontal speed (:func:`motioncore.measures.speeds`)
            over the contact frames, m/s.
        turned_about: the point of the same foot that stays in contact and still over
            the whole of this contact (the foot turned about it: not a skid), or
            ``None``.
    """

    side: str
    point: str
    first_frame: int
    last_frame: int
    skid_m: float
    peak_speed_mps: float
    turned_about: str | None = None

    def as_dict(self) -> dict[str, object]:
        """JSON-able form; units in the keys."""
        return dict(vars(self))


@dataclass(frozen=True)
class Skid:
    """The contacts of a clip's sole points and their skid.

    Attributes:
        floor_m: the floor used, metres (world height).
        fps: the clip's frame rate, Hz (a contact's frames to seconds).
        sides: the feet measured.
        contacts: every contact of every sole point, in order of foot, point, frame.
    """

    floor_m: float
    fps: float
    sides: tuple[str, ...]
    contacts: tuple[Contact, ...]

    @property
    def skids(self) -> tuple[Contact, ...]:
        """The contacts that are not a turn about another point of the foot."""
        return tuple(c for c in self.contacts if c.turned_about is None)

    @property
    def worst(self) -> Contact | None:
        """The contact that skids furthest (turns left out), ``None`` when nothing
        touches the floor."""
        return max(self.skids, key=lambda c: c.skid_m, default=None)

    @property
    def worst_m(self) -> float:
        """The furthest any contact skids, metres (0 when nothing touches)."""
        return self.worst.skid_m if self.worst is not None else 0.0

    @property
    def per_foot_m(self) -> dict[str, float]:
        """Per foot, the furthest any of its contacts skids, metres."""
        skids = {s: [c.skid_m for c in self.skids if c.side == s] for s in self.sides}
        return {s: max(v, default=0.0) for s, v in skids.items()}

    def as_dict(self) -> dict[str, object]:
        """JSON-able form; units in the keys."""
        worst = self.worst
        return {
            "floor_m": self.floor_m,
            "worst_m": self.worst_m,
            "per_foot_m": self.per_foot_m,
            "worst": worst.as_dict() if worst is not None else None,
            "contacts": [c.as_dict() for c in self.contacts],
        }


def contact_skid(
    clip: Clip,
    roles: JointRoles | None = None,
    *,
    floor_m: float | None = None,
    feet: tuple[Foot, ...] | None = None,
    band_m: float = CONTACT_BAND_M,
) -> Skid:
    """The skid of every sole point's every contact with the floor in ``clip``.

    Args:
        clip: the clip (metres, Y up).
        roles: joint roles; inferred when ``None``.
        floor_m: the floor's height when known (metres); estimated from the feet as
            :func:`motioncore.measures.measure` does when ``None``.
        feet: the feet's points (:func:`motioncore.contacts.foot_points.feet`);
            estimated from this clip when ``None``.
        band_m: how near the floor a point touches it, metres.

    Returns:
        The contacts; a rig without feet has none.
    """
    roles = roles if roles is not None else roles_mod.infer(clip.skeleton)
    g_rot, g_pos = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    if feet is None:
        feet = foot_points.feet(clip.skeleton, roles, g_rot, g_pos)
    world = [foot_points.points(f, g_rot, g_pos) for f in feet]
    floor = floor_m if floor_m is not None else estimate_floor(world)
    contacts = []
    for foot, pts in zip(feet, world, strict=True):
        ours = []
        for index, name in enumerate(foot.names):
            if name in foot_points.SOLE:
                found = point_skids(pts[:, index], floor, clip.fps, band_m=band_m)
                ours += [Contact(foot.side, name, *c) for c in found]
        contacts += [_turned(c, ours) for c in ours]
    return Skid(float(floor), clip.fps, tuple(f.side for f in feet), tuple(contacts))


def _turned(contact: Contact, foot: list[Contact]) -> Contact:
    """``contact`` with the point it turned about, when another point of its foot stays
    in contact and still over all of it (see the module docstring)."""
    for axis in foot:
        if (
            axis.point != contact.point
            and axis.first_frame <= contact.first_frame + ANCHOR_EDGE_FRAMES
            and axis.last_frame >= contact.last_frame - ANCHOR_EDGE_FRAMES
            and axis.skid_m <= ANCHOR_STILL_M < contact.skid_m
        ):
            return replace(contact, turned_about=axis.point)
    return contact


def point_skids(
    track: FloatArray, floor_m: float, fps: float, *, band_m: float = CONTACT_BAND_M
) -> list[tuple[int, int, float, float]]:
    """One point's contacts with the floor and how far it skids in each.

    The point touches the floor while its height is under ``floor_m + band_m``. Its path
    is the straight line between frames, so a contact begins and ends where that line
    crosses the band, inside the frame before and the frame after its frames: a foot
    that touches for one frame at speed travels the time the line spends in the band.
    The skid is the largest horizontal distance of the path in contact from the point
    where it entered the band (or from the first frame when the clip begins in
    contact): the net travel, which jitter of ±1 mm leaves at 2 mm where a path length
    would add it up frame by frame, and which still reads a stance that drifts and
    comes back.

    Args:
        track: ``[F, 3]`` the point's world positions, metres.
        floor_m: the floor's height, metres.
        fps: frame rate, Hz.
        band_m: how near the floor the point touches it, metres.

    Returns:
        Per contact: its first and last frames (inclusive), its skid (metres) and the
        point's fastest horizontal speed over its frames (m/s).
    """
    height = track[:, 1] - floor_m
    flat = track[:, [0, 2]]
    speed = speeds(track, fps, horizontal=True)
    out = []
    for start, stop in _runs(height < band_m, 1):
        path = [flat[start:stop]]
        if stop < track.shape[0]:
            path.append(_crossing(flat, height, stop - 1, stop, band_m))
        entry = flat[start] if start == 0 else _crossing(flat, height, start, start - 1, band_m)
        skid = float(np.max(np.linalg.norm(np.vstack(path) - entry, axis=-1)))
        out.append((start, stop - 1, skid, float(speed[start:stop].max())))
    return out


def _crossing(
    flat: FloatArray, height: FloatArray, inside: int, outside: int, band_m: float
) -> FloatArray:
    """``[2]`` where the line from frame ``inside`` (in the band) to ``outside`` leaves it."""
    share = (band_m - height[inside]) / (height[outside] - height[inside])
    return np.asarray(flat[inside] + np.clip(share, 0.0, 1.0) * (flat[outside] - flat[inside]))
