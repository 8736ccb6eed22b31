"""MotorNerve reads, scoped to the user's memberships (404 for anything of a project the
user is not a member of); the workers' reads of a training's clips and weights."""

from __future__ import annotations

import io
from pathlib import PurePosixPath
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from motioncore.clip import Clip as MotionClip
from motioncore.errors import MotionCoreError
from motioncore.motornerve.network import Weights
from webapp.clips.models import Artifact, Clip
from webapp.clips.selectors import clip_best_motion, run_download_get, run_downloads_ready
from webapp.core.downloads import Download
from webapp.core.errors import NotFound
from webapp.motornerve.models import Drive, MotorNerveArtifactKind, Training
from webapp.projects.selectors import project_list
from webapp.runs.models import Status

DRIVE_DOWNLOADS: dict[str, MotorNerveArtifactKind] = {
    "drive.bvh": MotorNerveArtifactKind.BVH,
    "drive-canonical.bvh": MotorNerveArtifactKind.CANONICAL_BVH,
    "viewer.json": MotorNerveArtifactKind.VIEWER,
    "report.json": MotorNerveArtifactKind.REPORT,
}
"""Download name → artifact kind of a drive's run."""
TRAINING_DOWNLOADS: dict[str, MotorNerveArtifactKind] = {
    "weights.npz": MotorNerveArtifactKind.WEIGHTS,
    "training.jsonl": MotorNerveArtifactKind.TRAINING_LOG,
}
"""Download name → artifact kind of a training's run."""


def _drives(found: QuerySet[Drive]) -> QuerySet[Drive]:
    return found.select_related("run", "clip", "created_by").prefetch_related("run__artifacts")


def _trainings(found: QuerySet[Training]) -> QuerySet[Training]:
    return found.select_related("run", "created_by").prefetch_related("run__artifacts")


def drive_get(*, user: User | AnonymousUser, drive_id: int) -> Drive:
    """The drive if the user is a member of its project, else 404."""
    found = _drives(Drive.objects.filter(pk=drive_id, project__in=project_list(user=user))).first()
    if found is None:
        raise NotFound("No such drive.")
    return found


def drive_list_for_clip(*, clip: Clip) -> QuerySet[Drive]:
    """Drives put on ``clip`` (fetched through a visibility check), newest first."""
    return _drives(Drive.objects.filter(clip=clip))


def drive_downloads_ready(drive: Drive) -> dict[str, bool]:
    return run_downloads_ready(drive.run, DRIVE_DOWNLOADS)


def drive_download_get(*, user: User | AnonymousUser, drive_id: int, name: str) -> Download:
    """The file behind ``GET motornerve/drives/{id}/download/{name}/``."""
    drive = drive_get(user=user, drive_id=drive_id)
    filename = f"{PurePosixPath(drive.clip.name).stem}-drive-{drive.pk}.{name}"
    return run_download_get(drive.run, DRIVE_DOWNLOADS, name, filename, "the drive's run")


def training_get(*, user: User | AnonymousUser, training_id: int) -> Training:
    """The training if the user is a member of its project, else 404."""
    found = _trainings(
        Training.objects.filter(pk=training_id, project__in=project_list(user=user))
    ).first()
    if found is None:
        raise NotFound("No such training.")
    return found


def training_list(*, project_id: int) -> QuerySet[Training]:
    """A project's trainings (the caller checked membership), newest first."""
    return _trainings(Training.objects.filter(project_id=project_id))


def training_downloads_ready(training: Training) -> dict[str, bool]:
    return run_downloads_ready(training.run, TRAINING_DOWNLOADS)


def training_download_get(*, user: User | AnonymousUser, training_id: int, name: str) -> Download:
    """The file behind ``GET motornerve/trainings/{id}/download/{name}/``."""
    training = training_get(user=user, training_id=training_id)
    filename = f"motornerve-training-{training.pk}.{name}"
    return run_download_get(training.run, TRAINING_DOWNLOADS, name, filename, "the training's run")


def training_weights(training_id: int) -> Weights:
    """The weights a succeeded training stored (a worker's read: no user check; the
    drive was checked when it was created)."""
    artifact = Artifact.objects.filter(
        run__training__pk=training_id,
        kind=MotorNerveArtifactKind.WEIGHTS,
        run__status=Status.SUCCEEDED,
    ).first()
    if artifact is None:
        raise MotionCoreError(f"training {training_id} has no weights: it has not succeeded")
    with artifact.file.open("rb") as handle:
        return Weights.load(io.BytesIO(handle.read()))


def training_clips_motion(parameters: dict[str, Any]) -> dict[str, tuple[MotionClip, bool]]:
    """The motion of a training's clips (``parameters["clips"]``, ids), by clip name and
    id, each with whether it is tagged interact (``parameters["interact"]``)."""
    interact = set(parameters.get("interact", []))
    out: dict[str, tuple[MotionClip, bool]] = {}
    for clip in Clip.objects.filter(pk__in=parameters["clips"]).order_by("pk"):
        motion, _ = clip_best_motion(clip)
        out[f"{clip.name} (clip {clip.pk})"] = (motion, clip.pk in interact)
    return out
