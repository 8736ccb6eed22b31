"""The ``transition`` stage (registered by :class:`webapp.transitions.apps.TransitionsConfig`;
the contract is :mod:`webapp.runs.stages`)."""

from __future__ import annotations

import json
from typing import Any

from motioncore import analysis, bvh, export, transition
from motioncore import parameters as p
from motioncore.errors import MotionCoreError
from motioncore.transition import bridge
from webapp.clips.models import Clip
from webapp.clips.selectors import clip_best_motion
from webapp.clips.services import artifact_save
from webapp.runs.stages import Context, Progress
from webapp.transitions.models import TransitionArtifactKind
from webapp.transitions.selectors import bridge_library

TRANSITION_VIEWER_KINDS: dict[transition.CutMethod, TransitionArtifactKind] = {
    "mtp": TransitionArtifactKind.VIEWER,
    "end": TransitionArtifactKind.VIEWER_END,
    "fixed70": TransitionArtifactKind.VIEWER_FIXED70,
    "threshold": TransitionArtifactKind.VIEWER_THRESHOLD,
}
"""Cut method → the artifact holding its transition clip's viewer arrays (all four are
stored so that the transition page can play any two side by side)."""


def _seconds(value: object) -> float | None:
    """A stored optional length: ``None`` (chosen by the library) or seconds."""
    return None if value is None else float(str(value))


def _bridge(
    context: Context, comparison: transition.Comparison, clip_b: Clip, progress: Progress
) -> dict[str, Any] | None:
    """Where MTP's join misses the limits, the bridge through the project's clips of the
    same skeleton (built and stored: ``bridge.bvh`` and its viewer arrays), with the clip
    ids and how many clips were searched; ``None`` when the join meets the limits."""
    if comparison.chosen.verdict.good:
        return None
    library = bridge_library(context.run.clip, clip_b)
    progress(0.5, f"No good direct join: searching {len(library)} clips for a bridge")
    loaded = [(clip, clip_best_motion(clip)[0]) for clip in library]
    found = bridge.for_comparison(comparison, [(c.name, motion) for c, motion in loaded])
    searched = {"searched_clips": len(library)}
    if found is None:
        return {"found": False, **searched}
    via = loaded[found.via][0]
    artifact_save(
        run=context.run,
        kind=TransitionArtifactKind.BRIDGE_BVH,
        filename="bridge.bvh",
        data=bvh.dump(found.clip).encode(),
    )
    viewer = json.dumps(export.viewer_arrays(found.clip), separators=(",", ":")).encode()
    artifact_save(
        run=context.run,
        kind=TransitionArtifactKind.BRIDGE_VIEWER,
        filename="bridge-viewer.json",
        data=viewer,
    )
    described = found.as_dict()
    described["via"]["clip"] = via.pk
    return {"found": True, **searched, **described}


def transition_stage(context: Context, progress: Progress) -> None:
    """Build the transition from the run's clip (A) into ``parameters["clip_b"]``: the
    comparison of MTP with the baselines, the transition clip (MTP's) and the viewer
    arrays of every cut method's transition; the report is the run's result."""
    run = context.run
    parameters, _ = p.renamed(run.parameters)  # a run queued before the renames too
    clip_b_id = parameters.get("clip_b")
    clip_b = Clip.objects.filter(pk=clip_b_id).first() if clip_b_id is not None else None
    if clip_b is None:
        raise MotionCoreError(f"Clip B (id {clip_b_id}) no longer exists.")
    progress(0.05, "Loading both clips")
    a, source_a = clip_best_motion(run.clip)
    b, source_b = clip_best_motion(clip_b)
    progress(0.2, "Measuring both clips' gait phase")
    phase_a = analysis.features(a).gait_phase
    phase_b = analysis.features(b).gait_phase
    progress(0.4, "Comparing the cut points")
    comparison = transition.compare(
        a,
        b,
        alpha=float(parameters.get("alpha", p.ALPHA.default)),
        theta_max_deg=float(parameters.get("theta_max_deg", p.THETA_MAX_DEG.default)),
        measure=parameters.get("measure", p.MEASURE.default),
        blend_s=_seconds(parameters.get("blend_s")),
        blend=parameters.get("blend", p.BLEND.default),
        blend_min_s=float(parameters.get("blend_min_s", p.BLEND_MIN_S.default)),
        blend_max_s=float(parameters.get("blend_max_s", p.BLEND_MAX_S.default)),
        phase_a=phase_a,
        phase_b=phase_b,
    )
    report = {**comparison.as_dict(), "sources": {"a": source_a, "b": source_b}}
    report["bridge"] = _bridge(context, comparison, clip_b, progress)
    progress(0.8, "Writing the transition clip")
    chosen = bvh.dump(comparison.chosen.clip).encode()
    artifact_save(run=run, kind=TransitionArtifactKind.BVH, filename="transition.bvh", data=chosen)
    progress(0.85, "Writing the viewer arrays of every cut")
    for method, kind in TRANSITION_VIEWER_KINDS.items():
        clip = comparison.transitions[method].clip
        viewer = json.dumps(export.viewer_arrays(clip), separators=(",", ":")).encode()
        name = "transition-viewer.json" if method == "mtp" else f"transition-viewer-{method}.json"
        artifact_save(run=run, kind=kind, filename=name, data=viewer)
    artifact_save(
        run=run,
        kind=TransitionArtifactKind.REPORT,
        filename="transition.json",
        data=json.dumps(report).encode(),
    )
    context.record_result(report)
