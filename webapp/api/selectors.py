"""Project reads the API needs beyond :mod:`webapp.projects.selectors`: each project with
the caller's role and its member count, and the member list.

They build on ``project_list`` / ``project_get`` (so non-members get 404) and belong
in :mod:`webapp.projects.selectors`; they live here until that module takes them.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Count, OuterRef, QuerySet, Subquery

from webapp.projects.models import Membership, Project
from webapp.projects.selectors import project_get, project_list


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
