"""Project reads, always scoped to the user's memberships."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, OuterRef, QuerySet, Subquery

from webapp.core.errors import NotFound
from webapp.projects.models import Membership, Project


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


def project_list_with_role(*, user: User) -> QuerySet[Project]:
    """The user's projects annotated with ``my_role`` and ``member_count``."""
    mine = Membership.objects.filter(project=OuterRef("pk"), user=user)
    members = (
        Membership.objects.filter(project=OuterRef("pk"))
        .order_by()
        .values("project")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return project_list(user=user).annotate(
        my_role=Subquery(mine.values("role")[:1]), member_count=Subquery(members[:1])
    )


def project_get_with_role(*, user: User, project_id: int) -> Project:
    """One project as in :func:`project_list_with_role`; 404 for non-members."""
    project_get(user=user, project_id=project_id)
    return project_list_with_role(user=user).get(pk=project_id)


def membership_list(*, user: User, project_id: int) -> QuerySet[Membership]:
    """The project's members by username; 404 for non-members."""
    project = project_get(user=user, project_id=project_id)
    return (
        Membership.objects.filter(project=project).select_related("user").order_by("user__username")
    )
