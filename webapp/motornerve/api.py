"""REST endpoints for MotorNerve (included from :mod:`webapp.api.urls` under ``/api/v1/``).

* ``POST motornerve/drives/``  ``{clip, timeline, training, foot_lock}`` → 201 the drive
  with its queued run (editors): the timeline played on the clip's rig
* ``GET  motornerve/drives/{id}/``  the drive: run status, measures, download URLs
* ``GET  motornerve/drives/{id}/download/{name}/``  ``drive.bvh`` (on the rig),
  ``drive-canonical.bvh``, ``viewer.json``, ``report.json``
* ``POST projects/{id}/motornerve/trainings/``  ``{name, clips, interact, epochs}`` → 201
  the training with its queued run (editors)
* ``GET  projects/{id}/motornerve/trainings/``  the project's trainings
* ``GET  motornerve/trainings/{id}/``, ``…/download/{name}/``  ``weights.npz``,
  ``training.jsonl``

Non-members get 404, viewers and reviewers 403 on POST. POSTs honour
``Idempotency-Key``. Views are thin.
"""

from __future__ import annotations

from django.http.response import HttpResponseBase
from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.characters.selectors import character_param
from webapp.core.auth import request_user
from webapp.core.downloads import attachment
from webapp.core.glb import with_character
from webapp.core.idempotency import idempotent
from webapp.core.parsers import NamedNonFiniteJSONParser
from webapp.core.schema import READ, download_schema, errors
from webapp.motornerve.selectors import (
    DRIVE_DOWNLOADS,
    TRAINING_DOWNLOADS,
    drive_download_get,
    drive_get,
    training_download_get,
    training_get,
    training_list,
)
from webapp.motornerve.serializers import (
    DriveInputSerializer,
    DriveSerializer,
    TrainingInputSerializer,
    TrainingSerializer,
)
from webapp.motornerve.services import drive_create, training_create
from webapp.projects.selectors import project_get


@extend_schema(tags=["motornerve"])
class DriveCreateView(APIView):
    parser_classes = [NamedNonFiniteJSONParser]  # NaN in a timeline: a 400 naming the key

    @extend_schema(
        request=DriveInputSerializer,
        responses={201: DriveSerializer, **errors(400, 401, 403, 404, 409, 415)},
        description="Queue a MotorNerve drive: an intent timeline played on the clip's rig "
        "(editors and owners). Poll it until `run.status` is `succeeded`. A bad timeline "
        "is a 400 naming the field (`details.fields.timeline`).",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = DriveInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        created = drive_create(
            user=request_user(request),
            clip_id=values.pop("clip"),
            training_id=values.pop("training"),
            parameters=values,
        )
        return Response(
            DriveSerializer(created, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


@extend_schema(tags=["motornerve"])
class DriveDetailView(APIView):
    @extend_schema(responses={200: DriveSerializer, **READ})
    def get(self, request: Request, drive_id: int) -> Response:
        found = drive_get(user=request_user(request), drive_id=drive_id)
        return Response(DriveSerializer(found, context={"request": request}).data)


@extend_schema(tags=["motornerve"])
class DriveDownloadView(APIView):
    @download_schema(
        DRIVE_DOWNLOADS,
        binary="drive.bvh and drive-canonical.bvh; drive.glb (the mannequin).",
        json="viewer.json and report.json.",
    )
    def get(self, request: Request, drive_id: int, kind: str) -> HttpResponseBase:
        user = request_user(request)
        character = character_param(user=user, value=request.query_params.get("character"))
        download = with_character(
            lambda name: drive_download_get(user=user, drive_id=drive_id, name=name),
            kind,
            character,
        )
        return attachment(download)


@extend_schema(tags=["motornerve"])
class TrainingListView(APIView):
    @extend_schema(responses={200: TrainingSerializer(many=True), **READ})
    def get(self, request: Request, project_id: int) -> Response:
        project = project_get(user=request_user(request), project_id=project_id)
        found = training_list(project_id=project.pk)
        return Response(TrainingSerializer(found, many=True, context={"request": request}).data)

    @extend_schema(
        request=TrainingInputSerializer,
        responses={201: TrainingSerializer, **errors(400, 401, 403, 404, 409, 415)},
        description="Queue a MotorNerve training on the project's clips (editors and "
        "owners); the weights become a download of the training and a choice for drives. "
        "Too few, too short or footless clips fail the run with the reason.",
    )
    @idempotent
    def post(self, request: Request, project_id: int) -> Response:
        data = TrainingInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        created = training_create(
            user=request_user(request),
            project_id=project_id,
            clip_ids=values["clips"],
            interact=values["interact"],
            epochs=values["epochs"],
            name=values["name"],
        )
        return Response(
            TrainingSerializer(created, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


@extend_schema(tags=["motornerve"])
class TrainingDetailView(APIView):
    @extend_schema(responses={200: TrainingSerializer, **READ})
    def get(self, request: Request, training_id: int) -> Response:
        found = training_get(user=request_user(request), training_id=training_id)
        return Response(TrainingSerializer(found, context={"request": request}).data)


@extend_schema(tags=["motornerve"])
class TrainingDownloadView(APIView):
    @download_schema(
        TRAINING_DOWNLOADS,
        binary="weights.npz (numpy: motioncore.motornerve.network.Weights.load).",
        json="training.jsonl (one JSON object per epoch).",
    )
    def get(self, request: Request, training_id: int, kind: str) -> HttpResponseBase:
        user = request_user(request)
        return attachment(training_download_get(user=user, training_id=training_id, name=kind))


urlpatterns = [
    path("motornerve/drives/", DriveCreateView.as_view(), name="motornerve-drives"),
    path("motornerve/drives/<int:drive_id>/", DriveDetailView.as_view(), name="motornerve-drive"),
    path(
        "motornerve/drives/<int:drive_id>/download/<str:kind>/",
        DriveDownloadView.as_view(),
        name="motornerve-drive-download",
    ),
    path(
        "projects/<int:project_id>/motornerve/trainings/",
        TrainingListView.as_view(),
        name="motornerve-trainings",
    ),
    path(
        "motornerve/trainings/<int:training_id>/",
        TrainingDetailView.as_view(),
        name="motornerve-training",
    ),
    path(
        "motornerve/trainings/<int:training_id>/download/<str:kind>/",
        TrainingDownloadView.as_view(),
        name="motornerve-training-download",
    ),
]
