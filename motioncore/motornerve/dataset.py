"""MotorNerve training data (seed 001 §3.1): which corpus clips, cleaned, on the
canonical skeleton at 60 Hz, root smoothed, augmented, as states, intents and contacts.

* **Clips**: every corpus file (``MANIFEST.csv``) whose licence allows shipping weights
  (:func:`motioncore.pfnn.dataset.licence_allows_shipping`) and whose category is
  locomotion, interaction or idle (a rig that stops at the wrists gets hands:
  :func:`motioncore.skeleton.extremities.with_hands`); momentum clips (kicks, jumps,
  dance) and one-frame poses hold no action of
  :data:`motioncore.motornerve.intent.ACTIONS` and stay out.
  Interaction clips are *tagged* ``interact`` (the user sets the same tag on a clip of
  their own); in the permissive corpus these are pick-ups (CMU 69), a scoop-up (CMU
  02_06), reaches and jumps to grab (CMU 13/14) and one climb-and-sit (CMU 02_08):
  there is no waving or greeting.
* **Preparation**: :func:`motioncore.pfnn.dataset.prepare` (clean, retarget, 60 Hz,
  toes on the ground), then a Savitzky–Golay filter on the root position
  (:data:`ROOT_SMOOTHING_FRAMES`, cubic).
* **Interaction frames** of a tagged clip: where the body leaves its carriage — the
  hips drop, or a hand leaves where it is carried — from the onset of that motion to
  its end, each with one strength (:func:`motioncore.motornerve.interaction.labels`).
* **Augmentation**: mirrored, and played at :data:`SPEEDS` (0.9×, 1.1×); the ±10°
  rotation is applied per training window (:mod:`motioncore.motornerve.train`), since
  a rotation of the whole clip leaves heading-frame features unchanged.
* **Splits** by take (8:1:1; :func:`motioncore.pfnn.dataset.assign_splits` on the take
  keys of :func:`take_of`), so two releases of one CMU take fall in one split.

Shapes: a sequence of ``F`` frames has ``states [F, state.SIZE]``,
``intents [F, intent.SIZE]``, ``contacts [F, 2]`` (left, right; 1 planted) at 60 Hz.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy.signal import savgol_filter

from motioncore import contacts, fk
from motioncore.clean import resample
from motioncore.clip import Clip
from motioncore.motornerve import intent, interaction, state
from motioncore.pfnn import dataset as pfnn_data
from motioncore.skeleton import canonical, extremities

FloatArray = NDArray[np.float64]

ROOT_SMOOTHING_FRAMES = 9
"""Savitzky–Golay window on the root position, frames at 60 Hz (0.15 s: jitter, not
the gait's bob)."""
SPEEDS = (0.9, 1.0, 1.1)
"""Playback speeds of the augmentation (seed 001 §3.1)."""
GLITCH_DEGPS = 2500.0
"""A joint turning faster than this between two frames is a capture or retarget
glitch (a foot's twist flipping as it points down at toe-off, a toe snapping), not
motion: sequences are cut there (:func:`glitch_free`), :data:`GLITCH_MARGIN_FRAMES`
either side. About 0.3 % of the corpus's frames."""
GLITCH_MARGIN_FRAMES = 2
USED_CATEGORIES = ("locomotion", "interaction", "other (idle)")


@dataclass(frozen=True)
class Source:
    """One corpus clip that goes in: path, take key, tag, the clip."""

    path: str
    take: str
    interact: bool
    clip: Clip


def take_of(path: str) -> str:
    """The take a corpus file records: ``cmu:SS_TT`` for CMU files (subject and take
    numbers, whatever release and folder), else the path."""
    name = Path(path).stem
    found = re.fullmatch(r"0*(\d+)_0*(\d+)", name)
    if found and "cmu" in path:
        return f"cmu:{int(found[1]):02d}_{int(found[2]):02d}"
    return path


def corpus_sources(
    data_dir: Path,
) -> tuple[list[Source], list[pfnn_data.CorpusFile]]:
    """The corpus clips that go in (module docstring) and a report on every BVH file."""
    from motioncore import bvh
    from motioncore.skeleton import infer

    with (data_dir / "MANIFEST.csv").open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["relative_path"].startswith("bvh/")]
    sources: list[Source] = []
    report: list[pfnn_data.CorpusFile] = []
    for row in rows:
        path, category = row["relative_path"], row["category"]
        allowed, why = pfnn_data.licence_allows_shipping(row)
        if not allowed:
            report.append(pfnn_data.CorpusFile(path, False, why))
        elif not category.startswith(USED_CATEGORIES):
            report.append(pfnn_data.CorpusFile(path, False, f"category {category!r}: no action"))
        elif "duplicate" in category:
            report.append(pfnn_data.CorpusFile(path, False, "a duplicate of another file"))
        else:
            clip = extremities.with_hands(bvh.load(data_dir / path))
            if not infer(clip.skeleton).is_humanoid:
                report.append(pfnn_data.CorpusFile(path, False, "not a complete humanoid"))
                continue
            tagged = category.startswith("interaction")
            sources.append(Source(path, take_of(path), tagged, clip))
            reason = f"{why}; tagged interact" if tagged else why
            report.append(
                pfnn_data.CorpusFile(path, True, reason, clip.num_frames, clip.duration_s)
            )
    return sources, report


def prepare(clip: Clip) -> Clip:
    """A clip cleaned, on the canonical skeleton at 60 Hz, toes on the ground, its root
    position smoothed (module docstring)."""
    moved = pfnn_data.prepare(clip)
    if moved.num_frames <= ROOT_SMOOTHING_FRAMES:
        return moved
    translations = moved.translations.copy()
    translations[:, 0] = savgol_filter(translations[:, 0], ROOT_SMOOTHING_FRAMES, 3, axis=0)
    return moved.with_arrays(translations=translations)


def at_speed(clip: Clip, factor: float) -> Clip:
    """``clip`` played ``factor`` times as fast, resampled back to its frame rate."""
    if factor == 1.0:
        return clip
    return resample.resample(clip.with_arrays(fps=clip.fps * factor), clip.fps)


@dataclass(frozen=True)
class Sequence:
    """One prepared variant of a clip (60 Hz): states, intents, contacts."""

    name: str
    states: FloatArray
    intents: FloatArray
    contacts: FloatArray


def sequence(name: str, clip: Clip, interact: bool) -> Sequence:
    """The :class:`Sequence` of a prepared canonical clip."""
    states, face = state.encode(clip)
    ground = fk.positions(clip)[:, 0][:, [0, 2]]
    mask, strength = interaction.labels(clip, face) if interact else (None, None)
    intents = intent.from_motion(ground, face, clip.fps, mask, strength)
    found = {f.side: f.contact for f in contacts.detect(clip, canonical.roles()).feet}
    feet = np.stack([found["left"], found["right"]], axis=-1).astype(np.float64)
    return Sequence(name, states, intents, feet)


def glitched(whole: Sequence, fps: float = state.FPS) -> NDArray[np.bool_]:
    """``[F]`` the frames of ``whole`` at a glitch (:data:`GLITCH_DEGPS`), with
    :data:`GLITCH_MARGIN_FRAMES` either side."""
    q = state.joint_rotations(whole.states)
    turn = 2.0 * np.arccos(np.clip(np.abs(np.sum(q[1:] * q[:-1], axis=-1)), 0.0, 1.0))
    glitch = np.degrees(turn).max(axis=-1) * fps > GLITCH_DEGPS
    bad = np.zeros(len(whole.states), dtype=bool)
    for frame in np.flatnonzero(glitch):
        bad[max(frame - GLITCH_MARGIN_FRAMES + 1, 0) : frame + GLITCH_MARGIN_FRAMES + 1] = True
    return bad


def clean_start(whole: Sequence, fps: float = state.FPS) -> int:
    """The first frame of ``whole`` past the glitches it opens with (0 when it opens
    clean): the cgspeed releases of CMU open on a rest-pose frame, 3,000-7,500 °/s away
    from the next one."""
    clean = np.flatnonzero(~glitched(whole, fps))
    return int(clean[0]) if clean.size else 0


def glitch_free(whole: Sequence, fps: float = state.FPS) -> list[Sequence]:
    """The pieces of ``whole`` between glitches (:func:`glitched`), named
    ``<name>/<first frame>`` when it had to be cut."""
    bad = glitched(whole, fps)
    if not bad.any():
        return [whole]
    return [
        Sequence(
            f"{whole.name}/{start}",
            whole.states[start:stop],
            whole.intents[start:stop],
            whole.contacts[start:stop],
        )
        for start, stop in contacts.segments(~bad)
    ]


def variants(source: Source) -> list[Sequence]:
    """The source's sequences: each speed of :data:`SPEEDS`, each also mirrored, cut
    at glitches."""
    prepared = prepare(source.clip)
    out: list[Sequence] = []
    for factor in SPEEDS:
        fast = at_speed(prepared, factor)
        for label, motion in (("", fast), ("#mirror", pfnn_data.mirror(fast))):
            name = f"{source.path}@{factor:g}{label}"
            out += glitch_free(sequence(name, motion, source.interact))
    return out


@dataclass(frozen=True)
class Dataset:
    """Sequences end to end: frame arrays ``[N, …]``, ``starts [S + 1]`` (sequence ``s``
    is frames ``starts[s]:starts[s + 1]``), its name and split; state and intent
    statistics over the training frames (a constant feature gets a deviation of 1)."""

    states: FloatArray
    intents: FloatArray
    contacts: FloatArray
    starts: NDArray[np.int64]
    names: tuple[str, ...]
    split: tuple[str, ...]
    state_mean: FloatArray
    state_std: FloatArray
    intent_mean: FloatArray
    intent_std: FloatArray

    def sequences(self, split: str) -> list[int]:
        """Indices of the sequences in ``split``."""
        return [i for i, s in enumerate(self.split) if s == split]

    def frames_of(self, index: int) -> slice:
        return slice(int(self.starts[index]), int(self.starts[index + 1]))

    def save(self, path: str | Path) -> None:
        """Write an ``.npz`` (:meth:`load` reads it back)."""
        arrays: dict[str, NDArray[np.generic]] = {
            k: v for k, v in vars(self).items() if isinstance(v, np.ndarray)
        }
        np.savez_compressed(
            path,
            allow_pickle=False,
            names=np.array(self.names),
            split=np.array(self.split),
            **arrays,
        )

    @classmethod
    def load(cls, path: str | Path) -> Dataset:
        with np.load(path, allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
        names = tuple(str(n) for n in arrays.pop("names"))
        split = tuple(str(s) for s in arrays.pop("split"))
        return cls(names=names, split=split, **arrays)


def _stats(values: FloatArray) -> tuple[FloatArray, FloatArray]:
    std = values.std(axis=0)
    return values.mean(axis=0), np.where(std > 1e-6, std, 1.0)


def build(
    sources: list[Source], progress: Callable[[int, int, str], None] | None = None
) -> Dataset:
    """The dataset of ``sources`` (module docstring); ``progress(done, total, path)``
    after each source."""
    splits = pfnn_data.assign_splits(sorted({s.take for s in sources}))
    parts: list[tuple[Sequence, str]] = []
    for done, source in enumerate(sources, 1):
        parts += [(v, splits[source.take]) for v in variants(source) if len(v.states) > 1]
        if progress is not None:
            progress(done, len(sources), source.path)
    if not parts:
        raise ValueError("no clip gave a sequence")
    states = np.concatenate([p.states for p, _ in parts])
    intents = np.concatenate([p.intents for p, _ in parts])
    starts = np.concatenate([[0], np.cumsum([len(p.states) for p, _ in parts])]).astype(np.int64)
    train = np.concatenate([np.full(len(p.states), s == "train") for p, s in parts])
    if not train.any():
        raise ValueError("no training frames: every clip is held out")
    state_mean, state_std = _stats(states[train])
    intent_mean, intent_std = _stats(intents[train])
    return Dataset(
        states,
        intents,
        np.concatenate([p.contacts for p, _ in parts]),
        starts,
        tuple(p.name for p, _ in parts),
        tuple(s for _, s in parts),
        state_mean,
        state_std,
        intent_mean,
        intent_std,
    )


def minutes_per_action(data: Dataset, split: str | None = None) -> Mapping[str, float]:
    """Minutes of frames per action of :data:`motioncore.motornerve.intent.ACTIONS` (all
    variants counted; ``split`` restricts to one split)."""
    rows = np.ones(len(data.states), dtype=bool)
    if split is not None:
        rows = np.zeros(len(data.states), dtype=bool)
        for i in data.sequences(split):
            rows[data.frames_of(i)] = True
    kinds = np.argmax(data.intents[rows, intent.ACTION], axis=-1)
    return {a: float(np.sum(kinds == i)) / state.FPS / 60.0 for i, a in enumerate(intent.ACTIONS)}


MIN_TRAINING_CLIPS = 3
"""A training set needs this many clips (one each for training, validation, test)…"""
MIN_TRAINING_S = 30.0
"""…and this much motion in all, seconds."""


def user_sources(clips: Mapping[str, tuple[Clip, bool]]) -> list[Source]:
    """Sources of a user's clips (name → (clip, tagged interact)), each its own take;
    raises :class:`motioncore.errors.MotionCoreError` with the reason when they cannot
    train: too few, too short, or a clip without feet or hands to retarget."""
    from motioncore.errors import MotionCoreError
    from motioncore.skeleton import infer

    if len(clips) < MIN_TRAINING_CLIPS:
        raise MotionCoreError(
            f"training needs at least {MIN_TRAINING_CLIPS} clips (one each to train, "
            f"validate and test on); the project has {len(clips)}"
        )
    sources: list[Source] = []
    for name, (clip, interact) in clips.items():
        completed = extremities.with_hands(clip)
        roles = infer(completed.skeleton)
        missing = [r for r in ("hips", "left_foot", "right_foot") if r not in roles.joints]
        if missing:
            raise MotionCoreError(
                f"clip {name!r} has no {', '.join(m.replace('_', ' ') for m in missing)}: "
                "MotorNerve learns from humanoid clips whose feet it can find"
            )
        if not roles.is_humanoid:
            raise MotionCoreError(f"clip {name!r} is not a complete humanoid (no hands found)")
        sources.append(Source(name, name, interact, completed))
    seconds = sum(s.clip.duration_s for s in sources)
    if seconds < MIN_TRAINING_S:
        raise MotionCoreError(
            f"training needs at least {MIN_TRAINING_S:g} s of motion; "
            f"the clips hold {seconds:.1f} s"
        )
    return sources
