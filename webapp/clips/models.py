"""Clips (an uploaded motion file, stored untouched) and their artifacts."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from webapp.projects.models import Project


def original_path(instance: Clip, filename: str) -> str:
    return f"projects/{instance.project_id}/originals/{instance.sha256}.bvh"


def artifact_path(instance: Artifact, filename: str) -> str:
    return f"projects/{instance.clip.project_id}/clips/{instance.clip_id}/{filename}"


class Clip(models.Model):
    """An uploaded BVH: the original bytes (never modified), their sha256 and the
    validation report of :func:`motioncore.report.validation_report`."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="clips")
    name = models.CharField(max_length=200)
    original = models.FileField(upload_to=original_path, max_length=300)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.PositiveBigIntegerField()
    frames = models.PositiveIntegerField()
    fps = models.FloatField()
    duration_s = models.FloatField()
    joints = models.PositiveIntegerField()
    report = models.JSONField(default=dict)
    analysis_parameters = models.JSONField(default=dict, blank=True)  # saved α, θ, method
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "sha256"], name="one_clip_per_content")
        ]

    def __str__(self) -> str:
        return self.name


class ArtifactKind(models.TextChoices):
    CANONICAL = "canonical", "Canonical arrays (.npz)"
    CLEANED_BVH = "cleaned_bvh", "Cleaned BVH"
    CLEAN_REPORT = "clean_report", "Cleaning report (JSON)"
    VIEWER = "viewer", "Viewer arrays (JSON)"
    VIEWER_RAW = "viewer_raw", "Viewer arrays before cleaning (JSON)"
    ANALYSIS = "analysis", "Phase and momentum analysis (JSON)"
    ANALYSIS_FEATURES = "analysis_features", "Analysis features (.npz)"
    TRANSITION_BVH = "transition_bvh", "Transition clip (BVH)"
    TRANSITION_VIEWER = "transition_viewer", "Transition clip viewer arrays (JSON)"
    TRANSITION_VIEWER_END = "transition_viewer_end", "End-of-clip cut viewer arrays (JSON)"
    TRANSITION_VIEWER_FIXED70 = "transition_viewer_fixed70", "70 % cut viewer arrays (JSON)"
    PFNN_BVH = "pfnn_bvh", "PFNN walk on the clip's rig (BVH)"
    PFNN_CANONICAL_BVH = "pfnn_canonical_bvh", "PFNN walk on the canonical skeleton (BVH)"
    PFNN_VIEWER = "pfnn_viewer", "PFNN walk viewer arrays (JSON)"
    PFNN_REPORT = "pfnn_report", "PFNN walk measures (JSON)"
    TRANSITION_VIEWER_THRESHOLD = (
        "transition_viewer_threshold",
        "Speed-threshold cut viewer arrays (JSON)",
    )
    TRANSITION_REPORT = "transition_report", "Transition report (JSON)"


class Artifact(models.Model):
    """A file a pipeline stage produced, with the run (parameters, code version) that made it."""

    clip = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="artifacts")
    run = models.ForeignKey("runs.Run", on_delete=models.CASCADE, related_name="artifacts")
    kind = models.CharField(max_length=32, choices=ArtifactKind.choices)
    file = models.FileField(upload_to=artifact_path, max_length=300)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.PositiveBigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "kind"], name="one_artifact_per_run_and_kind")
        ]
