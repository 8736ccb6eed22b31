"""Transitions: a cut from clip A into clip B, computed by a run, with its comparison table.

The run belongs to clip A (``run.clip``) and has the single stage ``transition``;
its artifacts are the transition clip (BVH and viewer arrays) and the report
(:func:`motioncore.transition.compare`'s JSON). ``result`` repeats that report so
that lists and the detail answer without reading files.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from webapp.clips.models import Clip
from webapp.projects.models import Project
from webapp.runs.models import Run


class TransitionArtifactKind(models.TextChoices):
    """What a transition's run stores (``Artifact.kind``; registered by
    :class:`~webapp.transitions.apps.TransitionsConfig`)."""

    BVH = "transition_bvh", "Transition clip (BVH)"
    VIEWER = "transition_viewer", "Transition clip viewer arrays (JSON)"
    VIEWER_END = "transition_viewer_end", "End-of-clip cut viewer arrays (JSON)"
    VIEWER_FIXED70 = "transition_viewer_fixed70", "70 % cut viewer arrays (JSON)"
    VIEWER_THRESHOLD = "transition_viewer_threshold", "Speed-threshold cut viewer arrays (JSON)"
    REPORT = "transition_report", "Transition report (JSON)"
    BRIDGE_BVH = "transition_bridge_bvh", "Bridge clip A → C → B (BVH)"
    BRIDGE_VIEWER = "transition_bridge_viewer", "Bridge clip viewer arrays (JSON)"


class Transition(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="transitions")
    clip_a = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="transitions_from")
    clip_b = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="transitions_into")
    parameters = models.JSONField(default=dict)  # alpha, theta_max_deg, curve, blend_s, blend
    run = models.OneToOneField(Run, on_delete=models.CASCADE, related_name="transition")
    result = models.JSONField(default=dict, blank=True)  # the report once the run succeeded
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"transition {self.pk}: clip {self.clip_a_id} -> clip {self.clip_b_id}"
