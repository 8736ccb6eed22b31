"""REST endpoints of the score editor (included from :mod:`webapp.api.urls`; the
services are :mod:`webapp.laban.editing`).

* ``POST scores/{id}/preview/``  ``{"score": {...}}`` (an edited ``kinetograph-score/1``
  object) → 200 ``{viewer, animation, synthesis_ms}``: its animation, not stored; 400
  ``invalid_score`` with ``details.problems`` (each naming ``symbol N``, its index in
  the list sent); 413 past ``KINETOGRAPH_SCORE_PREVIEW_MAX_DURATION_S``
* ``GET  scores/{id}/versions/``  every version of the score's family, oldest first
* ``POST scores/{id}/versions/``  ``{"score": {...}}`` → 201 the next version, whose
  clip's first run (``run``) animates it; 409 ``unchanged`` when the project already
  holds that score
* ``POST projects/{id}/scores/from-template/``  ``{"template": "walk" | "turn" |
  "jump"}`` → 201 a new score from that template (the same template again answers
  the score already made from it)
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.core.auth import request_user
from webapp.core.idempotency import idempotent
from webapp.core.limits import request_limit
from webapp.core.parsers import JSONParser
from webapp.core.schema import READ, errors
from webapp.laban.api import ScoreSerializer
from webapp.laban.editing import (
    TEMPLATES,
    score_preview,
    score_template_create,
    score_version_create,
    score_versions,
)
from webapp.laban.selectors import score_get
from webapp.projects.selectors import project_get


class EditedScoreSerializer(serializers.Serializer[dict[str, Any]]):
    score = serializers.JSONField(help_text="A kinetograph-score/1 object (docs/score-format.md).")


class PreviewSerializer(serializers.Serializer[dict[str, Any]]):
    viewer = serializers.JSONField(help_text="Viewer arrays (kinetograph-viewer/1), 60 fps.")
    animation = serializers.JSONField(help_text="Footprints, centre path and measures.")
    synthesis_ms = serializers.FloatField(help_text="Time the animation took, milliseconds.")


class TemplateSerializer(serializers.Serializer[dict[str, Any]]):
    template = serializers.ChoiceField(choices=sorted(TEMPLATES))


def _edited(request: Request) -> Any:
    body = EditedScoreSerializer(data=request.data)
    body.is_valid(raise_exception=True)
    return body.validated_data["score"]


@extend_schema(tags=["laban"])
@request_limit(bytes_setting="SCORE_MAX_BYTES")
class ScorePreviewView(APIView):
    parser_classes = [JSONParser]

    @extend_schema(
        request=EditedScoreSerializer,
        responses={200: PreviewSerializer, **errors(400, 401, 403, 404, 413, 415)},
        description="Animate an edited score without storing it (the editor's preview).",
    )
    def post(self, request: Request, score_id: int) -> Response:
        user = request_user(request)
        found = score_get(user=user, score_id=score_id)
        made = score_preview(score=found, user=user, data=_edited(request))
        body = {"viewer": made.viewer, "animation": made.animation}
        return Response({**body, "synthesis_ms": made.synthesis_ms})


@extend_schema(tags=["laban"])
@request_limit(bytes_setting="SCORE_MAX_BYTES")
class ScoreVersionsView(APIView):
    parser_classes = [JSONParser]

    @extend_schema(responses={200: ScoreSerializer(many=True), **READ})
    def get(self, request: Request, score_id: int) -> Response:
        found = score_get(user=request_user(request), score_id=score_id)
        family = score_versions(found).select_related("clip", "created_by")
        return Response(ScoreSerializer(family, many=True, context={"request": request}).data)

    @extend_schema(
        request=EditedScoreSerializer,
        responses={201: ScoreSerializer, **errors(400, 401, 403, 404, 409, 413, 415)},
        description="Save an edited score as the next version of this score's family; "
        "its clip's first run (`run`) animates it.",
    )
    @idempotent
    def post(self, request: Request, score_id: int) -> Response:
        user = request_user(request)
        found = score_get(user=user, score_id=score_id)
        made = score_version_create(score=found, user=user, data=_edited(request))
        body = ScoreSerializer(made, context={"request": request})
        return Response(body.data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["laban"])
class ScoreFromTemplateView(APIView):
    parser_classes = [JSONParser]

    @extend_schema(
        request=TemplateSerializer,
        responses={201: ScoreSerializer, **errors(400, 401, 403, 404, 409, 415)},
        description="A new score from a template (walk, turn, jump), animated by its "
        "clip's first run like an upload.",
    )
    @idempotent
    def post(self, request: Request, project_id: int) -> Response:
        user = request_user(request)
        project = project_get(user=user, project_id=project_id)
        body = TemplateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        made = score_template_create(
            project=project, user=user, template=body.validated_data["template"]
        )
        out = ScoreSerializer(made, context={"request": request})
        return Response(out.data, status=status.HTTP_201_CREATED)


urlpatterns = [
    path("scores/<int:score_id>/preview/", ScorePreviewView.as_view(), name="score-preview"),
    path("scores/<int:score_id>/versions/", ScoreVersionsView.as_view(), name="score-versions"),
    path(
        "projects/<int:project_id>/scores/from-template/",
        ScoreFromTemplateView.as_view(),
        name="score-from-template",
    ),
]
