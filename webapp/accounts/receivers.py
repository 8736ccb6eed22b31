"""Log-out revokes the API token: connected in :meth:`AccountsConfig.ready`.

Django sends ``user_logged_out`` from every log-out (the site's, the admin's), so a
token obtained with a password does not outlive the session the user ended; scripts
then get a new one from ``POST /api/v1/auth/token/``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User

from webapp.accounts.services import auth_token_revoke


def on_logged_out(sender: Any, user: User | AnonymousUser | None = None, **kwargs: Any) -> None:
    """Delete the API token of the user who logged out (none for an anonymous log-out)."""
    if isinstance(user, User):
        auth_token_revoke(user=user)
