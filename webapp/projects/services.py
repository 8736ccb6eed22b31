"""Project writes: create (the creator becomes owner) and manage members."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction

from webapp.core.errors import Conflict, NotFound, ServiceError
from webapp.projects.models import Membership, Project, Role
from webapp.projects.permissions import require_role


def project_create(*, user: User, name: str) -> Project:
    """A new project owned by ``user``."""
    name = name.strip()
    if not name:
        raise ServiceError("A project needs a name.", code="invalid_name")
    with transaction.atomic():
        project = Project.objects.create(name=name[:120], created_by=user)
        Membership.objects.create(project=project, user=user, role=Role.OWNER)
    return project


def membership_set(*, project: Project, by: User, username: str, role: Role) -> Membership:
    """Add ``username`` to the project with ``role`` (or change their role). Owners only."""
    membership, _ = membership_upsert(project=project, by=by, username=username, role=role)
    return membership


def membership_upsert(
    *, project: Project, by: User, username: str, role: Role
) -> tuple[Membership, bool]:
    """Like :func:`membership_set`, also saying whether the membership is new.

    404 if there is no such user, 409 if the change would leave the project without
    an owner (nothing is changed then).
    """
    require_role(project=project, user=by, role=Role.OWNER)
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise NotFound(f"No user called {username!r}.")
    with transaction.atomic():
        membership, created = Membership.objects.update_or_create(
            project=project, user=user, defaults={"role": role}
        )
        if not Membership.objects.filter(project=project, role=Role.OWNER).exists():
            raise Conflict("A project must keep at least one owner.")
    return membership, created
