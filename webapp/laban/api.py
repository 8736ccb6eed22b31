"""REST endpoints for Labanotation scores (included from :mod:`webapp.api.urls`).

* ``POST projects/{id}/scores/``  multipart ``file`` (a ``kinetograph-score/1`` JSON or a
  Microsoft Labanotation JSON) → 201 the score, validated, with its clip and the clip's
  first run (``run``: queued), which animates it; ``measures`` are null and the
  animation's downloads 404 until that run has succeeded (poll ``GET runs/{id}/``);
  400 ``invalid_score`` with ``details.problems`` (each naming the symbol and its
  beat); 413 over ``KINETOGRAPH_SCORE_MAX_BYTES`` (refused before the body is read) or
  ``KINETOGRAPH_SCORE_MAX_DURATION_S``
* ``GET  projects/{id}/scores/``  the project's scores
* ``GET  scores/{id}/``  the score, its measures and download URLs
* ``GET  scores/{id}/download/{name}/``  ``score.json``, ``animation.json`` (viewer
  arrays), ``footprints.json``, ``animation.bvh``

The editor's endpoints (preview, versions, templates) are in
:mod:`webapp.laban.editing_api`.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http.response import HttpResponseBase
from django.urls import path, reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.characters.selectors import character_param
from webapp.clips.uploads import MULTIPART_OVERHEAD_BYTES
from webapp.core.auth import request_user
from webapp.core.downloads import attachment
from webapp.core.glb import with_character
from webapp.core.idempotency import idempotent
from webapp.core.limits import request_limit
from webapp.core.schema import READ, download_schema, errors
from webapp.laban.models import Score
from webapp.laban.selectors import (
    SCORE_DOWNLOADS,
    score_animated,
    score_download_get,
    score_get,
    score_list,
)
from webapp.laban.services import score_bytes_check, score_upload_create
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.projects.selectors import project_get
from webapp.runs.serializers import RunSerializer


class ScoreSerializer(serializers.ModelSerializer[Score]):
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    measures = serializers.SerializerMethodField()
    downloads = serializers.SerializerMethodField()
    import_notes = serializers.SerializerMethodField()
    run = serializers.SerializerMethodField()

    class Meta:
        model = Score
        fields = ["id", "project", "clip", "run", "name", "title", "version", "origin"]
        fields += ["measures", "downloads", "import_notes"]
        fields += ["created_by", "created_at"]
        read_only_fields = fields

    def get_measures(self, score: Score) -> dict[str, Any] | None:
        """Null until the score's first run has animated it."""
        if not score_animated(score):
            return None
        keys: tuple[str, ...] = ("frames", "fps", "eps_physics_m2_s4", "eps_comfort_m2")
        keys += ("min_foot_height_m", "ground_skate_m", "foot_slide_mps", "penetration_worst_m")
        out = {k: score.animation.get(k) for k in keys}
        out["steps"] = sum(1 for p in score.animation.get("footprints", []) if p["kind"] != "start")
        return out

    def get_run(self, score: Score) -> dict[str, Any] | None:
        """The newest run of the score's clip (the first one animates it)."""
        run = score.clip.runs.order_by("-created_at", "-id").first()
        return None if run is None else RunSerializer(run).data

    def get_import_notes(self, score: Score) -> dict[str, Any] | None:
        """For LabanWriter 4 text: the records read and every record set aside (with
        its line and the reason); null for JSON scores."""
        notes: dict[str, Any] | None = score.animation.get("labanwriter")
        return notes

    def get_downloads(self, score: Score) -> dict[str, str]:
        request = self.context.get("request")
        urls = {}
        for name in SCORE_DOWNLOADS:
            url = reverse("api:score-download", args=[score.pk, name])
            urls[name] = request.build_absolute_uri(url) if request else url
        return urls


class ScoreUploadSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.FileField()


@extend_schema(tags=["laban"])
@request_limit(bytes_setting="SCORE_MAX_BYTES", overhead_bytes=MULTIPART_OVERHEAD_BYTES)
class ProjectScoresView(GenericAPIView[Score]):
    serializer_class = ScoreSerializer
    parser_classes = [MultiPartParser]

    @extend_schema(responses={200: ScoreSerializer(many=True), **READ})
    def get(self, request: Request, project_id: int) -> Response:
        page = self.paginate_queryset(score_list(user=request_user(request), project_id=project_id))
        body = ScoreSerializer(page, many=True, context={"request": request})
        return self.get_paginated_response(body.data)

    @extend_schema(
        request={"multipart/form-data": ScoreUploadSerializer},
        responses={201: ScoreSerializer, **errors(400, 401, 403, 404, 409, 413, 415)},
        description="Upload a Labanotation score (docs/score-format.md, or a Microsoft "
        "LabanotationSuite/gestureBot JSON); it is validated and added to the project as a "
        "clip whose first run animates it (`run`). The same bytes again answer the "
        "existing score.",
    )
    @idempotent
    def post(self, request: Request, project_id: int) -> Response:
        user = request_user(request)
        project = project_get(user=user, project_id=project_id)
        require_role(project=project, user=user, role=Role.EDITOR)  # before the body is read
        data = ScoreUploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        score_bytes_check(size=upload.size or 0)
        created = score_upload_create(
            project=project, user=user, name=upload.name, data=upload.read()
        )
        body = ScoreSerializer(created, context={"request": request})
        return Response(body.data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["laban"])
class ScoreDetailView(APIView):
    @extend_schema(responses={200: ScoreSerializer, **READ})
    def get(self, request: Request, score_id: int) -> Response:
        found = score_get(user=request_user(request), score_id=score_id)
        return Response(ScoreSerializer(found, context={"request": request}).data)


@extend_schema(tags=["laban"])
class ScoreDownloadView(APIView):
    @download_schema(
        SCORE_DOWNLOADS,
        binary="animation.bvh; animation.glb (the mannequin).",
        json="score.json, animation.json, footprints.json.",
    )
    def get(self, request: Request, score_id: int, kind: str) -> HttpResponseBase:
        user = request_user(request)
        character = character_param(user=user, value=request.query_params.get("character"))
        found = with_character(
            lambda name: score_download_get(user=user, score_id=score_id, name=name),
            kind,
            character,
        )
        return attachment(found)


urlpatterns = [
    path("projects/<int:project_id>/scores/", ProjectScoresView.as_view(), name="project-scores"),
    path("scores/<int:score_id>/", ScoreDetailView.as_view(), name="score"),
    path(
        "scores/<int:score_id>/download/<str:kind>/",
        ScoreDownloadView.as_view(),
        name="score-download",
    ),
]
