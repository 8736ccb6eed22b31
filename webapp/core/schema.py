"""OpenAPI helpers: the error shape as a component, the error responses views declare
and the one description of a ``…/download/{kind}/`` endpoint.

Every view lists the error statuses it can answer with :func:`errors`, so that the
schema (and the schemathesis test built on it) knows them::

    @extend_schema(responses={200: ClipSerializer, **errors(401, 404)})
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers

ERROR_DESCRIPTIONS = {
    400: "The request is not valid (field errors, a bad file, a BVH parse error).",
    401: "Not authenticated.",
    403: "Your role in the project does not allow this.",
    404: "No such object, or not a member of its project (or no such page).",
    409: "Conflict: an Idempotency-Key reused for another request, or a state conflict.",
    413: "The request body, the upload or what it declares (frames, joints, duration) is "
    "over a limit; the error names it.",
    415: "The request body's media type is not one this operation accepts.",
    429: "Too many requests; retry after `details.retry_after_s` seconds.",
}


class ErrorDetailSerializer(serializers.Serializer[dict[str, Any]]):
    code = serializers.CharField(help_text="Stable, machine-readable error code.")
    message = serializers.CharField(help_text="A sentence for people.")
    details = serializers.DictField(
        help_text="Context: `line`/`column`/`message` for a BVH parse error, `fields` for "
        "validation errors, `retry_after_s` when throttled."
    )


class ErrorSerializer(serializers.Serializer[dict[str, Any]]):
    """The one error shape (:func:`webapp.core.exceptions.error_body`)."""

    error = ErrorDetailSerializer()


def errors(*statuses: int) -> dict[int, OpenApiResponse]:
    """``{status: error response}`` for ``extend_schema(responses=...)``."""
    return {
        status: OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[status])
        for status in statuses
    }


READ = errors(401, 404)
"""What every member-only GET can answer."""

F = TypeVar("F", bound=Callable[..., Any])


def download_schema(
    names: Iterable[str], *, binary: str, json: str, description: str | None = None
) -> Callable[[F], F]:
    """``extend_schema`` of a ``GET …/download/{kind}/`` view method: ``kind`` one of
    ``names``; 200 with a BVH (``binary`` says which), a JSON document (``json``) or, for
    the names ending ``.glb``, the motion on its mannequin as binary glTF; where there are
    such names, the ``character`` query parameter (the motion on a character)."""
    names = list(names)
    glb = [n for n in names if n.endswith(".glb")]
    glb_response = {
        (200, "model/gltf-binary"): OpenApiResponse(
            OpenApiTypes.BINARY,
            description=f"{', '.join(glb)}: the motion on the mannequin made from its "
            "skeleton (binary glTF 2.0, one animation); 413 past KINETOGRAPH_GLB_MAX_SAMPLES.",
        )
    }
    character = OpenApiParameter(
        "character",
        OpenApiTypes.INT,
        OpenApiParameter.QUERY,
        required=False,
        description="A character's id (characters/{id}/): the .glb and .bvh downloads made "
        "on it, the motion retargeted (docs/characters.md); 400 for the other kinds.",
    )
    return extend_schema(
        parameters=[
            OpenApiParameter("kind", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(names)),
            *([character] if glb else []),
        ],
        responses={
            (200, "application/octet-stream"): OpenApiResponse(
                OpenApiTypes.BINARY, description=binary
            ),
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description=json),
            **(glb_response if glb else {}),
            **READ,
            **(errors(400, 413) if glb else {}),
        },
        description=description,
    )
