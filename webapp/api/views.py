"""REST API v1 views (``docs/api-contract.md``).

Each view validates with an input serializer, calls one selector or service and
answers with an output serializer. Errors are raised, never caught: services raise
:class:`~webapp.core.errors.ServiceError` and :mod:`webapp.core.exceptions` turns
every error into the one JSON shape. Non-members get 404, roles too low 403.
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.models import User
from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from webapp.api import serializers as s
from webapp.api import services as api_services
from webapp.api.downloads import file_response
from webapp.api.idempotency import idempotent
from webapp.api.schema import errors
from webapp.api.uploads import UploadParser, UploadRateThrottle
from webapp.clips.analysis import clip_analysis, clip_analysis_save
from webapp.clips.models import Clip
from webapp.clips.selectors import (
    DOWNLOADS,
    clip_download_get,
    clip_get,
    clip_latest_run,
    clip_list,
)
from webapp.projects import selectors as project_selectors
from webapp.projects.models import Membership, Project, Role
from webapp.projects.selectors import project_get
from webapp.projects.services import membership_upsert, project_create
from webapp.runs.models import Run
from webapp.runs.selectors import run_get, run_list
from webapp.transitions.models import Transition
from webapp.transitions.selectors import (
    TRANSITION_DOWNLOADS,
    transition_download_get,
    transition_get,
    transition_list,
)
from webapp.transitions.services import transition_create

READ = errors(401, 404)  # what every member-only GET can answer
CREATE = errors(400, 401, 404, 409, 415)  # what every creating POST can answer


def _user(request: Request) -> User:
    return cast(User, request.user)  # IsAuthenticated (the default) ran before the handler


def _created_or_ok(created: bool) -> int:
    return status.HTTP_201_CREATED if created else status.HTTP_200_OK


# --- auth ----------------------------------------------------------------------------------------


@extend_schema(tags=["auth"])
class TokenView(APIView):
    """Exchange `{username, password}` for `{token}` (the same token on every call)."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(
        operation_id="auth_token_create",
        request=s.TokenInputSerializer,
        responses={200: s.TokenSerializer, **errors(400, 415, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = s.TokenInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token = api_services.auth_token_obtain(request=request._request, **data.validated_data)
        return Response(s.TokenSerializer(token).data)


# --- projects ------------------------------------------------------------------------------------


@extend_schema(tags=["projects"])
class ProjectListView(GenericAPIView[Project]):
    serializer_class = s.ProjectSerializer

    @extend_schema(responses={200: s.ProjectSerializer(many=True), **READ})
    def get(self, request: Request) -> Response:
        projects = project_selectors.project_list_with_role(user=_user(request))
        page = self.paginate_queryset(projects)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(request=s.ProjectInputSerializer, responses={201: s.ProjectSerializer, **CREATE})
    @idempotent
    def post(self, request: Request) -> Response:
        data = s.ProjectInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        project = project_create(user=_user(request), name=data.validated_data["name"])
        project = project_selectors.project_get_with_role(
            user=_user(request), project_id=project.pk
        )
        return Response(s.ProjectSerializer(project).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["projects"])
class ProjectDetailView(APIView):
    @extend_schema(responses={200: s.ProjectSerializer, **READ})
    def get(self, request: Request, project_id: int) -> Response:
        project = project_selectors.project_get_with_role(
            user=_user(request), project_id=project_id
        )
        return Response(s.ProjectSerializer(project).data)


@extend_schema(tags=["projects"])
class ProjectMembersView(GenericAPIView[Membership]):
    serializer_class = s.MembershipSerializer

    @extend_schema(responses={200: s.MembershipSerializer(many=True), **READ})
    def get(self, request: Request, project_id: int) -> Response:
        members = project_selectors.membership_list(user=_user(request), project_id=project_id)
        page = self.paginate_queryset(members)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        request=s.MembershipInputSerializer,
        responses={
            200: OpenApiResponse(s.MembershipSerializer, description="Role changed."),
            201: OpenApiResponse(s.MembershipSerializer, description="Member added."),
            **errors(400, 401, 403, 404, 409, 415),
        },
        description="Add a member or change a member's role (owners only; 404 for an "
        "unknown username, 409 if no owner would be left).",
    )
    @idempotent
    def post(self, request: Request, project_id: int) -> Response:
        data = s.MembershipInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        project = project_get(user=_user(request), project_id=project_id)
        membership, created = membership_upsert(
            project=project,
            by=_user(request),
            username=data.validated_data["username"],
            role=Role(data.validated_data["role"]),
        )
        return Response(s.MembershipSerializer(membership).data, status=_created_or_ok(created))


# --- clips ---------------------------------------------------------------------------------------


@extend_schema(tags=["clips"])
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
        clips = clip_list(user=_user(request), project_id=project_id, **query.validated_data)
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
        result = api_services.clip_upload(
            user=_user(request), project_id=project_id, upload=data.validated_data["file"]
        )
        run = clip_latest_run(result.clip) if result.created else None
        body = s.UploadSerializer({"clip": result.clip, "run": run}, context={"request": request})
        return Response(body.data, status=_created_or_ok(result.created))


@extend_schema(tags=["clips"])
class ClipDetailView(APIView):
    @extend_schema(responses={200: s.ClipDetailSerializer, **READ})
    def get(self, request: Request, clip_id: int) -> Response:
        clip = clip_get(user=_user(request), clip_id=clip_id)
        return Response(s.ClipDetailSerializer(clip, context={"request": request}).data)


BINARY = OpenApiResponse(OpenApiTypes.BINARY, description="original and cleaned.bvh.")


@extend_schema(tags=["clips"])
class ClipDownloadView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("kind", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(DOWNLOADS))
        ],
        responses={
            (200, "application/octet-stream"): BINARY,
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.OBJECT, description="viewer.json and clean-report.json."
            ),
            **READ,
        },
        description="`original` is the file exactly as uploaded; the others come from the "
        "newest succeeded run (404 until one has produced them).",
    )
    def get(self, request: Request, clip_id: int, kind: str) -> FileResponse:
        download = clip_download_get(user=_user(request), clip_id=clip_id, name=kind)
        return file_response(download)


# --- runs ----------------------------------------------------------------------------------------


@extend_schema(tags=["runs"])
class ClipRunsView(APIView):
    @extend_schema(
        request=s.RunInputSerializer,
        responses={201: s.RunSerializer, **errors(400, 401, 403, 404, 409, 415)},
        description="Queue a run of the pipeline on the clip (editors and owners).",
    )
    @idempotent
    def post(self, request: Request, clip_id: int) -> Response:
        data = s.RunInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        run = api_services.clip_run_start(
            user=_user(request), clip_id=clip_id, fps=data.validated_data.get("fps")
        )
        return Response(s.RunSerializer(run).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["runs"])
class ProjectRunsView(GenericAPIView[Run]):
    serializer_class = s.RunSerializer

    @extend_schema(responses={200: s.RunSerializer(many=True), **READ})
    def get(self, request: Request, project_id: int) -> Response:
        runs = run_list(user=_user(request), project_id=project_id)
        page = self.paginate_queryset(runs)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


@extend_schema(tags=["runs"])
class RunDetailView(APIView):
    @extend_schema(responses={200: s.RunSerializer, **READ})
    def get(self, request: Request, run_id: int) -> Response:
        return Response(s.RunSerializer(run_get(user=_user(request), run_id=run_id)).data)


# --- analysis and transitions -------------------------------------------------------------------


@extend_schema(tags=["analysis"])
class ClipAnalysisView(APIView):
    @extend_schema(
        parameters=[s.AnalysisQuerySerializer],
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="Units, phase runs, gait, MTP candidates with breakdowns, the chosen "
                "cut and the curves (docs/analysis.md).",
            ),
            **errors(400, 401, 404),
        },
        description="Recompute the clip's phase and momentum analysis at these parameters "
        "(synchronous, from the features its last succeeded run stored; 404 before one).",
    )
    def get(self, request: Request, clip_id: int) -> Response:
        query = s.AnalysisQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        result = clip_analysis(
            user=_user(request),
            clip_id=clip_id,
            alpha=data.get("alpha"),
            theta_max_deg=data.get("theta"),
            method=data.get("method"),
            next_clip_id=data.get("next_clip"),
        )
        return Response(result)

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
        data = s.AnalysisSaveSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = clip_analysis_save(
            user=_user(request),
            clip_id=clip_id,
            alpha=data.validated_data["alpha"],
            theta_max_deg=data.validated_data["theta"],
            method=data.validated_data["method"],
        )
        return Response(result)


@extend_schema(tags=["transitions"])
class TransitionCreateView(APIView):
    @extend_schema(
        request=s.TransitionInputSerializer,
        responses={201: s.TransitionSerializer, **errors(400, 401, 403, 404, 409, 415)},
        description="Queue a transition from clip A into clip B (same project, same skeleton; "
        "editors and owners). Poll the transition until `run.status` is `succeeded`.",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = s.TransitionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        clip_a, clip_b = values.pop("clip_a"), values.pop("clip_b")
        created = transition_create(
            user=_user(request), clip_a_id=clip_a, clip_b_id=clip_b, parameters=values
        )
        body = s.TransitionSerializer(created, context={"request": request})
        return Response(body.data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["transitions"])
class ProjectTransitionsView(GenericAPIView[Transition]):
    serializer_class = s.TransitionSerializer

    @extend_schema(responses={200: s.TransitionSerializer(many=True), **READ})
    def get(self, request: Request, project_id: int) -> Response:
        found = transition_list(user=_user(request), project_id=project_id)
        page = self.paginate_queryset(found)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


@extend_schema(tags=["transitions"])
class TransitionDetailView(APIView):
    @extend_schema(responses={200: s.TransitionSerializer, **READ})
    def get(self, request: Request, transition_id: int) -> Response:
        found = transition_get(user=_user(request), transition_id=transition_id)
        return Response(s.TransitionSerializer(found, context={"request": request}).data)


@extend_schema(tags=["transitions"])
class TransitionDownloadView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "kind", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(TRANSITION_DOWNLOADS)
            )
        ],
        responses={
            (200, "application/octet-stream"): OpenApiResponse(
                OpenApiTypes.BINARY, description="transition.bvh."
            ),
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.OBJECT, description="transition.json and viewer.json."
            ),
            **READ,
        },
    )
    def get(self, request: Request, transition_id: int, kind: str) -> FileResponse:
        download = transition_download_get(
            user=_user(request), transition_id=transition_id, name=kind
        )
        return file_response(download)


# --- everything else under /api/v1/ --------------------------------------------------------------


class NotFoundView(APIView):
    """A JSON 404 for any other path under ``/api/v1/`` (instead of Django's HTML page)."""

    permission_classes = [AllowAny]
    schema = None

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        raise NotFound("No such API endpoint.")
