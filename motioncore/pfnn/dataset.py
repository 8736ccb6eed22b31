"""PFNN training data: which clips may train shipped weights, canonical 60 Hz motion
with mirrors, the gait phase, and per-frame input/output features.

Seed 002 §2.2 gives the inputs (joint rotation vectors, 16 terrain ring heights, sin/cos
φ, the root velocity); the original PFNN adds the root trajectory, which is what lets a
character follow a path, so this adds it too: the root's ground positions and facing
directions 1 s into the past and 0.5 s into the future (:data:`TRAJECTORY_OFFSETS`), in
the heading frame of the current frame (the world turned so that the character faces
+Z, moved so that its root is at the origin).

Shapes and units: a clip of ``F`` frames at :data:`FPS` gives ``N`` samples (the frames
whose phase is defined on them and on the next; near the clip's ends the trajectory
window holds the first or last frame);
``inputs [N, INPUT_SIZE]``, ``outputs [N, OUTPUT_SIZE]``, ``phase [N]`` radians in
[0, 2π). Positions are metres, velocities m/s, angles radians.

Mocap floors are flat, so the terrain heights are all zero in this data; they stay in
the input so that the runtime can feed real terrain to a model trained on uneven ground.
"""

from __future__ import annotations

import csv
import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from motioncore import clean, contacts, fk, quat
from motioncore.analysis import gait
from motioncore.clean import resample
from motioncore.clip import Clip
from motioncore.skeleton import canonical, retarget
from motioncore.skeleton.facing import yaw

FloatArray = NDArray[np.float64]

FPS = 60.0
"""Frame rate of the training data, Hz."""

TRAJECTORY_OFFSETS: tuple[int, ...] = (-60, -50, -40, -30, -20, -10, 0, 10, 20, 30)
"""Frames (at :data:`FPS`) of the trajectory samples around the current one: 1 s back,
0.5 s ahead."""

TERRAIN_RING: tuple[tuple[float, float], ...] = tuple(
    (radius, angle)
    for radius in (0.8, 1.6)
    for angle in np.linspace(0.0, 2.0 * np.pi, 8, endpoint=False)
)
"""(radius m, angle rad) of the 16 terrain samples around the root, heading frame."""

JOINTS = tuple(j for j, kind in enumerate(canonical.skeleton().kinds) if kind != "End Site")
"""The canonical joints with a rotation (21: the hips first)."""

POSE_SIZE = 3 * len(JOINTS)
INPUT_SIZE = POSE_SIZE + 2 + 4 * len(TRAJECTORY_OFFSETS) + len(TERRAIN_RING) + 2 + 1
"""Pose rotation vectors, root velocity (x, z), trajectory (x, z, dx, dz per sample),
terrain heights, sin/cos φ, hips height."""
OUTPUT_SIZE = 2 * POSE_SIZE + 3 + 1 + 2 + 1
"""The change of the pose's rotation vectors to the next frame (a residual: next =
current + change; one frame apart, rotation vectors are continuous) and the next pose
itself (the runtime mixes the two: the residual is precise, the absolute pose does not
drift), root motion to the next frame (dx, dz m, dyaw rad), phase step (rad), next
contacts (left, right), next hips height."""

_MIRROR = tuple(
    canonical.NAMES.index(
        re.sub(r"^(Left|Right)", lambda m: "Right" if m[1] == "Left" else "Left", n)
    )
    for n in canonical.NAMES
)


def licence_allows_shipping(row: Mapping[str, str]) -> tuple[bool, str]:
    """Whether weights trained on the corpus file of this ``MANIFEST.csv`` row may ship
    (commercial use and redistribution of derived work), and why."""
    flags, text = row.get("license_flags", ""), row.get("license", "")
    if flags == "NON-COMMERCIAL":
        return False, "non-commercial licence: evaluation only"
    if flags == "copyleft":
        return False, "copyleft licence: derived weights would have to carry it"
    if flags == "upstream-license-only":
        if "free for research and commercial use" in text:
            return True, "upstream terms allow commercial use (CMU)"
        return False, "upstream terms unclear"
    if re.search(r"\b(MIT|BSD|CC0|Apache)", text):
        return True, "permissive licence"
    return False, f"licence not recognised: {text[:60]!r}"


def prepare(clip: Clip) -> Clip:
    """``clip`` cleaned (bind pose, outliers, foot skate), on the canonical skeleton,
    at :data:`FPS`, with its lowest toe on the ground over the clip."""
    cleaned, _ = clean.clean(clip)
    moved = resample.resample(retarget.to_canonical(cleaned), FPS)
    toes = [canonical.JOINT_OF_ROLE[f"{s}_toe"] for s in ("left", "right")]
    floor = float(np.percentile(fk.positions(moved)[:, toes, 1], 2.0))
    translations = moved.translations.copy()
    translations[:, 0, 1] -= floor
    return moved.with_arrays(translations=translations)


def mirror(clip: Clip) -> Clip:
    """A canonical clip reflected through the YZ plane: left and right swapped."""
    rotations = clip.rotations[:, _MIRROR] * np.array([1.0, 1.0, -1.0, -1.0])
    translations = clip.translations[:, _MIRROR] * np.array([-1.0, 1.0, 1.0])
    return clip.with_arrays(rotations, translations)


@dataclass(frozen=True)
class Gait:
    """Per-frame contacts ``[F, 2]`` (left, right) and phase ``[F]`` (nan if undefined)."""

    contacts: NDArray[np.bool_]
    phase: FloatArray


def gait_of(clip: Clip) -> Gait:
    """Contacts (:func:`motioncore.contacts.detect`) and φ from them (seed 002 §2.1)."""
    found = {f.side: f.contact for f in contacts.detect(clip, canonical.roles()).feet}
    both = np.stack([found["left"], found["right"]], axis=-1)
    return Gait(both, gait.phase_from_contacts(found["left"], found["right"], clip.fps))


def heading(positions: FloatArray) -> FloatArray:
    """Facing ``[F]`` radians about +Y (0 facing +Z), from the hips' and shoulders'
    left-right lines (``positions [F, J, 3]`` canonical)."""
    j = canonical.JOINT_OF_ROLE
    left = (positions[:, j["left_upper_leg"]] - positions[:, j["right_upper_leg"]]) + (
        positions[:, j["left_upper_arm"]] - positions[:, j["right_upper_arm"]]
    )
    # forward = left × up, on the ground: (-left_z, 0, left_x)
    return np.asarray(np.unwrap(np.arctan2(-left[:, 2], left[:, 0])), dtype=np.float64)


def _in_heading_frame(vectors: FloatArray, angle: FloatArray) -> FloatArray:
    """Ground vectors ``[..., 2]`` (x, z) turned by ``-angle``."""
    c, s = np.cos(angle), np.sin(angle)
    x, z = vectors[..., 0], vectors[..., 1]
    return np.stack([c * x - s * z, s * x + c * z], axis=-1)


def _local_pose(clip: Clip, facing: FloatArray) -> FloatArray:
    """Rotation vectors ``[F, 21, 3]``: the hips relative to the heading frame, the
    other joints local."""
    rotations = clip.rotations[:, JOINTS].copy()
    rotations[:, 0] = quat.mul(quat.conjugate(yaw(facing)), rotations[:, 0])
    rotations *= np.where(rotations[..., :1] < 0.0, -1.0, 1.0)
    return quat.to_rotvec(rotations)


def sample_frames(clip: Clip, walk: Gait) -> NDArray[np.int64]:
    """The frames ``t`` that give samples: φ defined on ``t`` and ``t + 1``."""
    frames = np.arange(max(clip.num_frames - 1, 0))
    keep = np.isfinite(walk.phase[frames]) & np.isfinite(walk.phase[frames + 1])
    return frames[keep].astype(np.int64)


def features(clip: Clip, walk: Gait) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``inputs [N, INPUT_SIZE]``, ``outputs [N, OUTPUT_SIZE]``, ``phase [N]`` of a
    canonical clip at :data:`FPS` (see the module docstring)."""
    positions = fk.positions(clip)
    root = positions[:, 0]
    ground = root[:, [0, 2]]
    facing = heading(positions)
    pose = _local_pose(clip, facing).reshape(clip.num_frames, -1)
    velocity = np.gradient(ground, axis=0) * clip.fps
    frames = sample_frames(clip, walk)
    if frames.size == 0:
        return np.zeros((0, INPUT_SIZE)), np.zeros((0, OUTPUT_SIZE)), np.zeros(0)
    here = facing[frames, None]
    # Near the clip's ends the window holds the first / last frame (standing there).
    around = np.clip(frames[:, None] + np.array(TRAJECTORY_OFFSETS)[None], 0, clip.num_frames - 1)
    trajectory = _in_heading_frame(ground[around] - ground[frames, None], here)
    directions = np.stack([np.sin(facing[around] - here), np.cos(facing[around] - here)], -1)
    phase = walk.phase[frames]
    inputs = np.concatenate(
        [
            pose[frames],
            _in_heading_frame(velocity[frames], facing[frames]),
            np.concatenate([trajectory, directions], axis=-1).reshape(frames.size, -1),
            np.zeros((frames.size, len(TERRAIN_RING))),
            np.stack([np.sin(phase), np.cos(phase)], axis=-1),
            root[frames, 1:2],
        ],
        axis=-1,
    )
    step = _in_heading_frame(ground[frames + 1] - ground[frames], facing[frames])
    outputs = np.concatenate(
        [
            pose[frames + 1] - pose[frames],
            pose[frames + 1],
            step,
            (facing[frames + 1] - facing[frames])[:, None],
            (np.mod(walk.phase[frames + 1] - phase, 2.0 * np.pi))[:, None],
            walk.contacts[frames + 1].astype(np.float64),
            root[frames + 1, 1:2],
        ],
        axis=-1,
    )
    return inputs, outputs, phase


SPLITS = ("train", "validation", "test")
HELD_OUT_FRACTION = 0.1
"""Share of the clips (at least one each) held out for validation and for test."""


def assign_splits(clips: list[str]) -> dict[str, str]:
    """Clip → ``train`` / ``validation`` / ``test``, by clip, never by frame: the clips
    sorted by a hash of their name, the first tenth (at least one) to test, the next to
    validation. Deterministic, and a clip's mirror follows the clip."""
    order = sorted(clips, key=lambda c: hashlib.sha256(c.encode()).hexdigest())
    held = max(1, math.ceil(HELD_OUT_FRACTION * len(order))) if len(order) >= 3 else 0
    return {
        clip: "test" if i < held else ("validation" if i < 2 * held else "train")
        for i, clip in enumerate(order)
    }


@dataclass(frozen=True)
class Dataset:
    """Samples of many clips and their mirrors (see the module docstring for layout).

    ``clip [N]`` indexes ``clips`` (relative paths, ``"<path>#mirror"`` for mirrors);
    ``split`` gives each clip's split; the means and standard deviations are over the
    training samples (a constant feature, like flat terrain, gets a deviation of 1).
    """

    inputs: FloatArray
    outputs: FloatArray
    phase: FloatArray
    clip: NDArray[np.int64]
    clips: tuple[str, ...]
    split: tuple[str, ...]
    input_mean: FloatArray
    input_std: FloatArray
    output_mean: FloatArray
    output_std: FloatArray

    def rows(self, split: str) -> NDArray[np.bool_]:
        """``[N]`` mask of the samples in ``split``."""
        return np.isin(self.clip, [i for i, s in enumerate(self.split) if s == split])

    def save(self, path: str) -> None:
        """Write an ``.npz`` (:meth:`load` reads it back)."""
        arrays: dict[str, NDArray[np.generic]] = {
            k: v for k, v in self.__dict__.items() if isinstance(v, np.ndarray)
        }
        arrays["clips"] = np.array(self.clips)
        arrays["split"] = np.array(self.split)
        np.savez_compressed(path, allow_pickle=False, **arrays)

    @classmethod
    def load(cls, path: str) -> Dataset:
        with np.load(path) as f:
            arrays = {k: f[k] for k in f.files}
        return cls(
            **{k: v for k, v in arrays.items() if k not in ("clips", "split")},
            clips=tuple(str(c) for c in arrays["clips"]),
            split=tuple(str(s) for s in arrays["split"]),
        )


def _stats(values: FloatArray) -> tuple[FloatArray, FloatArray]:
    mean = values.mean(axis=0)
    std = values.std(axis=0)
    return mean, np.where(std > 1e-6, std, 1.0)


def build(clips: Mapping[str, Clip]) -> Dataset:
    """The dataset of ``clips`` (name → clip, any rig): each prepared, mirrored, its
    frames turned into samples; splits by clip (:func:`assign_splits`)."""
    splits = assign_splits(list(clips))
    parts: list[tuple[str, str, FloatArray, FloatArray, FloatArray]] = []
    for name, clip in clips.items():
        prepared = prepare(clip)
        for label, motion in ((name, prepared), (f"{name}#mirror", mirror(prepared))):
            x, y, p = features(motion, gait_of(motion))
            if len(x):
                parts.append((label, splits[name], x, y, p))
    if not parts:
        raise ValueError("no clip gave a sample (no walking with a defined gait phase)")
    inputs = np.concatenate([p[2] for p in parts])
    outputs = np.concatenate([p[3] for p in parts])
    clip_index = np.concatenate([np.full(len(p[2]), i) for i, p in enumerate(parts)])
    train = np.isin(clip_index, [i for i, p in enumerate(parts) if p[1] == "train"])
    if not train.any():
        raise ValueError("no training samples: every clip is held out")
    input_mean, input_std = _stats(inputs[train])
    output_mean, output_std = _stats(outputs[train])
    return Dataset(
        inputs,
        outputs,
        np.concatenate([p[4] for p in parts]),
        clip_index,
        tuple(p[0] for p in parts),
        tuple(p[1] for p in parts),
        input_mean,
        input_std,
        output_mean,
        output_std,
    )


@dataclass(frozen=True)
class CorpusFile:
    """One locomotion file of the corpus: its path, whether it was used and why."""

    path: str
    used: bool
    reason: str
    frames: int = 0
    seconds: float = 0.0


def corpus_clips(
    data_dir: Path, *, shippable: bool = True
) -> tuple[dict[str, Clip], list[CorpusFile]]:
    """The corpus's locomotion clips (``MANIFEST.csv`` category ``locomotion…``) whose
    licence allows shipping weights (``shippable=False``: exactly the others, for
    evaluation), by relative path; and what happened to every locomotion file."""
    from motioncore import bvh
    from motioncore.skeleton import infer

    with (data_dir / "MANIFEST.csv").open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["category"].startswith("locomotion")]
    clips: dict[str, Clip] = {}
    report: list[CorpusFile] = []
    for row in rows:
        path = row["relative_path"]
        allowed, why = licence_allows_shipping(row)
        if allowed != shippable:
            report.append(CorpusFile(path, False, why))
            continue
        clip = bvh.load(data_dir / path)
        if "duplicate" in row["category"]:
            report.append(CorpusFile(path, False, "a duplicate of another file"))
        elif not infer(clip.skeleton).is_humanoid:
            report.append(CorpusFile(path, False, "not a complete humanoid"))
        else:
            clips[path] = clip
            report.append(CorpusFile(path, True, why, clip.num_frames, clip.duration_s))
    return clips, report
