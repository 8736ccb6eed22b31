"""Who may do what in a review: every role × every review action → the expected status.

The decision (``docs/reviews.md``, :mod:`webapp.reviews.services`): viewers read
proposals, threads, reports and the log but do not comment; reviewers comment and,
when assigned, decide; editors also propose, revise and assign reviewers; owners also
set the review rule. Deciding needs an assignment whatever the role, and nobody decides
on a version they wrote. Non-members get 404, anonymous callers 401.

Here the proposal is the *owner's*, so that the editor can be an assigned reviewer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser, User
from rest_framework.test import APIClient

from support.web import client_for, finish_proposal, finish_transition
from webapp.clips.models import Clip
from webapp.reviews.comments import comment_create
from webapp.reviews.decisions import reviewers_assign
from webapp.reviews.models import Comment, Decision, Proposal, ReviewerAssignment

WHO = ("owner", "editor", "reviewer", "viewer", "outsider", "anonymous")


def cells(owner: int, editor: int, reviewer: int, viewer: int, outsider: int) -> dict[str, int]:
    return dict(zip(WHO, (owner, editor, reviewer, viewer, outsider, 401), strict=True))


READ = cells(200, 200, 200, 200, 404)


@dataclass(frozen=True)
class Scene:
    proposal: Proposal
    comment: Comment  # the editor's


@dataclass(frozen=True)
class Action:
    name: str
    expected: dict[str, int]
    call: Callable[[APIClient, Scene], Any]
    assigned: bool = False  # editor and reviewer assigned to the proposal first


def _p(scene: Scene) -> str:
    return f"/api/v1/proposals/{scene.proposal.pk}"


def _project(scene: Scene) -> str:
    return f"/api/v1/projects/{scene.proposal.project_id}"


ACTIONS = [
    Action("list proposals", READ, lambda c, s: c.get(f"{_project(s)}/proposals/")),
    Action("read a proposal", READ, lambda c, s: c.get(f"{_p(s)}/")),
    Action("read the thread", READ, lambda c, s: c.get(f"{_p(s)}/comments/")),
    Action("download the JSON report", READ, lambda c, s: c.get(f"{_p(s)}/report.json")),
    Action("download the CSV report", READ, lambda c, s: c.get(f"{_p(s)}/report.csv")),
    Action("read the activity log", READ, lambda c, s: c.get(f"{_project(s)}/activity/")),
    Action("read the review rule", READ, lambda c, s: c.get(f"{_project(s)}/review-rule/")),
    Action(
        "propose",
        cells(201, 201, 403, 403, 404),
        lambda c, s: c.post(
            f"{_project(s)}/proposals/", {"transition": s.proposal.transition_id}, format="json"
        ),
    ),
    Action(
        "revise",
        cells(201, 201, 403, 403, 404),
        lambda c, s: c.post(f"{_p(s)}/revise/", {"method": "end"}, format="json"),
    ),
    Action(
        "assign reviewers",
        cells(200, 200, 403, 403, 404),
        lambda c, s: c.put(f"{_p(s)}/reviewers/", {"reviewers": ["reviewer-user"]}, format="json"),
    ),
    Action(
        "comment",
        cells(201, 201, 201, 403, 404),
        lambda c, s: c.post(f"{_p(s)}/comments/", {"body": "Skates at 12", "frame_start": 12}),
    ),
    Action(
        "reply",
        cells(201, 201, 201, 403, 404),
        lambda c, s: c.post(
            f"{_p(s)}/comments/", {"body": "Agreed", "reply_to": s.comment.pk}, format="json"
        ),
    ),
    Action(
        "resolve the editor's comment",
        cells(200, 200, 403, 403, 404),
        lambda c, s: c.post(f"/api/v1/comments/{s.comment.pk}/resolve/"),
    ),
    Action(
        "reopen the editor's comment",
        cells(200, 200, 403, 403, 404),
        lambda c, s: c.delete(f"/api/v1/comments/{s.comment.pk}/resolve/"),
    ),
    Action(
        "decide, not assigned",
        cells(403, 403, 403, 403, 404),
        lambda c, s: c.post(f"{_p(s)}/decisions/", {"decision": "approve"}, format="json"),
    ),
    Action(
        "decide, editor and reviewer assigned",  # the owner wrote this version
        cells(403, 201, 201, 403, 404),
        lambda c, s: c.post(f"{_p(s)}/decisions/", {"decision": "reject"}, format="json"),
        assigned=True,
    ),
    Action(
        "set the review rule",
        cells(200, 403, 403, 403, 404),
        lambda c, s: c.put(f"{_project(s)}/review-rule/", {"approvals_required": 3}, format="json"),
    ),
    Action(
        "read my notifications",
        cells(200, 200, 200, 200, 200),
        lambda c, s: c.get("/api/v1/notifications/"),
    ),
    Action(
        "mark my notifications read",
        cells(200, 200, 200, 200, 200),
        lambda c, s: c.post("/api/v1/notifications/read/", {}, format="json"),
    ),
]


@pytest.fixture
def scene(clip: Clip, members: dict[str, AbstractUser]) -> Scene:
    owner, editor = members["owner"], members["editor"]
    assert isinstance(editor, User)
    proposal = finish_proposal(finish_transition(clip, clip), owner)
    comment = comment_create(user=editor, proposal_id=proposal.pk, body="Is 30 too early?")
    return Scene(proposal, comment)


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("action", ACTIONS, ids=lambda a: a.name)
def test_review_permission_matrix(
    action: Action, who: str, scene: Scene, members: dict[str, AbstractUser]
) -> None:
    if action.assigned:
        owner = members["owner"]
        assert isinstance(owner, User)
        reviewers_assign(
            user=owner, proposal_id=scene.proposal.pk, usernames=["editor-user", "reviewer-user"]
        )
    client = client_for(None if who == "anonymous" else members[who])
    response = action.call(client, scene)
    assert response.status_code == action.expected[who], response.content[:300]
    if response.status_code >= 400:
        assert set(response.json()["error"]) == {"code", "message", "details"}


def test_refused_calls_change_nothing(scene: Scene, members: dict[str, AbstractUser]) -> None:
    """What the viewer is refused leaves no trace."""
    before = (Proposal.objects.count(), Comment.objects.count(), Decision.objects.count())
    for action in ACTIONS:
        if action.expected["viewer"] >= 400:
            action.call(client_for(members["viewer"]), scene)
    after = (Proposal.objects.count(), Comment.objects.count(), Decision.objects.count())
    assert after == before
    assert not ReviewerAssignment.objects.exists()


def test_the_viewer_cannot_be_made_a_reviewer(
    scene: Scene, members: dict[str, AbstractUser]
) -> None:
    url = f"{_p(scene)}/reviewers/"
    response = client_for(members["owner"]).put(url, {"reviewers": ["viewer-user"]}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "role_too_low"
    outsider = client_for(members["owner"]).put(url, {"reviewers": ["outsider"]}, format="json")
    assert outsider.json()["error"]["code"] == "unknown_reviewer"


def test_a_demoted_reviewer_no_longer_decides(
    scene: Scene, members: dict[str, AbstractUser]
) -> None:
    owner = members["owner"]
    assert isinstance(owner, User)
    reviewers_assign(user=owner, proposal_id=scene.proposal.pk, usernames=["reviewer-user"])
    scene.proposal.project.memberships.filter(user=members["reviewer"]).update(role="viewer")
    response = client_for(members["reviewer"]).post(
        f"{_p(scene)}/decisions/", {"decision": "approve"}, format="json"
    )
    assert response.status_code == 403
