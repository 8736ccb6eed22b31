"""Labanotation scores uploaded to a project and the animation made from each.

The upload validates the score and stores it with its clip (``clip``, whose original is
the score file); the clip's first run animates it (the ``score`` stage, a kind of run
this app registers), then cleans and analyses the animation like any upload. The row
keeps the normalised score and, once animated, the footprints and measures
(``animation``); the animation's BVH and viewer arrays are artifacts of that run.
Scores animated before animation became a run keep their viewer file (``viewer``) and a
clip whose original is the animation's BVH.

A score edited in the browser and saved is a new row, ``version`` n + 1 of the first
(``origin``; null on a first version), with a clip and a run of its own: the older
versions stay as they were, listed and playable.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from webapp.clips.models import Clip
from webapp.projects.models import Project


def animation_path(instance: Score, filename: str) -> str:
    return f"projects/{instance.project_id}/scores/{instance.sha256[:16]}-{filename}"


class ScoreArtifactKind(models.TextChoices):
    """What the ``score`` stage stores (registered by :class:`~webapp.laban.apps.LabanConfig`)."""

    ANIMATION_BVH = "score_animation_bvh", "Animation (BVH, canonical skeleton)"
    ANIMATION_VIEWER = "score_animation_viewer", "Animation viewer arrays (JSON)"
    FOOTPRINTS = "score_footprints", "Footprints, centre path and measures (JSON)"


class Score(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="scores")
    clip = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="scores")
    name = models.CharField(max_length=200)  # the uploaded file's name
    title = models.CharField(max_length=200, blank=True)
    sha256 = models.CharField(max_length=64)
    score = models.JSONField()  # the normalised kinetograph-score/1 object
    animation = models.JSONField()  # footprints, centre path and measures (synthesize.as_dict)
    viewer = models.FileField(upload_to=animation_path, max_length=300, blank=True)  # earlier rows
    version = models.PositiveIntegerField(default=1)
    origin = models.ForeignKey(  # the first version; null on it
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="later_versions"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "sha256"], name="one_score_per_bytes"),
            models.UniqueConstraint(fields=["origin", "version"], name="one_score_per_version"),
        ]

    def __str__(self) -> str:
        return f"score {self.pk}: {self.title or self.name}"
