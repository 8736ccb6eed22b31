"""Who may do what in a project. Non-members get 404 (a project they cannot see does
not exist for them); members whose role is too low get 403."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User

from webapp.core.errors import NotFound, PermissionDenied
from webapp.projects.models import ROLE_RANK, Membership, Project, Role


def role_of(*, project: Project, user: User | AnonymousUser) -> Role | None:
    """The user's role in the project, ``None`` for non-members."""
    if not user.is_authenticated:
        return None
    role = (
        Membership.objects.filter(project=project, user=user).values_list("role", flat=True).first()
    )
    return Role(role) if role else None


def require_role(*, project: Project, user: User | AnonymousUser, role: Role) -> Role:
    """The user's role if it is at least ``role``; else 404 (non-member) or 403."""
    actual = role_of(project=project, user=user)
    if actual is None:
        raise NotFound("No such project.")
    if ROLE_RANK[actual] < ROLE_RANK[role]:
        raise PermissionDenied(
            f"This needs the {role.label.lower()} role or higher; you are {actual.label.lower()}."
        )
    return actual
