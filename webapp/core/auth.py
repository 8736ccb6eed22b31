"""Who is asking: the one way a view (API endpoint or page) gets its user."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from rest_framework.request import Request

from webapp.core.errors import NotAuthenticated


def request_user(request: HttpRequest | Request) -> User:
    """The request's logged-in user; 401 ``not_authenticated`` for anyone else.

    API views require authentication (``IsAuthenticated``, the default) and pages log-in
    (:func:`webapp.core.pages.page`) before the handler runs, so the error is a guard:
    checked at run time, never assumed (no ``cast``, no ``assert``).
    """
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise NotAuthenticated("Authentication credentials were not provided.")
    return user
