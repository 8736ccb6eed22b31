"""The ``transition`` stage (registered by :class:`webapp.transitions.apps.TransitionsConfig`;
the contract is :mod:`webapp.runs.stages`)."""

from __future__ import annotations

import json

from motioncore import analysis, bvh, export, transition
from motioncore import parameters as p
from motioncore.errors import MotionCoreError
from webapp.clips.models import Clip
from webapp.clips.selectors import clip_best_motion
from webapp.clips.services import artifact_save
from webapp.runs.stages import Context, Progress
from webapp.transitions.models import TransitionArtifactKind

TRANSITION_VIEWER_KINDS: dict[transition.CutMethod, TransitionArtifactKind] = {
    "mtp": TransitionArtifactKind.VIEWER,
    "end": TransitionArtifactKind.VIEWER_END,
    "fixed70": TransitionArtifactKind.VIEWER_FIXED70,
    "threshold": TransitionArtifactKind.VIEWER_THRESHOLD,
}
"""Cut method → the artifact holding its transition clip's viewer arrays (all four are
stored so that the transition page can play any two side by side)."""


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
        blend_s=float(parameters.get("blend_s", p.BLEND_S.default)),
        blend=parameters.get("blend", p.BLEND.default),
        phase_a=phase_a,
        phase_b=phase_b,
    )
    report = {**comparison.as_dict(), "sources": {"a": source_a, "b": source_b}}
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
