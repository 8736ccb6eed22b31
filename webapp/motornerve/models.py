"""MotorNerve in a project: drives (an intent timeline played on a clip's rig) and
trainings (weights learnt from the project's clips).

Both are runs of the ``motornerve`` kind. A drive's run belongs to the clip whose
skeleton the motion is put on; a training's to the first clip of its set (a run always
belongs to a clip). ``result`` repeats the run's measures so that lists answer without
reading files.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from webapp.clips.models import Clip
from webapp.projects.models import Project
from webapp.runs.models import Run


class MotorNerveArtifactKind(models.TextChoices):
    """What MotorNerve runs store (``Artifact.kind``; registered by
    :class:`~webapp.motornerve.apps.MotorNerveConfig`)."""

    BVH = "motornerve_bvh", "MotorNerve drive on the clip's rig (BVH)"
    CANONICAL_BVH = "motornerve_canonical_bvh", "MotorNerve drive on the canonical skeleton (BVH)"
    VIEWER = "motornerve_viewer", "MotorNerve drive viewer arrays (JSON)"
    REPORT = "motornerve_report", "MotorNerve drive measures (JSON)"
    WEIGHTS = "motornerve_weights", "MotorNerve weights trained on the project's clips (npz)"
    WEB_WEIGHTS = "motornerve_web_weights", "MotorNerve weights for the browser (binary)"
    WEB_MANIFEST = "motornerve_web_manifest", "MotorNerve browser weights manifest (JSON)"
    TRAINING_LOG = "motornerve_training_log", "MotorNerve training log (JSON lines)"


class Training(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="trainings")
    name = models.CharField(max_length=120)
    parameters = models.JSONField(default=dict)  # clips, interact, epochs
    run = models.OneToOneField(Run, on_delete=models.CASCADE, related_name="training")
    result = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"training {self.pk} ({self.name})"


class Drive(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="drives")
    clip = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="drives")
    training = models.ForeignKey(
        Training, null=True, blank=True, on_delete=models.PROTECT, related_name="drives"
    )  # the weights; None: the shipped ones
    parameters = models.JSONField(default=dict)  # timeline, foot_lock
    run = models.OneToOneField(Run, on_delete=models.CASCADE, related_name="drive")
    result = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"drive {self.pk} on clip {self.clip_id}"
