"""Project writes: create (the creator becomes owner) and manage members.

Every membership change locks the project's row first, so that two owners stepping
down at once cannot both succeed: a project always keeps at least one owner (409
otherwise, nothing changed).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction

from webapp.core.errors import Conflict, NotFound, ServiceError
from webapp.projects.models import Membership, Project, Role
from webapp.projects.permissions import require_role

LAST_OWNER = "A project must keep at least one owner: make another member owner first."


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
        _lock(project)
        membership, created = Membership.objects.update_or_create(
            project=project, user=user, defaults={"role": role}
        )
        _require_an_owner(project)
    return membership, created


def membership_role_change(*, project: Project, by: User, username: str, role: Role) -> Membership:
    """Give the member ``username`` the role ``role``. Owners only (403); 404 for someone
    who is not a member, 409 for the last owner stepping down."""
    require_role(project=project, user=by, role=Role.OWNER)
    with transaction.atomic():
        _lock(project)
        membership = _member(project, username)
        membership.role = role
        membership.save(update_fields=["role"])
        _require_an_owner(project)
    return membership


def membership_remove(*, project: Project, by: User, username: str) -> None:
    """Remove ``username`` from the project: owners remove anyone, every member may
    leave (remove themselves); others get 403. 404 for someone who is not a member,
    409 for the last owner."""
    if username != by.get_username():
        require_role(project=project, user=by, role=Role.OWNER)
    with transaction.atomic():
        _lock(project)
        _member(project, username).delete()
        _require_an_owner(project)


def _lock(project: Project) -> None:
    """Hold the project's row until the transaction ends (one membership change at a time)."""
    Project.objects.select_for_update().get(pk=project.pk)


def _member(project: Project, username: str) -> Membership:
    membership = (
        Membership.objects.filter(project=project, user__username=username)
        .select_related("user")
        .first()
    )
    if membership is None:
        raise NotFound(f"{username!r} is not a member of this project.")
    return membership


def _require_an_owner(project: Project) -> None:
    """409 (the transaction rolls back) if the project has no owner left."""
    if not Membership.objects.filter(project=project, role=Role.OWNER).exists():
        raise Conflict(LAST_OWNER)
