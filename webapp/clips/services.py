"""Clip services (writes). Uploads are validated in full before anything is stored.

``clip_upload_create`` checks size, extension and content, parses the BVH with
:func:`motioncore.bvh.load` (a parse error answers 400 with line and column),
then, in one transaction, stores the original bytes untouched, creates the clip
and queues its first run. If the transaction fails, the stored file is removed:
nothing is left half-stored. The same bytes (sha256) in the same project return
the existing clip.

``artifact_save`` is how every stage of every kind of run stores its output: an
:class:`~webapp.clips.models.Artifact` of a kind some app registered with
:mod:`webapp.runs.registry`, written only while the worker owns the run.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from functools import partial

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from django.db import IntegrityError, transaction

from motioncore import bvh
from motioncore.bvh import report
from motioncore.errors import MotionCoreError
from webapp.clips.models import Artifact, Clip
from webapp.clips.selectors import clip_get
from webapp.core.errors import ServiceError, TooLarge, from_motioncore
from webapp.projects.models import Project, Role
from webapp.projects.permissions import require_role
from webapp.runs import registry
from webapp.runs.models import Run
from webapp.runs.services import run_lock_owned, run_start

DEFAULT_STAGES = ("ingest", "clean", "analyze")
"""The pipeline of an upload (the stages :class:`~webapp.clips.apps.ClipsConfig` registers)."""
ALLOWED_EXTENSIONS = (".bvh",)
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._ -]+")


@dataclass(frozen=True)
class UploadResult:
    """The clip, and whether this upload created it (``False``: same bytes were there)."""

    clip: Clip
    created: bool


def sanitize_name(name: str) -> str:
    """A display name safe anywhere: ASCII letters, digits, ``._ -``; no path; ≤ 200 chars."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    ascii_name = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode()
    cleaned = _SAFE_NAME.sub("_", ascii_name).strip(" .") or "clip.bvh"
    return cleaned[:200]


def check_upload(name: str, data: bytes) -> None:
    """Refuse empty, oversized, wrongly named or non-text uploads (before parsing)."""
    if not data:
        raise ServiceError("The file is empty.", code="empty_file")
    if len(data) > settings.UPLOAD_MAX_BYTES:
        limit_mb = settings.UPLOAD_MAX_BYTES / (1024 * 1024)
        raise TooLarge(f"The file is larger than the {limit_mb:g} MB limit.", code="file_too_large")
    if not name.lower().endswith(ALLOWED_EXTENSIONS):
        raise ServiceError("Only .bvh files can be uploaded.", code="unsupported_extension")
    head = data[:4096]
    if b"\x00" in head or not head.lstrip(b"\xef\xbb\xbf \t\r\n").upper().startswith(b"HIERARCHY"):
        raise ServiceError(
            "This is not a BVH file: it must start with HIERARCHY.",
            code="not_bvh",
            details={"line": 1, "column": 1, "message": "A BVH file starts with HIERARCHY."},
        )


def clip_upload_create(*, project: Project, user: User, name: str, data: bytes) -> UploadResult:
    """Validate, store and queue a new clip (or return the existing one with the same bytes)."""
    require_role(project=project, user=user, role=Role.EDITOR)
    check_upload(name, data)
    sha256 = hashlib.sha256(data).hexdigest()
    existing = Clip.objects.filter(project=project, sha256=sha256).first()
    if existing is not None:
        return UploadResult(existing, created=False)
    try:
        clip_arrays = bvh.load(data)
        validation = report.validation_report(clip_arrays)
    except MotionCoreError as error:
        raise from_motioncore(error) from error
    clip = Clip(
        project=project,
        name=sanitize_name(name),
        sha256=sha256,
        size_bytes=len(data),
        frames=clip_arrays.num_frames,
        fps=clip_arrays.fps,
        duration_s=clip_arrays.duration_s,
        joints=int(validation["joints"]),
        report=validation,
        uploaded_by=user,
    )
    return _store(clip, data, user)


def _store(clip: Clip, data: bytes, user: User) -> UploadResult:
    stored_name = ""
    try:
        with transaction.atomic():
            clip.original.save("original.bvh", ContentFile(data), save=False)
            stored_name = clip.original.name or ""
            clip.save()
            run_start(clip=clip, user=user, stages=DEFAULT_STAGES, parameters={})
    except IntegrityError:
        _delete_quietly(clip, stored_name)
        winner = Clip.objects.filter(project=clip.project, sha256=clip.sha256).first()
        if winner is None:
            raise
        return UploadResult(winner, created=False)  # a concurrent upload of the same bytes won
    except BaseException:
        _delete_quietly(clip, stored_name)
        raise
    return UploadResult(clip, created=True)


def _delete_quietly(clip: Clip, stored_name: str) -> None:
    if stored_name and not Clip.objects.filter(original=stored_name).exists():
        clip.original.storage.delete(stored_name)


def artifact_save(*, run: Run, kind: str, filename: str, data: bytes) -> Artifact:
    """Store ``data`` as the run's artifact of ``kind``, replacing an earlier attempt's.

    ``kind`` must be registered by some app (:func:`webapp.runs.registry.register`);
    an unknown one raises :class:`~webapp.runs.registry.UnknownArtifactKind` before
    anything is written. Runs under a lock on the run's row and only while this worker
    owns the run (:func:`~webapp.runs.services.run_lock_owned` raises
    :class:`~webapp.runs.services.LostOwnership` otherwise), so a run has exactly one
    artifact per kind however often it was retried. The replaced file is deleted once
    the new row is committed; the new file is deleted if it is not.
    """
    registry.artifact_kind_check(kind)
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
            run_lock_owned(run=run)
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


def clip_run_start(*, user: User, clip_id: int, fps: float | None) -> Run:
    """Queue a run of the default stages on the clip (editors and owners; 404 for
    non-members); ``fps`` overrides the clip's frame rate for the run. The task is sent
    on commit."""
    clip = clip_get(user=user, clip_id=clip_id)
    require_role(project=clip.project, user=user, role=Role.EDITOR)
    parameters: dict[str, object] = {} if fps is None else {"fps": fps}
    with transaction.atomic():
        return run_start(clip=clip, user=user, stages=DEFAULT_STAGES, parameters=parameters)
