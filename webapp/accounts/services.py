"""Account writes: a new user, an API token."""

from __future__ import annotations

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.http import HttpRequest
from rest_framework.authtoken.models import Token

from webapp.core.errors import ServiceError


def user_create(*, username: str, password: str) -> User:
    """A new active user without staff rights; ``password`` was checked by the caller's form."""
    with transaction.atomic():
        user: User = get_user_model().objects.create_user(username=username, password=password)
    return user


def auth_token_obtain(*, request: HttpRequest, username: str, password: str) -> Token:
    """The API token of the user with these credentials (created on first use);
    400 ``invalid_credentials`` for a wrong pair or an inactive user."""
    user = authenticate(request, username=username, password=password)
    if user is None:
        raise ServiceError("Wrong username or password.", code="invalid_credentials")
    token, _ = Token.objects.get_or_create(user=user)
    return token
