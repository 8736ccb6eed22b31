"""REST endpoint for API tokens (included from :mod:`webapp.api.urls` under ``/api/v1/``).

* ``POST auth/token/``  ``{username, password}`` → ``{token}`` (the same token on every call)
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.accounts.services import auth_token_obtain
from webapp.core.schema import errors


class TokenInputSerializer(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class TokenSerializer(serializers.Serializer[Token]):
    token = serializers.CharField(source="key", help_text="Send as `Authorization: Token <token>`.")


@extend_schema(tags=["auth"])
class TokenView(APIView):
    """Exchange `{username, password}` for `{token}` (the same token on every call)."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(
        operation_id="auth_token_create",
        request=TokenInputSerializer,
        responses={200: TokenSerializer, **errors(400, 415, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = TokenInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token = auth_token_obtain(request=request._request, **data.validated_data)
        return Response(TokenSerializer(token).data)


urlpatterns = [path("auth/token/", TokenView.as_view(), name="auth-token")]
