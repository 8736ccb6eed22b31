"""The webhook endpoints: owners list, create (the secret is shown once) and delete
webhooks and read their delivery logs; everyone else gets the error shape with 403,
404 or 401.

Through the real URLconf: ``webapp/api/urls.py`` includes ``webapp.webhooks.api``.
"""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from django.contrib.auth.models import AbstractUser, User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from webapp.projects.models import Membership, Project, Role
from webapp.webhooks.models import Delivery, Webhook

pytestmark = pytest.mark.django_db


def client_for(user: AbstractUser | None) -> APIClient:
    """An API client with the user's token (anonymous for ``None``)."""
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def hooks_url(project: Project) -> str:
    return f"/api/v1/projects/{project.pk}/webhooks/"


def assert_error(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    assert set(response.json()) == {"error"}
    assert response.json()["error"]["code"] == code
    assert set(response.json()["error"]) == {"code", "message", "details"}


def test_an_owner_creates_a_webhook_and_sees_its_secret_once(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    owner = client_for(members["owner"])

    created = owner.post(hooks_url(project), {"url": "https://example.test/hook"}, format="json")

    assert created.status_code == 201, created.content
    body = created.json()
    hook = Webhook.objects.get(pk=body["id"])
    assert body == {
        "id": hook.pk,
        "project": project.pk,
        "url": "https://example.test/hook",
        "active": True,
        "created_at": body["created_at"],
        "secret": hook.secret,
    }
    assert len(hook.secret) == 64
    listed = owner.get(hooks_url(project)).json()
    assert listed["count"] == 1
    assert listed["results"][0]["id"] == hook.pk
    assert "secret" not in listed["results"][0]


def test_secrets_differ_between_webhooks(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    owner = client_for(members["owner"])
    secrets = {
        owner.post(hooks_url(project), {"url": "https://a.test/"}, format="json").json()["secret"]
        for _ in range(3)
    }
    assert len(secrets) == 3


@pytest.mark.parametrize("role", ["editor", "reviewer", "viewer"])
def test_members_below_owner_get_403(
    project: Project, members: dict[str, AbstractUser], role: str
) -> None:
    hook = Webhook.objects.create(project=project, url="https://a.test/", secret="x")
    client = client_for(members[role])

    assert_error(client.get(hooks_url(project)), 403, "permission_denied")
    assert_error(
        client.post(hooks_url(project), {"url": "https://b.test/"}, format="json"),
        403,
        "permission_denied",
    )
    assert_error(client.delete(f"/api/v1/webhooks/{hook.pk}/"), 403, "permission_denied")
    assert_error(client.get(f"/api/v1/webhooks/{hook.pk}/deliveries/"), 403, "permission_denied")
    assert Webhook.objects.count() == 1


def test_outsiders_get_404_and_anonymous_401(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    hook = Webhook.objects.create(project=project, url="https://a.test/", secret="x")
    outsider = client_for(members["outsider"])
    anonymous = client_for(None)

    assert_error(outsider.get(hooks_url(project)), 404, "not_found")
    assert_error(
        outsider.post(hooks_url(project), {"url": "https://b.test/"}, format="json"),
        404,
        "not_found",
    )
    assert_error(outsider.delete(f"/api/v1/webhooks/{hook.pk}/"), 404, "not_found")
    assert_error(outsider.get(f"/api/v1/webhooks/{hook.pk}/deliveries/"), 404, "not_found")
    assert_error(anonymous.get(hooks_url(project)), 401, "not_authenticated")
    assert_error(anonymous.delete(f"/api/v1/webhooks/{hook.pk}/"), 401, "not_authenticated")
    assert Webhook.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "validation_error"),
        ({"url": "not a url"}, "validation_error"),
        ({"url": "ftp://example.test/hook"}, "invalid_url"),
    ],
)
def test_a_bad_url_is_refused(
    project: Project, members: dict[str, AbstractUser], body: dict[str, str], code: str
) -> None:
    response = client_for(members["owner"]).post(hooks_url(project), body, format="json")
    assert_error(response, 400, code)
    assert "url" in response.json()["error"]["details"]["fields"]
    assert not Webhook.objects.exists()


def test_an_owner_deletes_a_webhook(project: Project, members: dict[str, AbstractUser]) -> None:
    owner = client_for(members["owner"])
    hook = Webhook.objects.create(project=project, url="https://a.test/", secret="x")

    assert owner.delete(f"/api/v1/webhooks/{hook.pk}/").status_code == 204

    assert not Webhook.objects.exists()
    assert_error(owner.delete(f"/api/v1/webhooks/{hook.pk}/"), 404, "not_found")


def test_an_owner_reads_the_delivery_log(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    hook = Webhook.objects.create(project=project, url="https://a.test/", secret="x")
    delivery = Delivery.objects.create(
        webhook=hook,
        event="run.succeeded",
        payload={"event": "run.succeeded", "run": {"id": 3}},
        attempts=2,
        last_error="ConnectionRefusedError: [Errno 111] Connection refused",
    )
    other = Webhook.objects.create(project=project, url="https://b.test/", secret="x")
    Delivery.objects.create(webhook=other, event="run.failed", payload={})

    log = client_for(members["owner"]).get(f"/api/v1/webhooks/{hook.pk}/deliveries/")

    assert log.status_code == 200
    assert log.json()["count"] == 1
    (row,) = log.json()["results"]
    assert row == {
        "id": delivery.pk,
        "webhook": hook.pk,
        "event": "run.succeeded",
        "status": "pending",
        "attempts": 2,
        "last_status_code": None,
        "last_error": "ConnectionRefusedError: [Errno 111] Connection refused",
        "payload": {"event": "run.succeeded", "run": {"id": 3}},
        "created_at": row["created_at"],
        "delivered_at": None,
    }
    assert "secret" not in json.dumps(row)


def test_idempotency_key_replays_the_creation(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    owner = client_for(members["owner"])
    first, second = (
        owner.post(
            hooks_url(project),
            {"url": "https://a.test/"},
            format="json",
            HTTP_IDEMPOTENCY_KEY="key-1",
        )
        for _ in range(2)
    )
    assert first.status_code == 201
    assert second.status_code == 201  # the same webhook; its secret is shown once only
    assert second.json() == {k: v for k, v in first.json().items() if k != "secret"}
    other_body = owner.post(
        hooks_url(project), {"url": "https://b.test/"}, format="json", HTTP_IDEMPOTENCY_KEY="key-1"
    )
    assert_error(other_body, 409, "idempotency_key_reused")
    assert Webhook.objects.count() == 1


def test_one_user_in_two_projects_sees_only_their_own_project_s_hooks(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    mine = Project.objects.create(name="Mine")
    Membership.objects.create(project=mine, user=cast(User, members["editor"]), role=Role.OWNER)
    Webhook.objects.create(project=project, url="https://theirs.test/", secret="x")
    Webhook.objects.create(project=mine, url="https://mine.test/", secret="x")

    listed = client_for(members["editor"]).get(hooks_url(mine)).json()

    assert [h["url"] for h in listed["results"]] == ["https://mine.test/"]
