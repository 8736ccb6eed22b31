"""The ``sequence`` stage (registered by :class:`webapp.sequences.apps.SequencesConfig`; the
contract is :mod:`webapp.runs.stages`)."""

from __future__ import annotations

import json
from typing import Any

from motioncore import bvh, export
from motioncore import parameters as p
from motioncore.errors import MotionCoreError
from motioncore.transition import sequence
from webapp.clips.models import Clip
from webapp.clips.selectors import clip_best_motion
from webapp.clips.services import artifact_save
from webapp.runs.stages import Context, Progress
from webapp.sequences.models import SequenceArtifactKind


def _edit(value: dict[str, Any] | None) -> sequence.JoinEdit | None:
    if value is None:
        return None
    cut, entry = value.get("cut"), value.get("entry")
    return sequence.JoinEdit(
        None if cut is None else int(cut), None if entry is None else int(entry)
    )


def sequence_stage(context: Context, progress: Progress) -> None:
    """Join the run's clips (``parameters["clips"]``, in order) with its join edits; store
    the sequence clip, its viewer arrays and the report (the run's result)."""
    run = context.run
    parameters, _ = p.renamed(run.parameters)
    ids = [int(i) for i in parameters.get("clips", [])]
    found = {clip.pk: clip for clip in Clip.objects.filter(pk__in=ids)}
    missing = [i for i in ids if i not in found]
    if missing:
        raise MotionCoreError(f"Clips {missing} no longer exist.")
    motions = []
    for k, clip_id in enumerate(ids):
        progress(0.05 + 0.3 * k / len(ids), f"Loading clip {k + 1} of {len(ids)}")
        motions.append(clip_best_motion(found[clip_id])[0])
    progress(0.4, f"Joining {len(ids)} clips")
    blend_s = parameters.get("blend_s")
    made = sequence.sequence(
        motions,
        alpha=float(parameters.get("alpha", p.ALPHA.default)),
        theta_max_deg=float(parameters.get("theta_max_deg", p.THETA_MAX_DEG.default)),
        measure=str(parameters.get("measure", p.MEASURE.default)),
        blend=parameters.get("blend", p.BLEND.default),
        blend_s=None if blend_s is None else float(blend_s),
        blend_min_s=float(parameters.get("blend_min_s", p.BLEND_MIN_S.default)),
        blend_max_s=float(parameters.get("blend_max_s", p.BLEND_MAX_S.default)),
        edits=[_edit(e) for e in parameters.get("edits") or [None] * (len(ids) - 1)],
    )
    report = made.as_dict()
    report["clips"] = [{"id": i, "name": found[i].name} for i in ids]
    progress(0.8, "Writing the sequence clip")
    artifact_save(
        run=run,
        kind=SequenceArtifactKind.BVH,
        filename="sequence.bvh",
        data=bvh.dump(made.clip).encode(),
    )
    viewer = json.dumps(export.viewer_arrays(made.clip), separators=(",", ":")).encode()
    artifact_save(
        run=run, kind=SequenceArtifactKind.VIEWER, filename="sequence-viewer.json", data=viewer
    )
    artifact_save(
        run=run,
        kind=SequenceArtifactKind.REPORT,
        filename="sequence.json",
        data=json.dumps(report).encode(),
    )
    context.record_result(report)
