"""REST endpoints for transitions (included from :mod:`webapp.api.urls` under ``/api/v1/``).

* ``POST transitions/``  ``{clip_a, clip_b, alpha, theta_max_deg, measure, blend_s, blend,
  blend_min_s, blend_max_s}`` (``blend_s`` left out: the length is chosen from the mismatch)
  → 201 the transition with its queued run (editors; same project, same skeleton)
* ``GET  projects/{id}/transitions/``  the project's transitions
* ``GET  transitions/{id}/``  the transition: run status, comparison report, download URLs
* ``GET  transitions/{id}/download/{name}/``  ``transition.bvh``, ``transition.json``,
  ``viewer.json`` and the baselines' ``viewer-<method>.json``

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
from webapp.characters.selectors import character_param
from webapp.core.auth import request_user
from webapp.core.downloads import attachment, download_urls
from webapp.core.glb import with_character
from webapp.core.idempotency import idempotent
from webapp.core.parameters import api_field, check_blend_bounds, deprecation_headers, renamed_input
from webapp.core.schema import READ, download_schema, errors
from webapp.runs.serializers import RunSerializer
from webapp.transitions.models import Transition
from webapp.transitions.selectors import (
    TRANSITION_DOWNLOADS,
    transition_download_get,
    transition_downloads_ready,
    transition_get,
    transition_list,
)
from webapp.transitions.services import transition_create


class TransitionInputSerializer(serializers.Serializer[dict[str, Any]]):
    clip_a = serializers.IntegerField(min_value=1, help_text="The clip to cut out of.")
    clip_b = serializers.IntegerField(min_value=1, help_text="The clip to cut into.")
    alpha = api_field(p.ALPHA)
    theta_max_deg = api_field(p.THETA_MAX_DEG)
    measure = api_field(p.MEASURE)
    blend_s = api_field(p.BLEND_S)
    blend = api_field(p.BLEND)
    blend_min_s = api_field(p.BLEND_MIN_S)
    blend_max_s = api_field(p.BLEND_MAX_S)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        check_blend_bounds(attrs)
        return attrs


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
        help_text="The comparison report (`cut`, `entry`, `verdict`, `bridge`, `blend_s`, "
        "`blending`, `metrics.<method>.<metric>`, "
        "`engine`; docs/transitions.md); empty until the run has succeeded.",
    )
    downloads = serializers.SerializerMethodField()

    class Meta:
        model = Transition
        fields = ["id", "project", "clip_a", "clip_b", "parameters", "run", "result"]
        fields += ["downloads", "created_by", "created_at"]
        read_only_fields = fields

    @extend_schema_field(TRANSITION_DOWNLOADS_SCHEMA)
    def get_downloads(self, transition: Transition) -> dict[str, str | None]:
        ready = transition_downloads_ready(transition)
        route = "api:transition-download"
        return download_urls(self.context.get("request"), route, transition.pk, ready)


@extend_schema(tags=["transitions"])
class TransitionCreateView(APIView):
    @extend_schema(
        request=TransitionInputSerializer,
        responses={201: TransitionSerializer, **errors(400, 401, 403, 404, 409, 415)},
        description="Queue a transition from clip A into clip B (same project, same skeleton; "
        "editors and owners). Poll the transition until `run.status` is `succeeded`.",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        given, renamed = renamed_input(request.data)
        data = TransitionInputSerializer(data=given)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        clip_a, clip_b = values.pop("clip_a"), values.pop("clip_b")
        created = transition_create(
            user=request_user(request), clip_a_id=clip_a, clip_b_id=clip_b, parameters=values
        )
        body = TransitionSerializer(created, context={"request": request})
        return deprecation_headers(Response(body.data, status=status.HTTP_201_CREATED), renamed)


@extend_schema(tags=["transitions"])
class ProjectTransitionsView(GenericAPIView[Transition]):
    serializer_class = TransitionSerializer

    @extend_schema(responses={200: TransitionSerializer(many=True), **READ})
    def get(self, request: Request, project_id: int) -> Response:
        found = transition_list(user=request_user(request), project_id=project_id)
        page = self.paginate_queryset(found)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


@extend_schema(tags=["transitions"])
class TransitionDetailView(APIView):
    @extend_schema(responses={200: TransitionSerializer, **READ})
    def get(self, request: Request, transition_id: int) -> Response:
        found = transition_get(user=request_user(request), transition_id=transition_id)
        return Response(TransitionSerializer(found, context={"request": request}).data)


@extend_schema(tags=["transitions"])
class TransitionDownloadView(APIView):
    @download_schema(
        TRANSITION_DOWNLOADS,
        binary="transition.bvh; transition.glb (the mannequin).",
        json="transition.json and viewer.json.",
    )
    def get(self, request: Request, transition_id: int, kind: str) -> HttpResponseBase:
        user = request_user(request)
        character = character_param(user=user, value=request.query_params.get("character"))
        download = with_character(
            lambda name: transition_download_get(user=user, transition_id=transition_id, name=name),
            kind,
            character,
        )
        return attachment(download)


urlpatterns = [
    path("transitions/", TransitionCreateView.as_view(), name="transitions"),
    path(
        "projects/<int:project_id>/transitions/",
        ProjectTransitionsView.as_view(),
        name="project-transitions",
    ),
    path("transitions/<int:transition_id>/", TransitionDetailView.as_view(), name="transition"),
    path(
        "transitions/<int:transition_id>/download/<str:kind>/",
        TransitionDownloadView.as_view(),
        name="transition-download",
    ),
]
