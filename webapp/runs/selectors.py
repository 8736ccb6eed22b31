"""Run reads, scoped to the user's memberships (a run of a project the user is not a
member of does not exist for them: :class:`~webapp.core.errors.NotFound`, 404)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from webapp.core.errors import NotFound
from webapp.projects.selectors import project_get, project_list
from webapp.runs.models import Run


def run_list(*, user: User | AnonymousUser, project_id: int) -> QuerySet[Run]:
    """The runs of the project's clips, newest first; 404 for non-members."""
    project = project_get(user=user, project_id=project_id)
    return Run.objects.filter(clip__project=project).order_by("-created_at", "-id")


def run_get(*, user: User | AnonymousUser, run_id: int) -> Run:
    """The run if the user is a member of its clip's project, else 404."""
    run = Run.objects.filter(pk=run_id, clip__project__in=project_list(user=user)).first()
    if run is None:
        raise NotFound("No such run.")
    return run
