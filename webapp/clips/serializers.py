"""The clip endpoints' serializers: ``*InputSerializer`` / ``*QuerySerializer`` validate
requests, the others shape responses (``docs/api-contract.md``). No queries here beyond
what the selectors prefetched."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from motioncore import parameters as p
from webapp.clips.models import Clip
from webapp.clips.selectors import CLIP_ORDERINGS, DOWNLOADS, clip_downloads_ready, clip_latest_run
from webapp.core.downloads import download_urls
from webapp.core.parameters import api_field
from webapp.runs.serializers import RunSerializer

DOWNLOADS_SCHEMA = {
    "type": "object",
    "description": "Download URLs by name; null until a succeeded run has produced the file.",
    "properties": {
        name: {"type": "string", "format": "uri", "nullable": kind is not None}
        for name, kind in DOWNLOADS.items()
    },
    "required": list(DOWNLOADS),
}


class ClipSerializer(serializers.ModelSerializer[Clip]):
    uploaded_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True, help_text="The uploader's username."
    )
    latest_run = serializers.SerializerMethodField()
    downloads = serializers.SerializerMethodField()

    class Meta:
        model = Clip
        fields = [
            "id",
            "project",
            "name",
            "sha256",
            "size_bytes",
            "frames",
            "fps",
            "duration_s",
            "joints",
            "created_at",
            "uploaded_by",
            "latest_run",
            "downloads",
        ]
        read_only_fields = fields

    @extend_schema_field(RunSerializer(allow_null=True))
    def get_latest_run(self, clip: Clip) -> dict[str, Any] | None:
        run = clip_latest_run(clip)
        return None if run is None else RunSerializer(run).data

    @extend_schema_field(DOWNLOADS_SCHEMA)
    def get_downloads(self, clip: Clip) -> dict[str, str | None]:
        ready = clip_downloads_ready(clip)
        return download_urls(self.context.get("request"), "api:clip-download", clip.pk, ready)


class ClipDetailSerializer(ClipSerializer):
    report = serializers.DictField(read_only=True, help_text="The validation report.")

    class Meta(ClipSerializer.Meta):
        fields = [*ClipSerializer.Meta.fields, "report"]
        read_only_fields = fields


class ClipListQuerySerializer(serializers.Serializer[dict[str, Any]]):
    search = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Part of the clip name (case-insensitive).",
    )
    ordering = serializers.ChoiceField(
        choices=CLIP_ORDERINGS,
        required=False,
        allow_blank=True,
        help_text="Sort by this field; a leading `-` sorts descending. Default: `-created_at`.",
    )


class ClipUploadInputSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.FileField(allow_empty_file=True, help_text="A .bvh file.")


class UploadSerializer(serializers.Serializer[dict[str, Any]]):
    """What an upload answers: the clip, and the run it queued (null when the same
    bytes were already in the project and nothing new was started)."""

    clip = ClipSerializer()
    run = RunSerializer(allow_null=True)


# --- runs of a clip ------------------------------------------------------------------------------


def fps_field() -> serializers.FloatField:
    """A run's frame rate: finite, within :data:`motioncore.parameters.FPS`'s bounds (the
    error names the bound), optional (without it: the file's own)."""
    bounds = f"between {p.FPS.minimum:g} and {p.FPS.maximum:g} {p.FPS.unit}"
    return serializers.FloatField(
        required=False,
        min_value=p.FPS.minimum,
        max_value=p.FPS.maximum,
        help_text=f"{p.FPS.description} Without it: the file's frame time.",
        error_messages={
            "min_value": f"A run's frame rate is {bounds}: at least {p.FPS.minimum:g}.",
            "max_value": f"A run's frame rate is {bounds}: at most {p.FPS.maximum:g}.",
            "invalid": f"A run's frame rate is a finite number {bounds}.",
        },
    )


class RunInputSerializer(serializers.Serializer[dict[str, Any]]):
    fps = fps_field()
    alpha = api_field(p.ALPHA, default_note=" (the analysis stage's; without it: the default)")
    theta_max_deg = api_field(p.THETA_MAX_DEG, default_note=" (without it: the default)")
    measure = api_field(p.MEASURE, default_note=" (without it: the default)")


# --- analysis ------------------------------------------------------------------------------------


class AnalysisQuerySerializer(serializers.Serializer[dict[str, Any]]):
    alpha = api_field(p.ALPHA, default_note=" (without it: the clip's saved value)")
    theta_max_deg = api_field(p.THETA_MAX_DEG, default_note=" (without it: the clip's saved value)")
    measure = api_field(p.MEASURE, default_note=" (without it: the clip's saved one)")
    next_clip = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="A clip of the same project whose initial velocity the direction test uses; "
        "without it the direction condition is skipped (and reported as skipped).",
    )


class AnalysisSaveSerializer(serializers.Serializer[dict[str, Any]]):
    alpha = api_field(p.ALPHA, required=True)
    theta_max_deg = api_field(p.THETA_MAX_DEG, required=True)
    measure = api_field(p.MEASURE, required=True)
