"""Account reads: the user's API token, if any."""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token


def auth_token_get(*, user: User) -> Token | None:
    """``user``'s API token, ``None`` when they have none (never obtained, or revoked)."""
    token: Token | None = Token.objects.filter(user=user).first()
    return token
