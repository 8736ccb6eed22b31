"""The log-in lockout as an authentication backend (first in ``AUTHENTICATION_BACKENDS``).

django-axes counts failed log-ins per username *and* client address in the database
(``AXES_LOCKOUT_PARAMETERS``, ``docs/platform.md``) and refuses a locked-out pair
before any password is checked. Every HTTP entry point that checks a password passes
its request to ``authenticate``: the log-in page, the admin's, the token endpoint and
the password-change form (``tests/webapp/test_accounts_security.py`` checks each and
that no ``authenticate`` call in ``webapp`` omits it).
"""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from django.http import HttpRequest


class LockoutBackend(AxesStandaloneBackend):  # type: ignore[misc]  # axes ships no types
    """axes' standalone backend, abstaining where there is no request.

    axes raises for ``authenticate()`` without a request. Only code on the server calls
    it that way (Django's test client's ``login``, a shell): there is no client
    address to count against, so this backend has no say and the next one decides.
    """

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> None:
        """No opinion (``None``), or :class:`axes.exceptions.AxesBackendPermissionDenied`
        for a username and address that are locked out."""
        if request is None:
            return None
        super().authenticate(request, username=username, password=password, **kwargs)
        return None
