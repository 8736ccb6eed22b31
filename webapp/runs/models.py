"""Runs: one execution of the pipeline on a clip, with status, progress and provenance.

Status moves ``queued`` → ``running`` → ``succeeded`` | ``failed``; a transient
error moves ``running`` back to ``queued``, and a dead worker's ``running`` run
is taken over by the next claim. ``attempts`` counts claims.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Status(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


FINISHED = (Status.SUCCEEDED, Status.FAILED)


class Run(models.Model):
    # By name: the run engine imports no app that defines a kind of run.
    clip = models.ForeignKey("clips.Clip", on_delete=models.CASCADE, related_name="runs")
    stages = models.JSONField(default=list)  # names, in order, e.g. ["ingest", "clean"]
    parameters = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0)  # percent
    stage = models.CharField(max_length=120, blank=True)  # what it is doing, for people
    error = models.TextField(blank=True)  # user-facing message when failed
    timings = models.JSONField(default=dict)  # stage -> seconds
    code_version = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)  # progress doubles as heartbeat
    enqueued_at = models.DateTimeField(null=True, blank=True)  # last task message sent for it
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "heartbeat_at"])]

    def __str__(self) -> str:
        return f"run {self.pk} of clip {self.clip_id}: {self.status}"
