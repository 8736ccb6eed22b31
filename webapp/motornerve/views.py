"""The Drive page: steer a character live with the keyboard or a gamepad, the network
running in the browser; from a project (the canonical character, sized to the rig clip
picked for recording) or from a clip (the canonical character sized to the clip's rig,
as the server's replay plays it before putting the recording on the rig itself).

Thin: reads through selectors; recordings are started by the page's script through
``POST /api/v1/motornerve/drives/``. The page's own JSON endpoints (session auth, the
API's one error shape, not in the OpenAPI schema: they serve the page):

* ``GET projects/{id}/drive/weights/[?training=<id>]``  the packed manifest (JSON)
* ``GET projects/{id}/drive/weights/blob/[?training=<id>]``  the float32 blob
  (``application/octet-stream``)
* ``GET clips/{id}/drive/rig/``  the rig's leg length and scale

The two pages add ``'wasm-unsafe-eval'`` to the Content-Security-Policy's ``script-src``
(:func:`runs_webassembly`): the network's kernel is WebAssembly, which a policy without
it refuses to compile; it allows compiling WebAssembly only, no JavaScript ``eval``.

Both weights answers carry a strong ``ETag`` and ``Cache-Control: private, no-cache``
(a matching ``If-None-Match`` is a 304); no weights shipped yet is a 404
``no_shipped_weights``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any, TypeVar, cast

from csp.constants import WASM_UNSAFE_EVAL
from csp.decorators import csp_update
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.clips.models import Clip
from webapp.clips.selectors import clip_get, clip_list
from webapp.core.auth import request_user
from webapp.core.downloads import revalidated
from webapp.core.pages import CAMERA_PRESETS, page
from webapp.motornerve.presenters import drive_character, drive_controls
from webapp.motornerve.selectors import (
    PackedWeights,
    drive_list_for_clip,
    drive_rig_get,
    drive_weights_packed,
    training_list,
)
from webapp.motornerve.serializers import DriveWeightsQuerySerializer
from webapp.projects.models import ROLE_RANK, Project, Role
from webapp.projects.permissions import role_of
from webapp.projects.selectors import project_get
from webapp.runs.models import Status

RIG_CLIPS_LISTED = 50
DRIVES_LISTED = 10


def _context(request: HttpRequest, project: Project, clip: Clip | None) -> dict[str, object]:
    user = request_user(request)
    role = role_of(project=project, user=user) or Role.VIEWER
    trainings = training_list(project_id=project.pk).filter(run__status=Status.SUCCEEDED)
    return {
        "project": project,
        "clip": clip,
        "role": role,
        "can_edit": ROLE_RANK[role] >= ROLE_RANK[Role.EDITOR],
        "weights_url": reverse("drive-weights", args=[project.pk]),
        "weights_blob_url": reverse("drive-weights-blob", args=[project.pk]),
        "rig_url": reverse("drive-rig", args=[0]),
        "drives_url": reverse("api:motornerve-drives"),
        "drive_url": reverse("api:motornerve-drive", args=[0]),
        "clip_url": reverse("clip", args=[0]),
        "trainings": list(trainings),
        "drives": list(drive_list_for_clip(clip=clip)[:DRIVES_LISTED]) if clip else [],
        "rig_clips": list(clip_list(user=user, project_id=project.pk)[:RIG_CLIPS_LISTED]),
        "camera_presets": CAMERA_PRESETS,
        "character": drive_character(),
        "controls": drive_controls(),
    }


View = TypeVar("View", bound=Callable[..., HttpResponseBase])


def runs_webassembly(view: View) -> View:
    """``view``'s answers add ``'wasm-unsafe-eval'`` to ``script-src`` (module docstring)."""
    update = csp_update({"script-src": [WASM_UNSAFE_EVAL]})
    return cast(View, update(cast(Any, view)))  # django-csp types one-argument views only


@require_GET
@runs_webassembly
@page
def project_drive(request: HttpRequest, project_id: int) -> HttpResponse:
    """Drive the canonical character (recordings need a rig: pick a clip)."""
    project = project_get(user=request_user(request), project_id=project_id)
    return render(request, "pages/drive.html", _context(request, project, None))


@require_GET
@runs_webassembly
@page
def clip_drive(request: HttpRequest, clip_id: int) -> HttpResponse:
    """Drive the character sized to the clip's rig; recordings are put on the rig."""
    clip = clip_get(user=request_user(request), clip_id=clip_id)
    return render(request, "pages/drive.html", _context(request, clip.project, clip))


def _packed(request: Request, project_id: int) -> PackedWeights:
    query = DriveWeightsQuerySerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    training = query.validated_data["training"]
    return drive_weights_packed(
        user=request_user(request), project_id=project_id, training_id=training
    )


@extend_schema(exclude=True)
class DriveWeightsView(APIView):
    """The packed manifest of the Drive page's weights (JSON)."""

    def get(self, request: Request, project_id: int) -> HttpResponseBase:
        found = _packed(request, project_id)
        return revalidated(
            request._request,
            found.manifest,
            etag=found.manifest_etag,
            content_type="application/json",
        )


@extend_schema(exclude=True)
class DriveWeightsBlobView(APIView):
    """The float32 blob of the Drive page's weights."""

    def get(self, request: Request, project_id: int) -> HttpResponseBase:
        found = _packed(request, project_id)
        return revalidated(
            request._request,
            found.blob,
            etag=found.blob_etag,
            content_type="application/octet-stream",
        )


@extend_schema(exclude=True)
class DriveRigView(APIView):
    """``{clip_id, name, leg_m, scale}``: how the page sizes the character to a rig."""

    def get(self, request: Request, clip_id: int) -> Response:
        return Response(asdict(drive_rig_get(user=request_user(request), clip_id=clip_id)))
