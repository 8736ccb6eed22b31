"""REST endpoints for webhooks (included from :mod:`webapp.api.urls` under ``/api/v1/``).

* ``GET  projects/{id}/webhooks/``  the project's webhooks (owner)
* ``POST projects/{id}/webhooks/``  ``{url}`` → 201 webhook with its ``secret`` (shown once)
* ``DELETE webhooks/{id}/``         remove it (owner) → 204
* ``GET  webhooks/{id}/deliveries/`` its delivery log, newest first (owner)

Non-members get 404, members below owner 403. The POST honours ``Idempotency-Key``
(:mod:`webapp.core.idempotency`): a replay returns the same webhook, without its secret,
and only to someone who is still an owner. Views are thin: validate, call one selector
or service, serialize.
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.core.auth import request_user
from webapp.core.idempotency import idempotent
from webapp.core.schema import errors
from webapp.projects.selectors import project_get
from webapp.webhooks import selectors, services
from webapp.webhooks.models import Delivery, Webhook

# --- serializers -------------------------------------------------------------------------------


class WebhookSerializer(serializers.ModelSerializer[Webhook]):
    class Meta:
        model = Webhook
        fields = ["id", "project", "url", "active", "created_at"]
        read_only_fields = fields


class WebhookCreatedSerializer(serializers.ModelSerializer[Webhook]):
    """The webhook as created: the only response that carries the ``secret`` (not a
    replay of it, which leaves the secret out: so the schema does not require it)."""

    secret = serializers.CharField(required=False)

    class Meta:
        model = Webhook
        fields = ["id", "project", "url", "active", "created_at", "secret"]
        read_only_fields = ["id", "project", "url", "active", "created_at"]


class WebhookCreateInputSerializer(serializers.Serializer[dict[str, Any]]):
    url = serializers.URLField(max_length=500)


class DeliverySerializer(serializers.ModelSerializer[Delivery]):
    class Meta:
        model = Delivery
        fields = [
            "id",
            "webhook",
            "event",
            "status",
            "attempts",
            "last_status_code",
            "last_error",
            "payload",
            "created_at",
            "delivered_at",
        ]
        read_only_fields = fields


# --- views -------------------------------------------------------------------------------------


def _still_an_owner(request: Request, project_id: int) -> None:
    """Before a replayed create: the same role check as a new one (owners only)."""
    selectors.webhook_list(user=request_user(request), project_id=project_id)


class ProjectWebhooksView(GenericAPIView[Webhook]):
    serializer_class = WebhookSerializer

    @extend_schema(
        responses={200: WebhookSerializer(many=True), **errors(401, 403, 404)},
        description="The project's webhooks (owners only; the secret is never listed).",
    )
    def get(self, request: Request, project_id: int) -> Response:
        hooks = selectors.webhook_list(user=request_user(request), project_id=project_id)
        page = self.paginate_queryset(hooks)
        return self.get_paginated_response(WebhookSerializer(page, many=True).data)

    @extend_schema(
        request=WebhookCreateInputSerializer,
        responses={201: WebhookCreatedSerializer, **errors(400, 401, 403, 404, 409)},
        description="Add a webhook (owners only). The response is the only one that shows "
        "its `secret`: keep it to verify `X-Kinetograph-Signature` (docs/platform.md). "
        "A replay (`Idempotency-Key`) leaves the secret out.",
    )
    @idempotent(replay_check=_still_an_owner)
    def post(self, request: Request, project_id: int) -> Response:
        data = WebhookCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        project = project_get(user=request_user(request), project_id=project_id)
        hook = services.webhook_create(
            project=project, user=request_user(request), url=data.validated_data["url"]
        )
        return Response(WebhookCreatedSerializer(hook).data, status=status.HTTP_201_CREATED)


class WebhookDetailView(APIView):
    @extend_schema(
        responses={204: None, **errors(401, 403, 404)},
        description="Remove the webhook and its delivery log (owners only).",
    )
    def delete(self, request: Request, webhook_id: int) -> Response:
        hook = selectors.webhook_get(user=request_user(request), webhook_id=webhook_id)
        services.webhook_delete(webhook=hook, user=request_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveriesView(GenericAPIView[Delivery]):
    serializer_class = DeliverySerializer

    @extend_schema(
        responses={200: DeliverySerializer(many=True), **errors(401, 403, 404)},
        description="The webhook's delivery log, newest first (owners only).",
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        deliveries = selectors.delivery_list(user=request_user(request), webhook_id=webhook_id)
        page = self.paginate_queryset(deliveries)
        return self.get_paginated_response(DeliverySerializer(page, many=True).data)


urlpatterns = [
    path(
        "projects/<int:project_id>/webhooks/",
        ProjectWebhooksView.as_view(),
        name="project-webhooks",
    ),
    path("webhooks/<int:webhook_id>/", WebhookDetailView.as_view(), name="webhook-detail"),
    path(
        "webhooks/<int:webhook_id>/deliveries/",
        WebhookDeliveriesView.as_view(),
        name="webhook-deliveries",
    ),
]
