"""The web layer's one error type; :mod:`webapp.core.exceptions` turns it into JSON.

Services raise :class:`ServiceError` (or a subclass) with a stable ``code``, a
sentence for the user and optional ``details``; they translate
:mod:`motioncore.errors` here, in one place (:func:`from_motioncore`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from motioncore.errors import BVHLimitError, BVHParseError, MotionCoreError


class ServiceError(Exception):
    """A request the service refuses. ``status`` is the HTTP status it maps to."""

    status = 400
    code = "invalid"

    def __init__(
        self, message: str, *, code: str | None = None, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details or {}


class NotAuthenticated(ServiceError):
    status = 401
    code = "not_authenticated"


class NotFound(ServiceError):
    status = 404
    code = "not_found"


class PermissionDenied(ServiceError):
    status = 403
    code = "permission_denied"


class Conflict(ServiceError):
    status = 409
    code = "conflict"


class TooLarge(ServiceError):
    status = 413
    code = "too_large"


def limit_exceeded(message: str, *, limit: str, value: float, setting: str) -> TooLarge:
    """413 ``limit_exceeded``: ``value`` is over ``limit``, the deployment's setting
    ``setting`` (its value from the settings module, where ``KINETOGRAPH_`` is left
    out of the name)."""
    maximum = getattr(settings, setting.removeprefix("KINETOGRAPH_"))
    details = {"limit": limit, "value": value, "maximum": maximum, "setting": setting}
    return TooLarge(message, code="limit_exceeded", details=details)


def from_motioncore(
    error: MotionCoreError, *, limit_settings: dict[str, str] | None = None
) -> ServiceError:
    """The service error for a ``motioncore`` error (a parse error keeps line and column;
    a file over a limit is a 413 ``limit_exceeded`` naming the limit and, when
    ``limit_settings`` maps it, the setting that raises it)."""
    if isinstance(error, BVHLimitError):
        details: dict[str, Any] = {
            **error.as_dict(),
            "limit": error.limit,
            "value": error.value,
            "maximum": error.maximum,
        }
        setting = (limit_settings or {}).get(error.limit)
        if setting:
            details["setting"] = setting
        return TooLarge(error.message, code="limit_exceeded", details=details)
    if isinstance(error, BVHParseError):
        return ServiceError(error.message, code="bvh_parse_error", details=error.as_dict())
    return ServiceError(str(error), code="motion_error")
