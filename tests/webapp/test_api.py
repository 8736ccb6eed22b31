"""The REST API v1 endpoints against ``docs/api-contract.md``: shapes, behaviour, errors.

Permissions are in ``test_permissions.py``, uploads in ``test_uploads.py`` and
``Idempotency-Key`` in ``test_idempotency.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractUser
from django.core.cache import cache
from rest_framework.test import APIClient

from support.web import ARTIFACT_BYTES, client_for, finish_run, make_user
from webapp.clips.models import ArtifactKind, Clip
from webapp.clips.services import clip_upload_create
from webapp.clips.uploads import UploadRateThrottle
from webapp.projects.models import Membership, Project, Role
from webapp.runs.models import Run, Status

CLIP_FIELDS = {
    "id",
    "project",
    "name",
    "sha256",
    "size_bytes",
    "frames",
    "fps",
    "duration_s",
    "joints",
    "created_at",
    "uploaded_by",
    "latest_run",
    "downloads",
}
RUN_FIELDS = {
    "id",
    "clip",
    "status",
    "progress",
    "stage",
    "error",
    "stages",
    "parameters",
    "timings",
    "code_version",
    "attempts",
    "created_at",
    "started_at",
    "finished_at",
}
DOWNLOAD_NAMES = ("original", "cleaned.bvh", "viewer.json", "clean-report.json")


def error_code(response: Any) -> str:
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    code: str = body["error"]["code"]
    return code


@pytest.fixture
def owner(members: dict[str, AbstractUser]) -> APIClient:
    return client_for(members["owner"])


@pytest.fixture
def viewer(members: dict[str, AbstractUser]) -> APIClient:
    return client_for(members["viewer"])


# --- auth ----------------------------------------------------------------------------------------


def test_token_for_right_credentials_works_as_authorization(members: dict[str, Any]) -> None:
    anonymous = APIClient()
    response = anonymous.post(
        "/api/v1/auth/token/", {"username": "viewer-user", "password": "pw-viewer-user"}
    )
    assert response.status_code == 200
    token = response.json()["token"]
    again = anonymous.post(
        "/api/v1/auth/token/",
        {"username": "viewer-user", "password": "pw-viewer-user"},
        format="json",
    )
    assert again.json() == {"token": token}
    anonymous.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert anonymous.get("/api/v1/projects/").status_code == 200


@pytest.mark.parametrize(
    "credentials",
    [
        {"username": "viewer-user", "password": "wrong"},
        {"username": "nobody", "password": "pw-viewer-user"},
    ],
)
def test_token_for_wrong_credentials_is_refused(
    members: dict[str, Any], credentials: dict[str, str]
) -> None:
    response = APIClient().post("/api/v1/auth/token/", credentials, format="json")
    assert response.status_code == 400
    assert error_code(response) == "invalid_credentials"


def test_token_needs_both_fields(db: None) -> None:
    response = APIClient().post("/api/v1/auth/token/", {"username": "x"}, format="json")
    assert response.status_code == 400
    assert error_code(response) == "validation_error"
    assert "password" in response.json()["error"]["details"]["fields"]


def test_session_auth_reads_and_needs_csrf_to_write(members: dict[str, Any]) -> None:
    client = APIClient(enforce_csrf_checks=True)
    assert client.login(username="viewer-user", password="pw-viewer-user")
    assert client.get("/api/v1/projects/").status_code == 200
    response = client.post("/api/v1/projects/", {"name": "P"}, format="json")
    assert response.status_code == 403
    assert error_code(response) == "permission_denied"


def test_unauthenticated_is_401_with_the_error_shape(db: None) -> None:
    response = APIClient().get("/api/v1/projects/")
    assert response.status_code == 401
    assert error_code(response) == "not_authenticated"
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert error_code(bad.get("/api/v1/projects/")) == "authentication_failed"


def test_unknown_api_path_is_a_json_404(owner: APIClient) -> None:
    response = owner.get("/api/v1/no/such/thing/")
    assert response.status_code == 404
    assert error_code(response) == "not_found"


def test_wrong_method_is_405_with_the_error_shape(owner: APIClient, project: Project) -> None:
    response = owner.delete(f"/api/v1/projects/{project.pk}/")
    assert response.status_code == 405
    assert error_code(response) == "method_not_allowed"


# --- projects and members ------------------------------------------------------------------------


def test_create_project_makes_me_owner(members: dict[str, AbstractUser]) -> None:
    client = client_for(members["outsider"])
    response = client.post("/api/v1/projects/", {"name": "  Mocap day 1 "}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "Mocap day 1"
    assert body["role"] == "owner" and body["member_count"] == 1
    listed = client.get("/api/v1/projects/").json()
    assert listed["count"] == 1 and listed["results"] == [body]


def test_project_needs_a_name(owner: APIClient) -> None:
    response = owner.post("/api/v1/projects/", {"name": "   "}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()["error"]["details"]["fields"]


def test_project_detail_has_my_role_and_member_count(viewer: APIClient, project: Project) -> None:
    body = viewer.get(f"/api/v1/projects/{project.pk}/").json()
    assert body == {
        "id": project.pk,
        "name": "Project X",
        "created_at": body["created_at"],
        "role": "viewer",
        "member_count": 4,
    }


def test_members_are_listed_with_roles(viewer: APIClient, project: Project) -> None:
    body = viewer.get(f"/api/v1/projects/{project.pk}/members/").json()
    assert body["count"] == 4
    assert {(m["username"], m["role"]) for m in body["results"]} == {
        ("owner-user", "owner"),
        ("editor-user", "editor"),
        ("reviewer-user", "reviewer"),
        ("viewer-user", "viewer"),
    }


def test_owner_adds_then_changes_a_member(owner: APIClient, project: Project) -> None:
    make_user("newcomer")
    url = f"/api/v1/projects/{project.pk}/members/"
    added = owner.post(url, {"username": "newcomer", "role": "viewer"}, format="json")
    assert added.status_code == 201
    assert added.json()["role"] == "viewer"
    changed = owner.post(url, {"username": "newcomer", "role": "editor"}, format="json")
    assert changed.status_code == 200
    assert Membership.objects.get(project=project, user__username="newcomer").role == Role.EDITOR


def test_adding_an_unknown_user_is_404(owner: APIClient, project: Project) -> None:
    response = owner.post(
        f"/api/v1/projects/{project.pk}/members/",
        {"username": "ghost", "role": "viewer"},
        format="json",
    )
    assert response.status_code == 404


def test_the_last_owner_cannot_step_down(owner: APIClient, project: Project) -> None:
    response = owner.post(
        f"/api/v1/projects/{project.pk}/members/",
        {"username": "owner-user", "role": "editor"},
        format="json",
    )
    assert response.status_code == 409
    assert error_code(response) == "conflict"
    assert Membership.objects.get(project=project, user__username="owner-user").role == Role.OWNER


def test_a_role_must_be_one_of_the_four(owner: APIClient, project: Project) -> None:
    response = owner.post(
        f"/api/v1/projects/{project.pk}/members/",
        {"username": "viewer-user", "role": "admin"},
        format="json",
    )
    assert response.status_code == 400
    assert "role" in response.json()["error"]["details"]["fields"]


# --- clips ---------------------------------------------------------------------------------------


def test_clip_detail_follows_the_contract(viewer: APIClient, clip: Clip) -> None:
    body = viewer.get(f"/api/v1/clips/{clip.pk}/").json()
    assert set(body) == CLIP_FIELDS | {"report"}
    assert body["name"] == "run_forward.bvh" and body["uploaded_by"] == "editor-user"
    assert (body["frames"], body["joints"]) == (clip.frames, clip.joints)
    assert body["report"] == clip.report and body["report"]["joints"] == clip.joints
    assert set(body["latest_run"]) == RUN_FIELDS
    assert body["latest_run"]["status"] == "queued"
    assert body["downloads"] == {
        "original": f"http://testserver/api/v1/clips/{clip.pk}/download/original/",
        "cleaned.bvh": None,
        "cleaned.glb": None,
        "viewer.json": None,
        "viewer-raw.json": None,
        "viewer.f32": None,
        "viewer-raw.f32": None,
        "clean-report.json": None,
        "analysis.json": None,
    }


def test_downloads_appear_when_a_run_succeeded(viewer: APIClient, clip: Clip) -> None:
    finish_run(clip, status=Status.FAILED)
    assert viewer.get(f"/api/v1/clips/{clip.pk}/").json()["downloads"]["cleaned.bvh"] is None
    finish_run(clip)
    downloads = viewer.get(f"/api/v1/clips/{clip.pk}/").json()["downloads"]
    assert all(downloads[name] for name in DOWNLOAD_NAMES)


def test_clip_list_is_paginated_searchable_and_orderable(
    viewer: APIClient, project: Project, members: dict[str, Any], sample_dir: Path
) -> None:
    names = {
        "walk_forward.bvh": "games105/walk_forward.bvh",
        "run_forward.bvh": "games105/run_forward.bvh",
        "rest.bvh": "deep-motion-editing/rest.bvh",
    }
    for name, path in names.items():
        data = (sample_dir / path).read_bytes()
        clip_upload_create(project=project, user=members["editor"], name=name, data=data)
    url = f"/api/v1/projects/{project.pk}/clips/"

    listed = viewer.get(url).json()
    assert set(listed) == {"count", "next", "previous", "results"}
    assert listed["count"] == 3
    assert [c["name"] for c in listed["results"]] == list(reversed(names))  # newest first
    assert all(set(c) == CLIP_FIELDS for c in listed["results"])

    found = viewer.get(url, {"search": "FORWARD"}).json()["results"]
    assert sorted(c["name"] for c in found) == ["run_forward.bvh", "walk_forward.bvh"]

    by_name = viewer.get(url, {"ordering": "name"}).json()["results"]
    assert [c["name"] for c in by_name] == sorted(names)
    by_frames = viewer.get(url, {"ordering": "-frames"}).json()["results"]
    frames = [c["frames"] for c in by_frames]
    assert frames == sorted(frames, reverse=True)


def test_clip_list_pages(viewer: APIClient, project: Project, clip: Clip) -> None:
    url = f"/api/v1/projects/{project.pk}/clips/"
    assert viewer.get(url, {"page": 1}).json()["results"][0]["id"] == clip.pk
    response = viewer.get(url, {"page": 2})
    assert response.status_code == 404
    assert error_code(response) == "not_found"


def test_clip_list_refuses_unknown_ordering(viewer: APIClient, project: Project) -> None:
    response = viewer.get(f"/api/v1/projects/{project.pk}/clips/", {"ordering": "sha256"})
    assert response.status_code == 400
    assert "ordering" in response.json()["error"]["details"]["fields"]


def test_clip_list_and_detail_stay_at_a_few_queries(
    viewer: APIClient,
    project: Project,
    members: dict[str, Any],
    sample_bvh: bytes,
    django_assert_max_num_queries: Any,
) -> None:
    for i in range(5):
        data = sample_bvh + b"\n" * i
        made = clip_upload_create(project=project, user=members["editor"], name="c.bvh", data=data)
        finish_run(made.clip)
    with django_assert_max_num_queries(6):
        assert viewer.get(f"/api/v1/projects/{project.pk}/clips/").json()["count"] == 5


# --- downloads -----------------------------------------------------------------------------------


def test_original_download_is_the_uploaded_bytes(
    viewer: APIClient, clip: Clip, sample_bvh: bytes
) -> None:
    response = viewer.get(f"/api/v1/clips/{clip.pk}/download/original/")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == sample_bvh
    assert response["Content-Disposition"] == 'attachment; filename="run_forward.bvh"'


@pytest.mark.parametrize(
    ("name", "kind", "content_type"),
    [
        ("cleaned.bvh", ArtifactKind.CLEANED_BVH, "application/octet-stream"),
        ("viewer.json", ArtifactKind.VIEWER, "application/json"),
        ("viewer-raw.json", ArtifactKind.VIEWER_RAW, "application/json"),
        ("clean-report.json", ArtifactKind.CLEAN_REPORT, "application/json"),
    ],
)
def test_artifact_downloads_404_until_a_run_succeeded(
    viewer: APIClient, clip: Clip, name: str, kind: ArtifactKind, content_type: str
) -> None:
    url = f"/api/v1/clips/{clip.pk}/download/{name}/"
    missing = viewer.get(url)
    assert missing.status_code == 404
    assert error_code(missing) == "not_found"
    finish_run(clip, status=Status.FAILED, marker=b"failed")
    assert viewer.get(url).status_code == 404
    finish_run(clip, marker=b"old")
    finish_run(clip, marker=b"new")
    finish_run(clip, status=Status.FAILED, marker=b"newer but failed")
    response = viewer.get(url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == ARTIFACT_BYTES[kind] + b"new"
    assert response["Content-Type"] == content_type
    assert response["Content-Disposition"] == f'attachment; filename="run_forward.{name}"'


def test_unknown_download_is_404(viewer: APIClient, clip: Clip) -> None:
    response = viewer.get(f"/api/v1/clips/{clip.pk}/download/canonical/")
    assert response.status_code == 404
    assert "original" in response.json()["error"]["message"]


# --- runs ----------------------------------------------------------------------------------------


def test_start_a_run_queues_it_on_commit(
    members: dict[str, Any], clip: Clip, django_capture_on_commit_callbacks: Any
) -> None:
    client = client_for(members["editor"])
    with (
        mock.patch("webapp.runs.services.enqueue") as enqueue,
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = client.post(f"/api/v1/clips/{clip.pk}/runs/", {"fps": 30}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert set(body) == RUN_FIELDS
    assert body["status"] == "queued" and body["clip"] == clip.pk
    assert body["stages"] == ["ingest", "clean", "analyze"]
    assert body["parameters"] == {"fps": 30.0}
    enqueue.assert_called_once_with(body["id"])
    assert Run.objects.get(pk=body["id"]).created_by == members["editor"]


def test_a_run_without_fps_uses_the_file(members: dict[str, Any], clip: Clip) -> None:
    response = client_for(members["owner"]).post(f"/api/v1/clips/{clip.pk}/runs/")
    assert response.status_code == 201
    assert response.json()["parameters"] == {}


@pytest.mark.parametrize("fps", [0, -24, 1000.5, "fast", "nan", "inf", None])
def test_a_run_refuses_a_bad_fps(members: dict[str, Any], clip: Clip, fps: Any) -> None:
    before = Run.objects.count()
    client = client_for(members["editor"])
    url = f"/api/v1/clips/{clip.pk}/runs/"
    response = (
        client.post(url, {"fps": fps}, format="json")
        if fps is None
        else client.post(url, {"fps": fps})  # multipart: "nan" arrives as a string
    )
    assert response.status_code == 400
    assert "fps" in response.json()["error"]["details"]["fields"]
    assert Run.objects.count() == before


def test_the_top_fps_is_allowed(members: dict[str, Any], clip: Clip) -> None:
    client = client_for(members["editor"])
    response = client.post(f"/api/v1/clips/{clip.pk}/runs/", {"fps": 1000}, format="json")
    assert response.status_code == 201


def test_runs_list_and_detail(viewer: APIClient, project: Project, clip: Clip) -> None:
    finished = finish_run(clip)
    listed = viewer.get(f"/api/v1/projects/{project.pk}/runs/").json()
    assert listed["count"] == 2
    assert listed["results"][0]["id"] == finished.pk  # newest first
    detail = viewer.get(f"/api/v1/runs/{finished.pk}/").json()
    assert set(detail) == RUN_FIELDS
    assert (detail["status"], detail["progress"]) == ("succeeded", 100)


# --- throttling ----------------------------------------------------------------------------------


def test_uploads_are_throttled_but_listing_is_not(
    members: dict[str, Any], project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(UploadRateThrottle, "THROTTLE_RATES", {"uploads": "2/min"})
    cache.clear()
    client = client_for(members["editor"])
    url = f"/api/v1/projects/{project.pk}/clips/"
    statuses = [client.post(url, {}).status_code for _ in range(3)]
    assert statuses == [400, 400, 429]
    response = client.post(url, {})
    assert error_code(response) == "throttled"
    assert response.json()["error"]["details"]["retry_after_s"] > 0
    assert client.get(url).status_code == 200
    cache.clear()


def test_a_download_whose_stored_file_vanished_answers_404_not_500(
    members: dict[str, AbstractUser], clip: Clip
) -> None:
    clip.original.storage.delete(clip.original.name)
    response = client_for(members["viewer"]).get(f"/api/v1/clips/{clip.pk}/download/original/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
