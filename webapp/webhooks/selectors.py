"""Webhook reads, scoped like everything of a project: non-members get 404, members
below owner get 403 (webhooks and their logs are the owner's business)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from webapp.core.errors import NotFound
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.projects.selectors import project_get, project_list
from webapp.webhooks.models import Delivery, Webhook


def webhook_list(*, user: User | AnonymousUser, project_id: int) -> QuerySet[Webhook]:
    """The project's webhooks (owners only)."""
    project = project_get(user=user, project_id=project_id)
    require_role(project=project, user=user, role=Role.OWNER)
    return Webhook.objects.filter(project=project)


def webhook_get(*, user: User | AnonymousUser, webhook_id: int) -> Webhook:
    """The webhook if the user is a member of its project, else :class:`NotFound` (404).

    Membership only: the caller's service or selector checks the role.
    """
    webhook = (
        Webhook.objects.select_related("project")
        .filter(pk=webhook_id, project__in=project_list(user=user))
        .first()
    )
    if webhook is None:
        raise NotFound("No such webhook.")
    return webhook


def delivery_list(*, user: User | AnonymousUser, webhook_id: int) -> QuerySet[Delivery]:
    """The webhook's delivery log, newest first (owners only)."""
    webhook = webhook_get(user=user, webhook_id=webhook_id)
    require_role(project=webhook.project, user=user, role=Role.OWNER)
    return Delivery.objects.filter(webhook=webhook)
