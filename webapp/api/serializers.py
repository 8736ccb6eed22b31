"""API serializers: ``*InputSerializer`` validate requests, the others shape responses
(``docs/api-contract.md``). No queries here beyond what the selectors prefetched."""

from __future__ import annotations

import math
from typing import Any

from django.contrib.auth.models import User
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.authtoken.models import Token

from webapp.clips.analysis import BLENDS, MEASURES
from webapp.clips.models import Clip
from webapp.clips.selectors import CLIP_ORDERINGS, DOWNLOADS, clip_downloads_ready, clip_latest_run
from webapp.projects.models import Membership, Project, Role
from webapp.runs.models import Run
from webapp.transitions.models import Transition
from webapp.transitions.selectors import TRANSITION_DOWNLOADS, transition_downloads_ready

MAX_RUN_FPS = 1000.0

# --- auth ----------------------------------------------------------------------------------------


class TokenInputSerializer(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class TokenSerializer(serializers.Serializer[Token]):
    token = serializers.CharField(source="key", help_text="Send as `Authorization: Token <token>`.")


# --- projects and members ------------------------------------------------------------------------


class ProjectSerializer(serializers.ModelSerializer[Project]):
    """A project as :func:`webapp.projects.selectors.project_list_with_role` annotates it."""

    role = serializers.ChoiceField(
        source="my_role", choices=Role.choices, read_only=True, help_text="Your role."
    )
    member_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Project
        fields = ["id", "name", "created_at", "role", "member_count"]
        read_only_fields = fields


class ProjectInputSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=120)


class MembershipSerializer(serializers.ModelSerializer[Membership]):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Membership
        fields = ["username", "role", "created_at"]
        read_only_fields = fields


class MembershipInputSerializer(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=Role.choices)


# --- runs ----------------------------------------------------------------------------------------


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


@extend_schema_field({"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 1000})
class FpsField(serializers.FloatField):
    """A frame rate: finite, > 0, at most :data:`MAX_RUN_FPS`."""

    def to_internal_value(self, data: Any) -> float:
        value = float(super().to_internal_value(data))
        if not math.isfinite(value) or not 0 < value <= MAX_RUN_FPS:
            raise serializers.ValidationError(
                f"A frame rate is a number above 0 and at most {MAX_RUN_FPS:g}."
            )
        return value


class RunInputSerializer(serializers.Serializer[dict[str, Any]]):
    fps = FpsField(
        required=False,
        help_text="Frames per second to use instead of the file's frame time.",
    )


# --- clips ---------------------------------------------------------------------------------------

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
        request = self.context.get("request")
        urls: dict[str, str | None] = {}
        for name, ready in clip_downloads_ready(clip).items():
            path = reverse("api:clip-download", kwargs={"clip_id": clip.pk, "kind": name})
            urls[name] = (request.build_absolute_uri(path) if request else path) if ready else None
        return urls


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


# --- analysis and transitions --------------------------------------------------------------------

METHODS = MEASURES


class AnalysisQuerySerializer(serializers.Serializer[dict[str, Any]]):
    alpha = serializers.FloatField(
        required=False,
        min_value=0.05,
        max_value=1.0,
        help_text="Momentum retention α against the motion unit's peak (seed: 0.5–0.7); "
        "default: the clip's saved value, else 0.6.",
    )
    theta = serializers.FloatField(
        required=False,
        min_value=0.0,
        max_value=180.0,
        help_text="θ_max, degrees: largest angle to the next clip's initial velocity; "
        "default: the clip's saved value, else 75.",
    )
    method = serializers.ChoiceField(
        choices=METHODS,
        required=False,
        help_text="The momentum measure; default: the clip's saved one, else speed.",
    )
    next_clip = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="A clip of the same project whose initial velocity the direction test uses; "
        "without it the direction condition is skipped (and reported as skipped).",
    )


class AnalysisSaveSerializer(serializers.Serializer[dict[str, Any]]):
    alpha = serializers.FloatField(min_value=0.05, max_value=1.0)
    theta = serializers.FloatField(min_value=0.0, max_value=180.0, help_text="θ_max, degrees.")
    method = serializers.ChoiceField(choices=METHODS)


class TransitionInputSerializer(serializers.Serializer[dict[str, Any]]):
    clip_a = serializers.IntegerField(min_value=1, help_text="The clip to cut out of.")
    clip_b = serializers.IntegerField(min_value=1, help_text="The clip to cut into.")
    alpha = serializers.FloatField(default=0.6, min_value=0.05, max_value=1.0)
    theta_max_deg = serializers.FloatField(default=75.0, min_value=0.0, max_value=180.0)
    method = serializers.ChoiceField(choices=METHODS, default="speed")
    blend_s = serializers.FloatField(
        default=0.12, min_value=0.0, max_value=2.0, help_text="Blend duration, seconds."
    )
    blend = serializers.ChoiceField(choices=BLENDS, default="crossfade")


TRANSITION_DOWNLOADS_SCHEMA = {
    "type": "object",
    "description": "Download URLs by name; null until the transition's run has succeeded.",
    "properties": {
        name: {"type": "string", "format": "uri", "nullable": True} for name in TRANSITION_DOWNLOADS
    },
    "required": list(TRANSITION_DOWNLOADS),
}


class TransitionSerializer(serializers.ModelSerializer[Transition]):
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    parameters = serializers.DictField(read_only=True)
    run = RunSerializer(read_only=True)
    result = serializers.DictField(
        read_only=True,
        help_text="The comparison report (`cut`, `entry`, `blend_s`, `metrics.<method>.<metric>`, "
        "`engine`; docs/transitions.md); empty until the run has succeeded.",
    )
    downloads = serializers.SerializerMethodField()

    class Meta:
        model = Transition
        fields = [
            "id",
            "project",
            "clip_a",
            "clip_b",
            "parameters",
            "run",
            "result",
            "downloads",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields

    @extend_schema_field(TRANSITION_DOWNLOADS_SCHEMA)
    def get_downloads(self, transition: Transition) -> dict[str, str | None]:
        request = self.context.get("request")
        urls: dict[str, str | None] = {}
        for name, ready in transition_downloads_ready(transition).items():
            path = reverse(
                "api:transition-download", kwargs={"transition_id": transition.pk, "kind": name}
            )
            urls[name] = (request.build_absolute_uri(path) if request else path) if ready else None
        return urls
