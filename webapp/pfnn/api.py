"""REST endpoints for PFNN walks (included from :mod:`webapp.api.urls` under ``/api/v1/``).

* ``POST pfnn/generate/``  ``{clip, path, speed_mps, seconds, mode, foot_lock}`` → 201
  the walk with its queued run (editors; the walk is put on the clip's rig)
* ``GET  pfnn/generations/{id}/``  the walk: run status, measures, download URLs
* ``GET  pfnn/generations/{id}/download/{name}/``  ``walk.bvh`` (on the rig),
  ``walk-canonical.bvh``, ``viewer.json``, ``report.json``

Non-members get 404, viewers and reviewers 403 on POST. The POST honours
``Idempotency-Key`` (:mod:`webapp.core.idempotency`). Views are thin.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from django.contrib.auth.models import User
from django.http.response import HttpResponseBase
from django.urls import path
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from motioncore.pfnn.network import MODES
from webapp.characters.selectors import character_param
from webapp.core.auth import request_user
from webapp.core.downloads import attachment, download_urls
from webapp.core.glb import with_character
from webapp.core.idempotency import idempotent
from webapp.core.schema import READ, download_schema, errors
from webapp.pfnn.models import Generation
from webapp.pfnn.selectors import (
    GENERATION_DOWNLOADS,
    generation_download_get,
    generation_downloads_ready,
    generation_get,
)
from webapp.pfnn.services import generation_create
from webapp.runs.serializers import RunSerializer

MAX_PATH_POINTS = 200
MAX_SECONDS = 120.0

# --- serializers -------------------------------------------------------------------------------


class GenerateInputSerializer(serializers.Serializer[dict[str, Any]]):
    clip = serializers.IntegerField(min_value=1, help_text="The clip whose rig the walk is put on.")
    path = serializers.ListField(
        child=serializers.ListField(
            child=serializers.FloatField(min_value=-1000.0, max_value=1000.0),
            min_length=2,
            max_length=2,
        ),
        min_length=2,
        max_length=MAX_PATH_POINTS,
        help_text="Points [x, z] on the ground, metres; the walk starts at the first.",
    )
    speed_mps = serializers.FloatField(min_value=0.3, max_value=3.0, default=1.3)
    seconds = serializers.FloatField(
        min_value=0.5,
        max_value=MAX_SECONDS,
        allow_null=True,
        default=None,
        help_text="How long to walk; null: to the path's end at the speed.",
    )
    mode = serializers.ChoiceField(choices=MODES, default="constant")
    foot_lock = serializers.BooleanField(default=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        points = attrs["path"]
        length = sum(math.dist(a, b) for a, b in itertools.pairwise(points))
        if length < 0.1:
            raise serializers.ValidationError({"path": "The path must be at least 0.1 m long."})
        seconds = attrs["seconds"] if attrs["seconds"] is not None else length / attrs["speed_mps"]
        if seconds > MAX_SECONDS:
            raise serializers.ValidationError(
                {"path": f"Walking it takes {seconds:.0f} s; at most {MAX_SECONDS:.0f} s."}
            )
        return attrs


DOWNLOADS_SCHEMA = {
    "type": "object",
    "description": "Download URLs by name; null until the walk's run has succeeded.",
    "properties": {
        name: {"type": "string", "format": "uri", "nullable": True} for name in GENERATION_DOWNLOADS
    },
    "required": list(GENERATION_DOWNLOADS),
}


class GenerationSerializer(serializers.ModelSerializer[Generation]):
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    parameters = serializers.DictField(read_only=True)
    run = RunSerializer(read_only=True)
    result = serializers.DictField(
        read_only=True,
        help_text="The measures (frames, fps, path_rms_m, foot_slide_mps, foot_slide_raw_mps, "
        "end_distance_m, phase_drift_rad, cycles_per_s, max_joint_speed_deg_s, "
        "penetration_worst_m, penetration_share, scale); path RMS, foot slide and "
        "penetration are measured on the clip's rig, the path in metres; empty until the "
        "run has succeeded.",
    )
    downloads = serializers.SerializerMethodField()

    class Meta:
        model = Generation
        fields = ["id", "project", "clip", "parameters", "run", "result", "downloads"]
        fields += ["created_by", "created_at"]
        read_only_fields = fields

    @extend_schema_field(DOWNLOADS_SCHEMA)
    def get_downloads(self, generation: Generation) -> dict[str, str | None]:
        ready = generation_downloads_ready(generation)
        return download_urls(self.context.get("request"), "api:pfnn-download", generation.pk, ready)


# --- views -------------------------------------------------------------------------------------


@extend_schema(tags=["pfnn"])
class GenerateView(APIView):
    @extend_schema(
        request=GenerateInputSerializer,
        responses={201: GenerationSerializer, **errors(400, 401, 403, 404, 409, 415)},
        description="Queue a PFNN walk along a path, put on the clip's rig (editors and "
        "owners). Poll the walk until `run.status` is `succeeded`.",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = GenerateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        created = generation_create(
            user=request_user(request), clip_id=values.pop("clip"), parameters=values
        )
        body = GenerationSerializer(created, context={"request": request})
        return Response(body.data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["pfnn"])
class GenerationDetailView(APIView):
    @extend_schema(responses={200: GenerationSerializer, **READ})
    def get(self, request: Request, generation_id: int) -> Response:
        found = generation_get(user=request_user(request), generation_id=generation_id)
        return Response(GenerationSerializer(found, context={"request": request}).data)


@extend_schema(tags=["pfnn"])
class GenerationDownloadView(APIView):
    @download_schema(
        GENERATION_DOWNLOADS,
        binary="walk.bvh and walk-canonical.bvh; walk.glb (the mannequin).",
        json="viewer.json and report.json.",
    )
    def get(self, request: Request, generation_id: int, kind: str) -> HttpResponseBase:
        user = request_user(request)
        character = character_param(user=user, value=request.query_params.get("character"))
        download = with_character(
            lambda name: generation_download_get(user=user, generation_id=generation_id, name=name),
            kind,
            character,
        )
        return attachment(download)


urlpatterns = [
    path("pfnn/generate/", GenerateView.as_view(), name="pfnn-generate"),
    path(
        "pfnn/generations/<int:generation_id>/",
        GenerationDetailView.as_view(),
        name="pfnn-generation",
    ),
    path(
        "pfnn/generations/<int:generation_id>/download/<str:kind>/",
        GenerationDownloadView.as_view(),
        name="pfnn-download",
    ),
]
