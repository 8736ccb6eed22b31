"""A password validator for ``AUTH_PASSWORD_VALIDATORS``: no site words, no username.

Django's own validators refuse short, common, all-digit passwords and ones too
*similar* to the username; ``weak5weak5`` for ``weak5`` is not similar enough for
them (a ratio of 0.67) but contains the name whole. This one refuses the product's
name and the site's words, and any password that contains the username.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError

SITE_WORDS = ("kinetograph", "labanotation")
MIN_USERNAME_LENGTH = 3
"""Shorter usernames ("al") are too likely inside a good passphrase to refuse it."""


class SiteWordsValidator:
    """Refuses passwords containing one of ``words`` or the user's username (any case)."""

    def __init__(self, words: tuple[str, ...] = SITE_WORDS) -> None:
        self.words = tuple(word.lower() for word in words)

    def validate(self, password: str, user: AbstractBaseUser | None = None) -> None:
        """Raise :class:`ValidationError` (``password_site_word`` or
        ``password_contains_username``)."""
        folded = password.casefold()
        for word in self.words:
            if word in folded:
                raise ValidationError(
                    "This password contains the site's name or one of its words.",
                    code="password_site_word",
                )
        username = (user.get_username() if user is not None else "") or ""
        if len(username) >= MIN_USERNAME_LENGTH and username.casefold() in folded:
            raise ValidationError(
                "This password contains your username.", code="password_contains_username"
            )

    def get_help_text(self) -> str:
        """The rule as the forms show it."""
        return "Your password must not contain your username or the site's name."
