"""POST projects/{id}/clips/: good uploads, duplicates and every kind of bad file.

A refused upload answers the JSON error shape and stores nothing: no Clip or Run
row, no file under MEDIA_ROOT. Uploads run the real parser.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractUser
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from support.web import client_for, stored_files
from webapp.clips.models import Clip
from webapp.projects.models import Project
from webapp.runs.models import Run

TINY_BVH = b"""HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  End Site
  {
    OFFSET 0 1 0
  }
}
MOTION
Frames: 2
Frame Time: 0.0333333
0 0 0 0 0 0
0 0 0 0 zero 0
"""
"""A BVH whose last frame has a word where a number belongs: line 15, column 9."""


@pytest.fixture
def editor(members: dict[str, AbstractUser]) -> APIClient:
    return client_for(members["editor"])


def upload(
    client: APIClient, project: Project, data: bytes, name: str = "walk.bvh", **extra: Any
) -> Any:
    file = SimpleUploadedFile(name, data, content_type="application/octet-stream")
    return client.post(f"/api/v1/projects/{project.pk}/clips/", {"file": file}, **extra)


def assert_nothing_stored(media_root: Path) -> None:
    assert Clip.objects.count() == 0
    assert Run.objects.count() == 0
    assert stored_files(media_root) == []


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content[:500]
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code
    assert error["message"]
    return error


# --- good uploads --------------------------------------------------------------------------------


def test_upload_stores_the_bytes_and_queues_a_run(
    editor: APIClient,
    project: Project,
    sample_bvh: bytes,
    media_root: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    with (
        mock.patch("webapp.runs.services.enqueue") as enqueue,
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = upload(editor, project, sample_bvh, name="Run forward.bvh")
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"clip", "run"}
    clip = Clip.objects.get()
    assert body["clip"]["id"] == clip.pk and body["clip"]["name"] == "Run forward.bvh"
    assert body["clip"]["size_bytes"] == len(sample_bvh) and body["clip"]["frames"] == 45
    assert body["run"]["status"] == "queued" and body["run"]["clip"] == clip.pk
    assert body["clip"]["latest_run"] == body["run"]
    enqueue.assert_called_once_with(body["run"]["id"])
    assert [p.read_bytes() for p in stored_files(media_root)] == [sample_bvh]


def test_same_bytes_again_answer_200_with_the_existing_clip(
    editor: APIClient, project: Project, sample_bvh: bytes, media_root: Path
) -> None:
    first = upload(editor, project, sample_bvh).json()
    again = upload(editor, project, sample_bvh, name="another name.bvh")
    assert again.status_code == 200
    assert again.json()["clip"]["id"] == first["clip"]["id"]
    assert again.json()["clip"]["name"] == "walk.bvh"
    assert again.json()["run"] is None
    assert (Clip.objects.count(), Run.objects.count()) == (1, 1)
    assert len(stored_files(media_root)) == 1


def test_a_path_in_the_file_name_is_dropped(
    editor: APIClient, project: Project, sample_bvh: bytes, media_root: Path
) -> None:
    response = upload(editor, project, sample_bvh, name="../../etc/passwd.bvh")
    assert response.status_code == 201
    assert response.json()["clip"]["name"] == "passwd.bvh"
    assert all(media_root in p.parents for p in stored_files(media_root))


# --- bad uploads ---------------------------------------------------------------------------------


def test_empty_file(editor: APIClient, project: Project, media_root: Path) -> None:
    assert_error(upload(editor, project, b""), 400, "empty_file")
    assert_nothing_stored(media_root)


def test_binary_file(editor: APIClient, project: Project, media_root: Path) -> None:
    error = assert_error(upload(editor, project, bytes(range(256)) * 4), 400, "not_bvh")
    assert error["details"]["line"] == 1
    assert_nothing_stored(media_root)


def test_wrong_extension(
    editor: APIClient, project: Project, sample_bvh: bytes, media_root: Path
) -> None:
    assert_error(upload(editor, project, sample_bvh, name="walk.txt"), 400, "unsupported_extension")
    assert_nothing_stored(media_root)


def test_parse_error_has_line_and_column(
    editor: APIClient, project: Project, media_root: Path
) -> None:
    error = assert_error(upload(editor, project, TINY_BVH), 400, "bvh_parse_error")
    assert error["details"]["line"] == 15
    assert error["details"]["column"] == 9
    assert "zero" in error["details"]["message"]
    assert_nothing_stored(media_root)


def test_the_tiny_bvh_is_fine_without_the_error(
    editor: APIClient, project: Project, media_root: Path
) -> None:
    fixed = TINY_BVH.replace(b"zero", b"0")
    assert upload(editor, project, fixed).status_code == 201


def test_no_file_field(editor: APIClient, project: Project, media_root: Path) -> None:
    response = editor.post(f"/api/v1/projects/{project.pk}/clips/", {"name": "walk.bvh"})
    error = assert_error(response, 400, "validation_error")
    assert "file" in error["details"]["fields"]
    assert_nothing_stored(media_root)


def test_json_instead_of_multipart(editor: APIClient, project: Project, media_root: Path) -> None:
    response = editor.post(
        f"/api/v1/projects/{project.pk}/clips/", {"file": "HIERARCHY"}, format="json"
    )
    assert_error(response, 415, "unsupported_media_type")
    assert_nothing_stored(media_root)


def test_over_the_limit_is_413_before_reading_the_file(
    editor: APIClient, project: Project, sample_bvh: bytes, media_root: Path, settings: Any
) -> None:
    settings.UPLOAD_MAX_BYTES = len(sample_bvh) - 1
    with mock.patch("webapp.clips.uploads.clip_upload_create") as service:
        error = assert_error(upload(editor, project, sample_bvh), 413, "file_too_large")
    service.assert_not_called()
    assert error["details"]["limit_bytes"] == len(sample_bvh) - 1
    assert_nothing_stored(media_root)


def test_a_body_far_over_the_limit_is_413_before_parsing(
    editor: APIClient, project: Project, media_root: Path, settings: Any
) -> None:
    settings.UPLOAD_MAX_BYTES = 100
    with mock.patch("django.http.multipartparser.MultiPartParser.parse") as parse:
        response = upload(editor, project, b"HIERARCHY\n" * 20_000)
    assert_error(response, 413, "file_too_large")
    parse.assert_not_called()
    assert_nothing_stored(media_root)


def test_exactly_at_the_limit_is_accepted(
    editor: APIClient, project: Project, sample_bvh: bytes, media_root: Path, settings: Any
) -> None:
    settings.UPLOAD_MAX_BYTES = len(sample_bvh)
    assert upload(editor, project, sample_bvh).status_code == 201


def test_a_refused_upload_leaves_an_existing_clip_alone(
    editor: APIClient, project: Project, sample_bvh: bytes, media_root: Path
) -> None:
    upload(editor, project, sample_bvh)
    before = stored_files(media_root)
    assert_error(upload(editor, project, TINY_BVH), 400, "bvh_parse_error")
    assert (Clip.objects.count(), Run.objects.count()) == (1, 1)
    assert stored_files(media_root) == before
