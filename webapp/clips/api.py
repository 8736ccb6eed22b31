"""REST endpoints for clips (included from :mod:`webapp.api.urls` under ``/api/v1/``).

* ``GET/POST projects/{id}/clips/``  the project's clips (``?search=&ordering=``) / upload
  a BVH (multipart ``file``) → 201 with its first run, 200 for bytes already there
* ``GET  clips/{id}/``  the clip with its validation report and download URLs
* ``GET  clips/{id}/download/{name}/``  ``original``, ``cleaned.bvh``, ``viewer.json``, …
* ``POST clips/{id}/runs/``  ``{fps?}`` → 201 a queued pipeline run
* ``GET/PUT clips/{id}/analysis/``  the analysis at some parameters / save them

Each view validates with an input serializer, calls one selector or service and answers
with an output serializer. Non-members get 404, roles too low 403. POSTs honour
``Idempotency-Key``.
"""

from __future__ import annotations

from django.http.response import HttpResponseBase
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.characters.selectors import character_param
from webapp.clips import serializers as s
from webapp.clips.analysis import clip_analysis, clip_analysis_save
from webapp.clips.models import Clip
from webapp.clips.selectors import (
    DOWNLOADS,
    clip_download_get,
    clip_get,
    clip_latest_run,
    clip_list,
)
from webapp.clips.services import clip_run_start
from webapp.clips.uploads import (
    MULTIPART_OVERHEAD_BYTES,
    UploadParser,
    UploadRateThrottle,
    clip_upload,
)
from webapp.core.api import created_or_ok
from webapp.core.auth import request_user
from webapp.core.downloads import ranged_attachment
from webapp.core.glb import with_character
from webapp.core.idempotency import idempotent
from webapp.core.limits import request_limit
from webapp.core.parameters import deprecation_headers, renamed_input
from webapp.core.schema import READ, download_schema, errors
from webapp.core.throttling import AnonRateThrottle, UserRateThrottle
from webapp.runs.serializers import RunSerializer


@extend_schema(tags=["clips"])
@request_limit(
    bytes_setting="UPLOAD_MAX_BYTES", overhead_bytes=MULTIPART_OVERHEAD_BYTES, code="file_too_large"
)
class ProjectClipsView(GenericAPIView[Clip]):
    serializer_class = s.ClipSerializer
    parser_classes = [UploadParser]
    throttle_classes = [AnonRateThrottle, UserRateThrottle, UploadRateThrottle]
    throttle_scope = "uploads"

    @extend_schema(
        parameters=[s.ClipListQuerySerializer],
        responses={200: s.ClipSerializer(many=True), **errors(400, 401, 404)},
    )
    def get(self, request: Request, project_id: int) -> Response:
        query = s.ClipListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        clips = clip_list(user=request_user(request), project_id=project_id, **query.validated_data)
        page = self.paginate_queryset(clips)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        request={"multipart/form-data": s.ClipUploadInputSerializer},
        responses={
            201: OpenApiResponse(s.UploadSerializer, description="Stored; its first run queued."),
            200: OpenApiResponse(
                s.UploadSerializer, description="The same bytes were already here: that clip."
            ),
            **errors(400, 401, 403, 404, 409, 413, 415, 429),
        },
        description="Upload a BVH file (editors and owners). A BVH that does not parse "
        "answers 400 with `details.line`, `details.column` and `details.message`.",
    )
    @idempotent
    def post(self, request: Request, project_id: int) -> Response:
        data = s.ClipUploadInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = clip_upload(
            user=request_user(request), project_id=project_id, upload=data.validated_data["file"]
        )
        run = clip_latest_run(result.clip) if result.created else None
        body = s.UploadSerializer({"clip": result.clip, "run": run}, context={"request": request})
        return Response(body.data, status=created_or_ok(result.created))


@extend_schema(tags=["clips"])
class ClipDetailView(APIView):
    @extend_schema(responses={200: s.ClipDetailSerializer, **READ})
    def get(self, request: Request, clip_id: int) -> Response:
        clip = clip_get(user=request_user(request), clip_id=clip_id)
        return Response(s.ClipDetailSerializer(clip, context={"request": request}).data)


@extend_schema(tags=["clips"])
class ClipDownloadView(APIView):
    @download_schema(
        DOWNLOADS,
        binary="original, cleaned.bvh, and viewer.f32 / viewer-raw.f32 (every frame's world "
        "positions, little-endian float32 [frames, joints, 3] metres; one `Range: bytes=…` "
        "is answered 206, or 416 past the end).",
        json="viewer.json and clean-report.json.",
        description="`original` is the file exactly as uploaded; the others come from the "
        "newest succeeded run (404 until one has produced them).",
    )
    def get(self, request: Request, clip_id: int, kind: str) -> HttpResponseBase:
        user = request_user(request)
        character = character_param(user=user, value=request.query_params.get("character"))
        download = with_character(
            lambda name: clip_download_get(user=user, clip_id=clip_id, name=name), kind, character
        )
        return ranged_attachment(download, request.headers.get("Range"))


@extend_schema(tags=["runs"])
class ClipRunsView(APIView):
    @extend_schema(
        request=s.RunInputSerializer,
        responses={201: RunSerializer, **errors(400, 401, 403, 404, 409, 415)},
        description="Queue a run of the pipeline on the clip (editors and owners); α, "
        "θ_max and the measure set its analysis (how a clip too long for the synchronous "
        "analysis gets one at other parameters).",
    )
    @idempotent
    def post(self, request: Request, clip_id: int) -> Response:
        data = s.RunInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        run = clip_run_start(
            user=request_user(request),
            clip_id=clip_id,
            fps=given.get("fps"),
            analysis={k: given.get(k) for k in ("alpha", "theta_max_deg", "measure")},
        )
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)


ANALYSIS = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description="Units, phase runs, gait, MTP candidates with breakdowns, the chosen "
    "cut and the curves (docs/analysis.md).",
)


@extend_schema(tags=["analysis"])
class ClipAnalysisView(APIView):
    @extend_schema(
        parameters=[s.AnalysisQuerySerializer],
        responses={200: ANALYSIS, **errors(400, 401, 404)},
        description="Recompute the clip's phase and momentum analysis at these parameters "
        "(synchronous, from the features its last succeeded run stored; 404 before one).",
    )
    def get(self, request: Request, clip_id: int) -> Response:
        given, renamed = renamed_input(request.query_params)
        query = s.AnalysisQuerySerializer(data=given)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        result = clip_analysis(
            user=request_user(request),
            clip_id=clip_id,
            alpha=data.get("alpha"),
            theta_max_deg=data.get("theta_max_deg"),
            measure=data.get("measure"),
            next_clip_id=data.get("next_clip"),
        )
        return deprecation_headers(Response(result), renamed)

    @extend_schema(
        request=s.AnalysisSaveSerializer,
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT, description="The analysis at the saved parameters."
            ),
            **errors(400, 401, 403, 404, 415),
        },
        description="Save α, θ_max and the measure as the clip's analysis parameters "
        "(editors and owners): the defaults of `GET` and of the clip page.",
    )
    def put(self, request: Request, clip_id: int) -> Response:
        given, renamed = renamed_input(request.data)
        data = s.AnalysisSaveSerializer(data=given)
        data.is_valid(raise_exception=True)
        result = clip_analysis_save(
            user=request_user(request),
            clip_id=clip_id,
            alpha=data.validated_data["alpha"],
            theta_max_deg=data.validated_data["theta_max_deg"],
            measure=data.validated_data["measure"],
        )
        return deprecation_headers(Response(result), renamed)


urlpatterns = [
    path("projects/<int:project_id>/clips/", ProjectClipsView.as_view(), name="project-clips"),
    path("clips/<int:clip_id>/", ClipDetailView.as_view(), name="clip"),
    path(
        "clips/<int:clip_id>/download/<str:kind>/",
        ClipDownloadView.as_view(),
        name="clip-download",
    ),
    path("clips/<int:clip_id>/runs/", ClipRunsView.as_view(), name="clip-runs"),
    path("clips/<int:clip_id>/analysis/", ClipAnalysisView.as_view(), name="clip-analysis"),
]
