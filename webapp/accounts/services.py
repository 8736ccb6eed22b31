"""Account writes."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction


def user_create(*, username: str, password: str) -> User:
    """A new active user without staff rights; ``password`` was checked by the caller's form."""
    with transaction.atomic():
        user: User = get_user_model().objects.create_user(username=username, password=password)
    return user
