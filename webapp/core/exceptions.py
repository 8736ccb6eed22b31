"""One JSON error shape for every API error::

    {"error": {"code": "bvh_parse_error", "message": "...", "details": {...}}}

``details`` carries ``line``/``column`` for parse errors, ``fields`` for
validation failures and ``retry_after_s`` when throttled. Services raise
:class:`~webapp.core.errors.ServiceError`; DRF raises its own exceptions; both are
translated here and nowhere else.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from webapp.core.errors import ServiceError


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The error shape."""
    return {"error": {"code": code, "message": message, "details": details or {}}}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF exception handler producing :func:`error_body` for every handled error.

    Anything else (a bug) returns ``None``: DRF re-raises it and Django answers 500.
    """
    if isinstance(exc, ServiceError):
        set_rollback()
        return Response(error_body(exc.code, exc.message, exc.details), status=exc.status)
    exc = _as_api_exception(exc)
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    response.data = _api_error_body(exc, response.data)
    return response


def _as_api_exception(exc: Exception) -> Exception:
    """Django's 404 and 403 as DRF exceptions, with DRF's default messages."""
    if isinstance(exc, Http404):
        return exceptions.NotFound()
    if isinstance(exc, DjangoPermissionDenied):
        return exceptions.PermissionDenied()
    return exc


def _api_error_body(exc: exceptions.APIException, data: Any) -> dict[str, Any]:
    if isinstance(exc, exceptions.ValidationError):
        return error_body("validation_error", "The request is not valid.", {"fields": data})
    codes = exc.get_codes()
    code = codes if isinstance(codes, str) else str(exc.default_code)
    message = data.get("detail", exc.default_detail) if isinstance(data, dict) else data
    wait = getattr(exc, "wait", None)  # set by Throttled (absent from the type stubs)
    details = {"retry_after_s": wait} if isinstance(exc, exceptions.Throttled) else {}
    return error_body(code, str(message), details)
