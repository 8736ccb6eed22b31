"""``Idempotency-Key`` on every creating POST (``webapp/core/idempotency.py``).

Same key + same request → the stored response replayed (nothing created twice);
same key + another request → 409; only 2xx responses are stored; keys are per user.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient

from support.web import client_for, make_user
from webapp.clips.models import Clip
from webapp.core.idempotency import ABANDONED_AFTER, IN_PROGRESS, REPLAYED_HEADER
from webapp.core.models import IdempotentResponse
from webapp.projects.models import Membership, Project
from webapp.runs.models import Run
from webapp.webhooks.models import Webhook

KEY = "3f6c1a52-6a43-4a8e-9a57-0c1c5d2f7b10"


def post(client: APIClient, url: str, body: dict[str, Any], key: str | None = KEY) -> Any:
    headers = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": key}
    return client.post(url, body, format="json", **headers)


def post_file(client: APIClient, project: Project, data: bytes, key: str = KEY) -> Any:
    file = SimpleUploadedFile("walk.bvh", data, content_type="application/octet-stream")
    return client.post(
        f"/api/v1/projects/{project.pk}/clips/", {"file": file}, HTTP_IDEMPOTENCY_KEY=key
    )


@pytest.fixture
def owner(members: dict[str, AbstractUser]) -> APIClient:
    return client_for(members["owner"])


def test_same_key_same_body_replays_and_creates_once(owner: APIClient) -> None:
    first = post(owner, "/api/v1/projects/", {"name": "Once"})
    second = post(owner, "/api/v1/projects/", {"name": "Once"})
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second[REPLAYED_HEADER] == "true"
    assert REPLAYED_HEADER not in first
    assert Project.objects.filter(name="Once").count() == 1


def test_same_key_other_body_is_409(owner: APIClient) -> None:
    post(owner, "/api/v1/projects/", {"name": "Once"})
    response = post(owner, "/api/v1/projects/", {"name": "Twice"})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "idempotency_key_reused"
    assert not Project.objects.filter(name="Twice").exists()


def test_same_key_other_path_is_409(owner: APIClient, project: Project) -> None:
    post(owner, "/api/v1/projects/", {"name": "Once"})
    make_user("newcomer")
    response = post(
        owner,
        f"/api/v1/projects/{project.pk}/members/",
        {"username": "newcomer", "role": "viewer"},
    )
    assert response.status_code == 409
    assert not Membership.objects.filter(user__username="newcomer").exists()


def test_keys_belong_to_one_user(members: dict[str, AbstractUser]) -> None:
    mine = post(client_for(members["owner"]), "/api/v1/projects/", {"name": "Mine"})
    theirs = post(client_for(members["viewer"]), "/api/v1/projects/", {"name": "Theirs"})
    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert theirs.json()["name"] == "Theirs"


def test_without_a_key_every_post_creates(owner: APIClient) -> None:
    for _ in range(2):
        assert post(owner, "/api/v1/projects/", {"name": "Again"}, key=None).status_code == 201
    assert Project.objects.filter(name="Again").count() == 2
    assert not IdempotentResponse.objects.exists()


def test_errors_are_not_stored_and_the_key_can_be_used_again(owner: APIClient) -> None:
    assert post(owner, "/api/v1/projects/", {"name": ""}).status_code == 400
    assert post(owner, "/api/v1/projects/", {"name": ""}).status_code == 400
    assert not IdempotentResponse.objects.exists()
    assert post(owner, "/api/v1/projects/", {"name": "Fixed"}).status_code == 201


def test_a_crash_frees_the_key(owner: APIClient) -> None:
    with (
        mock.patch("webapp.projects.api.project_create", side_effect=RuntimeError("boom")),
        pytest.raises(RuntimeError),
    ):
        post(owner, "/api/v1/projects/", {"name": "Crash"})
    assert not IdempotentResponse.objects.exists()
    assert post(owner, "/api/v1/projects/", {"name": "Crash"}).status_code == 201


def reserve(user: AbstractUser, *, age: timedelta, request_hash: str) -> IdempotentResponse:
    row = IdempotentResponse.objects.create(
        user=user,
        key=KEY,
        method="POST",
        path="/api/v1/projects/",
        request_hash=request_hash,
        status_code=IN_PROGRESS,
        body={},
    )
    IdempotentResponse.objects.filter(pk=row.pk).update(created_at=timezone.now() - age)
    return row


def fingerprint_of_first_request(owner: APIClient, body: dict[str, Any]) -> str:
    """The request hash the server computes for ``body`` (made once, then forgotten)."""
    post(owner, "/api/v1/projects/", body)
    row = IdempotentResponse.objects.get()
    row.delete()
    Project.objects.filter(name=body["name"]).delete()
    return row.request_hash


def test_a_key_still_in_progress_is_409(owner: APIClient, members: dict[str, AbstractUser]) -> None:
    request_hash = fingerprint_of_first_request(owner, {"name": "Busy"})
    reserve(members["owner"], age=timedelta(seconds=1), request_hash=request_hash)
    response = post(owner, "/api/v1/projects/", {"name": "Busy"})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "idempotency_key_in_use"
    assert not Project.objects.filter(name="Busy").exists()


def test_an_abandoned_reservation_is_taken_over(
    owner: APIClient, members: dict[str, AbstractUser]
) -> None:
    request_hash = fingerprint_of_first_request(owner, {"name": "Late"})
    reserve(members["owner"], age=ABANDONED_AFTER * 2, request_hash=request_hash)
    assert post(owner, "/api/v1/projects/", {"name": "Late"}).status_code == 201
    assert IdempotentResponse.objects.get().status_code == 201


@pytest.mark.parametrize("key", ["", "x" * 201, "has space", "naïve"])
def test_a_malformed_key_is_400(owner: APIClient, key: str) -> None:
    response = post(owner, "/api/v1/projects/", {"name": "K"}, key=key)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_idempotency_key"
    assert not Project.objects.filter(name="K").exists()


# --- every creating POST -------------------------------------------------------------------------


def test_upload_replays_by_file_content(
    members: dict[str, AbstractUser], project: Project, sample_bvh: bytes, media_root: object
) -> None:
    editor = client_for(members["editor"])
    first = post_file(editor, project, sample_bvh)
    second = post_file(editor, project, sample_bvh)
    assert first.status_code == second.status_code == 201  # replayed, not "200: already there"
    assert second.json() == first.json()
    assert (Clip.objects.count(), Run.objects.count()) == (1, 1)
    other = post_file(editor, project, sample_bvh + b"\n")
    assert other.status_code == 409
    assert Clip.objects.count() == 1


def test_run_start_replays(members: dict[str, AbstractUser], clip: Clip) -> None:
    editor = client_for(members["editor"])
    url = f"/api/v1/clips/{clip.pk}/runs/"
    first = post(editor, url, {"fps": 30})
    assert post(editor, url, {"fps": 30}).json() == first.json()
    assert post(editor, url, {"fps": 25}).status_code == 409
    assert Run.objects.filter(clip=clip).count() == 2  # the upload's run and this one


def test_member_add_replays(owner: APIClient, project: Project) -> None:
    make_user("newcomer")
    url = f"/api/v1/projects/{project.pk}/members/"
    first = post(owner, url, {"username": "newcomer", "role": "viewer"})
    second = post(owner, url, {"username": "newcomer", "role": "viewer"})
    assert first.status_code == second.status_code == 201


def test_webhook_create_replays(owner: APIClient, project: Project) -> None:
    url = f"/api/v1/projects/{project.pk}/webhooks/"
    body = {"url": "https://hooks.example.com/k"}
    first = post(owner, url, body)
    second = post(owner, url, body)
    assert first.status_code == second.status_code == 201
    assert second.json() == {k: v for k, v in first.json().items() if k != "secret"}
    assert second[REPLAYED_HEADER] == "true"
    assert Webhook.objects.count() == 1
