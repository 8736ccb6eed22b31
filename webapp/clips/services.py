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
from pathlib import PurePosixPath

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from django.db import IntegrityError, transaction

from motioncore import bvh
from motioncore.bvh import report
from motioncore.clip import Clip as MotionClip
from motioncore.errors import MotionCoreError
from webapp.clips.limits import SETTINGS as LIMIT_SETTINGS
from webapp.clips.limits import motion_limits
from webapp.clips.models import Artifact, Clip
from webapp.clips.selectors import clip_get
from webapp.core.errors import ServiceError, TooLarge, from_motioncore
from webapp.projects.models import Project, Role
from webapp.projects.permissions import require_role
from webapp.runs import registry
from webapp.runs.models import Run
from webapp.runs.services import run_artifact_budget_check, run_lock_owned, run_start

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
        clip_arrays = bvh.load(data, limits=motion_limits())
        validation = report.validation_report(clip_arrays)
    except MotionCoreError as error:
        raise from_motioncore(error, limit_settings=LIMIT_SETTINGS) from error
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
    the new row is committed; the new file is deleted if it is not. A file that would
    take the run's artifacts past ``RUN_MAX_ARTIFACT_BYTES`` is not written:
    :class:`~webapp.runs.services.BudgetExceeded` fails the run with the reason.
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
            run_artifact_budget_check(run=run, kind=kind, size_bytes=len(data))
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


def clip_source_create(
    *, project: Project, user: User, name: str, data: bytes, first_stage: str
) -> Clip:
    """A clip whose motion a run makes from another source (``data``, e.g. a score),
    stored untouched like an upload; its first run (``first_stage``, then ``clean`` and
    ``analyze``) is queued on commit and fills in its frames, rate and report
    (:func:`clip_motion_record`). Call it inside the caller's transaction."""
    registry.step(first_stage)  # an unknown stage fails here, not in the worker
    clip = Clip(
        project=project,
        name=sanitize_name(name),
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
        frames=0,
        fps=0.0,
        duration_s=0.0,
        joints=0,
        first_stage=first_stage,
        uploaded_by=user,
    )
    clip.original.save(PurePosixPath(clip.name).name or "source", ContentFile(data), save=False)
    stored_name = clip.original.name or ""
    try:
        clip.save()
        run_start(clip=clip, user=user, stages=clip_stages(clip), parameters={})
    except BaseException:
        _delete_quietly(clip, stored_name)
        raise
    return clip


def clip_motion_record(*, clip: Clip, motion: MotionClip) -> None:
    """Fill in the frames, rate, duration, joints and validation report of a clip whose
    motion its first stage has just made."""
    validation = report.validation_report(motion)
    Clip.objects.filter(pk=clip.pk).update(
        frames=motion.num_frames,
        fps=motion.fps,
        duration_s=motion.duration_s,
        joints=int(validation["joints"]),
        report=validation,
    )


def clip_stages(clip: Clip) -> tuple[str, ...]:
    """The stages of a run of the clip's pipeline: its first stage, then cleaning and
    analysis."""
    return (clip.first_stage, *DEFAULT_STAGES[1:])


def clip_run_start(
    *, user: User, clip_id: int, fps: float | None, analysis: dict[str, object] | None = None
) -> Run:
    """Queue a run of the default stages on the clip (editors and owners; 404 for
    non-members); ``fps`` overrides the clip's frame rate for the run, ``analysis`` sets
    the analyze stage's α, θ_max and measure (unset ones: their defaults). The task is
    sent on commit."""
    clip = clip_get(user=user, clip_id=clip_id)
    require_role(project=clip.project, user=user, role=Role.EDITOR)
    parameters: dict[str, object] = {} if fps is None else {"fps": fps}
    parameters |= {k: v for k, v in (analysis or {}).items() if v is not None}
    with transaction.atomic():
        return run_start(clip=clip, user=user, stages=clip_stages(clip), parameters=parameters)
