"""Motion matching: the baseline MotorNerve must beat (seed 001), after Holden et al.'s
"Learned Motion Matching" baseline and Ubisoft's design (orangeduck/Motion-Matching).

**Database**: :mod:`motioncore.motornerve.motion_database` (features, KD-tree).

**Controller** (:func:`drive`): a simulated root
(:class:`motioncore.motornerve.inertialize.SimulatedRoot`) whose ground velocity and turn
rate follow the intent through critically damped springs (:data:`SIMULATION_HALFLIFE_S`),
the intent read as :func:`motioncore.motornerve.intent.from_motion` writes it, in the
simulated root's heading frame: ``direction × speed`` is the velocity wanted, ``facing``
where to face :data:`~motioncore.motornerve.intent.HORIZON_S` from now (so the turn rate
wanted is that angle over that horizon). Every ``search_every_frames`` frames, at once
on a sharp change of the intent and whenever the playing frame is no candidate, a search
for the frame that best matches the playing pose, the simulated root's future (seen from
the character) and the intent's action; a switch if it beats playing on by
:data:`SWITCH_MARGIN` elsewhere than :data:`SAME_PLACE_FRAMES` around the playing frame,
inertialized (:mod:`~motioncore.motornerve.inertialize`, :data:`INERTIALIZE_HALFLIFE_S`:
joint rotations, the hips' height). The character's root moves by the playing frame's
own velocity and turn rate, pulled towards the simulated root
(:data:`SIMULATION_PULL_HALFLIFE_S`).

Shapes: ``F`` frames, ``N`` database frames, ``J`` canonical joints (end sites
included); metres, seconds, radians, Y up, facing 0 along +Z, quaternions (w, x, y, z).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore import quat
from motioncore.clip import Clip
from motioncore.motornerve import inertialize, intent, state
from motioncore.motornerve.motion_database import (
    ACTION,
    FEATURES,
    FUTURE_FRAMES,
    TRAJECTORY_DIRECTIONS,
    TRAJECTORY_POSITIONS,
    Database,
)
from motioncore.skeleton import canonical
from motioncore.skeleton.facing import yaw

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

SIMULATION_HALFLIFE_S = 0.2
"""How fast the simulated root's velocity and turn rate follow the intent."""
INERTIALIZE_HALFLIFE_S = 0.1
"""How fast a switch's pose offset decays (the reference design's 0.1 s)."""
SIMULATION_PULL_HALFLIFE_S = 0.5
"""The character's root moves as its clip does (the feet stay coherent) and closes half
its gap to the simulated root in this time (it answers the intent and does not drift)."""
SWITCH_MARGIN = 0.5
"""A search switches only to a frame at least this much closer (feature distance)."""
SAME_PLACE_FRAMES = 20
"""A match this close to the playing frame in its clip is not a switch (1/3 s)."""
NEAREST_CANDIDATES = 32
"""How many nearest frames a search looks through for one that is not in the same place."""
SHARP_VELOCITY_CHANGE_MPS = 0.5
"""A change of the wanted velocity since the last search that forces one, m/s…"""
SHARP_FACING_CHANGE_RAD = np.pi / 6.0
"""…or of the wanted facing, radians (or of the action)."""

_Shown = tuple[int, FloatArray, FloatArray, float]
"""An output frame: database frame, root ``[3]``, pose offset ``[J, 3]``, height offset."""


@dataclass
class _Character:
    """The controller between frames: the database frame playing, the root ``[3]`` (ground
    x, z in metres, facing in radians; world), the simulated root, offset, last search."""

    frame: int
    root: FloatArray
    simulated: inertialize.SimulatedRoot
    offset: inertialize.Offset
    searched: FloatArray
    since_search: int = 0


def _wanted(want: FloatArray) -> FloatArray:
    """``[3]``: the ground velocity (x, z) an intent ``[intent.SIZE]`` asks for, m/s in
    the heading frame, and its turn rate, rad/s (module docstring)."""
    velocity = want[intent.DIRECTION] * want[intent.SPEED]
    turn = np.arctan2(want[intent.FACING.start], want[intent.FACING.start + 1])
    return np.array([velocity[0], velocity[1], turn / intent.HORIZON_S])


def _future(ch: _Character, wanted: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Where the simulated root will be and face :data:`FUTURE_FRAMES` on if ``wanted [3]``
    holds: ground positions, facing directions ``[3, 2]`` (x, z; the character's frame)."""
    ahead = ch.simulated.future(wanted, FUTURE_FRAMES, SIMULATION_HALFLIFE_S, 1.0 / state.FPS)
    moved = intent.in_heading_frame(ahead[:, :2] - ch.root[:2], ch.root[2])
    turn = ahead[:, 2] - ch.root[2]
    return moved, np.stack([np.sin(turn), np.cos(turn)], axis=-1)


def _query(db: Database, ch: _Character, want: FloatArray, pose: bool = True) -> FloatArray:
    """The features ``[FEATURES]`` (normalised) wanted: the playing frame's pose (or the
    mean pose), the simulated root's future and the intent's action."""
    query = db.features[ch.frame].copy() if pose else np.zeros(FEATURES)
    positions, directions = _future(ch, _wanted(want))
    query[TRAJECTORY_POSITIONS] = db.normalise(positions.ravel(), TRAJECTORY_POSITIONS)
    query[TRAJECTORY_DIRECTIONS] = db.normalise(directions.ravel(), TRAJECTORY_DIRECTIONS)
    action = want[[*range(intent.ACTION.start, intent.ACTION.stop), intent.STRENGTH]]
    query[ACTION] = db.normalise(action, ACTION)
    return query


def _nearest(db: Database, query: FloatArray, k: int = 1) -> tuple[FloatArray, IntArray]:
    """Distances and database frames ``[k]`` of the candidates nearest ``query``, in order."""
    distances, found = db.tree.query(query, k=[*range(1, min(k, len(db.candidates)) + 1)])
    return np.asarray(distances), db.candidates[np.asarray(found)]


def _search(db: Database, ch: _Character, want: FloatArray) -> int | None:
    """The frame to switch to, or ``None`` to play on: of the :data:`NEAREST_CANDIDATES`
    nearest, the first not :data:`SAME_PLACE_FRAMES` from the playing one in its clip (a
    stutter), if it beats playing on by :data:`SWITCH_MARGIN`."""
    query = _query(db, ch, want)
    distances, found = _nearest(db, query, NEAREST_CANDIDATES)
    clip = np.searchsorted(db.starts, [*found, ch.frame], side="right")
    elsewhere = (clip[:-1] != clip[-1]) | (np.abs(found - ch.frame) > SAME_PLACE_FRAMES)
    if not db.is_candidate[ch.frame]:
        return int(found[np.argmax(elsewhere)])
    if not elsewhere.any():
        return None
    k = int(np.argmax(elsewhere))
    playing_on = float(np.linalg.norm(query - db.features[ch.frame]))
    return int(found[k]) if distances[k] + SWITCH_MARGIN < playing_on else None


def _sharp_change(before: FloatArray, now: FloatArray) -> bool:
    """Whether intent ``now`` asks for another action, velocity or facing than ``before``
    (:data:`SHARP_VELOCITY_CHANGE_MPS`, :data:`SHARP_FACING_CHANGE_RAD`)."""
    a, b = _wanted(before), _wanted(now)
    return bool(
        np.argmax(before[intent.ACTION]) != np.argmax(now[intent.ACTION])
        or np.linalg.norm(a[:2] - b[:2]) > SHARP_VELOCITY_CHANGE_MPS
        or abs(a[2] - b[2]) * intent.HORIZON_S > SHARP_FACING_CHANGE_RAD
    )


def _move(db: Database, ch: _Character, wanted: FloatArray) -> None:
    """One frame on: the simulated root follows ``wanted [3]``, the root moves as the clip
    does and towards it (:data:`SIMULATION_PULL_HALFLIFE_S`), the offset decays."""
    dt = 1.0 / state.FPS
    ch.simulated = ch.simulated.stepped(wanted, SIMULATION_HALFLIFE_S, dt)
    own = db.own_motion[ch.frame]
    ground = intent.to_world(own[:2], np.asarray(ch.root[2]))
    moved = ch.root + np.array([ground[0], ground[1], own[2]]) * dt
    pull = 1.0 - 0.5 ** (dt / SIMULATION_PULL_HALFLIFE_S)
    ch.root = moved + pull * (ch.simulated.position - moved)
    ch.offset = ch.offset.decayed(INERTIALIZE_HALFLIFE_S, dt)
    ch.frame += 1


def _step(
    db: Database, ch: _Character, want: FloatArray, every: int, inertialization: bool
) -> bool:
    """Advance the character one frame under ``want [intent.SIZE]``; whether it switched."""
    _move(db, ch, _wanted(want))
    ch.since_search += 1
    due = ch.since_search >= every or not db.is_candidate[ch.frame]
    if not (due or _sharp_change(ch.searched, want)):
        return False
    ch.searched, ch.since_search = want, 0
    best = _search(db, ch, want)
    if best is None:
        return False
    if inertialization:
        ch.offset = ch.offset.switched(db.poses.frame(ch.frame), db.poses.frame(best))
    ch.frame = best
    return True


def _start(db: Database, want: FloatArray, start: int | None) -> _Character:
    """The character at the origin facing +Z (the world is its heading frame) playing
    ``start`` (default: the best match of the mean pose moving as the intent asks); the
    simulated root starts there, moving as ``start`` does."""
    joints = db.poses.rotations.shape[1]
    steady = inertialize.SimulatedRoot(np.zeros(3), _wanted(want), np.zeros(3))
    ch = _Character(-1, np.zeros(3), steady, inertialize.Offset.zero(joints, 1), want)
    if start is None:
        start = int(_nearest(db, _query(db, ch, want, pose=False))[1][0])
    if not 0 <= start < db.num_frames or not db.is_candidate[start]:
        raise ValueError(f"start frame {start} is not a candidate frame of the database")
    ch.frame = start
    ch.simulated = inertialize.SimulatedRoot(np.zeros(3), db.own_motion[start], np.zeros(3))
    return ch


def nearest_pose(database: Database, opening: Clip) -> int:
    """The candidate frame of ``database`` whose pose is nearest the last frame of the
    canonical ``opening`` (the sum over joints of the angle between local rotations, the
    hips' taken relative to the heading frame): where the baseline starts to continue
    a recording."""
    rotations = opening.rotations[-1].copy()
    face = state.facing(opening)[-1]
    rotations[0] = quat.mul(quat.conjugate(yaw(np.asarray(face))), rotations[0])
    poses = database.poses.rotations[database.candidates]
    apart = quat.angle_between(poses, rotations[None]).sum(axis=-1)
    return int(database.candidates[np.argmin(apart)])


def drive(
    database: Database,
    intents: FloatArray,
    *,
    search_every_frames: int = 6,
    start: int | None = None,
    inertialization: bool = True,
    world: bool = False,
) -> Clip:
    """Motion matching under ``intents [F, intent.SIZE]`` (60 Hz, one per output frame):
    a canonical 60 Hz clip of ``F`` frames from the origin facing +Z (deterministic).
    ``start``: the database frame to start on (a candidate; default: the best match);
    ``inertialization=False`` switches with a cut. ``meta["database_frames"]``: the
    database frame of each output frame; ``meta["switch_frames"]``: where it switched.
    ``world=True``: ``intents`` are world commands
    (:func:`motioncore.motornerve.intent.localise`), read each frame in the character's
    heading frame, as MotorNerve's runtime reads them."""
    wants = np.asarray(intents, dtype=np.float64)
    if wants.ndim != 2 or wants.shape[1] != intent.SIZE or len(wants) == 0:
        raise ValueError(f"intents must be [F, {intent.SIZE}] with F > 0, got {wants.shape}")
    if search_every_frames < 1:
        raise ValueError(f"search_every_frames must be at least 1, got {search_every_frames}")
    ch = _start(database, intent.localise(wants[0], 0.0) if world else wants[0], start)
    shown: list[_Shown] = []
    switches: list[int] = []
    for f in range(len(wants)):
        want = intent.localise(wants[f], float(ch.root[2])) if world else wants[f]
        if f > 0 and _step(database, ch, want, search_every_frames, inertialization):
            switches.append(f)
        shown.append((ch.frame, ch.root, ch.offset.rotations, float(ch.offset.channels[0])))
    return _to_clip(database, shown, switches)


def _to_clip(db: Database, shown: list[_Shown], switches: list[int]) -> Clip:
    """The output clip of the frames ``shown`` (see :data:`_Shown`)."""
    played, roots, offsets, height_offsets = (np.array(c) for c in zip(*shown, strict=True))
    skeleton = canonical.skeleton()
    rotations = inertialize.apply(offsets, db.poses.rotations[played])
    rotations[:, 0] = quat.mul(yaw(roots[:, 2]), rotations[:, 0])
    frames = len(played)
    translations = np.broadcast_to(skeleton.offsets, (frames, skeleton.num_joints, 3)).copy()
    height = db.poses.channels[played, 0] + height_offsets
    translations[:, 0] = np.stack([roots[:, 0], height, roots[:, 1]], axis=-1)
    meta: dict[str, object] = {"generator": "motion-matching", "switch_frames": switches}
    meta["database_frames"] = played.tolist()
    return Clip(skeleton, quat.unroll(rotations, axis=0), translations, state.FPS, meta=meta)
