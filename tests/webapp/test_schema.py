"""The OpenAPI schema: valid, complete, and true to what the API answers.

``test_api_conforms_to_its_schema`` is a schemathesis property test: for every
operation it generates requests from the schema (bounded examples), sends them to
the Django WSGI app authenticated as a project owner, and checks that nothing
answers 5xx and that every status, header and body is the one documented. Path ids
point at real objects half of the time, so the 2xx responses are exercised too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.contrib.auth.models import AbstractUser
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from support.web import (
    SAMPLES,
    animated_score,
    attach_features,
    finish_character,
    finish_drive,
    finish_generation,
    finish_proposal,
    finish_run,
    finish_sequence,
    finish_training,
    finish_transition,
)
from webapp.clips.models import Clip
from webapp.projects.models import Project
from webapp.reviews.comments import comment_create
from webapp.webhooks.models import Webhook

OPERATIONS = {
    ("POST", "/api/v1/auth/token/"),
    ("POST", "/api/v1/auth/token/rotate/"),
    ("POST", "/api/v1/auth/logout-everywhere/"),
    ("PATCH", "/api/v1/projects/{project_id}/members/{username}/"),
    ("DELETE", "/api/v1/projects/{project_id}/members/{username}/"),
    ("GET", "/api/v1/projects/"),
    ("POST", "/api/v1/projects/"),
    ("GET", "/api/v1/projects/{project_id}/"),
    ("GET", "/api/v1/projects/{project_id}/members/"),
    ("POST", "/api/v1/projects/{project_id}/members/"),
    ("GET", "/api/v1/projects/{project_id}/clips/"),
    ("POST", "/api/v1/projects/{project_id}/clips/"),
    ("GET", "/api/v1/projects/{project_id}/runs/"),
    ("GET", "/api/v1/clips/{clip_id}/"),
    ("GET", "/api/v1/clips/{clip_id}/download/{kind}/"),
    ("POST", "/api/v1/clips/{clip_id}/runs/"),
    ("GET", "/api/v1/runs/{run_id}/"),
    ("GET", "/api/v1/projects/{project_id}/webhooks/"),
    ("POST", "/api/v1/projects/{project_id}/webhooks/"),
    ("DELETE", "/api/v1/webhooks/{webhook_id}/"),
    ("GET", "/api/v1/webhooks/{webhook_id}/deliveries/"),
    ("GET", "/api/v1/clips/{clip_id}/analysis/"),
    ("PUT", "/api/v1/clips/{clip_id}/analysis/"),
    ("POST", "/api/v1/transitions/"),
    ("GET", "/api/v1/projects/{project_id}/transitions/"),
    ("GET", "/api/v1/transitions/{transition_id}/"),
    ("GET", "/api/v1/transitions/{transition_id}/download/{kind}/"),
    ("POST", "/api/v1/sequences/"),
    ("GET", "/api/v1/projects/{project_id}/sequences/"),
    ("GET", "/api/v1/sequences/{sequence_id}/"),
    ("GET", "/api/v1/sequences/{sequence_id}/download/{kind}/"),
    ("POST", "/api/v1/pfnn/generate/"),
    ("GET", "/api/v1/pfnn/generations/{generation_id}/"),
    ("GET", "/api/v1/pfnn/generations/{generation_id}/download/{kind}/"),
    ("POST", "/api/v1/motornerve/drives/"),
    ("GET", "/api/v1/motornerve/drives/{drive_id}/"),
    ("GET", "/api/v1/motornerve/drives/{drive_id}/download/{kind}/"),
    ("GET", "/api/v1/projects/{project_id}/motornerve/trainings/"),
    ("POST", "/api/v1/projects/{project_id}/motornerve/trainings/"),
    ("GET", "/api/v1/motornerve/trainings/{training_id}/"),
    ("GET", "/api/v1/motornerve/trainings/{training_id}/download/{kind}/"),
    ("GET", "/api/v1/projects/{project_id}/scores/"),
    ("POST", "/api/v1/projects/{project_id}/scores/"),
    ("GET", "/api/v1/scores/{score_id}/"),
    ("GET", "/api/v1/scores/{score_id}/download/{kind}/"),
    ("POST", "/api/v1/scores/{score_id}/preview/"),
    ("POST", "/api/v1/mannequins/"),
    ("GET", "/api/v1/projects/{project_id}/characters/"),
    ("POST", "/api/v1/projects/{project_id}/characters/"),
    ("GET", "/api/v1/characters/{character_id}/"),
    ("DELETE", "/api/v1/characters/{character_id}/"),
    ("GET", "/api/v1/characters/{character_id}/download/{kind}/"),
    ("GET", "/api/v1/characters/{character_id}/clips/{clip_id}/download/{kind}/"),
    ("GET", "/api/v1/scores/{score_id}/versions/"),
    ("POST", "/api/v1/scores/{score_id}/versions/"),
    ("POST", "/api/v1/projects/{project_id}/scores/from-template/"),
    ("GET", "/api/v1/projects/{project_id}/proposals/"),
    ("POST", "/api/v1/projects/{project_id}/proposals/"),
    ("GET", "/api/v1/proposals/{proposal_id}/"),
    ("POST", "/api/v1/proposals/{proposal_id}/revise/"),
    ("PUT", "/api/v1/proposals/{proposal_id}/reviewers/"),
    ("POST", "/api/v1/proposals/{proposal_id}/decisions/"),
    ("GET", "/api/v1/proposals/{proposal_id}/comments/"),
    ("POST", "/api/v1/proposals/{proposal_id}/comments/"),
    ("POST", "/api/v1/comments/{comment_id}/resolve/"),
    ("DELETE", "/api/v1/comments/{comment_id}/resolve/"),
    ("GET", "/api/v1/projects/{project_id}/review-rule/"),
    ("PUT", "/api/v1/projects/{project_id}/review-rule/"),
    ("GET", "/api/v1/projects/{project_id}/activity/"),
    ("GET", "/api/v1/notifications/"),
    ("POST", "/api/v1/notifications/read/"),
    ("GET", "/api/v1/proposals/{proposal_id}/report.json"),
    ("GET", "/api/v1/proposals/{proposal_id}/report.csv"),
}
NO_INPUT = {("POST", "/api/v1/auth/token/rotate/"), ("POST", "/api/v1/auth/logout-everywhere/")}
"""Operations without parameters or body: nothing to make invalid in the negative mode."""
MAX_EXAMPLES = 25  # per operation: the whole property test stays well under a minute
CREATING = {(method, path) for method, path in OPERATIONS if method == "POST"} - {
    ("POST", "/api/v1/auth/token/"),
    ("POST", "/api/v1/auth/token/rotate/"),
    ("POST", "/api/v1/auth/logout-everywhere/"),
    ("POST", "/api/v1/scores/{score_id}/preview/"),  # animates an edit; stores nothing
    ("POST", "/api/v1/mannequins/"),  # makes a body from a skeleton; stores nothing
}


@pytest.fixture
def openapi(db: None) -> dict[str, Any]:
    response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    schema: dict[str, Any] = response.json()
    return schema


def test_schema_lists_every_operation_of_the_contract(openapi: dict[str, Any]) -> None:
    found = {
        (method.upper(), path)
        for path, item in openapi["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }
    assert found == OPERATIONS


def test_every_error_status_uses_the_error_shape(openapi: dict[str, Any]) -> None:
    for path, item in openapi["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")):
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/Error"}, (method, path, status)
            if (method.upper(), path) != ("POST", "/api/v1/auth/token/"):
                assert "401" in operation["responses"], (method, path)


def test_creating_posts_document_the_idempotency_key(openapi: dict[str, Any]) -> None:
    for method, path in CREATING:
        operation = openapi["paths"][path][method.lower()]
        headers = [p["name"] for p in operation["parameters"] if p["in"] == "header"]
        assert headers == ["Idempotency-Key"], path
        assert "409" in operation["responses"], path


def test_upload_is_multipart_with_a_binary_file(openapi: dict[str, Any]) -> None:
    body = openapi["paths"]["/api/v1/projects/{project_id}/clips/"]["post"]["requestBody"]
    assert set(body["content"]) == {"multipart/form-data"}
    ref = body["content"]["multipart/form-data"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert openapi["components"]["schemas"][ref]["properties"]["file"] == {
        "type": "string",
        "format": "binary",
        "description": "A .bvh file.",
    }


def test_docs_page_is_served(db: None) -> None:
    assert APIClient().get("/api/docs/").status_code == 200


# --- schemathesis --------------------------------------------------------------------------------


@pytest.fixture
def wsgi_app(db: None) -> Iterator[WSGIHandler]:
    """The Django app for schemathesis, inside the test's transaction.

    Django closes "old" connections at every request start and end, which would end
    the test transaction; its own test client turns that off the same way.
    """
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield WSGIHandler()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def owner_token(members: dict[str, AbstractUser]) -> str:
    token, _ = Token.objects.get_or_create(user=members["owner"])
    return token.key


@pytest.fixture
def api_schema(wsgi_app: WSGIHandler, project: Project, clip: Clip) -> Any:
    """The schema served by the app, with path ids mapped onto real objects half the time."""
    run = finish_run(clip)
    attach_features(run)
    transition = finish_transition(clip, clip)
    webhook = Webhook.objects.create(project=project, url="https://example.com/h", secret="s")
    proposal = finish_proposal(transition, clip.uploaded_by)
    real = {
        "project_id": project.pk,
        "clip_id": clip.pk,
        "run_id": run.pk,
        "webhook_id": webhook.pk,
        "transition_id": transition.pk,
        "sequence_id": finish_sequence([clip, clip]).pk,
        "generation_id": finish_generation(clip).pk,
        "drive_id": finish_drive(clip).pk,
        "character_id": finish_character(project, clip.uploaded_by).pk,
        "training_id": finish_training(clip).pk,
        "score_id": animated_score(
            project=project,
            user=clip.uploaded_by,
            name="walk.json",
            data=(SAMPLES / "scores" / "walk_forward.json").read_bytes(),
        ).pk,
        "proposal_id": proposal.pk,
        "comment_id": comment_create(
            user=clip.uploaded_by, proposal_id=proposal.pk, body="Is the cut early?"
        ).pk,
    }
    schema = schemathesis.openapi.from_wsgi("/api/schema/", wsgi_app)

    @schema.hook
    def map_path_parameters(
        context: Any, path_parameters: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        if not path_parameters:
            return path_parameters
        return {
            name: real[name] if name in real and _even(value) else value
            for name, value in path_parameters.items()
        }

    return schema


def _even(value: Any) -> bool:
    return isinstance(value, int) and value % 2 == 0


@pytest.mark.slow
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=str)
@pytest.mark.parametrize(
    ("method", "path"), [pytest.param(m, p, id=f"{m} {p}") for m, p in sorted(OPERATIONS)]
)
def test_api_conforms_to_its_schema(
    method: str, path: str, mode: GenerationMode, api_schema: Any, owner_token: str
) -> None:
    """No 5xx, and every status, content type, header and body as documented.

    Cases valid per the schema (positive) and invalid on purpose (negative), each
    checked by schemathesis' default checks but two that judge requests, not
    responses: ``positive_data_acceptance`` (a schema-valid request may still be
    refused with 400: a BVH must parse, a name must not be blank) and
    ``negative_data_rejection`` (DRF takes an empty query value such as ``?page=``
    as absent, a deliberate leniency). Run with ``@given`` rather than
    ``schemathesis.pytest.from_fixture``, whose lazy loader does not work with
    pytest 9 (it writes ``node._nodeid``).
    """
    if mode is GenerationMode.NEGATIVE and (method, path) in NO_INPUT:
        pytest.skip("no parameter or body to make invalid")
    operation = api_schema[path][method]
    excluded = [positive_data_acceptance, negative_data_rejection]
    statuses: list[int] = []

    @given(case=operation.as_strategy(mode))
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    def check(case: Any) -> None:
        response = case.call_and_validate(
            headers={"Authorization": f"Token {owner_token}"}, excluded_checks=excluded
        )
        statuses.append(response.status_code)

    check()
    assert statuses and max(statuses) < 500
    if mode is GenerationMode.POSITIVE and method == "GET":
        assert min(statuses) < 300, "no case reached a real object: is the path hook applied?"
