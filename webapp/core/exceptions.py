"""One JSON error shape for every API error::

    {"error": {"code": "bvh_parse_error", "message": "...", "details": {...}}}

``details`` carries ``line``/``column`` for parse errors and field errors for
validation failures.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from webapp.core.errors import ServiceError


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The error shape."""
    return {"error": {"code": code, "message": message, "details": details or {}}}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF exception handler producing :func:`error_body` for every error."""
    if isinstance(exc, ServiceError):
        return Response(error_body(exc.code, exc.message, exc.details), status=exc.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        body = error_body(
            "validation_error", "The request is not valid.", {"fields": response.data}
        )
    else:
        detail = (
            response.data.get("detail", "") if isinstance(response.data, dict) else response.data
        )
        code = getattr(getattr(exc, "default_code", None), "__str__", lambda: "error")()
        body = error_body(str(getattr(exc, "default_code", code)), str(detail))
    response.data = body
    if response.status_code == status.HTTP_429_TOO_MANY_REQUESTS and hasattr(exc, "wait"):
        response.data["error"]["details"] = {"retry_after_s": exc.wait}
    return response
