"""The live foot lock of MotorNerve's runtime: the feet the contact head plants held
where they landed, causally, frame by frame (what a game's foot IK does after its
animation).

The network predicts, each step, the probability that each foot is on the ground (its
contact head, trained on the contact detector's labels). Its poses still let a planted
foot drift and dip under the floor; this pass fixes both on the 60 Hz frames it is
given, reading only the frames up to the current one (the live page runs the same pass,
``static/js/motornerve/foot-lock.js``):

* a foot whose probability rises to :data:`LOCK_ON`, or past :data:`LOCK_OFF` while the
  network puts a sole point within :data:`TOUCH_M` of the floor (a foot landing toe
  first slid 4 cm a step before the head called it planted), is held by its *pivot*, the lowest
  of its sole points (heel, ball, tip): the pivot stays where it landed on the ground
  while the foot turns about it as the network turns it (heel strike, flat foot, heel
  off); when another sole point comes :data:`PIVOT_SWITCH_M` lower, it becomes the
  pivot where it is. The ankle goes where that puts it, at the height the network
  gives it; the leg is solved by two-bone IK (the knee bent to the side the network
  bends it, :func:`poles`; the foot's world orientation the network's);
* a held ankle stays within :data:`REACH_SHARE` of the leg's length from the hip (or
  as far as the network's own leg reaches): first the hips come down, up to
  :data:`MAX_DROP_M` (and back up at :data:`DROP_RECOVER_MPS`), then the foot is
  dragged; a foot held while the hips are down starts that far under the network's
  (:attr:`FootState.landed_drop`) and rises to it at :data:`DROP_RECOVER_MPS`;
* it lets go when the probability falls below :data:`LOCK_OFF`, or when the network's
  ankle has gone :data:`UNLOCK_M` away on the ground (a foot the network moves while
  calling it planted: holding on would twist the leg), and locks again only once the
  correction has faded out over :data:`RELEASE_S` (smoothstep), or longer for a
  correction of more than :data:`RELEASE_MPS` × :data:`RELEASE_S`; the foot goes back
  as a step, not a skid: it rises up to :data:`STEP_LIFT_SHARE` of the way it has to
  go on the ground and crosses the ground while up (:func:`_returning`);
* always, the ankle is raised as far as the foot's lowest sole point is under the
  floor (``floor_m``).

Nothing here is graded by itself: :mod:`motioncore.measures` measures the result with
its own notion of a planted foot.

Shapes: positions ``[F, J, 3]`` metres, Y up; global rotations ``[F, J, 4]``;
probabilities ``[F, 2]`` (left, right).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, ik, quat
from motioncore.clip import Clip, Skeleton
from motioncore.contacts.foot_points import Side
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]

LOCK_ON = 0.6
LOCK_OFF = 0.4
RELEASE_S = 0.25
RELEASE_MPS = 0.5
"""A release's correction takes at least its length over this speed (m/s): over 0.25 s,
the step back of a foot let go 25 cm from the network's would cross the ground in
0.125 s (3 m/s at its fastest), a flick rather than a step."""
STEP_LIFT_SHARE = 0.25
"""How high a released foot rises on its way back, per metre it goes on the ground (a
walking step's ankle rises about a quarter of its length): a foot let go 15-25 cm from
the network's (which had moved it while its head called it planted: CMU 14_08,
ReActIdle 002) slid back along the floor, 0.2-0.8 m a "step" to the measures."""
REACH_SHARE = 0.99
"""A held ankle farther from the hip than this share of the leg lets go."""
UNLOCK_M = 0.25
"""A held ankle this far (on the ground) from the network's lets go."""
TOUCH_M = 0.01
"""A foot whose probability is past :data:`LOCK_OFF` is held, without waiting for
:data:`LOCK_ON`, once the network puts a sole point this near the floor."""
PIVOT_SWITCH_M = 0.005
"""A sole point this much lower than the pivot becomes the pivot."""
POLE_M = 0.1
"""How far ahead of the knee (along the foot) the knee bends towards, metres."""
MAX_DROP_M = 0.05
DROP_RECOVER_MPS = 0.2
"""The hips come down (at most :data:`MAX_DROP_M`) as far as a held foot needs to stay
in reach, and go back up at this speed when it no longer does."""
SIDES: tuple[Side, Side] = ("left", "right")


@dataclass(frozen=True)
class Leg:
    """One leg's joints (indices) and its sole points: ``sole`` joints below the ankle
    (ball, tip) and the heel in the ankle's frame (``heel_local [3]``, metres)."""

    hip: int
    knee: int
    ankle: int
    sole: tuple[int, ...]
    heel_local: FloatArray


def legs(skeleton: Skeleton, roles: JointRoles) -> tuple[Leg, Leg]:
    """The two legs of ``skeleton``; the heel sits under the ankle as far as the ankle
    stands above the lowest foot joint in the rest pose."""
    rest = fk.rest_positions(skeleton.offsets, skeleton.parents)
    out = []
    for side in SIDES:
        ankle = roles.require(f"{side}_foot")[0]
        below = [int(j) for j in skeleton.descendants(ankle)]
        lowest = min((float(rest[j, 1]) for j in below), default=float(rest[ankle, 1]))
        heel = np.array([0.0, lowest - float(rest[ankle, 1]), 0.0])
        out.append(
            Leg(
                roles.require(f"{side}_upper_leg")[0],
                roles.require(f"{side}_lower_leg")[0],
                ankle,
                tuple(below),
                heel,
            )
        )
    return out[0], out[1]


@dataclass
class FootState:
    """One foot's lock: whether held, which sole point is the pivot (:func:`sole_points`
    order) and where it is held (``anchor [3]``), and the correction fading out after a
    release (``offset [3]``, ``fade`` 1 → 0 by ``fade_step`` a frame, :func:`release_step`;
    the step's height ``lift``; no new lock before it ends); ``landed_drop``: how far the
    held foot is under the network's: the hips' drop when it was held, less
    :data:`DROP_RECOVER_MPS` a second since."""

    held: bool = False
    pivot: int = 0
    anchor: FloatArray | None = None
    offset: FloatArray | None = None
    fade: float = 0.0
    fade_step: float = 1.0
    lift: float = 0.0
    landed_drop: float = 0.0


@dataclass(frozen=True, eq=False)
class Targets:
    """Where the ankles go ``ankles [F, 2, 3]`` and how far the hips are lowered
    ``drop [F]`` (metres, ≥ 0)."""

    ankles: FloatArray
    drop: FloatArray


def sole_points(positions: FloatArray, rotations: FloatArray, leg: Leg) -> FloatArray:
    """``[..., 1 + len(leg.sole), 3]`` the heel then the sole joints of the foot, for
    poses ``positions [..., J, 3]`` and global ``rotations [..., J, 4]``."""
    ankle = positions[..., leg.ankle, :]
    heel = ankle + quat.rotate(rotations[..., leg.ankle, :], leg.heel_local)
    return np.concatenate([heel[..., None, :], positions[..., list(leg.sole), :]], axis=-2)


def targets(
    positions: FloatArray,
    rotations: FloatArray,
    probabilities: FloatArray,
    leg_pair: tuple[Leg, Leg],
    fps: float,
    floor_m: float = 0.0,
) -> Targets:
    """The :class:`Targets` of the unlocked world ``positions [F, J, 3]`` and global
    ``rotations [F, J, 4]`` (module docstring), frame by frame."""
    frames = len(positions)
    ankles, drops = np.empty((frames, 2, 3)), np.zeros(frames)
    reach = [REACH_SHARE * _leg_length(positions[0], leg) for leg in leg_pair]
    soles = [sole_points(positions, rotations, leg) for leg in leg_pair]
    feet = (FootState(), FootState())
    drop = 0.0
    for f in range(frames):
        poses = [
            _Pose(positions[f, leg.ankle], positions[f, leg.hip], soles[side][f])
            for side, leg in enumerate(leg_pair)
        ]
        needed = max(
            (
                _drop_to_reach(foot, pose, r, floor_m)
                for foot, pose, r in zip(feet, poses, reach, strict=True)
                if foot.held
            ),
            default=0.0,
        )
        drop = min(max(needed, drop - DROP_RECOVER_MPS / fps), MAX_DROP_M)
        drops[f] = drop
        for foot in feet:
            foot.landed_drop = max(foot.landed_drop - DROP_RECOVER_MPS / fps, 0.0)
        for side, (foot, pose) in enumerate(zip(feet, poses, strict=True)):
            probability = float(probabilities[f, side])
            ankles[f, side] = _foot_target(
                foot, pose.lowered(drop), probability, reach[side], floor_m, drop, fps
            )
            if not foot.held and foot.offset is not None:
                foot.fade = max(foot.fade - foot.fade_step, 0.0)
                if foot.fade == 0.0:
                    foot.offset = None
    return Targets(ankles, drops)


@dataclass(frozen=True, eq=False)
class _Pose:
    """One leg at one frame: its ankle and hip ``[3]`` and its sole points ``[P, 3]``."""

    ankle: FloatArray
    hip: FloatArray
    sole: FloatArray

    def lowered(self, drop: float) -> _Pose:
        down = np.array([0.0, drop, 0.0])
        return _Pose(self.ankle - down, self.hip - down, self.sole - down)


def _foot_target(
    foot: FootState,
    pose: _Pose,
    probability: float,
    reach: float,
    floor_m: float,
    drop: float,
    fps: float,
) -> FloatArray:
    """One foot's ankle target at one frame (``pose`` with the hips already lowered by
    ``drop``), updating its :class:`FootState`."""
    ankle, sole = pose.ankle, pose.sole
    free = ankle if foot.offset is None else _returning(ankle, foot)
    free = _above_floor(free, pose, floor_m)
    landing = probability >= LOCK_OFF and float(sole[:, 1].min()) + drop - floor_m < TOUCH_M
    engage = probability >= LOCK_ON or landing
    if not foot.held and engage and foot.offset is None:
        foot.held, foot.offset, foot.landed_drop = True, None, drop
        foot.pivot = int(np.argmin(sole[:, 1]))
        foot.anchor = sole[foot.pivot] + (free - ankle)
    if not foot.held or foot.anchor is None:
        return free
    lowest = int(np.argmin(sole[:, 1]))
    if sole[lowest, 1] < sole[foot.pivot, 1] - PIVOT_SWITCH_M:
        foot.anchor = foot.anchor + (sole[lowest] - sole[foot.pivot])
        foot.pivot = lowest
    held = _held_ankle(foot, pose, floor_m, drop)
    held = _within(held, pose.hip, max(reach, float(np.linalg.norm(ankle - pose.hip))))
    foot.anchor = held + (sole[foot.pivot] - ankle)
    away = float(np.hypot(*(held - ankle)[[0, 2]]))
    if probability < LOCK_OFF or away > UNLOCK_M:
        foot.held = False
        foot.offset, foot.fade = held - ankle, 1.0
        foot.fade_step = release_step(foot.offset, fps)
        foot.lift = STEP_LIFT_SHARE * float(np.hypot(*foot.offset[[0, 2]]))
    return held


def _held_ankle(foot: FootState, pose: _Pose, floor_m: float, drop: float) -> FloatArray:
    """Where a held foot's ankle goes before the reach: its pivot at the anchor on the
    ground, the ankle at the network's height less the drop it was held at (``pose``
    lowered by ``drop``: hips coming down further bend the knee; a foot held while they
    were down is not lifted by the drop at once: that flipped a knee 32°), above the floor."""
    assert foot.anchor is not None
    at = foot.anchor - (pose.sole[foot.pivot] - pose.ankle)
    at[1] = pose.ankle[1] + drop - foot.landed_drop
    return _above_floor(at, pose, floor_m)


def _drop_to_reach(foot: FootState, pose: _Pose, reach: float, floor_m: float) -> float:
    """How far the hips must come down (from the network's ``pose``) for the leg to
    reach where its held foot's ankle goes (0 when it does; as far as straight down
    allows when it cannot)."""
    if foot.anchor is None:
        return 0.0
    at = _held_ankle(foot, pose, floor_m, 0.0)
    radius = max(reach, float(np.linalg.norm(pose.ankle - pose.hip)))
    across = float(np.hypot(*(at - pose.hip)[[0, 2]]))
    above = float(pose.hip[1] - at[1])
    if across >= radius:
        return max(above, 0.0)
    return max(above - float(np.sqrt(radius**2 - across**2)), 0.0)


def poles(positions: FloatArray, leg: Leg, targets: FloatArray) -> FloatArray:
    """``[F, 3]`` where each knee bends towards as its ankle goes to ``targets [F, 3]``:
    the network's leg turned about the hip onto the hip-target line (the shortest turn),
    its knee then moved :data:`POLE_M` along its foot's ground direction (defined when
    the leg is straight, where the knee alone lies on the line). Taking the network's
    knee where it stood instead swung the knee across the leg when a foot held 23 cm
    aside rose (1,764 °/s at the knee)."""
    hip = positions[:, leg.hip]
    turn = quat.between(positions[:, leg.ankle] - hip, targets - hip)
    knee = hip + quat.rotate(turn, positions[:, leg.knee] - hip)
    toe = quat.rotate(turn, positions[:, leg.sole[0]] - positions[:, leg.ankle])
    toe[:, 1] = 0.0
    size = np.maximum(np.linalg.norm(toe, axis=-1, keepdims=True), 1e-9)
    return np.asarray(knee + POLE_M * toe / size)


def release_step(offset: FloatArray, fps: float) -> float:
    """How much of a release's ``fade`` goes each frame: over :data:`RELEASE_S`, or
    longer so that the ``offset [3]`` (metres) fades at :data:`RELEASE_MPS` at most."""
    seconds = max(RELEASE_S, float(np.linalg.norm(offset)) / RELEASE_MPS)
    return 1.0 / max(seconds * fps, 1.0)


def _returning(ankle: FloatArray, foot: FootState) -> FloatArray:
    """Where a released foot's ankle goes: the network's ``ankle`` plus what is left of
    the correction, as a step: it rises ``foot.lift`` (``sin²`` of the fade, highest at
    its middle) and goes across the ground only in the middle half of the fade, up by at
    least half of that, so it is not dragged along the floor as it leaves or lands."""
    assert foot.offset is not None
    across = _ease(min(max((foot.fade - 0.25) / 0.5, 0.0), 1.0))
    out = np.array(ankle, dtype=np.float64, copy=True)
    out[[0, 2]] += across * foot.offset[[0, 2]]
    out[1] += _ease(foot.fade) * foot.offset[1] + foot.lift * np.sin(np.pi * foot.fade) ** 2
    return out


def _ease(fade: float) -> float:
    """The share of a release's correction left at ``fade`` (1 → 0): smoothstep, so
    the correction starts and ends without a jump in speed."""
    return fade * fade * (3.0 - 2.0 * fade)


def _within(point: FloatArray, centre: FloatArray, radius: float) -> FloatArray:
    """``point`` pulled towards ``centre`` until at most ``radius`` from it."""
    away = point - centre
    size = float(np.linalg.norm(away))
    return point if size <= radius else centre + away * (radius / size)


def _leg_length(positions: FloatArray, leg: Leg) -> float:
    thigh = np.linalg.norm(positions[leg.knee] - positions[leg.hip])
    shin = np.linalg.norm(positions[leg.ankle] - positions[leg.knee])
    return float(thigh + shin)


def _above_floor(ankle_at: FloatArray, pose: _Pose, floor_m: float) -> FloatArray:
    """``ankle_at`` raised so that the foot, moved there rigidly from ``pose``, has no
    sole point under ``floor_m``."""
    lowest = float(pose.sole[:, 1].min()) + float(ankle_at[1] - pose.ankle[1])
    out = np.array(ankle_at, dtype=np.float64, copy=True)
    if lowest < floor_m:
        out[1] += floor_m - lowest
    return out


def lock(
    clip: Clip,
    probabilities: FloatArray,
    roles: JointRoles,
    floor_m: float = 0.0,
) -> Clip:
    """``clip`` with its feet locked by the contact ``probabilities [F, 2]`` (module
    docstring); only the legs' local rotations and the hips' height change."""
    rotations, positions = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    pair = legs(clip.skeleton, roles)
    wanted = targets(positions, rotations, probabilities, pair, clip.fps, floor_m)
    translations = clip.translations.copy()
    translations[:, 0, 1] -= wanted.drop
    positions = positions - wanted.drop[:, None, None] * np.array([0.0, 1.0, 0.0])
    local = clip.rotations
    for side, leg in enumerate(pair):
        local = ik.chain(
            local,
            rotations,
            positions,
            clip.skeleton.parents,
            (leg.hip, leg.knee, leg.ankle),
            wanted.ankles[:, side],
            poles(positions, leg, wanted.ankles[:, side]),
            minimal=True,
        )
    return clip.with_arrays(local, translations)


def browser_config(skeleton: Skeleton, roles: JointRoles) -> dict[str, Any]:
    """What the browser's port (``static/js/motornerve/foot-lock.js``) reads: this
    module's constants and the legs of ``skeleton`` (joint indices, the heel in the
    ankle's frame), so that it copies none of them."""
    return {
        "LOCK_ON": LOCK_ON,
        "LOCK_OFF": LOCK_OFF,
        "RELEASE_S": RELEASE_S,
        "RELEASE_MPS": RELEASE_MPS,
        "STEP_LIFT_SHARE": STEP_LIFT_SHARE,
        "REACH_SHARE": REACH_SHARE,
        "PIVOT_SWITCH_M": PIVOT_SWITCH_M,
        "UNLOCK_M": UNLOCK_M,
        "TOUCH_M": TOUCH_M,
        "POLE_M": POLE_M,
        "MAX_DROP_M": MAX_DROP_M,
        "DROP_RECOVER_MPS": DROP_RECOVER_MPS,
        "legs": [
            {
                "hip": leg.hip,
                "knee": leg.knee,
                "ankle": leg.ankle,
                "sole": list(leg.sole),
                "heel_local": [float(x) for x in leg.heel_local],
            }
            for leg in legs(skeleton, roles)
        ],
    }
