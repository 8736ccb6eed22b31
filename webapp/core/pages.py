"""What every browser page view shares: log-in, service errors as error pages (the user
is :func:`webapp.core.auth.request_user`, as in the API).

A :class:`~webapp.core.errors.ServiceError` raised by a selector or a service becomes
``error.html`` with its status in one place, :func:`page`, so views stay thin.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Concatenate, ParamSpec

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from webapp.core.errors import ServiceError

CAMERA_PRESETS = ("front", "side", "top", "follow")
"""The players' camera presets (static/js/viewer/stage.js)."""

P = ParamSpec("P")
PageView = Callable[Concatenate[HttpRequest, P], HttpResponse]


def page(view: PageView[P]) -> PageView[P]:
    """Log-in required; a :class:`ServiceError` renders ``error.html`` with its status."""

    @wraps(view)
    def wrapper(request: HttpRequest, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except ServiceError as error:
            return error_page(request, error.message, error.status)

    return login_required(wrapper)


def error_page(request: HttpRequest, message: str, status: int) -> HttpResponse:
    """``error.html`` with ``message`` and the HTTP ``status``."""
    return render(request, "error.html", {"message": message, "status": status}, status=status)
