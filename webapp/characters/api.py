"""REST endpoints of characters (included from :mod:`webapp.api.urls`).

* ``GET  projects/{id}/characters/``  the project's characters (members)
* ``POST projects/{id}/characters/``  multipart ``file`` (.glb, or .gltf with embedded
  buffers), optional ``overrides`` (JSON: role → joint name) → 201 the character with its
  validation report (editors); 400 ``invalid_character`` naming the problem, 413 past
  ``KINETOGRAPH_CHARACTER_MAX_BYTES``; nothing stored on an error
* ``GET / DELETE characters/{id}/``  one character (members) / delete it and its files (editors)
* ``GET  characters/{id}/download/{kind}/``  ``body.glb`` (what the players pose) or ``original``
* ``GET  characters/{id}/clips/{clip_id}/download/{kind}/``  the clip's cleaned motion
  retargeted onto the character: ``viewer.json``, ``motion.bvh``, ``motion.glb``
* ``POST mannequins/``  ``{names, parents, offsets, end_site, hidden?}`` (a skeleton as
  the viewer arrays hold it) → 200 ``model/gltf-binary``: its mannequin in the rest
  pose, skinned, without animation (what the players pose); 400 ``invalid_skeleton``
  naming the problem, or ``no_mannequin``. Any signed-in user; nothing is stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.http import HttpResponse
from django.http.response import HttpResponseBase
from django.urls import path, reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.characters.mannequins import MAX_JOINTS, SkeletonSpec, mannequin_glb
from webapp.characters.models import Character
from webapp.characters.selectors import (
    CHARACTER_DOWNLOADS,
    ON_CHARACTER_DOWNLOADS,
    character_download_get,
    character_get,
    character_list,
    clip_on_character_get,
)
from webapp.characters.services import character_bytes_check, character_create, character_delete
from webapp.clips.uploads import MULTIPART_OVERHEAD_BYTES
from webapp.core.auth import request_user
from webapp.core.downloads import attachment
from webapp.core.errors import ServiceError
from webapp.core.glb import GLB_CONTENT_TYPE
from webapp.core.idempotency import idempotent
from webapp.core.limits import request_limit
from webapp.core.parsers import NamedNonFiniteJSONParser
from webapp.core.schema import READ, errors
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.projects.selectors import project_get


class CharacterSerializer(serializers.ModelSerializer[Character]):
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    downloads = serializers.SerializerMethodField()

    class Meta:
        model = Character
        fields = ["id", "project", "name", "report", "overrides", "downloads"]
        fields += ["created_by", "created_at"]
        read_only_fields = fields

    def get_downloads(self, character: Character) -> dict[str, str]:
        """Download name → URL (``body.glb``: what the players pose)."""
        return {
            name: reverse("api:character-download", args=[character.pk, name])
            for name in CHARACTER_DOWNLOADS
        }


class CharacterUploadSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.FileField(help_text="A .glb, or a .gltf with its buffers embedded.")
    overrides = serializers.CharField(
        required=False,
        max_length=10_000,
        help_text='Role overrides as JSON, role → joint name ({"left_hand": "Palm2.L"}).',
    )


def _overrides(text: str | None) -> dict[str, str] | None:
    if not text:
        return None
    try:
        found = json.loads(text)
    except ValueError as error:
        raise ServiceError(f"overrides is not JSON: {error}", code="invalid_character") from error
    if not isinstance(found, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in found.items()
    ):
        raise ServiceError("overrides maps role names to joint names.", code="invalid_character")
    return found


@extend_schema(tags=["characters"])
@request_limit(bytes_setting="CHARACTER_MAX_BYTES", overhead_bytes=MULTIPART_OVERHEAD_BYTES)
class ProjectCharactersView(GenericAPIView[Character]):
    serializer_class = CharacterSerializer
    parser_classes = [MultiPartParser]

    @extend_schema(responses={200: CharacterSerializer(many=True), **READ})
    def get(self, request: Request, project_id: int) -> Response:
        found = character_list(user=request_user(request), project_id=project_id)
        page = self.paginate_queryset(found)
        body = CharacterSerializer(page, many=True, context={"request": request})
        return self.get_paginated_response(body.data)

    @extend_schema(
        request={"multipart/form-data": CharacterUploadSerializer},
        responses={201: CharacterSerializer, **errors(400, 401, 403, 404, 409, 413, 415)},
        description="Upload a skinned humanoid character (glTF 2.0); its validation report "
        "says what was found (joints, roles, height, up axis, rest pose). The same bytes "
        "again answer the character already there.",
    )
    @idempotent
    def post(self, request: Request, project_id: int) -> Response:
        user = request_user(request)
        project = project_get(user=user, project_id=project_id)
        require_role(project=project, user=user, role=Role.EDITOR)  # before the body is read
        data = CharacterUploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        character_bytes_check(size=upload.size or 0)
        created = character_create(
            project=project,
            user=user,
            name=upload.name or "character.glb",
            data=upload.read(),
            overrides=_overrides(data.validated_data.get("overrides")),
        )
        body = CharacterSerializer(created, context={"request": request})
        return Response(body.data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["characters"])
class CharacterDetailView(APIView):
    @extend_schema(responses={200: CharacterSerializer, **READ})
    def get(self, request: Request, character_id: int) -> Response:
        found = character_get(user=request_user(request), character_id=character_id)
        return Response(CharacterSerializer(found, context={"request": request}).data)

    @extend_schema(responses={204: None, **errors(401, 403, 404)})
    def delete(self, request: Request, character_id: int) -> Response:
        user = request_user(request)
        character_delete(character=character_get(user=user, character_id=character_id), user=user)
        return Response(status=status.HTTP_204_NO_CONTENT)


F = TypeVar("F", bound=Callable[..., Any])


def _binary(names: tuple[str, ...], description: str) -> Callable[[F], F]:
    return extend_schema(
        parameters=[
            OpenApiParameter("kind", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(names))
        ],
        responses={
            (200, GLB_CONTENT_TYPE): OpenApiResponse(OpenApiTypes.BINARY, description=description),
            (200, "application/octet-stream"): OpenApiResponse(
                OpenApiTypes.BINARY, description="BVH"
            ),
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.OBJECT, description="viewer arrays"
            ),
            **errors(400, 401, 404, 413),
        },
    )


@extend_schema(tags=["characters"])
class CharacterDownloadView(APIView):
    @_binary(
        CHARACTER_DOWNLOADS, "body.glb: the character at rest, skinned; original: as uploaded."
    )
    def get(self, request: Request, character_id: int, kind: str) -> HttpResponseBase:
        user = request_user(request)
        return attachment(character_download_get(user=user, character_id=character_id, name=kind))


@extend_schema(tags=["characters"])
class ClipOnCharacterView(APIView):
    @_binary(ON_CHARACTER_DOWNLOADS, "The clip's cleaned motion retargeted onto the character.")
    def get(self, request: Request, character_id: int, clip_id: int, kind: str) -> HttpResponseBase:
        found = clip_on_character_get(
            user=request_user(request), character_id=character_id, clip_id=clip_id, name=kind
        )
        return attachment(found)


class SkeletonSerializer(serializers.Serializer[dict[str, Any]]):
    names = serializers.ListField(
        child=serializers.CharField(max_length=200, trim_whitespace=False),
        max_length=MAX_JOINTS,
        help_text="[J] joint names (viewer arrays: names).",
    )
    parents = serializers.ListField(
        child=serializers.IntegerField(), max_length=MAX_JOINTS, help_text="[J] -1 for roots."
    )
    offsets = serializers.ListField(
        child=serializers.FloatField(),
        max_length=3 * MAX_JOINTS,
        help_text="[J × 3] rest offsets from the parent, metres, Y up (flat).",
    )
    end_site = serializers.ListField(child=serializers.BooleanField(), max_length=MAX_JOINTS)
    hidden = serializers.ListField(
        child=serializers.IntegerField(),
        max_length=MAX_JOINTS,
        required=False,
        default=list,
        help_text="Joints whose bone from their parent gets no limb (a carrier root's "
        "translation).",
    )


@extend_schema(tags=["characters"])
class MannequinView(APIView):
    parser_classes = [NamedNonFiniteJSONParser]

    @extend_schema(
        request=SkeletonSerializer,
        responses={
            (200, GLB_CONTENT_TYPE): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="The skeleton's mannequin: binary glTF 2.0, skinned, rest pose, "
                "no animation.",
            ),
            **errors(400, 401, 415),
        },
        description="The mannequin a player draws a skeleton with (nothing is stored).",
    )
    def post(self, request: Request) -> HttpResponse:
        request_user(request)
        body = SkeletonSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        spec = SkeletonSpec(
            names=tuple(data["names"]),
            parents=tuple(data["parents"]),
            offsets=tuple(data["offsets"]),
            end_site=tuple(data["end_site"]),
            hidden=tuple(sorted(set(data["hidden"]))),
        )
        response = HttpResponse(mannequin_glb(spec), content_type=GLB_CONTENT_TYPE)
        response["Cache-Control"] = "private, max-age=3600"
        return response


urlpatterns = [
    path("mannequins/", MannequinView.as_view(), name="mannequins"),
    path(
        "projects/<int:project_id>/characters/",
        ProjectCharactersView.as_view(),
        name="project-characters",
    ),
    path("characters/<int:character_id>/", CharacterDetailView.as_view(), name="character"),
    path(
        "characters/<int:character_id>/download/<str:kind>/",
        CharacterDownloadView.as_view(),
        name="character-download",
    ),
    path(
        "characters/<int:character_id>/clips/<int:clip_id>/download/<str:kind>/",
        ClipOnCharacterView.as_view(),
        name="clip-on-character",
    ),
]
