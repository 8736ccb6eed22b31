"""The ``score`` stage: animate a clip's score (registered by
:class:`webapp.laban.apps.LabanConfig`; the contract is :mod:`webapp.runs.stages`).

It is the first stage of a score's clip, in place of ``ingest``: it leaves the animation
in ``context.motion`` and its canonical arrays, as ``ingest`` does, so ``clean`` and
``analyze`` follow as for any upload.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath

from motioncore import bvh, export
from motioncore.clip import Clip as MotionClip
from motioncore.laban.importers import reader
from motioncore.laban.synthesize import synthesize
from webapp.clips.services import artifact_save, clip_motion_record
from webapp.clips.stages import canonical_save
from webapp.laban.models import ScoreArtifactKind
from webapp.runs.stages import Context, Progress


def score_stage(context: Context, progress: Progress) -> None:
    """Read the clip's score, animate it, store the animation (BVH, viewer arrays,
    footprints and measures) and record the measures on the score."""
    run = context.run
    progress(0.05, "Reading the score")
    with run.clip.original.open("rb") as handle:
        read = reader.read_bytes(handle.read(), title=PurePosixPath(run.clip.name).stem)
    made = synthesize(
        read.score,
        lambda done, step: progress(0.15 + 0.6 * done, f"Animating the score: {step}"),
    )
    context.motion = made.clip
    progress(0.75, "Saving the animation")
    animation = {
        "seconds_per_beat": read.score.seconds_per_beat,
        **made.as_dict(),
        **({"labanwriter": read.notes} if read.notes is not None else {}),
    }
    for kind, filename, data in (
        (ScoreArtifactKind.ANIMATION_BVH, "animation.bvh", bvh.dump(made.clip).encode()),
        (ScoreArtifactKind.ANIMATION_VIEWER, "animation.json", _viewer(made.clip)),
        (ScoreArtifactKind.FOOTPRINTS, "footprints.json", json.dumps(animation).encode()),
    ):
        artifact_save(run=run, kind=kind, filename=filename, data=data)
    canonical_save(context)
    clip_motion_record(clip=run.clip, motion=made.clip)
    context.record_result(animation)


def _viewer(motion: MotionClip) -> bytes:
    return json.dumps(export.viewer_arrays(motion), separators=(",", ":")).encode()
