"""The run's representation, shared by the run endpoints (:mod:`webapp.runs.api`) and
by the clips, transitions and walks that embed their run (``docs/api-contract.md``)."""

from __future__ import annotations

from rest_framework import serializers

from webapp.runs.models import Run


class RunSerializer(serializers.ModelSerializer[Run]):
    progress = serializers.IntegerField(read_only=True, min_value=0, max_value=100)
    stages = serializers.ListField(child=serializers.CharField(), read_only=True)
    parameters = serializers.DictField(read_only=True)
    timings = serializers.DictField(
        child=serializers.FloatField(), read_only=True, help_text="Seconds per finished stage."
    )

    class Meta:
        model = Run
        fields = [
            "id",
            "clip",
            "status",
            "progress",
            "stage",
            "error",
            "stages",
            "parameters",
            "timings",
            "code_version",
            "attempts",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields
