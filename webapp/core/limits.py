"""Request body caps, enforced before a byte of the body is read.

Every request's body is bounded by ``settings.REQUEST_MAX_BYTES`` (1 MiB by default)
unless its view declares a larger bound with :func:`request_limit`, on a view function
or a view class::

    @request_limit(bytes_setting="UPLOAD_MAX_BYTES", overhead_bytes=64 * 1024)
    class ProjectClipsView(GenericAPIView[Clip]): ...

:class:`RequestSizeLimitMiddleware` (early in ``MIDDLEWARE``) resolves the URL to its
view and answers 413 when the declared ``Content-Length`` is over that view's bound:
the one JSON error shape (:func:`webapp.core.exceptions.error_body`, code
``too_large`` or the view's own, ``details.limit_bytes`` the setting's value) under
``/api/``, a plain-text page elsewhere.
The body is never read for that. A chunked body (``Transfer-Encoding: chunked``, no
``Content-Length``) is read up to the bound into a spooled file, and refused the same
way as soon as it passes it; under the bound it is handed on with its length known.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any, TypeVar

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.urls import Resolver404, resolve

from webapp.core.errors import TooLarge
from webapp.core.exceptions import error_body

LIMIT_ATTRIBUTE = "request_body_limit"
"""Where :func:`request_limit` puts a view's :class:`RequestLimit`."""
CHUNK_BYTES = 64 * 1024
API_PREFIX = "/api/"


BYTES_PER_MB = 1024 * 1024


@dataclass(frozen=True)
class RequestLimit:
    """A body bound: the setting ``bytes_setting`` (read per request, so that tests may
    change it) plus ``overhead_bytes``; ``code`` is the 413's error code."""

    bytes_setting: str
    overhead_bytes: int = 0
    code: str = TooLarge.code

    def setting_bytes(self) -> int:
        """The setting's value: the limit the 413 names."""
        return int(getattr(settings, self.bytes_setting))

    def max_bytes(self) -> int:
        """The largest body accepted, in bytes."""
        return self.setting_bytes() + self.overhead_bytes


DEFAULT_LIMIT = RequestLimit("REQUEST_MAX_BYTES")

V = TypeVar("V")


def request_limit(
    *, bytes_setting: str, overhead_bytes: int = 0, code: str = TooLarge.code
) -> Callable[[V], V]:
    """Let a view (function or class) accept bodies up to ``settings.<bytes_setting>``
    plus ``overhead_bytes`` (e.g. multipart boundaries and part headers) instead of
    ``settings.REQUEST_MAX_BYTES``; a larger one is refused with 413 ``code``. The
    setting must exist (checked at import)."""
    if not isinstance(getattr(settings, bytes_setting, None), int):
        raise ImproperlyConfigured(f"request_limit: settings.{bytes_setting} is not an integer.")
    limit = RequestLimit(bytes_setting, overhead_bytes, code)

    def declare(view: V) -> V:
        setattr(view, LIMIT_ATTRIBUTE, limit)
        return view

    return declare


def view_limit(view: Callable[..., Any]) -> RequestLimit:
    """The bound ``view`` declared (on itself, or on the class of a class-based view)."""
    for holder in (view, getattr(view, "view_class", None)):
        declared = getattr(holder, LIMIT_ATTRIBUTE, None)
        if isinstance(declared, RequestLimit):
            return declared
    return DEFAULT_LIMIT


def path_limit(request: HttpRequest) -> RequestLimit:
    """The bound of the view the request's path resolves to (the default for no view)."""
    try:
        match = resolve(request.path_info, getattr(request, "urlconf", None))
    except Resolver404:
        return DEFAULT_LIMIT
    return view_limit(match.func)


def declared_length(request: HttpRequest) -> int | None:
    """``Content-Length`` as Django reads it (0 when malformed), ``None`` when absent."""
    raw = request.META.get("CONTENT_LENGTH")
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except (TypeError, ValueError):
        return 0


def too_large(request: HttpRequest, limit: RequestLimit) -> HttpResponse:
    """The 413: the JSON error shape under ``/api/``, plain text elsewhere."""
    size = limit.setting_bytes()
    message = f"The request is larger than the {size / BYTES_PER_MB:g} MB limit."
    if request.path_info.startswith(API_PREFIX):
        body = error_body(limit.code, message, {"limit_bytes": size})
        return JsonResponse(body, status=TooLarge.status)
    return HttpResponse(message, status=TooLarge.status, content_type="text/plain; charset=utf-8")


def _chunked_over(request: HttpRequest, limit: int) -> bool:
    """Whether a chunked body without ``Content-Length`` is over ``limit`` (one under it
    is spooled for the request to read)."""
    chunked = "chunked" in str(request.META.get("HTTP_TRANSFER_ENCODING", "")).lower()
    if not chunked or not isinstance(request, WSGIRequest):
        return False
    return not _spool_chunked(request, limit)


def _spool_chunked(request: WSGIRequest, limit: int) -> bool:
    """Read a chunked body (at most ``limit`` + 1 bytes) into a spooled file that the
    request then reads, its length set as ``Content-Length``; ``False`` when it is over."""
    source: IO[bytes] = request.environ["wsgi.input"]
    # Not a context manager: on success the request keeps it open and reads it.
    spool = tempfile.SpooledTemporaryFile(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE)  # noqa: SIM115
    size = 0
    while chunk := source.read(min(CHUNK_BYTES, limit + 1 - size)):
        size += len(chunk)
        spool.write(chunk)
        if size > limit:
            spool.close()
            return False
    spool.seek(0)
    # WSGIRequest reads its body from ``_stream`` (a LimitedStream of 0 bytes without a
    # Content-Length): hand it the spooled body and its length instead.
    request._stream = spool  # type: ignore[assignment]
    request.META["CONTENT_LENGTH"] = str(size)
    return True


class RequestSizeLimitMiddleware:
    """Refuse (413) a request whose body is over its view's bound, before reading it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        limit = path_limit(request)
        length = declared_length(request)
        if length is not None and length > limit.max_bytes():
            return too_large(request, limit)
        if length is None and _chunked_over(request, limit.max_bytes()):
            return too_large(request, limit)
        return self.get_response(request)
