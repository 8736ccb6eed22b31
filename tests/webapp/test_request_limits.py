"""Request bodies are bounded everywhere, not only on the clip upload (issue 16, finding
3), and JSON bodies are bounded in depth (issue 16, finding 9).

``webapp/core/limits.py`` answers 413 from the declared ``Content-Length`` before the
body is read (the request's ``wsgi.input`` here is a stream that fails the test when
read); a view raises its own bound with ``@request_limit``. ``webapp/core/parsers.py``
refuses JSON nested deeper than ``settings.JSON_MAX_DEPTH`` with 400 instead of the
``RecursionError`` (500) the decoder raised.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ImproperlyConfigured
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import resolve

from support.web import client_for
from webapp.projects.models import Project

TOKEN_URL = "/api/v1/auth/token/"
HUGE = 300 * 1024 * 1024


class UnreadableInput(io.RawIOBase):
    """A ``wsgi.input`` that must not be read: each read is counted and fails."""

    def __init__(self) -> None:
        self.reads = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        self.reads += 1
        raise AssertionError("the body was read")

    def readline(self, size: int | None = -1) -> bytes:
        return self.read(size)


class EndlessInput(io.RawIOBase):
    """A chunked body without end (as a server hands it on): counts the bytes read."""

    def __init__(self) -> None:
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        n = 65536 if size is None or size < 0 else size
        self.bytes_read += n
        return b"x" * n


MULTIPART = "multipart/form-data; boundary=xyz"


def declared(
    client: Any, path: str, length: int, content_type: str = MULTIPART, **extra: Any
) -> tuple[Any, UnreadableInput]:
    """POST to ``path`` declaring ``length`` bytes of body, without any body to read."""
    stream = UnreadableInput()
    response = client.generic(
        "POST",
        path,
        b"",
        content_type,
        CONTENT_TYPE=content_type,  # the test client sets it only with a body
        CONTENT_LENGTH=str(length),
        **{"wsgi.input": stream},
        **extra,
    )
    return response, stream


def chunked(client: Any, path: str, stream: Any, **extra: Any) -> Any:
    """POST a chunked body (``Transfer-Encoding: chunked``, no ``Content-Length``)."""
    return client.generic(
        "POST",
        path,
        b"",
        "application/json",
        CONTENT_TYPE="application/json",  # the test client sets it only with a body
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": stream},
        **extra,
    )


def assert_413(response: Any, code: str = "too_large") -> dict[str, Any]:
    assert response.status_code == 413, response.content[:300]
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code and error["message"]
    return error


# --- finding 3: bodies over the bound are refused unread ------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("content_type", [MULTIPART, "application/json"])
def test_an_anonymous_300_mb_token_request_is_413_unread(settings: Any, content_type: str) -> None:
    """Finding 3: the token endpoint no longer reads (and spools) a 300 MB body."""
    response, stream = declared(Client(), TOKEN_URL, HUGE, content_type)
    error = assert_413(response)
    assert error["details"]["limit_bytes"] == settings.REQUEST_MAX_BYTES == 1024 * 1024
    assert stream.reads == 0


@pytest.mark.django_db
def test_a_page_post_over_the_bound_is_a_plain_413(settings: Any) -> None:
    """Finding 3: outside /api/ the 413 is a plain page, still before CSRF reads the form."""
    response, stream = declared(Client(enforce_csrf_checks=True), "/accounts/login/", HUGE)
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/plain")
    assert b"1 MB" in response.content
    assert stream.reads == 0


@pytest.mark.django_db
def test_an_unknown_path_gets_the_default_bound() -> None:
    """Finding 3: a path no view answers is bounded too."""
    response, stream = declared(Client(), "/api/v1/no-such-endpoint/", HUGE)
    assert_413(response)
    assert stream.reads == 0


@pytest.mark.django_db
def test_the_bound_is_the_setting(settings: Any, members: dict[str, AbstractUser]) -> None:
    """Finding 3: KINETOGRAPH_REQUEST_MAX_BYTES sets it; a body at the bound is read."""
    client = client_for(members["owner"])
    name = "n" * 100
    body = json.dumps({"name": name})
    settings.REQUEST_MAX_BYTES = len(body) - 1
    refused = client.generic("POST", "/api/v1/projects/", body, "application/json")
    assert assert_413(refused)["details"]["limit_bytes"] == len(body) - 1
    settings.REQUEST_MAX_BYTES = len(body)
    created = client.generic("POST", "/api/v1/projects/", body, "application/json")
    assert created.status_code == 201, created.content
    assert Project.objects.filter(name=name).exists()


@pytest.mark.django_db
def test_a_clip_upload_over_the_default_bound_still_works(
    settings: Any, members: dict[str, AbstractUser], project: Project, sample_bvh: bytes
) -> None:
    """Finding 3: the upload view declares UPLOAD_MAX_BYTES (+ multipart overhead)."""
    settings.REQUEST_MAX_BYTES = 1024
    assert len(sample_bvh) > 10 * settings.REQUEST_MAX_BYTES
    file = SimpleUploadedFile("walk.bvh", sample_bvh, content_type="application/octet-stream")
    response = client_for(members["editor"]).post(
        f"/api/v1/projects/{project.pk}/clips/", {"file": file}
    )
    assert response.status_code == 201, response.content[:300]


@pytest.mark.django_db
def test_a_clip_upload_over_its_bound_is_413_unread(
    settings: Any, members: dict[str, AbstractUser], project: Project
) -> None:
    """Finding 3: the upload's own bound answers file_too_large, naming the file limit."""
    path = f"/api/v1/projects/{project.pk}/clips/"
    response, stream = declared(client_for(members["editor"]), path, HUGE)
    assert assert_413(response, "file_too_large")["details"]["limit_bytes"] == (
        settings.UPLOAD_MAX_BYTES
    )
    assert stream.reads == 0


@pytest.mark.django_db
def test_a_chunked_body_is_refused_once_past_the_bound(settings: Any) -> None:
    """Finding 3: without Content-Length, reading stops one byte past the bound."""
    settings.REQUEST_MAX_BYTES = 200_000
    endless = EndlessInput()
    assert_413(chunked(Client(), TOKEN_URL, endless))
    assert settings.REQUEST_MAX_BYTES < endless.bytes_read <= settings.REQUEST_MAX_BYTES + 1


@pytest.mark.django_db
def test_a_chunked_body_under_the_bound_reaches_the_view(
    members: dict[str, AbstractUser],
) -> None:
    """Finding 3: a chunked body under the bound is parsed like any other."""
    body = io.BytesIO(json.dumps({"name": "Sent in chunks"}).encode())
    response = chunked(client_for(members["owner"]), "/api/v1/projects/", body)
    assert response.status_code == 201, response.content
    assert Project.objects.filter(name="Sent in chunks").exists()


def test_the_decorator_marks_functions_and_classes() -> None:
    """Finding 3: ``@request_limit`` on a view function or class; others get the default."""
    from webapp.core.limits import request_limit, view_limit  # here: the others run without

    @request_limit(bytes_setting="UPLOAD_MAX_BYTES", overhead_bytes=10)
    def function_view() -> None: ...

    @request_limit(bytes_setting="UPLOAD_MAX_BYTES")
    class ClassView: ...

    def as_view() -> None: ...

    as_view.view_class = ClassView  # type: ignore[attr-defined]  # what View.as_view() sets
    assert view_limit(function_view).overhead_bytes == 10
    assert view_limit(as_view).bytes_setting == "UPLOAD_MAX_BYTES"
    assert view_limit(lambda: None).bytes_setting == "REQUEST_MAX_BYTES"
    assert view_limit(resolve("/api/v1/projects/1/clips/").func).bytes_setting == (
        "UPLOAD_MAX_BYTES"
    )
    with pytest.raises(ImproperlyConfigured, match="NO_SUCH_SETTING"):
        request_limit(bytes_setting="NO_SUCH_SETTING")


# --- finding 9: JSON depth ------------------------------------------------------------------------


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.django_db
def test_deep_json_is_400_for_anonymous_clients() -> None:
    """Finding 9: 5,000 levels to the token endpoint were a RecursionError (500)."""
    response = Client().post(TOKEN_URL, deep(5000), content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert error["code"] == "json_too_deep" and "64" in error["message"]


@pytest.mark.django_db
def test_deep_json_is_400_for_members(members: dict[str, AbstractUser], project: Project) -> None:
    """Finding 9: the same for an authenticated request, and nothing is created."""
    body = '{"name": ' + deep(5000) + "}"
    response = client_for(members["owner"]).generic(
        "POST", "/api/v1/projects/", body, "application/json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "json_too_deep"
    assert Project.objects.count() == 1


@pytest.mark.django_db
def test_json_at_the_depth_limit_is_parsed(settings: Any, members: dict[str, AbstractUser]) -> None:
    """Finding 9: up to JSON_MAX_DEPTH levels parse (and then meet the serializer)."""
    client = client_for(members["owner"])
    body = '{"name": ' + deep(settings.JSON_MAX_DEPTH - 1) + "}"
    response = client.generic("POST", "/api/v1/projects/", body, "application/json")
    assert response.json()["error"]["code"] == "validation_error"
    over = '{"name": ' + deep(settings.JSON_MAX_DEPTH) + "}"
    response = client.generic("POST", "/api/v1/projects/", over, "application/json")
    assert response.json()["error"]["code"] == "json_too_deep"


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('["[[[[", "\\"[[[["]', 1),  # brackets inside strings, an escaped quote
        ('{"a": "}}}"}', 1),
    ],
)
def test_json_depth_skips_strings(text: str, depth: int) -> None:
    """Finding 9: the cheap scan counts brackets outside strings only."""
    from motioncore.jsontext import depth as json_depth

    assert json_depth(text) == depth
