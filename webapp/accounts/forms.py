"""Account forms: sign-up (a username, unique case-insensitively, and a password typed
twice) and password change, both checked by ``AUTH_PASSWORD_VALIDATORS``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth import authenticate
from django.contrib.auth.forms import PasswordChangeForm, UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import HttpRequest

if TYPE_CHECKING:  # generic in django-stubs only
    _UserCreationForm = UserCreationForm[User]
else:
    _UserCreationForm = UserCreationForm


class SignUpForm(_UserCreationForm):
    """Django's user creation form; the view saves through :func:`user_create`, not ``save``."""


class GuardedPasswordChangeForm(PasswordChangeForm):
    """Django's password change form whose old password is checked by ``authenticate``,
    so wrong guesses count towards the log-in lockout like any other (a stolen session
    is no unlimited password oracle)."""

    def __init__(self, user: User, *args: Any, request: HttpRequest, **kwargs: Any) -> None:
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self) -> str:
        """The old password, if it is the user's and they are not locked out."""
        old_password: str = self.cleaned_data["old_password"]
        username = self.user.get_username()
        if authenticate(self.request, username=username, password=old_password) is None:
            raise ValidationError(
                self.error_messages["password_incorrect"], code="password_incorrect"
            )
        return old_password
