"""Characters uploaded to a project: a skinned glTF 2.0 file read by
:func:`motioncore.character.rig.read_rig`.

The row keeps the file as uploaded (``original``), the body the players and the GLB
downloads use (``body``: the character at rest, skinned to its skeleton, without
animation or materials, :func:`motioncore.character.glb.rest_glb_bytes`), the
validation report and the role overrides the upload gave.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from webapp.projects.models import Project


def character_path(instance: Character, filename: str) -> str:
    return f"projects/{instance.project_id}/characters/{instance.sha256[:16]}-{filename}"


class Character(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="characters")
    name = models.CharField(max_length=200)
    sha256 = models.CharField(max_length=64)
    original = models.FileField(upload_to=character_path, max_length=300)
    body = models.FileField(upload_to=character_path, max_length=300)
    report = models.JSONField()
    overrides = models.JSONField(default=dict, blank=True)  # role -> joint name
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "sha256"], name="one_character_per_bytes")
        ]

    def __str__(self) -> str:
        return f"{self.name} (character {self.pk})"
