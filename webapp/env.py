"""Typed readers of environment variables that fail loudly on malformed values.

Every setting comes from the environment (twelve-factor). A value that is set
but malformed raises :class:`django.core.exceptions.ImproperlyConfigured` naming
the variable and what was expected, instead of silently falling back.
"""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def string(name: str, default: str = "") -> str:
    """``$name`` or ``default``."""
    return os.environ.get(name, default)


def boolean(name: str, default: bool = False) -> bool:
    """``$name`` read as a boolean (1/0, true/false, yes/no, on/off)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no).")


def integer(
    name: str, default: int, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """``$name`` read as an integer within ``[minimum, maximum]``."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ImproperlyConfigured(f"{name}={value} is outside [{minimum}, {maximum}].")
    return value


def choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """``$name``, which must be one of ``choices``."""
    value = os.environ.get(name, default).strip()
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} must be one of {', '.join(choices)}.")
    return value


def words(name: str, default: str = "") -> list[str]:
    """``$name`` split on commas, blanks dropped."""
    return [w.strip() for w in os.environ.get(name, default).split(",") if w.strip()]


def url(name: str, default: str, *, schemes: tuple[str, ...]) -> str:
    """``$name``, a URL whose scheme is one of ``schemes``."""
    value = os.environ.get(name, default).strip()
    scheme = value.split("://", 1)[0] if "://" in value else ""
    if scheme not in schemes:
        raise ImproperlyConfigured(
            f"{name}={value!r} must be a URL with scheme {', '.join(schemes)}."
        )
    return value
