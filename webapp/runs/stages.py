"""Pipeline stages: each calls one ``motioncore`` function and stores its artifacts.

A stage is ``stage(context, progress) -> None``; it reads the clip (or what earlier
stages left in ``context``) and writes :class:`~webapp.clips.models.Artifact` rows
tied to the run, so a re-run after a crash replaces its own partial output
instead of adding duplicates. The pipeline of an upload is ``ingest``, ``clean``,
``analyze``; a transition run has the single stage ``transition``, a PFNN walk the
single stage ``pfnn``.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

import numpy as np
from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from django.db import transaction

from motioncore import analysis, bvh, clean, export, transition
from motioncore.clip import Clip as MotionClip
from motioncore.errors import MotionCoreError
from motioncore.pfnn import generate, on_rig
from motioncore.pfnn.network import SHIPPED_WEIGHTS, Weights
from webapp.clips.models import Artifact, ArtifactKind, Clip
from webapp.pfnn.services import generation_record_result
from webapp.runs import services
from webapp.runs.models import Run, Status
from webapp.transitions.services import transition_record_result

Progress = Callable[[float, str], None]  # (fraction of the stage done in [0, 1], message)


@dataclass
class Context:
    """What stages share within one run."""

    run: Run
    motion: MotionClip | None = None
    cleaned: MotionClip | None = None
    outputs: dict[str, Any] = field(default_factory=dict)


def save_artifact(run: Run, kind: ArtifactKind, filename: str, data: bytes) -> Artifact:
    """Store ``data`` as the run's artifact of ``kind``, replacing an earlier attempt's.

    Runs under a lock on the run's row and only while this worker owns the run
    (:func:`~webapp.runs.services.run_lock_owned` raises
    :class:`~webapp.runs.services.LostOwnership` otherwise), so a run has exactly
    one artifact per kind however often it was retried. The replaced file is
    deleted once the new row is committed; the new file is deleted if it is not.
    """
    artifact = Artifact(
        clip=run.clip,
        run=run,
        kind=kind,
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
    )
    storage = artifact.file.storage
    try:
        with transaction.atomic():
            services.run_lock_owned(run=run)
            earlier = Artifact.objects.filter(run=run, kind=kind)
            replaced = [name for name in earlier.values_list("file", flat=True) if name]
            earlier.delete()
            artifact.file.save(f"run{run.pk}-{filename}", ContentFile(data), save=False)
            artifact.save()
            transaction.on_commit(partial(_delete_files, storage, replaced), robust=True)
    except BaseException:
        if artifact.file.name:
            storage.delete(artifact.file.name)
        raise
    return artifact


def _delete_files(storage: Storage, names: list[str]) -> None:
    for name in names:
        storage.delete(name)


def ingest(context: Context, progress: Progress) -> None:
    """Parse the stored original and keep a canonical array file for fast reloads."""
    progress(0.1, "Reading the BVH file")
    with context.run.clip.original.open("rb") as handle:
        context.motion = bvh.load(handle.read())
    progress(0.7, "Saving canonical arrays")
    buffer = io.BytesIO()
    motion = context.motion
    np.savez_compressed(
        buffer,
        rotations=motion.rotations,
        translations=motion.translations,
        parents=motion.skeleton.parents,
        offsets=motion.skeleton.offsets,
        names=np.array(motion.skeleton.names),
        fps=np.array(motion.fps),
    )
    save_artifact(context.run, ArtifactKind.CANONICAL, "canonical.npz", buffer.getvalue())


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
    progress(0.8, "Writing the cleaned BVH")
    save_artifact(context.run, ArtifactKind.CLEANED_BVH, "cleaned.bvh", bvh.dump(cleaned).encode())
    save_artifact(
        context.run,
        ArtifactKind.CLEAN_REPORT,
        "clean-report.json",
        json.dumps(report.as_dict()).encode(),
    )
    progress(0.9, "Preparing the viewer arrays")
    viewer = json.dumps(export.viewer_arrays(cleaned), separators=(",", ":")).encode()
    save_artifact(context.run, ArtifactKind.VIEWER, "viewer.json", viewer)
    # The raw clip's time at the cleaned clip's time 0 (leading bind-pose frames dropped).
    raw_arrays = {**export.viewer_arrays(context.motion), "start_s": report.start_in_input_s}
    raw = json.dumps(raw_arrays, separators=(",", ":")).encode()
    save_artifact(context.run, ArtifactKind.VIEWER_RAW, "viewer-raw.json", raw)


def analyze_stage(context: Context, progress: Progress) -> None:
    """Analyse the cleaned motion (momentum curves, units, phases, gait, MTP candidates) and
    store the features the API recomputes from and the analysis at the run's parameters.

    A clip that cannot be analysed (fewer than 3 frames, no body segments) still
    succeeds: its ``analysis.json`` says ``available: false`` and why."""
    motion = context.cleaned if context.cleaned is not None else context.motion
    assert motion is not None, "ingest runs before analyze"
    progress(0.1, "Measuring momentum, contacts and gait")
    try:
        features = analysis.features(motion)
        result = analysis.analyze(features, **analysis_parameters(context.run.parameters))
    except MotionCoreError as error:  # a T-pose, a face rig: the clip is fine, say why
        body = {"available": False, "reason": str(error), "frames": motion.num_frames}
        save_artifact(
            context.run, ArtifactKind.ANALYSIS, "analysis.json", json.dumps(body).encode()
        )
        return
    progress(0.7, "Saving the analysis")
    save_artifact(context.run, ArtifactKind.ANALYSIS_FEATURES, "features.npz", features.to_npz())
    body = {"available": True, **result.as_dict()}
    save_artifact(
        context.run,
        ArtifactKind.ANALYSIS,
        "analysis.json",
        json.dumps(body, separators=(",", ":")).encode(),
    )


def analysis_parameters(parameters: dict[str, Any]) -> dict[str, Any]:
    """The analysis keyword arguments a run's ``parameters`` set (the rest default)."""
    keys = ("alpha", "theta_max_deg", "method")
    return {key: parameters[key] for key in keys if parameters.get(key) is not None}


TRANSITION_VIEWER_KINDS: dict[transition.CutMethod, ArtifactKind] = {
    "mtp": ArtifactKind.TRANSITION_VIEWER,
    "end": ArtifactKind.TRANSITION_VIEWER_END,
    "fixed70": ArtifactKind.TRANSITION_VIEWER_FIXED70,
    "threshold": ArtifactKind.TRANSITION_VIEWER_THRESHOLD,
}
"""Cut method → the artifact holding its transition clip's viewer arrays (all four are
stored so that the transition page can play any two side by side)."""


def transition_stage(context: Context, progress: Progress) -> None:
    """Build the transition from the run's clip (A) into ``parameters["clip_b"]``: the
    comparison of MTP with the baselines, the transition clip (MTP's) and the viewer
    arrays of every cut method's transition."""
    parameters = context.run.parameters
    clip_b = Clip.objects.filter(pk=parameters.get("clip_b")).first()
    if clip_b is None:
        raise MotionCoreError(f"Clip B (id {parameters.get('clip_b')}) no longer exists.")
    progress(0.05, "Loading both clips")
    a, source_a = _best_motion(context.run.clip)
    b, source_b = _best_motion(clip_b)
    progress(0.2, "Measuring both clips' gait phase")
    phase_a = analysis.features(a).gait_phase
    phase_b = analysis.features(b).gait_phase
    progress(0.4, "Comparing the cut points")
    comparison = transition.compare(
        a,
        b,
        alpha=float(parameters.get("alpha", 0.6)),
        theta_max_deg=float(parameters.get("theta_max_deg", 75.0)),
        curve=parameters.get("method", "speed"),
        blend_s=float(parameters.get("blend_s", 0.12)),
        blend=parameters.get("blend", "crossfade"),
        phase_a=phase_a,
        phase_b=phase_b,
    )
    report = {**comparison.as_dict(), "sources": {"a": source_a, "b": source_b}}
    progress(0.8, "Writing the transition clip")
    chosen = comparison.chosen.clip
    save_artifact(
        context.run, ArtifactKind.TRANSITION_BVH, "transition.bvh", bvh.dump(chosen).encode()
    )
    progress(0.85, "Writing the viewer arrays of every cut")
    for method, kind in TRANSITION_VIEWER_KINDS.items():
        clip = comparison.transitions[method].clip
        viewer = json.dumps(export.viewer_arrays(clip), separators=(",", ":")).encode()
        name = "transition-viewer.json" if method == "mtp" else f"transition-viewer-{method}.json"
        save_artifact(context.run, kind, name, viewer)
    save_artifact(
        context.run, ArtifactKind.TRANSITION_REPORT, "transition.json", json.dumps(report).encode()
    )
    transition_record_result(run=context.run, result=report)


@cache
def _pfnn_weights() -> Weights:
    """The shipped PFNN weights, loaded once per worker."""
    return Weights.load(SHIPPED_WEIGHTS)


def pfnn_stage(context: Context, progress: Progress) -> None:
    """Walk ``parameters["path"]`` with the shipped PFNN and put the walk on the run's
    clip's rig (its newest cleaned motion; the first frame is the reference pose)."""
    parameters = context.run.parameters
    progress(0.02, "Loading the network")
    weights = _pfnn_weights()
    rig, _ = _best_motion(context.run.clip)
    on = on_rig.walk(
        weights,
        generate.Path.of(parameters["path"]),
        float(parameters["speed_mps"]),
        rig,
        seconds=parameters.get("seconds"),
        mode=parameters.get("mode", "constant"),
        foot_lock=bool(parameters.get("foot_lock", True)),
        progress=lambda f: progress(0.05 + 0.75 * f, "Walking the path"),
    )
    progress(0.85, "Writing the walk on the clip's skeleton")
    walk, made = on.clip, on.made
    report = {**on.as_dict(), "parameters": parameters, "weights": SHIPPED_WEIGHTS.name}
    save_artifact(context.run, ArtifactKind.PFNN_BVH, "walk.bvh", bvh.dump(walk).encode())
    save_artifact(
        context.run,
        ArtifactKind.PFNN_CANONICAL_BVH,
        "walk-canonical.bvh",
        bvh.dump(made.clip).encode(),
    )
    viewer = json.dumps(export.viewer_arrays(walk), separators=(",", ":")).encode()
    save_artifact(context.run, ArtifactKind.PFNN_VIEWER, "walk-viewer.json", viewer)
    save_artifact(context.run, ArtifactKind.PFNN_REPORT, "walk.json", json.dumps(report).encode())
    measured = {k: v for k, v in on.as_dict().items() if k != "canonical"}
    generation_record_result(run=context.run, result=measured)


def _best_motion(clip: Clip) -> tuple[MotionClip, str]:
    """The clip's newest cleaned motion, else its original; and which one it is."""
    cleaned = (
        Artifact.objects.filter(
            clip=clip, kind=ArtifactKind.CLEANED_BVH, run__status=Status.SUCCEEDED
        )
        .order_by("-run__created_at", "-run_id")
        .first()
    )
    if cleaned is not None and cleaned.file.storage.exists(cleaned.file.name):
        with cleaned.file.open("rb") as handle:
            return bvh.load(handle.read()), f"cleaned (run {cleaned.run_id})"
    with clip.original.open("rb") as handle:
        return bvh.load(handle.read()), "original"


StageFunction = Callable[[Context, Progress], None]

STAGES: dict[str, StageFunction] = {
    "ingest": ingest,
    "clean": clean_stage,
    "analyze": analyze_stage,
    "transition": transition_stage,
    "pfnn": pfnn_stage,
}
