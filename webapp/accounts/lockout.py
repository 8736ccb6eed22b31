"""What a locked-out client gets, and which address a request comes from (the two
callables django-axes is configured with in :mod:`webapp.settings`).

A locked-out log-in answers 429 with ``Retry-After``: the API's error shape
(``locked_out``, ``details.retry_after_s``) under ``/api/``, the lockout page
elsewhere. A failure during the lockout starts the cool-off again
(``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT``), so the wait is always the whole
cool-off, counted from this attempt.
"""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from webapp.core.exceptions import error_body

API_PREFIX = "/api/"


def cool_off_s() -> int:
    """The lockout's length in seconds (``KINETOGRAPH_LOGIN_COOLOFF_MIN``)."""
    return int(settings.AXES_COOLOFF_TIME.total_seconds())


def lockout_message(retry_after_s: int) -> str:
    """The sentence a locked-out client reads."""
    minutes = math.ceil(retry_after_s / 60)
    return (
        "Too many failed log-in attempts for this username from your address. "
        f"Try again in {minutes} minute{'s' if minutes != 1 else ''}."
    )


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """429 with ``Retry-After`` for a locked-out username and address
    (``AXES_LOCKOUT_CALLABLE``)."""
    retry_after_s = cool_off_s()
    message = lockout_message(retry_after_s)
    response: HttpResponse
    if request.path.startswith(API_PREFIX):
        body = error_body("locked_out", message, {"retry_after_s": retry_after_s})
        response = JsonResponse(body, status=429)
    else:
        context = {"message": message, "retry_after_s": retry_after_s}
        response = render(request, "accounts/locked_out.html", context, status=429)
    response["Retry-After"] = str(retry_after_s)
    return response


def client_ip(request: HttpRequest) -> str | None:
    """The client's address (``AXES_CLIENT_IP_CALLABLE``): ``REMOTE_ADDR``, or behind
    ``KINETOGRAPH_TRUSTED_PROXIES`` reverse proxies the address the outermost of them
    saw, counted from the right of ``X-Forwarded-For`` (what clients write to its left
    is ignored, so they cannot pick an address)."""
    remote: str | None = request.META.get("REMOTE_ADDR")
    proxies: int = settings.TRUSTED_PROXIES
    if proxies == 0:
        return remote
    forwarded: str = request.META.get("HTTP_X_FORWARDED_FOR", "")
    chain = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    chain.append(remote or "")
    return chain[-(proxies + 1)] if len(chain) > proxies else chain[0]
