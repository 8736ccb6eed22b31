"""Project reads, always scoped to the user's memberships."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from webapp.core.errors import NotFound
from webapp.projects.models import Project


def project_list(*, user: User | AnonymousUser) -> QuerySet[Project]:
    """Projects the user is a member of."""
    if not user.is_authenticated:
        return Project.objects.none()
    return Project.objects.filter(memberships__user=user).distinct()


def project_get(*, user: User | AnonymousUser, project_id: int) -> Project:
    """The project if the user is a member, else :class:`NotFound` (404)."""
    project = project_list(user=user).filter(pk=project_id).first()
    if project is None:
        raise NotFound("No such project.")
    return project
