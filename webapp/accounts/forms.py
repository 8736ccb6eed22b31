"""Sign-up form: a username (unique, case-insensitively) and a password typed twice,
checked by ``AUTH_PASSWORD_VALIDATORS``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

if TYPE_CHECKING:  # generic in django-stubs only
    _UserCreationForm = UserCreationForm[User]
else:
    _UserCreationForm = UserCreationForm


class SignUpForm(_UserCreationForm):
    """Django's user creation form; the view saves through :func:`user_create`, not ``save``."""
