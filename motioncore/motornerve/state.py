"""The motion state MotorNerve reads and writes (seed 001 §2.1): one vector per frame.

A state holds what the network must see of a frame and what it predicts for the next:

* ``[0, 126)``: the local rotations of the 21 canonical joints
  (:data:`motioncore.pfnn.dataset.JOINTS`), each as the first two columns of its
  rotation matrix (the continuous 6-D representation of Zhou et al. 2019); the hips'
  rotation relative to the heading frame (the character's facing). The seed suggests
  quaternions; their double cover makes any sign convention jump for rotations near
  180° (a wrist or shoulder can get there), which a network regressing states cannot
  follow, and 6-D has no such seam;
* ``[126, 128)``: the root's ground velocity (x, z), m/s, over the last step, in the
  heading frame at the step's start;
* ``128``: the turn rate over the last step, rad/s (positive turns left);
* ``129``: the hips' height above the floor, metres.

A step is :data:`STEP_FRAMES` frames at :data:`FPS` (the network runs at 30 Hz on 60 Hz
motion, seed 001 §3.4), so a state's velocities are over the two frames before it.

Shapes: ``states [F, SIZE]`` for a clip of ``F`` frames on the canonical skeleton;
metres, seconds, radians, Y up, facing 0 along +Z.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, quat
from motioncore.clip import Clip
from motioncore.pfnn.dataset import JOINTS, heading
from motioncore.skeleton import canonical
from motioncore.skeleton.facing import yaw

FloatArray = NDArray[np.float64]

FPS = 60.0
"""Frame rate of MotorNerve motion, Hz."""
STEP_FRAMES = 2
"""Frames per network step (30 Hz at :data:`FPS`)."""
STEP_S = STEP_FRAMES / FPS

ROTATION_SIZE = 6
ROTATIONS = slice(0, ROTATION_SIZE * len(JOINTS))
VELOCITY = slice(ROTATIONS.stop, ROTATIONS.stop + 2)
TURN = ROTATIONS.stop + 2
HEIGHT = ROTATIONS.stop + 3
SIZE = ROTATIONS.stop + 4


def to_6d(q: FloatArray) -> FloatArray:
    """Unit quaternions ``[..., 4]`` as the first two columns of their matrices
    ``[..., 6]`` (column 0 then column 1)."""
    m = quat.to_matrix(q)
    return np.concatenate([m[..., :, 0], m[..., :, 1]], axis=-1)


def orthonormal_6d(r: FloatArray) -> FloatArray:
    """6-D rotations ``[..., 6]`` made exact (Gram–Schmidt: the first column keeps its
    direction, the second is made orthogonal to it; both unit)."""
    a = r[..., 0:3] / np.maximum(np.linalg.norm(r[..., 0:3], axis=-1, keepdims=True), 1e-9)
    b = r[..., 3:6] - np.sum(a * r[..., 3:6], axis=-1, keepdims=True) * a
    b = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-9)
    return np.concatenate([a, b], axis=-1)


def from_6d(r: FloatArray) -> FloatArray:
    """Unit quaternions ``[..., 4]`` of 6-D rotations ``[..., 6]`` (:func:`orthonormal_6d`
    first)."""
    exact = orthonormal_6d(r)
    a, b = exact[..., 0:3], exact[..., 3:6]
    return quat.normalize(quat.from_matrix(np.stack([a, b, np.cross(a, b)], axis=-1)))


def joint_rotations(states: FloatArray) -> FloatArray:
    """``[..., 21, 4]`` the joints' rotations (quaternions) of states ``[..., SIZE]``."""
    shape = states.shape[:-1]
    return from_6d(states[..., ROTATIONS].reshape(*shape, len(JOINTS), ROTATION_SIZE))


def renormalised(states: FloatArray) -> FloatArray:
    """``states [..., SIZE]`` with exact 6-D rotations (what a network reads back)."""
    out = np.array(states, dtype=np.float64, copy=True)
    shape = (*states.shape[:-1], len(JOINTS), ROTATION_SIZE)
    out[..., ROTATIONS] = orthonormal_6d(states[..., ROTATIONS].reshape(shape)).reshape(
        *states.shape[:-1], -1
    )
    return out


def with_rotations(states: FloatArray, rotations: FloatArray) -> FloatArray:
    """``states`` with the joints' rotations replaced by ``rotations [..., 21, 4]``."""
    out = np.array(states, dtype=np.float64, copy=True)
    out[..., ROTATIONS] = to_6d(rotations).reshape(*states.shape[:-1], -1)
    return out


def rotate_ground(vectors: FloatArray, angle_rad: FloatArray) -> FloatArray:
    """Ground vectors ``[..., 2]`` (x, z) turned by ``angle_rad [...]`` about +Y."""
    c, s = np.cos(angle_rad), np.sin(angle_rad)
    x, z = vectors[..., 0], vectors[..., 1]
    return np.stack([c * x + s * z, -s * x + c * z], axis=-1)


def facing(clip: Clip) -> FloatArray:
    """``[F]`` the facing of a canonical clip, radians about +Y (unwrapped)."""
    return heading(fk.positions(clip))


def encode(clip: Clip, step_frames: int = STEP_FRAMES) -> tuple[FloatArray, FloatArray]:
    """``states [F, SIZE]`` of a canonical clip and its ``facing [F]`` (radians).

    The first ``step_frames`` states have no step before them and take the velocities
    of the first one that has."""
    positions = fk.positions(clip)
    face = heading(positions)
    ground = positions[:, 0][:, [0, 2]]
    frames = clip.num_frames
    rotations = clip.rotations[:, JOINTS].copy()
    rotations[:, 0] = quat.mul(quat.conjugate(yaw(face)), rotations[:, 0])
    moved = np.maximum(np.arange(frames), min(step_frames, frames - 1))
    before = np.maximum(moved - step_frames, 0)
    seconds = step_frames / clip.fps
    delta = ground[moved] - ground[before]
    out = np.zeros((frames, SIZE))
    out[:, ROTATIONS] = to_6d(rotations).reshape(frames, -1)
    out[:, VELOCITY] = rotate_ground(delta, -face[before]) / seconds
    out[:, TURN] = (face[moved] - face[before]) / seconds
    out[:, HEIGHT] = positions[:, 0, 1]
    return out, face


def root_path(
    states: FloatArray, start_ground: FloatArray, start_facing: float, step_s: float
) -> tuple[FloatArray, FloatArray]:
    """Integrate the root of a stream of states taken ``step_s`` apart from where the
    frame before the first stood: ``(ground [F, 2], facing [F])``, the first entry
    already moved by the first state's step."""
    turns = states[:, TURN] * step_s
    face = start_facing + np.cumsum(turns)
    before = np.concatenate([[start_facing], face[:-1]])
    steps = rotate_ground(states[:, VELOCITY] * step_s, before)
    return np.asarray(start_ground) + np.cumsum(steps, axis=0), face


def to_clip(states: FloatArray, ground: FloatArray, face: FloatArray, fps: float = FPS) -> Clip:
    """A canonical clip from ``states [F, SIZE]`` placed at ``ground [F, 2]`` facing
    ``face [F]``."""
    skeleton = canonical.skeleton()
    frames = len(states)
    rotations = quat.identity((frames, skeleton.num_joints))
    rotations[:, list(JOINTS)] = joint_rotations(states)
    rotations[:, 0] = quat.mul(yaw(face), rotations[:, 0])
    translations = np.broadcast_to(skeleton.offsets, (frames, skeleton.num_joints, 3)).copy()
    translations[:, 0] = np.stack([ground[:, 0], states[:, HEIGHT], ground[:, 1]], -1)
    rotations = quat.unroll(rotations, axis=0)
    return Clip(skeleton, rotations, translations, fps, meta={"generator": "motornerve"})
