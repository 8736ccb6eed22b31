"""Clips (an uploaded motion file, stored untouched) and their artifacts."""

from __future__ import annotations

from pathlib import PurePosixPath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from webapp.projects.models import Project
from webapp.runs import registry


def original_path(instance: Clip, filename: str) -> str:
    suffix = ".bvh" if instance.first_stage == INGEST else PurePosixPath(filename).suffix
    return f"projects/{instance.project_id}/originals/{instance.sha256}{suffix}"


INGEST = "ingest"
"""The first stage of a clip uploaded as BVH."""


def artifact_path(instance: Artifact, filename: str) -> str:
    return f"projects/{instance.clip.project_id}/clips/{instance.clip_id}/{filename}"


class Clip(models.Model):
    """An uploaded BVH: the original bytes (never modified), their sha256 and the
    validation report of :func:`motioncore.bvh.report.validation_report`.

    Or a motion another source makes (a Labanotation score): ``original`` holds that
    source, ``first_stage`` names the stage (registered by the source's app) that makes
    the motion in place of ``ingest``, and ``frames``, ``fps``, ``duration_s``,
    ``joints`` and ``report`` are 0 and empty until that stage has run."""

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
    first_stage = models.CharField(max_length=64, default=INGEST)  # what makes its motion
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
    """The upload pipeline's artifact kinds (registered by
    :class:`~webapp.clips.apps.ClipsConfig`). Other kinds of run own theirs
    (:class:`webapp.transitions.models.TransitionArtifactKind`,
    :class:`webapp.pfnn.models.PfnnArtifactKind`); ``Artifact.kind`` takes any kind an
    app registered with :mod:`webapp.runs.registry`."""

    CANONICAL = "canonical", "Canonical arrays (.npz)"
    CLEANED_BVH = "cleaned_bvh", "Cleaned BVH"
    CLEAN_REPORT = "clean_report", "Cleaning report (JSON)"
    VIEWER = "viewer", "Viewer arrays (JSON)"
    VIEWER_RAW = "viewer_raw", "Viewer arrays before cleaning (JSON)"
    VIEWER_FULL = "viewer_full", "Viewer positions at the full frame rate (float32)"
    VIEWER_RAW_FULL = "viewer_raw_full", "Viewer positions before cleaning, full rate (float32)"
    ANALYSIS = "analysis", "Phase and momentum analysis (JSON)"
    ANALYSIS_FEATURES = "analysis_features", "Analysis features (.npz)"


class Artifact(models.Model):
    """A file a pipeline stage produced, with the run (parameters, code version) that made it."""

    clip = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="artifacts")
    run = models.ForeignKey("runs.Run", on_delete=models.CASCADE, related_name="artifacts")
    kind = models.CharField(max_length=registry.ARTIFACT_KIND_MAX_LENGTH)  # a registered kind
    file = models.FileField(upload_to=artifact_path, max_length=300)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.PositiveBigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "kind"], name="one_artifact_per_run_and_kind")
        ]

    @property
    def kind_label(self) -> str:
        """The kind for people ("Cleaned BVH"), as its app registered it."""
        return registry.artifact_kind_label(self.kind)

    def clean(self) -> None:
        """Refuse a kind no app registered (``save`` does not call this; the
        :func:`~webapp.clips.services.artifact_save` service checks it too)."""
        super().clean()
        try:
            registry.artifact_kind_check(self.kind)
        except registry.UnknownArtifactKind as error:
            raise ValidationError({"kind": str(error)}) from error
