"""PFNN walks: a path walked by the shipped network, put on a clip's rig by a run.

The run belongs to the clip whose skeleton the walk is put on (``run.clip``) and has
the single stage ``pfnn``; its artifacts are the walk on the rig and on the canonical
skeleton (BVH), the rig walk's viewer arrays and the measures (JSON). ``result``
repeats the measures so that lists answer without reading files.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from webapp.clips.models import Clip
from webapp.projects.models import Project
from webapp.runs.models import Run


class PfnnArtifactKind(models.TextChoices):
    """What a PFNN walk's run stores (``Artifact.kind``; registered by
    :class:`~webapp.pfnn.apps.PfnnConfig`)."""

    BVH = "pfnn_bvh", "PFNN walk on the clip's rig (BVH)"
    CANONICAL_BVH = "pfnn_canonical_bvh", "PFNN walk on the canonical skeleton (BVH)"
    VIEWER = "pfnn_viewer", "PFNN walk viewer arrays (JSON)"
    REPORT = "pfnn_report", "PFNN walk measures (JSON)"


class Generation(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="generations")
    clip = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="generations")
    parameters = models.JSONField(default=dict)  # path, speed_mps, seconds, mode, foot_lock
    run = models.OneToOneField(Run, on_delete=models.CASCADE, related_name="generation")
    result = models.JSONField(default=dict, blank=True)  # the measures once the run succeeded
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"walk {self.pk} on clip {self.clip_id}"
