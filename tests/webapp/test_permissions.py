"""Who may do what: every role × every endpoint, and isolation between projects.

Roles (``docs/api-contract.md``): viewer and reviewer read and download; editor also
uploads and starts runs; owner also manages members and webhooks. Non-members get
404 for everything of a project, anonymous callers 401. Reviews (``docs/reviews.md``):
reviewers also comment, and decide where assigned; editors propose, revise and assign;
owners set the review rule (the finer cases: ``test_reviews_permissions.py``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, cast

import pytest
from django.contrib.auth.models import AbstractUser, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import URLResolver

from support.web import (
    SAMPLES,
    animated_score,
    attach_features,
    character_glb,
    client_for,
    finish_character,
    finish_drive,
    finish_generation,
    finish_proposal,
    finish_run,
    finish_sequence,
    finish_training,
    finish_transition,
    make_user,
)
from webapp.api import urls as api_urls
from webapp.characters.models import Character
from webapp.characters.selectors import CHARACTER_DOWNLOADS, ON_CHARACTER_DOWNLOADS
from webapp.clips.models import Clip
from webapp.clips.selectors import DOWNLOADS
from webapp.clips.services import clip_upload_create
from webapp.laban.models import Score
from webapp.laban.selectors import SCORE_DOWNLOADS
from webapp.motornerve.models import Drive, Training
from webapp.motornerve.selectors import DRIVE_DOWNLOADS, TRAINING_DOWNLOADS
from webapp.pfnn.models import Generation
from webapp.pfnn.selectors import GENERATION_DOWNLOADS
from webapp.projects.models import Membership, Project, Role
from webapp.reviews.comments import comment_create
from webapp.reviews.decisions import reviewers_assign
from webapp.reviews.models import Comment, Proposal
from webapp.runs.models import Run
from webapp.sequences.models import Sequence
from webapp.sequences.selectors import SEQUENCE_DOWNLOADS
from webapp.transitions.models import Transition
from webapp.transitions.selectors import TRANSITION_DOWNLOADS
from webapp.webhooks.models import Webhook

SCORE = SAMPLES / "scores" / "walk_forward.json"  # what a score upload sends
WORLD_SCORE = SAMPLES / "scores" / "walk_backward.json"  # the score already there
WHO = ("owner", "editor", "reviewer", "viewer", "outsider", "anonymous")


def cells(owner: int, editor: int, reviewer: int, viewer: int, outsider: int) -> dict[str, int]:
    """Expected status per caller; anonymous callers always get 401."""
    return dict(zip(WHO, (owner, editor, reviewer, viewer, outsider, 401), strict=True))


READ = cells(200, 200, 200, 200, 404)  # members read; the project does not exist for others
EDIT = cells(201, 201, 403, 403, 404)  # editors and owners
OWN = cells(201, 403, 403, 403, 404)  # owners only
COMMENT = cells(201, 201, 201, 403, 404)  # reviewers and up
ANY_USER = cells(200, 200, 200, 200, 200)  # the caller's own things


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    url: str  # formatted with project, clip, run, webhook ids
    expected: dict[str, int]
    body: dict[str, Any] = field(default_factory=dict)
    multipart: bool = False
    upload_name: str = "new.bvh"  # a multipart upload's file name (a BVH unless a score)


ENDPOINTS = [
    Endpoint("projects list", "get", "/api/v1/projects/", cells(200, 200, 200, 200, 200)),
    Endpoint(
        "projects create",
        "post",
        "/api/v1/projects/",
        cells(201, 201, 201, 201, 201),
        {"name": "P"},
    ),
    Endpoint("project detail", "get", "/api/v1/projects/{project}/", READ),
    Endpoint("members list", "get", "/api/v1/projects/{project}/members/", READ),
    Endpoint(
        "members add",
        "post",
        "/api/v1/projects/{project}/members/",
        OWN,
        {"username": "newcomer", "role": "viewer"},
    ),
    Endpoint(
        "member role",
        "patch",
        "/api/v1/projects/{project}/members/reviewer-user/",
        cells(200, 403, 403, 403, 404),
        {"role": "viewer"},
    ),
    Endpoint(
        "member remove",  # the reviewer removing themselves is leaving
        "delete",
        "/api/v1/projects/{project}/members/reviewer-user/",
        cells(204, 403, 204, 403, 404),
    ),
    Endpoint("token rotate", "post", "/api/v1/auth/token/rotate/", ANY_USER),
    Endpoint(
        "logout everywhere",
        "post",
        "/api/v1/auth/logout-everywhere/",
        cells(204, 204, 204, 204, 204),
    ),
    Endpoint("clips list", "get", "/api/v1/projects/{project}/clips/", READ),
    Endpoint("clip upload", "post", "/api/v1/projects/{project}/clips/", EDIT, multipart=True),
    Endpoint("clip detail", "get", "/api/v1/clips/{clip}/", READ),
    Endpoint("download original", "get", "/api/v1/clips/{clip}/download/original/", READ),
    Endpoint("download cleaned", "get", "/api/v1/clips/{clip}/download/cleaned.bvh/", READ),
    Endpoint("download cleaned glb", "get", "/api/v1/clips/{clip}/download/cleaned.glb/", READ),
    Endpoint("download viewer", "get", "/api/v1/clips/{clip}/download/viewer.json/", READ),
    Endpoint("download raw viewer", "get", "/api/v1/clips/{clip}/download/viewer-raw.json/", READ),
    Endpoint("download viewer f32", "get", "/api/v1/clips/{clip}/download/viewer.f32/", READ),
    Endpoint("download raw f32", "get", "/api/v1/clips/{clip}/download/viewer-raw.f32/", READ),
    Endpoint("download report", "get", "/api/v1/clips/{clip}/download/clean-report.json/", READ),
    Endpoint("run start", "post", "/api/v1/clips/{clip}/runs/", EDIT, {"fps": 30}),
    Endpoint("runs list", "get", "/api/v1/projects/{project}/runs/", READ),
    Endpoint("run detail", "get", "/api/v1/runs/{run}/", READ),
    Endpoint("download analysis", "get", "/api/v1/clips/{clip}/download/analysis.json/", READ),
    Endpoint("clip analysis", "get", "/api/v1/clips/{clip}/analysis/", READ),
    Endpoint(
        "clip analysis save",
        "put",
        "/api/v1/clips/{clip}/analysis/",
        cells(200, 200, 403, 403, 404),
        {"alpha": 0.7, "theta_max_deg": 80, "measure": "speed"},
    ),
    Endpoint(
        "transition create",
        "post",
        "/api/v1/transitions/",
        EDIT,
        {"clip_a": "{clip}", "clip_b": "{clip}"},
    ),
    Endpoint("transitions list", "get", "/api/v1/projects/{project}/transitions/", READ),
    Endpoint("transition detail", "get", "/api/v1/transitions/{transition}/", READ),
    *(
        Endpoint(
            f"download transition {name}",
            "get",
            f"/api/v1/transitions/{{transition}}/download/{name}/",
            READ,
        )
        for name in TRANSITION_DOWNLOADS
    ),
    Endpoint(
        "sequence create",
        "post",
        "/api/v1/sequences/",
        EDIT,
        {"project": "{project}", "clips": ["{clip}", "{clip}"]},
    ),
    Endpoint("sequences list", "get", "/api/v1/projects/{project}/sequences/", READ),
    Endpoint("sequence detail", "get", "/api/v1/sequences/{sequence}/", READ),
    *(
        Endpoint(
            f"download sequence {name}",
            "get",
            f"/api/v1/sequences/{{sequence}}/download/{name}/",
            READ,
        )
        for name in SEQUENCE_DOWNLOADS
    ),
    Endpoint(
        "pfnn generate",
        "post",
        "/api/v1/pfnn/generate/",
        EDIT,
        {"clip": "{clip}", "path": [[0.0, 0.0], [0.0, 3.0]], "speed_mps": 1.2},
    ),
    Endpoint("pfnn walk detail", "get", "/api/v1/pfnn/generations/{generation}/", READ),
    *(
        Endpoint(
            f"download walk {name}",
            "get",
            f"/api/v1/pfnn/generations/{{generation}}/download/{name}/",
            READ,
        )
        for name in GENERATION_DOWNLOADS
    ),
    Endpoint(
        "motornerve drive",
        "post",
        "/api/v1/motornerve/drives/",
        EDIT,
        {"clip": "{clip}", "timeline": {"keys": [{"t": 0}, {"t": 1, "action": "walk"}]}},
    ),
    Endpoint("motornerve drive detail", "get", "/api/v1/motornerve/drives/{drive}/", READ),
    *(
        Endpoint(
            f"download drive {name}",
            "get",
            f"/api/v1/motornerve/drives/{{drive}}/download/{name}/",
            READ,
        )
        for name in DRIVE_DOWNLOADS
    ),
    Endpoint(
        "motornerve trainings",
        "get",
        "/api/v1/projects/{project}/motornerve/trainings/",
        READ,
    ),
    Endpoint(
        "motornerve training start",
        "post",
        "/api/v1/projects/{project}/motornerve/trainings/",
        EDIT,
        {"clips": ["{clip}"]},
    ),
    Endpoint("motornerve training detail", "get", "/api/v1/motornerve/trainings/{training}/", READ),
    *(
        Endpoint(
            f"download training {name}",
            "get",
            f"/api/v1/motornerve/trainings/{{training}}/download/{name}/",
            READ,
        )
        for name in TRAINING_DOWNLOADS
    ),
    Endpoint(
        "score upload",
        "post",
        "/api/v1/projects/{project}/scores/",
        EDIT,
        multipart=True,
        upload_name="score.json",
    ),
    Endpoint("scores list", "get", "/api/v1/projects/{project}/scores/", READ),
    Endpoint(
        "score from template",
        "post",
        "/api/v1/projects/{project}/scores/from-template/",
        EDIT,
        {"template": "walk"},
    ),
    Endpoint(
        "score preview",
        "post",
        "/api/v1/scores/{score}/preview/",
        cells(200, 200, 403, 403, 404),
        {"score": json.loads(SCORE.read_text())},
    ),
    Endpoint("characters list", "get", "/api/v1/projects/{project}/characters/", READ),
    Endpoint(
        "characters upload",
        "post",
        "/api/v1/projects/{project}/characters/",
        EDIT,
        multipart=True,
        upload_name="hero.glb",
    ),
    Endpoint("character detail", "get", "/api/v1/characters/{character}/", READ),
    Endpoint(
        "character delete",
        "delete",
        "/api/v1/characters/{character}/",
        cells(204, 204, 403, 403, 404),
    ),
    *(
        Endpoint(
            f"download character {name}",
            "get",
            f"/api/v1/characters/{{character}}/download/{name}/",
            READ,
        )
        for name in CHARACTER_DOWNLOADS
    ),
    *(
        Endpoint(
            f"clip on character {name}",
            "get",
            f"/api/v1/characters/{{character}}/clips/{{clip}}/download/{name}/",
            READ,
        )
        for name in ON_CHARACTER_DOWNLOADS
    ),
    Endpoint(
        "mannequin",
        "post",
        "/api/v1/mannequins/",
        ANY_USER,
        {
            "names": ["hips", "knee", "foot"],
            "parents": [-1, 0, 1],
            "offsets": [0, 1, 0, 0, -0.45, 0, 0, -0.45, 0],
            "end_site": [False, False, True],
        },
    ),
    Endpoint("score versions", "get", "/api/v1/scores/{score}/versions/", READ),
    Endpoint(
        "score version save",
        "post",
        "/api/v1/scores/{score}/versions/",
        EDIT,
        {"score": json.loads(SCORE.read_text())},
    ),
    Endpoint("score detail", "get", "/api/v1/scores/{score}/", READ),
    *(
        Endpoint(
            f"download score {name}", "get", f"/api/v1/scores/{{score}}/download/{name}/", READ
        )
        for name in SCORE_DOWNLOADS
    ),
    Endpoint("proposals list", "get", "/api/v1/projects/{project}/proposals/", READ),
    Endpoint(
        "proposal create",
        "post",
        "/api/v1/projects/{project}/proposals/",
        EDIT,
        {"transition": "{transition}"},
    ),
    Endpoint("proposal detail", "get", "/api/v1/proposals/{proposal}/", READ),
    Endpoint("proposal revise", "post", "/api/v1/proposals/{proposal}/revise/", EDIT),
    Endpoint(
        "proposal reviewers",
        "put",
        "/api/v1/proposals/{proposal}/reviewers/",
        cells(200, 200, 403, 403, 404),
        {"reviewers": ["reviewer-user"]},
    ),
    Endpoint(
        "proposal decide",  # the owner and the reviewer are assigned; the editor is the author
        "post",
        "/api/v1/proposals/{proposal}/decisions/",
        cells(201, 403, 201, 403, 404),
        {"decision": "approve"},
    ),
    Endpoint("comments list", "get", "/api/v1/proposals/{proposal}/comments/", READ),
    Endpoint(
        "comment create",
        "post",
        "/api/v1/proposals/{proposal}/comments/",
        COMMENT,
        {"body": "The feet slide at the cut.", "frame_start": 3},
    ),
    Endpoint(
        "comment resolve",  # the reviewer's own comment
        "post",
        "/api/v1/comments/{comment}/resolve/",
        cells(200, 200, 200, 403, 404),
    ),
    Endpoint(
        "comment reopen",
        "delete",
        "/api/v1/comments/{comment}/resolve/",
        cells(200, 200, 200, 403, 404),
    ),
    Endpoint("review rule", "get", "/api/v1/projects/{project}/review-rule/", READ),
    Endpoint(
        "review rule set",
        "put",
        "/api/v1/projects/{project}/review-rule/",
        cells(200, 403, 403, 403, 404),
        {"approvals_required": 2},
    ),
    Endpoint("activity log", "get", "/api/v1/projects/{project}/activity/", READ),
    Endpoint("review report json", "get", "/api/v1/proposals/{proposal}/report.json", READ),
    Endpoint("review report csv", "get", "/api/v1/proposals/{proposal}/report.csv", READ),
    Endpoint("notifications", "get", "/api/v1/notifications/", ANY_USER),
    Endpoint("notifications read", "post", "/api/v1/notifications/read/", ANY_USER),
    Endpoint(
        "webhooks list",
        "get",
        "/api/v1/projects/{project}/webhooks/",
        cells(200, 403, 403, 403, 404),
    ),
    Endpoint(
        "webhooks create",
        "post",
        "/api/v1/projects/{project}/webhooks/",
        OWN,
        {"url": "https://hooks.example.com/kinetograph"},
    ),
    Endpoint(
        "webhook deliveries",
        "get",
        "/api/v1/webhooks/{webhook}/deliveries/",
        cells(200, 403, 403, 403, 404),
    ),
    Endpoint(
        "webhook delete", "delete", "/api/v1/webhooks/{webhook}/", cells(204, 403, 403, 403, 404)
    ),
]


@dataclass(frozen=True)
class World:
    """A project with a clip, a succeeded run with artifacts (analysis features
    included), a succeeded transition with its files, a webhook, a walk, a score, and a
    proposal of the transition by the editor (the owner and the reviewer assigned) with
    a comment of the reviewer."""

    project: Project
    clip: Clip
    run: Run
    webhook: Webhook
    transition: Transition
    generation: Generation
    score: Score
    proposal: Proposal
    comment: Comment
    drive: Drive
    training: Training
    sequence: Sequence
    character: Character

    def ids(self) -> dict[str, int]:
        return {
            "project": self.project.pk,
            "clip": self.clip.pk,
            "run": self.run.pk,
            "webhook": self.webhook.pk,
            "transition": self.transition.pk,
            "generation": self.generation.pk,
            "score": self.score.pk,
            "proposal": self.proposal.pk,
            "comment": self.comment.pk,
            "drive": self.drive.pk,
            "training": self.training.pk,
            "sequence": self.sequence.pk,
            "character": self.character.pk,
        }


def build_world(project: Project, editor: AbstractUser, data: bytes) -> World:
    uploader = cast(User, editor)
    clip = clip_upload_create(project=project, user=uploader, name="walk.bvh", data=data).clip
    run = finish_run(clip)
    attach_features(run)
    transition = finish_transition(clip, clip)
    webhook = Webhook.objects.create(project=project, url="https://example.com/h", secret="s")
    score = animated_score(
        project=project, user=uploader, name="walk.json", data=WORLD_SCORE.read_bytes()
    )
    proposal = finish_proposal(transition, uploader)
    others = list(
        project.memberships.filter(role__in=[Role.OWNER, Role.REVIEWER])
        .exclude(user=uploader)
        .select_related("user")
    )
    names = [m.user.username for m in others]
    reviewers_assign(user=uploader, proposal_id=proposal.pk, usernames=names)
    commenter = next((m.user for m in others if m.role == Role.REVIEWER), uploader)
    comment = comment_create(user=commenter, proposal_id=proposal.pk, body="Early cut?")
    generation = finish_generation(clip)
    drive, training = finish_drive(clip), finish_training(clip)
    return World(
        project,
        clip,
        run,
        webhook,
        transition,
        generation,
        score,
        proposal,
        comment,
        drive,
        training,
        finish_sequence([clip, clip]),
        finish_character(project, uploader),
    )


def call(user: AbstractUser | None, endpoint: Endpoint, ids: dict[str, int], upload: bytes) -> Any:
    client = client_for(user)
    url = endpoint.url.format(**ids)
    if endpoint.multipart:
        data = SCORE.read_bytes() if endpoint.upload_name.endswith(".json") else upload
        if endpoint.upload_name.endswith(".glb"):
            data = character_glb()
        file = SimpleUploadedFile(
            endpoint.upload_name, data, content_type="application/octet-stream"
        )
        return client.post(url, {"file": file}, format="multipart")
    method = getattr(client, endpoint.method)

    def filled(value: Any) -> Any:
        if isinstance(value, list):
            return [filled(v) for v in value]
        return int(value.format(**ids)) if isinstance(value, str) and "{" in value else value

    body = {key: filled(value) for key, value in endpoint.body.items()} or None
    return method(url, body, format="json") if body else method(url)


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.name)
def test_permission_matrix(
    endpoint: Endpoint,
    who: str,
    project: Project,
    members: dict[str, AbstractUser],
    sample_bvh: bytes,
    media_root: object,
) -> None:
    make_user("newcomer")
    world = build_world(project, members["editor"], sample_bvh)
    user = None if who == "anonymous" else members[who]
    new_bytes = sample_bvh + b"\n"  # other bytes than the stored clip: a new upload
    response = call(user, endpoint, world.ids(), new_bytes)
    assert response.status_code == endpoint.expected[who], response.content[:300]
    if response.status_code >= 400:
        assert set(response.json()["error"]) == {"code", "message", "details"}


def test_no_get_endpoint_writes(
    project: Project, members: dict[str, AbstractUser], sample_bvh: bytes, media_root: object
) -> None:
    """Every GET of the matrix, by the owner, runs no INSERT, UPDATE or DELETE (the
    pages' GETs: ``test_page_reads.py``)."""
    world = build_world(project, members["editor"], sample_bvh)
    client_for(members["owner"])  # the owner's token exists before
    for endpoint in (e for e in ENDPOINTS if e.method == "get"):
        with CaptureQueriesContext(connection) as queries:
            call(members["owner"], endpoint, world.ids(), b"")
        sql = [q["sql"].lstrip().upper() for q in queries]
        assert [q for q in sql if q.startswith(("INSERT", "UPDATE", "DELETE"))] == [], endpoint
        assert len(queries) > 0, endpoint.name


def api_routes(patterns: list[Any], prefix: str = "") -> set[str]:
    """Every route under /api/v1/ as a template like ``clips/{clip}/``."""
    routes: set[str] = set()
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            routes |= api_routes(pattern.url_patterns, route)
        elif pattern.name != "not-found":
            route = route.replace("<str:username>", "reviewer-user")  # the matrix's target
            routes.add(re.sub(r"<int:(\w+)_id>", r"{\1}", route))
    return routes


def _downloads_of(route: str) -> Any:
    if route.startswith("characters/"):
        return ON_CHARACTER_DOWNLOADS if "/clips/" in route else CHARACTER_DOWNLOADS
    if route.startswith("transitions/"):
        return TRANSITION_DOWNLOADS
    if route.startswith("sequences/"):
        return SEQUENCE_DOWNLOADS
    if route.startswith("scores/"):
        return SCORE_DOWNLOADS
    if route.startswith("motornerve/drives/"):
        return DRIVE_DOWNLOADS
    if route.startswith("motornerve/trainings/"):
        return TRAINING_DOWNLOADS
    return GENERATION_DOWNLOADS if route.startswith("pfnn/") else DOWNLOADS


def test_matrix_covers_every_route() -> None:
    """A new endpoint must be added to the matrix (the webhooks' included)."""
    expected = {
        route.replace("<str:kind>", kind)
        for route in api_routes(api_urls.urlpatterns)
        for kind in _downloads_of(route)
    }
    covered = {e.url.removeprefix("/api/v1/") for e in ENDPOINTS} | {"auth/token/"}
    assert expected == covered


# --- isolation -----------------------------------------------------------------------------------


@pytest.fixture
def other_world(sample_bvh: bytes, media_root: object) -> World:
    """Project Y, whose owner is nobody of ``members``; it holds the same bytes as X."""
    owner_y = make_user("owner-of-y")
    project_y = Project.objects.create(name="Project Y")
    Membership.objects.create(project=project_y, user=owner_y, role=Role.OWNER)
    Membership.objects.create(project=project_y, user=make_user("editor-of-y"), role=Role.EDITOR)
    return build_world(project_y, owner_y, sample_bvh)


@pytest.mark.parametrize("role", ["owner", "editor", "viewer"])
def test_members_of_x_cannot_reach_anything_of_y(
    role: str,
    project: Project,
    members: dict[str, AbstractUser],
    sample_bvh: bytes,
    other_world: World,
) -> None:
    world_x = build_world(project, members["editor"], sample_bvh)
    client = client_for(members[role])
    y = other_world.ids()
    for endpoint in ENDPOINTS:
        if "{" not in endpoint.url:
            continue
        response = call(members[role], endpoint, y, sample_bvh + b"\n")
        assert response.status_code == 404, (endpoint.name, response.status_code)

    projects = client.get("/api/v1/projects/").json()["results"]
    assert [p["id"] for p in projects] == [project.pk]
    clips = client.get(f"/api/v1/projects/{project.pk}/clips/").json()["results"]
    assert sorted(c["id"] for c in clips) == sorted([world_x.clip.pk, world_x.score.clip_id])
    runs = client.get(f"/api/v1/projects/{project.pk}/runs/").json()["results"]
    assert other_world.run.pk not in [r["id"] for r in runs]
    assert other_world.clip.pk not in [r["clip"] for r in runs]
    assert other_world.clip.sha256 == world_x.clip.sha256  # same bytes, separate clips


def test_project_y_unchanged_by_attempts_from_x(
    members: dict[str, AbstractUser], other_world: World, sample_bvh: bytes
) -> None:
    before = (Clip.objects.count(), Run.objects.count(), Webhook.objects.count())
    owner = members["owner"]
    for endpoint in ENDPOINTS:
        if endpoint.method != "get" and "{" in endpoint.url:
            call(owner, endpoint, other_world.ids(), sample_bvh + b"\n")
    assert (Clip.objects.count(), Run.objects.count(), Webhook.objects.count()) == before
    assert not Membership.objects.filter(project=other_world.project, user__username="newcomer")
