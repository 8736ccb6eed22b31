"""The ``pfnn`` stage (registered by :class:`webapp.pfnn.apps.PfnnConfig`; the contract is
:mod:`webapp.runs.stages`)."""

from __future__ import annotations

import json
from functools import cache

from motioncore import bvh, export
from motioncore.pfnn import generate, on_rig
from motioncore.pfnn.network import SHIPPED_WEIGHTS, Weights
from webapp.clips.selectors import clip_best_motion
from webapp.clips.services import artifact_save
from webapp.pfnn.models import PfnnArtifactKind
from webapp.runs.stages import Context, Progress


@cache
def _pfnn_weights() -> Weights:
    """The shipped PFNN weights, loaded once per worker."""
    return Weights.load(SHIPPED_WEIGHTS)


def pfnn_stage(context: Context, progress: Progress) -> None:
    """Walk ``parameters["path"]`` with the shipped PFNN and put the walk on the run's
    clip's rig (its newest cleaned motion; the first frame is the reference pose); the
    measures are the run's result."""
    run, parameters = context.run, context.run.parameters
    progress(0.02, "Loading the network")
    weights = _pfnn_weights()
    rig, _ = clip_best_motion(run.clip)
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
    walk_bvh, canonical_bvh = bvh.dump(walk).encode(), bvh.dump(made.clip).encode()
    artifact_save(run=run, kind=PfnnArtifactKind.BVH, filename="walk.bvh", data=walk_bvh)
    artifact_save(
        run=run,
        kind=PfnnArtifactKind.CANONICAL_BVH,
        filename="walk-canonical.bvh",
        data=canonical_bvh,
    )
    viewer = json.dumps(export.viewer_arrays(walk), separators=(",", ":")).encode()
    artifact_save(run=run, kind=PfnnArtifactKind.VIEWER, filename="walk-viewer.json", data=viewer)
    artifact_save(
        run=run,
        kind=PfnnArtifactKind.REPORT,
        filename="walk.json",
        data=json.dumps(report).encode(),
    )
    measured = {k: v for k, v in on.as_dict().items() if k != "canonical"}
    context.record_result(measured)
