"""Projects (a team's space) and memberships with roles."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models


class Role(models.TextChoices):
    """What a member may do. Each role includes the ones below it."""

    OWNER = "owner", "Owner"  # manage members, webhooks, delete
    EDITOR = "editor", "Editor"  # upload, start runs, propose cuts for review
    REVIEWER = "reviewer", "Reviewer"  # read, download, comment; decide when assigned
    VIEWER = "viewer", "Viewer"  # read, download


ROLE_RANK = {Role.VIEWER: 0, Role.REVIEWER: 1, Role.EDITOR: 2, Role.OWNER: 3}


class Project(models.Model):
    name = models.CharField(max_length=120)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    members: models.ManyToManyField[User, Membership] = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="projects"
    )

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "user"], name="one_membership_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.project} as {self.role}"
