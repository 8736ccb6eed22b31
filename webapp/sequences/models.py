"""Sequences: N clips of one project played in order, each join cut by MTP, computed by a run.

The run belongs to the first clip (``run.clip``) and has the single stage ``sequence``;
its artifacts are the sequence clip (BVH and viewer arrays) and the report
(:meth:`motioncore.transition.sequence.Sequenced.as_dict` with the clips' ids and names).
``result`` repeats that report so that lists and the detail answer without reading files.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from webapp.projects.models import Project
from webapp.runs.models import Run


class SequenceArtifactKind(models.TextChoices):
    """What a sequence's run stores (``Artifact.kind``; registered by
    :class:`~webapp.sequences.apps.SequencesConfig`)."""

    BVH = "sequence_bvh", "Sequence clip (BVH)"
    VIEWER = "sequence_viewer", "Sequence clip viewer arrays (JSON)"
    REPORT = "sequence_report", "Sequence report (JSON)"


class Sequence(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="sequences")
    clips = models.JSONField(default=list)  # clip ids in playing order
    edits = models.JSONField(default=list)  # per join: {"cut": int|None, "entry": int|None}|None
    parameters = models.JSONField(default=dict)  # alpha, theta_max_deg, measure, blend, ...
    run = models.OneToOneField(Run, on_delete=models.CASCADE, related_name="sequence")
    result = models.JSONField(default=dict, blank=True)  # the report once the run succeeded
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"sequence {self.pk}: clips {self.clips}"
