"""Labanotation scores uploaded to a project and the animation made from each.

Animating a score takes well under a second (``bench/laban_bench.py``), so it happens
during the upload: the row keeps the normalised score, the footprints and measures, and
the animation's viewer arrays; the animation also becomes an ordinary clip of the
project (``clip``), whose own pipeline run cleans and analyses it like any upload.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from webapp.clips.models import Clip
from webapp.projects.models import Project


def animation_path(instance: Score, filename: str) -> str:
    return f"projects/{instance.project_id}/scores/{instance.sha256[:16]}-{filename}"


class Score(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="scores")
    clip = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="scores")
    name = models.CharField(max_length=200)  # the uploaded file's name
    title = models.CharField(max_length=200, blank=True)
    sha256 = models.CharField(max_length=64)
    score = models.JSONField()  # the normalised kinetograph-score/1 object
    animation = models.JSONField()  # footprints, centre path and measures (synthesize.as_dict)
    viewer = models.FileField(upload_to=animation_path, max_length=300)  # viewer arrays JSON
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "sha256"], name="one_score_per_bytes")
        ]

    def __str__(self) -> str:
        return f"score {self.pk}: {self.title or self.name}"
