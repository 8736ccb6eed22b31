"""Upload plumbing of ``POST projects/{id}/clips/``: refuse oversized bodies before
reading them, throttle uploads, hand the file to the clip service.

``settings.UPLOAD_MAX_BYTES`` bounds the file. A multipart body whose
``Content-Length`` exceeds it by more than :data:`MULTIPART_OVERHEAD_BYTES` cannot
carry an acceptable file, so :class:`UploadParser` answers 413 before a byte of it
is read; :func:`clip_upload` checks the parsed file's size before reading it into
memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from rest_framework.parsers import DataAndFiles, MultiPartParser
from rest_framework.request import Request
from rest_framework.views import APIView

from webapp.clips.services import UploadResult, clip_upload_create
from webapp.core.errors import TooLarge
from webapp.core.throttling import ScopedRateThrottle
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.projects.selectors import project_get

MULTIPART_OVERHEAD_BYTES = 64 * 1024
"""Room for multipart boundaries, part headers and small form fields."""

BYTES_PER_MB = 1024 * 1024


def upload_too_large() -> TooLarge:
    """The 413 for a file over ``settings.UPLOAD_MAX_BYTES``."""
    limit = settings.UPLOAD_MAX_BYTES
    return TooLarge(
        f"The file is larger than the {limit / BYTES_PER_MB:g} MB limit.",
        code="file_too_large",
        details={"limit_bytes": limit},
    )


class UploadParser(MultiPartParser):
    """``multipart/form-data``, refused with 413 when ``Content-Length`` is too large."""

    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> DataAndFiles[Any, Any]:
        request: Request = (parser_context or {})["request"]
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > settings.UPLOAD_MAX_BYTES + MULTIPART_OVERHEAD_BYTES:
            raise upload_too_large()
        return super().parse(stream, media_type, parser_context)


class UploadRateThrottle(ScopedRateThrottle):
    """The view's ``throttle_scope`` rate, counted for POSTs only (a GET on the upload
    URL lists clips and falls under the ordinary user rate)."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        return request.method != "POST" or super().allow_request(request, view)


def clip_upload(*, user: User, project_id: int, upload: UploadedFile) -> UploadResult:
    """Store an uploaded BVH in the project (editors and owners).

    404 for non-members, 403 below editor, 413 for a file over the limit (checked
    before the file is read into memory); then
    :func:`~webapp.clips.services.clip_upload_create` validates, stores and queues it.
    """
    project = project_get(user=user, project_id=project_id)
    require_role(project=project, user=user, role=Role.EDITOR)
    if (upload.size or 0) > settings.UPLOAD_MAX_BYTES:
        raise upload_too_large()
    return clip_upload_create(
        project=project, user=user, name=upload.name or "", data=upload.read()
    )
