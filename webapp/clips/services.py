"""Clip services (writes). Uploads are validated in full before anything is stored.

``clip_upload_create`` checks size, extension and content, parses the BVH with
:func:`motioncore.bvh.load` (a parse error answers 400 with line and column),
then, in one transaction, stores the original bytes untouched, creates the clip
and queues its first run. If the transaction fails, the stored file is removed:
nothing is left half-stored. The same bytes (sha256) in the same project return
the existing clip.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction

from motioncore import bvh, report
from motioncore.errors import MotionCoreError
from webapp.clips.models import Clip
from webapp.core.errors import ServiceError, TooLarge, from_motioncore
from webapp.projects.models import Project, Role
from webapp.projects.permissions import require_role
from webapp.runs.services import DEFAULT_STAGES, run_start

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
