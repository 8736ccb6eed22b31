"""Upload plumbing: refuse oversized bodies before reading them, throttle uploads.

``settings.UPLOAD_MAX_BYTES`` bounds the file. A multipart body whose
``Content-Length`` exceeds it by more than :data:`MULTIPART_OVERHEAD_BYTES` cannot
carry an acceptable file, so :class:`UploadParser` answers 413 before a byte of it
is read; :func:`webapp.api.services.clip_upload` checks the parsed file's size before
reading it into memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework.parsers import DataAndFiles, MultiPartParser
from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from webapp.core.errors import TooLarge

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
