"""REST endpoints for API tokens (included from :mod:`webapp.api.urls` under ``/api/v1/``).

* ``POST auth/token/``  ``{username, password}`` → ``{token}`` (the current token,
  created when there is none); 429 ``locked_out`` after too many failures
* ``POST auth/token/rotate/``  → ``{token}``, a new one; the old one stops working
* ``POST auth/logout-everywhere/``  → 204: the token deleted, every session ended
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.accounts.services import auth_token_obtain, auth_token_rotate, user_logout_everywhere
from webapp.core.auth import request_user
from webapp.core.schema import errors


class TokenInputSerializer(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class TokenSerializer(serializers.Serializer[Token]):
    token = serializers.CharField(source="key", help_text="Send as `Authorization: Token <token>`.")


@extend_schema(tags=["auth"])
class TokenView(APIView):
    """Exchange `{username, password}` for `{token}` (the same token until it is rotated,
    revoked or its user logs out)."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(
        operation_id="auth_token_create",
        request=TokenInputSerializer,
        responses={200: TokenSerializer, **errors(400, 415, 429)},
        auth=[],
        description="429 `locked_out` (with `Retry-After`) after too many wrong passwords "
        "for one username from one address, until the cool-off has passed.",
    )
    def post(self, request: Request) -> Response:
        data = TokenInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token = auth_token_obtain(request=request._request, **data.validated_data)
        return Response(TokenSerializer(token).data)


@extend_schema(tags=["auth"])
class TokenRotateView(APIView):
    """Replace your API token with a new one."""

    @extend_schema(
        operation_id="auth_token_rotate",
        request=None,
        responses={200: TokenSerializer, **errors(401)},
        description="A new token; the one you had stops working at once.",
    )
    def post(self, request: Request) -> Response:
        token = auth_token_rotate(user=request_user(request))
        return Response(TokenSerializer(token).data)


@extend_schema(tags=["auth"])
class LogoutEverywhereView(APIView):
    """Revoke your API token and end all your browser sessions."""

    @extend_schema(
        operation_id="auth_logout_everywhere",
        request=None,
        responses={204: None, **errors(401)},
        description="Deletes your API token and ends every browser session of yours; get "
        "a new token from `POST auth/token/`.",
    )
    def post(self, request: Request) -> Response:
        user_logout_everywhere(user=request_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


urlpatterns = [
    path("auth/token/", TokenView.as_view(), name="auth-token"),
    path("auth/token/rotate/", TokenRotateView.as_view(), name="auth-token-rotate"),
    path("auth/logout-everywhere/", LogoutEverywhereView.as_view(), name="auth-logout-everywhere"),
]
