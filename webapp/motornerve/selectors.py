"""MotorNerve reads, scoped to the user's memberships (404 for anything of a project the
user is not a member of); the workers' reads of a training's clips and weights; the
Drive page's reads: weights packed for the browser and a rig's size."""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from motioncore import skeleton as roles_mod
from motioncore.clip import Clip as MotionClip
from motioncore.errors import MotionCoreError
from motioncore.motornerve import network, packed
from motioncore.motornerve.network import Weights
from motioncore.pfnn import on_rig
from motioncore.skeleton import retarget
from webapp.clips.models import Artifact, Clip
from webapp.clips.selectors import (
    clip_best_motion,
    clip_get,
    run_download_get,
    run_downloads_ready,
)
from webapp.core.downloads import Download
from webapp.core.errors import Conflict, NotFound, from_motioncore
from webapp.motornerve.models import Drive, MotorNerveArtifactKind, Training
from webapp.projects.selectors import project_get, project_list
from webapp.runs.models import Status

DRIVE_DOWNLOADS: dict[str, MotorNerveArtifactKind] = {
    "drive.bvh": MotorNerveArtifactKind.BVH,
    "drive.glb": MotorNerveArtifactKind.BVH,
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


def _weights_artifact(training_id: int) -> Artifact | None:
    """The weights file of training ``training_id`` if its run has succeeded."""
    return Artifact.objects.filter(
        run__training__pk=training_id,
        kind=MotorNerveArtifactKind.WEIGHTS,
        run__status=Status.SUCCEEDED,
    ).first()


def training_weights(training_id: int) -> Weights:
    """The weights a succeeded training stored (a worker's read: no user check; the
    drive was checked when it was created)."""
    artifact = _weights_artifact(training_id)
    if artifact is None:
        raise MotionCoreError(f"training {training_id} has no weights: it has not succeeded")
    return _artifact_weights(artifact)


def _artifact_weights(artifact: Artifact) -> Weights:
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


# --- the Drive page ---------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PackedWeights:
    """Weights as the browser reads them (:func:`motioncore.motornerve.packed.pack`): the
    manifest's JSON text and the float32 blob, each with a strong ETag (its sha256)."""

    manifest: bytes
    blob: bytes
    manifest_etag: str
    blob_etag: str


def _etag(data: bytes) -> str:
    return f'"{hashlib.sha256(data).hexdigest()}"'


def _packed(weights: Weights) -> PackedWeights:
    manifest, blob = packed.pack(weights)
    text = packed.dumps(manifest).encode()
    return PackedWeights(text, blob, _etag(text), _etag(blob))


def shipped_weights_file() -> Path:
    """Where the shipped weights are (read here at each call, so that the page and the
    drive stage read the same file)."""
    return network.SHIPPED_WEIGHTS


def _version(path: Path) -> tuple[int, int] | None:
    """``(mtime in ns, size)`` of ``path``, ``None`` when there is no such file."""
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    return found.st_mtime_ns, found.st_size


@lru_cache(maxsize=1)
def _shipped(path: str, mtime_ns: int, size: int) -> Weights:
    """The weights of one version of the shipped file (the key: its path, mtime, size)."""
    return Weights.load(path)


@lru_cache(maxsize=1)
def _shipped_packed(path: str, mtime_ns: int, size: int) -> PackedWeights:
    return _packed(_shipped(path, mtime_ns, size))


@lru_cache(maxsize=2)
def _training_packed(artifact_id: int, sha256: str) -> PackedWeights:
    """A training's weights packed (a stored artifact never changes; its hash is in the
    key all the same)."""
    return _packed(_artifact_weights(Artifact.objects.get(pk=artifact_id)))


def shipped_weights() -> Weights:
    """The shipped weights, loaded once per version of the file (a file replaced while a
    worker runs is read again: the Drive page then serves the same weights that the
    drive stage replays with).

    Raises:
        MotionCoreError: there is no such file or it is not MotorNerve weights.
    """
    path = shipped_weights_file()
    version = _version(path)
    if version is None:
        return Weights.load(path)  # raises, naming the file
    return _shipped(str(path), *version)


def drive_weights_packed(
    *, user: User | AnonymousUser, project_id: int, training_id: int | None
) -> PackedWeights:
    """The weights the Drive page of project ``project_id`` plays: the shipped ones, or
    those of the project's succeeded training ``training_id``. 404 for non-members, for
    a training of another project and while no weights are shipped; 409 for a training
    that has not succeeded."""
    project = project_get(user=user, project_id=project_id)
    if training_id is None:
        path = shipped_weights_file()
        version = _version(path)
        if version is None:
            raise NotFound(
                "No MotorNerve weights are shipped yet: train on your clips (a training "
                "of this project) and pick its weights.",
                code="no_shipped_weights",
            )
        return _shipped_packed(str(path), *version)
    training = Training.objects.filter(pk=training_id, project=project).select_related("run")
    found = training.first()
    if found is None:
        raise NotFound("No such training in this project.")
    artifact = _weights_artifact(found.pk)
    if artifact is None:
        raise Conflict(
            f"Training {found.pk} has no weights yet (its run is {found.run.status}).",
            code="training_not_ready",
        )
    return _training_packed(artifact.pk, artifact.sha256)


@dataclass(frozen=True)
class RigSize:
    """How the Drive page sizes the canonical character to a clip's rig: ``scale`` is the
    rig's legs over the canonical ones (:func:`motioncore.motornerve.drive.drive` asks the
    network for the commanded speeds divided by it)."""

    clip_id: int
    name: str
    leg_m: float
    scale: float


def drive_rig_get(*, user: User | AnonymousUser, clip_id: int) -> RigSize:
    """The size of clip ``clip_id``'s rig (its newest cleaned motion's first frame, as
    the drive stage reads it). 404 for non-members; 400 when the clip has no motion yet
    or no legs."""
    clip = clip_get(user=user, clip_id=clip_id)
    try:
        rig, _ = clip_best_motion(clip)
        leg = retarget.rig_leg_m(rig, roles_mod.infer(rig.skeleton))
    except MotionCoreError as error:
        raise from_motioncore(error) from error
    return RigSize(clip.pk, clip.name, leg, leg / on_rig.canonical_leg_m())
