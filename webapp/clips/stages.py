"""The upload pipeline's stages: ``ingest``, ``clean``, ``analyze`` (registered by
:class:`webapp.clips.apps.ClipsConfig`; the contract is :mod:`webapp.runs.stages`).

Each calls one ``motioncore`` function and stores its artifacts with
:func:`webapp.clips.services.artifact_save`; ``ingest`` leaves the parsed motion in
``context.motion`` and ``clean`` the cleaned one in ``context.cleaned`` for the stages
after them.
"""

from __future__ import annotations

import io
import json
from typing import Any

import numpy as np

from motioncore import analysis, bvh, clean, export
from motioncore import parameters as p
from motioncore.clip import Clip as MotionClip
from motioncore.errors import MotionCoreError
from webapp.clips.limits import motion_limits
from webapp.clips.models import ArtifactKind
from webapp.clips.services import artifact_save
from webapp.runs.models import Run
from webapp.runs.stages import Context, Progress


def ingest(context: Context, progress: Progress) -> None:
    """Parse the stored original and keep a canonical array file for fast reloads."""
    progress(0.1, "Reading the BVH file")
    with context.run.clip.original.open("rb") as handle:
        context.motion = bvh.load(handle.read(), limits=motion_limits())
    progress(0.7, "Saving canonical arrays")
    canonical_save(context)


def canonical_save(context: Context) -> None:
    """Store ``context.motion`` as the run's ``canonical.npz`` (what a first stage leaves
    for the stages after it, whatever made the motion)."""
    motion = context.motion
    assert motion is not None, "the first stage made the motion"
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        rotations=motion.rotations,
        translations=motion.translations,
        parents=motion.skeleton.parents,
        offsets=motion.skeleton.offsets,
        names=np.array(motion.skeleton.names),
        fps=np.array(motion.fps),
    )
    artifact_save(
        run=context.run,
        kind=ArtifactKind.CANONICAL,
        filename="canonical.npz",
        data=buffer.getvalue(),
    )


def clean_stage(context: Context, progress: Progress) -> None:
    """Clean the motion; store the cleaned BVH, its report and the viewer arrays of the
    cleaned and of the raw motion (the page draws the raw one as a ghost)."""
    assert context.motion is not None, "ingest runs before clean"
    fps = context.run.parameters.get("fps")
    cleaned, report = clean.clean(
        context.motion,
        fps=float(fps) if fps else None,
        progress=lambda f, s: progress(0.05 + 0.7 * f, f"Cleaning: {s}"),
    )
    context.cleaned = cleaned
    run = context.run
    progress(0.8, "Writing the cleaned BVH")
    cleaned_bvh = bvh.dump(cleaned).encode()
    artifact_save(run=run, kind=ArtifactKind.CLEANED_BVH, filename="cleaned.bvh", data=cleaned_bvh)
    artifact_save(
        run=run,
        kind=ArtifactKind.CLEAN_REPORT,
        filename="clean-report.json",
        data=json.dumps(report.as_dict()).encode(),
    )
    progress(0.9, "Preparing the viewer arrays")
    viewer_levels_save(run=run, motion=cleaned, name="viewer")
    # The raw clip's time at the cleaned clip's time 0 (leading bind-pose frames dropped).
    start = {"start_s": report.start_in_input_s}
    viewer_levels_save(run=run, motion=context.motion, name="viewer-raw", extra=start)


VIEWER_KINDS: dict[str, tuple[ArtifactKind, ArtifactKind]] = {
    "viewer": (ArtifactKind.VIEWER, ArtifactKind.VIEWER_FULL),
    "viewer-raw": (ArtifactKind.VIEWER_RAW, ArtifactKind.VIEWER_RAW_FULL),
}
"""The viewer's files by name: the JSON preview's kind, the full-rate positions' kind."""


def viewer_levels_save(
    *, run: Run, motion: MotionClip, name: str, extra: dict[str, Any] | None = None
) -> None:
    """Store ``motion``'s viewer preview as ``<name>.json`` (with ``extra`` keys) and its
    full-rate positions as ``<name>.f32`` (:func:`motioncore.export.viewer_levels`: a long
    clip's JSON holds every ``stride``-th frame and names the ``.f32`` next to it)."""
    json_kind, full_kind = VIEWER_KINDS[name]
    levels = export.viewer_levels(motion, full_name=f"{name}.f32")
    body = json.dumps({**levels.arrays, **(extra or {})}, separators=(",", ":")).encode()
    artifact_save(run=run, kind=json_kind, filename=f"{name}.json", data=body)
    artifact_save(run=run, kind=full_kind, filename=f"{name}.f32", data=levels.full)


def analyze_stage(context: Context, progress: Progress) -> None:
    """Analyse the cleaned motion (momentum curves, units, phases, gait, MTP candidates) and
    store the features the API recomputes from and the analysis at the run's parameters.

    A clip that cannot be analysed (fewer than 3 frames, no body segments) still
    succeeds: its ``analysis.json`` says ``available: false`` and why."""
    motion = context.cleaned if context.cleaned is not None else context.motion
    assert motion is not None, "ingest runs before analyze"
    run = context.run
    progress(0.1, "Measuring momentum, contacts and gait")
    try:
        features = analysis.features(motion)
        result = analysis.analyze(features, **analysis_parameters(run.parameters))
    except MotionCoreError as error:  # a T-pose, a face rig: the clip is fine, say why
        body = {"available": False, "reason": str(error), "frames": motion.num_frames}
        artifact_save(
            run=run,
            kind=ArtifactKind.ANALYSIS,
            filename="analysis.json",
            data=json.dumps(body).encode(),
        )
        return
    progress(0.7, "Saving the analysis")
    artifact_save(
        run=run,
        kind=ArtifactKind.ANALYSIS_FEATURES,
        filename="features.npz",
        data=features.to_npz(),
    )
    body = {"available": True, **result.as_dict()}
    artifact_save(
        run=run,
        kind=ArtifactKind.ANALYSIS,
        filename="analysis.json",
        data=json.dumps(body, separators=(",", ":")).encode(),
    )


def analysis_parameters(parameters: dict[str, Any]) -> dict[str, Any]:
    """The analysis keyword arguments a run's ``parameters`` set (the rest default; stored
    under earlier names too)."""
    stored, _ = p.renamed(parameters)
    keys = [q.name for q in p.ANALYSIS]
    return {key: stored[key] for key in keys if stored.get(key) is not None}
