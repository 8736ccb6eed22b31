"""Account writes: a new user; the API token obtained, rotated, revoked; every session
of a user ended ("log out everywhere")."""

from __future__ import annotations

from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY, authenticate, get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from rest_framework.authtoken.models import Token

from webapp.core.errors import ServiceError


def user_create(*, username: str, password: str) -> User:
    """A new active user without staff rights; ``password`` was checked by the caller's form."""
    with transaction.atomic():
        user: User = get_user_model().objects.create_user(username=username, password=password)
    return user


def auth_token_obtain(*, request: HttpRequest, username: str, password: str) -> Token:
    """The API token of the user with these credentials (created on first use);
    400 ``invalid_credentials`` for a wrong pair or an inactive user. A username and
    address locked out after failed attempts get 429 instead
    (:mod:`webapp.accounts.lockout`, through the middleware)."""
    user = authenticate(request, username=username, password=password)
    if user is None:
        raise ServiceError("Wrong username or password.", code="invalid_credentials")
    token, _ = Token.objects.get_or_create(user=user)
    return token


def auth_token_rotate(*, user: User) -> Token:
    """A new API token for ``user``; the old one stops working at once."""
    with transaction.atomic():
        _lock(user)
        Token.objects.filter(user=user).delete()
        token: Token = Token.objects.create(user=user)
    return token


def auth_token_revoke(*, user: User) -> bool:
    """Delete ``user``'s API token (log-out, password change); whether there was one."""
    with transaction.atomic():
        deleted, _ = Token.objects.filter(user=user).delete()
    return deleted > 0


def user_sessions_end(*, user: User) -> int:
    """End every browser session of ``user`` (this one included); how many were ended.

    Needs a database-backed session engine (``db``, the default, or ``cached_db``):
    a session is found by the user id stored in it.
    """
    store = import_module(settings.SESSION_ENGINE).SessionStore
    if not hasattr(store, "get_model_class"):
        raise ImproperlyConfigured("Ending a user's sessions needs a database session engine.")
    live = store.get_model_class().objects.filter(expire_date__gt=timezone.now())
    keys = [
        session.session_key
        for session in live.iterator()
        if session.get_decoded().get(SESSION_KEY) == str(user.pk)
    ]
    with transaction.atomic():
        for key in keys:
            store(session_key=key).delete()
    return len(keys)


def user_logout_everywhere(*, user: User) -> int:
    """Revoke the API token and end every session of ``user``; the sessions ended."""
    with transaction.atomic():
        auth_token_revoke(user=user)
        return user_sessions_end(user=user)


def _lock(user: User) -> None:
    """Hold the user's row until the transaction ends (one token change at a time)."""
    get_user_model().objects.select_for_update().get(pk=user.pk)
