"""Held-out evaluation of PFNN weights (seed 002 §5.2): mean joint angle error and foot
slide on clips the weights never saw.

For every sample frame ``t`` of a held-out clip the network gets the true state and
predicts the pose of ``t + 1`` (mixed from its residual and absolute outputs as the
runtime does, :data:`motioncore.pfnn.generate.RESIDUAL_SHARE`):

* **joint angle error**: the angle between the predicted and the true local rotation
  of each of the 21 joints (the hips' relative to the heading), degrees, averaged;
  beside it, the error of simply repeating the pose of ``t`` (the floor any
  predictor must beat);
* **foot slide**: the predicted poses put on the clip's true root path, then
  :func:`motioncore.pfnn.generate.foot_slide_mps` (the planted joint's horizontal
  speed over contact frames, m/s), over runs of consecutive sample frames; beside it
  the same measure of the clip itself (what the data allows).

Large angle error points at the network's capacity, large slide at the data or the
phase labels (§5.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore import contacts, fk, quat
from motioncore.clip import Clip
from motioncore.pfnn import dataset as data
from motioncore.pfnn import generate as gen
from motioncore.pfnn.network import Weights

FloatArray = NDArray[np.float64]
MIN_RUN_FRAMES = 30
"""Shorter runs of consecutive sample frames are left out of the foot slide."""


@dataclass(frozen=True)
class Evaluation:
    """Measures over ``clips`` (names) and ``samples`` frames; angles in degrees,
    slides in m/s (``nan`` where nothing could be measured)."""

    clips: tuple[str, ...]
    samples: int
    joint_angle_error_deg: float
    repeat_pose_error_deg: float
    foot_slide_mps: float
    data_foot_slide_mps: float

    def as_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["clips"] = list(self.clips)
        return out


def _poses(weights: Weights, inputs: FloatArray, phase: FloatArray) -> FloatArray:
    return gen.next_pose(inputs[:, : data.POSE_SIZE], weights.predict(inputs, phase))


def _angles(a: FloatArray, b: FloatArray) -> FloatArray:
    qa = quat.from_rotvec(a.reshape(len(a), -1, 3))
    qb = quat.from_rotvec(b.reshape(len(b), -1, 3))
    return np.degrees(quat.angle_between(qa, qb))


def _slides(motion: Clip, frames: NDArray[np.int64], poses: FloatArray) -> list[tuple[float, int]]:
    """(foot slide, frames) per run of consecutive predicted frames."""
    positions = fk.positions(motion)
    facing = data.heading(positions)
    breaks = np.flatnonzero(np.diff(frames) != 1) + 1
    out = []
    for run in np.split(np.arange(len(frames)), breaks):
        if len(run) < MIN_RUN_FRAMES:
            continue
        nxt = frames[run] + 1
        root = positions[nxt, 0]
        clip = gen.canonical_clip(root[:, [0, 2]], facing[nxt], poses[run], root[:, 1], gen.flat)
        slide = gen.foot_slide_mps(clip)
        if np.isfinite(slide):
            out.append((slide, len(run)))
    return out


def evaluate(weights: Weights, motions: Mapping[str, Clip]) -> Evaluation:
    """Measure ``weights`` on ``motions`` (name → clip prepared with
    :func:`motioncore.pfnn.dataset.prepare`: canonical, 60 Hz)."""
    errors, repeats, slides, truths = [], [], [], []
    for motion in motions.values():
        walk = data.gait_of(motion)
        frames = data.sample_frames(motion, walk)
        inputs, outputs, phase = data.features(motion, walk)
        if len(inputs) == 0:
            continue
        poses = _poses(weights, inputs, phase)
        truth = outputs[:, data.POSE_SIZE : 2 * data.POSE_SIZE]
        errors.append(_angles(poses, truth).ravel())
        repeats.append(_angles(inputs[:, : data.POSE_SIZE], truth).ravel())
        slides += _slides(motion, frames, poses)
        truth_slide = gen.foot_slide_mps(motion)
        if np.isfinite(truth_slide) and contacts.detect(motion).feet:
            truths.append((truth_slide, motion.num_frames))

    def weighted(pairs: list[tuple[float, int]]) -> float:
        total = sum(n for _, n in pairs)
        return sum(v * n for v, n in pairs) / total if total else float("nan")

    flat_errors = np.concatenate(errors) if errors else np.zeros(0)
    return Evaluation(
        tuple(motions),
        int(sum(len(e) for e in errors) // max(len(data.JOINTS), 1)),
        float(flat_errors.mean()) if flat_errors.size else float("nan"),
        float(np.concatenate(repeats).mean()) if repeats else float("nan"),
        weighted(slides),
        weighted(truths),
    )
