"""What the REST endpoints of every app share beyond the user (:mod:`webapp.core.auth`),
the schema helpers (:mod:`webapp.core.schema`), ``Idempotency-Key``
(:mod:`webapp.core.idempotency`) and downloads (:mod:`webapp.core.downloads`): the
status of a create-or-return POST and the JSON 404 for paths no endpoint has."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.views import APIView


def created_or_ok(created: bool) -> int:
    """201 when the POST made the object, 200 when it answered one already there."""
    return status.HTTP_201_CREATED if created else status.HTTP_200_OK


class NotFoundView(APIView):
    """A JSON 404 for any other path under ``/api/v1/`` (instead of Django's HTML page)."""

    permission_classes = [AllowAny]
    schema = None

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        raise NotFound("No such API endpoint.")
