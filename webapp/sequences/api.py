"""REST endpoints for sequences (included from :mod:`webapp.api.urls` under ``/api/v1/``).

* ``POST sequences/``  ``{project, clips: [ids in order], edits?: [{cut?, entry?}|null per
  join], alpha, theta_max_deg, measure, blend, blend_s, blend_min_s, blend_max_s}``
  → 201 the sequence with its queued run (editors; one project, one skeleton)
* ``GET  projects/{id}/sequences/``  the project's sequences
* ``GET  sequences/{id}/``  the sequence: run status, report, download URLs
* ``GET  sequences/{id}/download/{name}/``  ``sequence.bvh``, ``sequence.json``,
  ``viewer.json``

Non-members get 404, roles too low 403. The POST honours ``Idempotency-Key``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http.response import HttpResponseBase
from django.urls import path
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from motioncore import parameters as p
from motioncore.transition.sequence import MAX_CLIPS
from webapp.characters.selectors import character_param
from webapp.core.auth import request_user
from webapp.core.downloads import attachment, download_urls
from webapp.core.glb import with_character
from webapp.core.idempotency import idempotent
from webapp.core.parameters import api_field, check_blend_bounds
from webapp.core.schema import READ, download_schema, errors
from webapp.runs.serializers import RunSerializer
from webapp.sequences.models import Sequence
from webapp.sequences.selectors import (
    SEQUENCE_DOWNLOADS,
    sequence_download_get,
    sequence_downloads_ready,
    sequence_get,
    sequence_list,
)
from webapp.sequences.services import sequence_create


class JoinEditSerializer(serializers.Serializer[dict[str, Any]]):
    cut = serializers.IntegerField(
        min_value=0,
        required=False,
        allow_null=True,
        help_text="The cut, in the frames of "
        "the clip the join leaves (at the first clip's rate); searched when left out.",
    )
    entry = serializers.IntegerField(
        min_value=0,
        required=False,
        allow_null=True,
        help_text="The entry, in the frames of "
        "the clip the join enters (at the first clip's rate); searched when left out.",
    )


class SequenceInputSerializer(serializers.Serializer[dict[str, Any]]):
    project = serializers.IntegerField(min_value=1, help_text="The project of every clip.")
    clips = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        min_length=2,
        max_length=MAX_CLIPS,
        help_text="The clips in playing order (one skeleton; a clip may come back).",
    )
    edits = serializers.ListField(
        child=JoinEditSerializer(allow_null=True),
        required=False,
        help_text="Per join (one fewer than the clips): a hand-set cut and/or entry, or null.",
    )
    alpha = api_field(p.ALPHA)
    theta_max_deg = api_field(p.THETA_MAX_DEG)
    measure = api_field(p.MEASURE)
    blend = api_field(p.BLEND)
    blend_s = api_field(p.BLEND_S)
    blend_min_s = api_field(p.BLEND_MIN_S)
    blend_max_s = api_field(p.BLEND_MAX_S)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        check_blend_bounds(attrs)
        return attrs


SEQUENCE_DOWNLOADS_SCHEMA = {
    "type": "object",
    "description": "Download URLs by name; null until the sequence's run has succeeded.",
    "properties": {
        name: {"type": "string", "format": "uri", "nullable": True} for name in SEQUENCE_DOWNLOADS
    },
    "required": list(SEQUENCE_DOWNLOADS),
}


class SequenceSerializer(serializers.ModelSerializer[Sequence]):
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    clips = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    edits = serializers.ListField(child=serializers.DictField(allow_null=True), read_only=True)
    parameters = serializers.DictField(read_only=True)
    run = RunSerializer(read_only=True)
    result = serializers.DictField(
        read_only=True,
        help_text="The sequence report (`frames`, `fps`, `clips`, `segments`, `joins` with "
        "each join's cut, entry, blend, metrics and verdict; docs/analysis.md); empty until "
        "the run has succeeded.",
    )
    downloads = serializers.SerializerMethodField()

    class Meta:
        model = Sequence
        fields = ["id", "project", "clips", "edits", "parameters", "run", "result"]
        fields += ["downloads", "created_by", "created_at"]
        read_only_fields = fields

    @extend_schema_field(SEQUENCE_DOWNLOADS_SCHEMA)
    def get_downloads(self, sequence: Sequence) -> dict[str, str | None]:
        ready = sequence_downloads_ready(sequence)
        return download_urls(
            self.context.get("request"), "api:sequence-download", sequence.pk, ready
        )


@extend_schema(tags=["sequences"])
class SequenceCreateView(APIView):
    @extend_schema(
        request=SequenceInputSerializer,
        responses={201: SequenceSerializer, **errors(400, 401, 403, 404, 409, 415)},
        description="Queue a sequence of a project's clips (one skeleton; editors and "
        "owners). Poll the sequence until `run.status` is `succeeded`.",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = SequenceInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        project, clips = values.pop("project"), values.pop("clips")
        edits = values.pop("edits", None)
        created = sequence_create(
            user=request_user(request),
            project_id=project,
            clip_ids=clips,
            parameters=values,
            edits=edits,
        )
        body = SequenceSerializer(created, context={"request": request})
        return Response(body.data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["sequences"])
class ProjectSequencesView(GenericAPIView[Sequence]):
    serializer_class = SequenceSerializer

    @extend_schema(responses={200: SequenceSerializer(many=True), **READ})
    def get(self, request: Request, project_id: int) -> Response:
        found = sequence_list(user=request_user(request), project_id=project_id)
        page = self.paginate_queryset(found)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


@extend_schema(tags=["sequences"])
class SequenceDetailView(APIView):
    @extend_schema(responses={200: SequenceSerializer, **READ})
    def get(self, request: Request, sequence_id: int) -> Response:
        found = sequence_get(user=request_user(request), sequence_id=sequence_id)
        return Response(SequenceSerializer(found, context={"request": request}).data)


@extend_schema(tags=["sequences"])
class SequenceDownloadView(APIView):
    @download_schema(
        SEQUENCE_DOWNLOADS,
        binary="sequence.bvh; sequence.glb (the mannequin).",
        json="sequence.json and viewer.json.",
    )
    def get(self, request: Request, sequence_id: int, kind: str) -> HttpResponseBase:
        user = request_user(request)
        character = character_param(user=user, value=request.query_params.get("character"))
        download = with_character(
            lambda name: sequence_download_get(user=user, sequence_id=sequence_id, name=name),
            kind,
            character,
        )
        return attachment(download)


urlpatterns = [
    path("sequences/", SequenceCreateView.as_view(), name="sequences"),
    path(
        "projects/<int:project_id>/sequences/",
        ProjectSequencesView.as_view(),
        name="project-sequences",
    ),
    path("sequences/<int:sequence_id>/", SequenceDetailView.as_view(), name="sequence"),
    path(
        "sequences/<int:sequence_id>/download/<str:kind>/",
        SequenceDownloadView.as_view(),
        name="sequence-download",
    ),
]
