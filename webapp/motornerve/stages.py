"""The ``motornerve_drive`` and ``motornerve_train`` stages (registered by
:class:`webapp.motornerve.apps.MotorNerveConfig`; the contract is :mod:`webapp.runs.stages`)."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from typing import Any

from django.conf import settings

from motioncore import bvh, export
from motioncore.clip import Clip as MotionClip
from motioncore.errors import MotionCoreError
from motioncore.motornerve import dataset, drive, timeline
from motioncore.motornerve.network import Weights
from webapp.clips.selectors import clip_best_motion
from webapp.clips.services import artifact_save, clip_upload_create
from webapp.motornerve.models import MotorNerveArtifactKind as Kind
from webapp.motornerve.selectors import shipped_weights as _shipped_weights
from webapp.motornerve.selectors import (
    shipped_weights_file,
    training_clips_motion,
    training_weights,
)
from webapp.runs.models import Run
from webapp.runs.stages import Context, Progress

DRIVE_STAGE = "motornerve_drive"
TRAIN_STAGE = "motornerve_train"


def shipped_weights() -> Weights:
    """The shipped MotorNerve weights, loaded once per version of the file (the same file
    the Drive page serves: :func:`webapp.motornerve.selectors.shipped_weights`)."""
    return _shipped_weights()


def drive_stage(context: Context, progress: Progress) -> None:
    """Play ``parameters["timeline"]`` with the shipped weights or a training's, on the
    run's clip's rig (its newest cleaned motion; the first frame the reference pose); the
    measures are the run's result."""
    run, parameters = context.run, context.run.parameters
    progress(0.02, "Loading the network")
    training_id = parameters.get("training")
    weights = shipped_weights() if training_id is None else training_weights(training_id)
    rig, _ = clip_best_motion(run.clip)
    commands = timeline.commands(timeline.parse(parameters["timeline"]))
    made = drive.drive(
        weights,
        commands,
        rig,
        foot_lock=bool(parameters.get("foot_lock", True)),
        progress=lambda f: progress(0.05 + 0.75 * f, "Playing the timeline"),
    )
    progress(0.85, "Writing the motion on the clip's skeleton")
    report = {**made.as_dict(), "parameters": parameters, "weights": _weights_name(training_id)}
    artifact_save(run=run, kind=Kind.BVH, filename="drive.bvh", data=bvh.dump(made.clip).encode())
    canonical = bvh.dump(made.played.clip).encode()
    artifact_save(run=run, kind=Kind.CANONICAL_BVH, filename="drive-canonical.bvh", data=canonical)
    viewer = json.dumps(export.viewer_arrays(made.clip), separators=(",", ":")).encode()
    artifact_save(run=run, kind=Kind.VIEWER, filename="drive-viewer.json", data=viewer)
    artifact_save(
        run=run, kind=Kind.REPORT, filename="drive.json", data=json.dumps(report).encode()
    )
    result = made.as_dict()
    if parameters.get("record"):
        progress(0.95, "Adding the recording to the project's clips")
        result["recorded_clip"] = _recorded(run, parameters, made.clip)
    context.record_result(result)


def _recorded(run: Run, parameters: dict[str, Any], motion: MotionClip) -> int:
    """The clip a recording becomes (its BVH on the rig, through the usual pipeline); the
    same bytes give the same clip, so a retried run adds none."""
    if run.created_by is None:
        raise MotionCoreError("the recording's author no longer exists; nothing was added")
    name = parameters.get("name") or f"drive-{run.pk}"
    data = bvh.dump(motion).encode()
    made = clip_upload_create(
        project=run.clip.project, user=run.created_by, name=f"{name}.bvh", data=data
    )
    return made.clip.pk


def _weights_name(training_id: int | None) -> str:
    return shipped_weights_file().name if training_id is None else f"training {training_id}"


def train_stage(context: Context, progress: Progress) -> None:
    """Train weights on the clips of ``parameters["clips"]`` (those in
    ``parameters["interact"]`` tagged interact); refuses, failing the run with the
    reason, when the clips are too few, too short or lack feet
    (:func:`motioncore.motornerve.dataset.user_sources`)."""
    from motioncore.motornerve import train

    run, parameters = context.run, context.run.parameters
    progress(0.01, "Reading the clips")
    sources = dataset.user_sources(training_clips_motion(parameters))
    data = dataset.build(
        sources, lambda i, n, name: progress(0.02 + 0.18 * i / n, f"Preparing {name}")
    )
    config = _config(int(parameters.get("epochs", settings.MOTORNERVE_TRAIN_EPOCHS)))
    log: list[dict[str, float]] = []

    def on_epoch(epoch: int, row: dict[str, float]) -> None:
        log.append(row)
        total = row.get("validation_total", row["train_total"])
        progress(
            0.2 + 0.75 * epoch / config.epochs, f"Epoch {epoch}/{config.epochs}, loss {total:.3f}"
        )

    weights = train.train(data, config, on_epoch)
    saved = io.BytesIO()
    weights.save(saved)
    artifact_save(run=run, kind=Kind.WEIGHTS, filename="motornerve.npz", data=saved.getvalue())
    lines = "".join(json.dumps(row) + "\n" for row in log).encode()
    artifact_save(run=run, kind=Kind.TRAINING_LOG, filename="training.jsonl", data=lines)
    context.record_result(_training_result(data, weights, log))


def _config(epochs: int) -> Any:
    from motioncore.motornerve import train

    return replace(
        train.TrainConfig(),
        epochs=epochs,
        teacher_epochs=max(1, (2 * epochs) // 3),
        windows_per_epoch=settings.MOTORNERVE_TRAIN_WINDOWS,
        rollout_windows_per_epoch=max(settings.MOTORNERVE_TRAIN_WINDOWS // 8, 64),
        validation_windows=128,
        threads=1,
    )


def _training_result(
    data: dataset.Dataset, weights: Weights, log: list[dict[str, float]]
) -> dict[str, Any]:
    last = log[-1] if log else {}
    return {
        "parameters": weights.parameter_count,
        "epochs": len(log),
        "minutes": {
            split: dict(dataset.minutes_per_action(data, split))
            for split in ("train", "validation", "test")
        },
        "train_total": last.get("train_total"),
        "validation_total": last.get("validation_total"),
        "seconds": last.get("seconds"),
    }
