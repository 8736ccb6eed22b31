"""What the toy kind of run records: one result per run."""

from __future__ import annotations

from django.db import models


class ToyResult(models.Model):
    run = models.OneToOneField("runs.Run", on_delete=models.CASCADE, related_name="toy_result")
    result = models.JSONField(default=dict)
