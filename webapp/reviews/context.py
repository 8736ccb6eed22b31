"""The header's unread-notification count, for every page (a template context processor
registered in ``settings.TEMPLATES``). The count is one indexed query, made only when a
template reads ``unread_notifications`` and at most once per render."""

from __future__ import annotations

from functools import cache

from django.contrib.auth.models import User
from django.http import HttpRequest

from webapp.reviews.selectors import notification_unread_count


def notifications(request: HttpRequest) -> dict[str, object]:
    """``unread_notifications``: the logged-in user's unread count (a callable the
    template calls once; nothing for anonymous visitors)."""
    user = getattr(request, "user", None)
    if not isinstance(user, User):
        return {}

    @cache
    def unread_notifications() -> int:
        return notification_unread_count(user=user)

    return {"unread_notifications": unread_notifications}
