"""Team review of a transition choice through the API, end to end in-process.

The first test starts from a real transition: two GAMES-105 clips (walk, run) go
through the real pipeline, the transition run executes in-process, and the editor
proposes its MTP cut. The others use the ``proposal`` fixture (a transition report of
the stored shape on a 45-frame clip) to check the approval rule and rejections.
Email is Django's locmem backend (``mail.outbox``); webhook deliveries are rows, their
broker messages recorded, not sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractUser, User
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pytest_django import DjangoCaptureOnCommitCallbacks

from support.web import SAMPLES, client_for, finish_proposal, finish_transition, processed
from webapp.clips.models import Clip
from webapp.projects.models import Project
from webapp.reviews.models import Activity, Notification, Proposal
from webapp.runs import pipeline
from webapp.transitions.models import Transition
from webapp.webhooks import tasks as webhook_tasks
from webapp.webhooks.models import Delivery, Webhook

WALK = SAMPLES / "games105" / "walk_forward.bvh"  # 100 frames at 100 fps
RUN = SAMPLES / "games105" / "run_forward.bvh"  # 45 frames at 60 fps


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


@pytest.fixture
def sent_deliveries() -> Iterator[mock.MagicMock]:
    """Webhook deliveries handed to the broker (after commit), recorded instead."""
    with mock.patch.object(webhook_tasks.deliver, "delay") as delay:
        yield delay


@pytest.fixture
def emails(members: dict[str, AbstractUser]) -> dict[str, str]:
    """Every member but the viewer gets an address (the viewer shows who gets no email)."""
    addresses = {}
    for who in ("owner", "editor", "reviewer"):
        members[who].email = f"{who}@studio.test"
        members[who].save()
        addresses[who] = members[who].email
    return addresses


def _post(user: AbstractUser, url: str, body: dict[str, Any], code: int = 201) -> Any:
    response = client_for(user).post(url, body, format="json")
    assert response.status_code == code, response.content[:500]
    return response.json()


def _put(user: AbstractUser, url: str, body: dict[str, Any]) -> Any:
    response = client_for(user).put(url, body, format="json")
    assert response.status_code == 200, response.content[:500]
    return response.json()


def _real_transition(project: Project, editor: AbstractUser) -> Transition:
    assert isinstance(editor, User)
    walk, run = processed(project, editor, WALK), processed(project, editor, RUN)
    body = _post(editor, "/api/v1/transitions/", {"clip_a": walk.pk, "clip_b": run.pk})
    transition = Transition.objects.get(pk=body["id"])
    pipeline.execute(run_id=transition.run.pk)
    transition.refresh_from_db()
    assert transition.run.status == "succeeded", transition.run.error
    return transition


def test_propose_comment_revise_approve_on_a_real_transition(
    project: Project,
    members: dict[str, AbstractUser],
    media_root: object,
    emails: dict[str, str],
    sent_deliveries: mock.MagicMock,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    editor, reviewer, owner = members["editor"], members["reviewer"], members["owner"]
    hook = Webhook.objects.create(project=project, url="https://hooks.test/k", secret="s")
    transition = _real_transition(project, editor)
    report = transition.result
    mail.outbox.clear()

    # The editor proposes the MTP cut: frames, parameters and the whole table copied.
    with django_capture_on_commit_callbacks(execute=True):
        created = _post(
            editor,
            f"/api/v1/projects/{project.pk}/proposals/",
            {"transition": transition.pk, "method": "mtp", "summary": "Cut on the push-off."},
        )
    assert (created["version"], created["status"], created["author"]) == (1, "open", "editor-user")
    assert created["cut_frame"] == report["methods"]["mtp"]["cut"]["frame"]
    assert created["entry_frame"] == report["methods"]["mtp"]["entry"]["frame"]
    assert created["metrics"] == report["metrics"]
    assert (created["alpha"], created["theta_max_deg"], created["measure"]) == (0.6, 75.0, "speed")
    assert created["blend"]["method"] == report["methods"]["mtp"]["blend"]
    assert created["blend"]["duration_s"] == report["methods"]["mtp"]["blend_s"]
    assert created["transition_frames"] == report["methods"]["mtp"]["layout"]["frames"]
    assert created["title"] == "walk_forward.bvh into run_forward.bvh (MTP)"
    v1 = created["id"]

    reviewers = _put(editor, f"/api/v1/proposals/{v1}/reviewers/", {"reviewers": ["reviewer-user"]})
    assert reviewers["reviewers"] == ["reviewer-user"]

    # The reviewer comments at the cut frame of clip A, on a joint, mentioning the owner.
    cut = created["cut_frame"]
    with django_capture_on_commit_callbacks(execute=True):
        comment = _post(
            reviewer,
            f"/api/v1/proposals/{v1}/comments/",
            {
                "body": "The left knee pops here, @owner-user can you check?",
                "frame_clip": "a",
                "frame_start": cut - 2,
                "frame_end": cut,
                "joint": "lKnee",
                "parameter_set": {"alpha": 0.6, "theta_max_deg": 75.0},
            },
        )
    assert comment["mentions"] == ["owner-user"] and comment["joint"] == "lKnee"
    assert (comment["frame_clip"], comment["frame_start"], comment["frame_end"]) == (
        "a",
        cut - 2,
        cut,
    )
    reply = _post(
        editor,
        f"/api/v1/proposals/{v1}/comments/",
        {"body": "Trying the end cut.", "reply_to": comment["id"]},
    )
    # The comment reached the author and the mentioned owner, in the app and by email.
    assert Notification.objects.filter(user=owner, activity__verb="comment.created").exists()
    assert Notification.objects.filter(user=editor, activity__verb="comment.created").exists()
    assert not Notification.objects.filter(activity__actor=reviewer, user=reviewer).exists()
    (answered,) = Notification.objects.filter(user=reviewer, activity__verb="comment.created")
    assert answered.activity.comment_id == reply["id"]  # the reply reached the reviewer
    commented = [m for m in mail.outbox if "commented on" in m.subject]
    assert sorted(m.to[0] for m in commented) == ["editor@studio.test", "owner@studio.test"]
    assert "The left knee pops here" in commented[0].body

    # The editor revises: version 2 supersedes version 1 and keeps thread and reviewers.
    with django_capture_on_commit_callbacks(execute=True):
        revised = _post(editor, f"/api/v1/proposals/{v1}/revise/", {"method": "end"})
    v2 = revised["id"]
    assert (revised["version"], revised["status"], revised["method"]) == (2, "open", "end")
    assert revised["thread"] == created["thread"] and revised["reviewers"] == ["reviewer-user"]
    assert revised["cut_frame"] == report["methods"]["end"]["cut"]["frame"]
    assert [(v["version"], v["status"]) for v in revised["versions"]] == [
        (1, "superseded"),
        (2, "open"),
    ]
    thread = client_for(members["viewer"]).get(f"/api/v1/proposals/{v2}/comments/").json()
    assert [c["id"] for c in thread] == [comment["id"]]
    assert [r["id"] for r in thread[0]["replies"]] == [reply["id"]]
    assert thread[0]["version"] == 1

    # The reviewer approves version 2; with N = 1 that approves it.
    with django_capture_on_commit_callbacks(execute=True):
        decision = _post(
            reviewer,
            f"/api/v1/proposals/{v2}/decisions/",
            {"decision": "approve", "note": "Clean."},
        )
    assert (decision["decision"], decision["status_after"], decision["version"]) == (
        "approve",
        "approved",
        2,
    )
    detail = client_for(editor).get(f"/api/v1/proposals/{v2}/").json()
    assert detail["status"] == "approved" and detail["approvals"] == {"count": 1, "required": 1}
    approved_mail = [
        m
        for m in mail.outbox
        if m.subject.endswith("approved “walk_forward.bvh into run_forward.bvh (MTP)” (version 2)")
    ]
    assert [m.to for m in approved_mail] == [["editor@studio.test"]]

    # Approved is final: no more decisions, no revision.
    refused = client_for(reviewer).post(
        f"/api/v1/proposals/{v2}/decisions/", {"decision": "reject"}, format="json"
    )
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "invalid_transition"
    assert "approved" in refused.json()["error"]["message"]
    assert (
        client_for(editor).post(f"/api/v1/proposals/{v2}/revise/", {}, format="json").status_code
        == 409
    )

    # The log, newest first, and the webhook got every event.
    log = client_for(members["viewer"]).get(f"/api/v1/projects/{project.pk}/activity/").json()
    verbs = [a["verb"] for a in log["results"]]
    assert verbs == [
        "proposal.approved",
        "proposal.revised",
        "comment.created",
        "comment.created",
        "proposal.reviewers_assigned",
        "proposal.created",
    ]
    assert log["results"][0]["text"].startswith("reviewer-user approved “walk_forward.bvh")
    events = list(
        Delivery.objects.filter(webhook=hook).order_by("id").values_list("event", flat=True)
    )
    assert events == verbs[::-1]
    approved = Delivery.objects.get(webhook=hook, event="proposal.approved").payload
    assert approved["proposal"]["id"] == v2 and approved["proposal"]["status"] == "approved"
    assert approved["actor"] == "reviewer-user" and approved["data"]["approvals"] == 1
    assert sent_deliveries.call_count == 4  # those made inside the captured commits


def _assign(proposal: Proposal, members: dict[str, AbstractUser], *who: str) -> None:
    names = [members[w].username for w in who]
    _put(members["editor"], f"/api/v1/proposals/{proposal.pk}/reviewers/", {"reviewers": names})


def _decide(user: AbstractUser, proposal: Proposal, decision: str, code: int = 201) -> Any:
    return _post(user, f"/api/v1/proposals/{proposal.pk}/decisions/", {"decision": decision}, code)


def test_two_approvals_are_needed_when_the_rule_says_two(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    rule = _put(
        members["owner"],
        f"/api/v1/projects/{proposal.project_id}/review-rule/",
        {"approvals_required": 2},
    )
    assert rule["approvals_required"] == 2 and rule["rejection_blocks"] is True
    _assign(proposal, members, "reviewer", "owner")

    first = _decide(members["reviewer"], proposal, "approve")
    assert first["status_after"] == "open"
    again = _decide(members["reviewer"], proposal, "approve", code=409)
    assert again["error"]["code"] == "already_approved"
    proposal.refresh_from_db()
    assert proposal.status == "open"
    assert Activity.objects.filter(verb="proposal.approval_added").count() == 1

    second = _decide(members["owner"], proposal, "approve")
    assert second["status_after"] == "approved"
    body = client_for(members["viewer"]).get(f"/api/v1/proposals/{proposal.pk}/").json()
    assert body["approvals"] == {"count": 2, "required": 2}
    assert [d["reviewer"] for d in body["decisions"]] == ["reviewer-user", "owner-user"]


def test_a_rejection_blocks_whatever_the_approvals(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    _put(
        members["owner"],
        f"/api/v1/projects/{proposal.project_id}/review-rule/",
        {"approvals_required": 2},
    )
    _assign(proposal, members, "reviewer", "owner")
    _decide(members["reviewer"], proposal, "approve")
    rejected = _decide(members["owner"], proposal, "reject")
    assert rejected["status_after"] == "rejected"
    late = _decide(members["reviewer"], proposal, "approve", code=409)
    assert late["error"]["details"] == {"status": "rejected", "event": "approve"}
    revise = _post(members["editor"], f"/api/v1/proposals/{proposal.pk}/revise/", {}, code=409)
    assert revise["error"]["code"] == "invalid_transition"


def test_changes_requested_then_a_revision_reopens_with_decisions_reset(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    _assign(proposal, members, "reviewer", "owner")
    assert (
        _decide(members["owner"], proposal, "request_changes")["status_after"]
        == "changes_requested"
    )
    blocked = _decide(members["reviewer"], proposal, "approve", code=409)
    assert "revise" in blocked["error"]["message"]
    new = _post(
        members["editor"], f"/api/v1/proposals/{proposal.pk}/revise/", {"title": "Later cut"}
    )
    assert (new["status"], new["title"], new["decisions"]) == ("open", "Later cut", [])
    assert new["approvals"] == {"count": 0, "required": 1}
    assert (
        _decide(members["reviewer"], Proposal.objects.get(pk=new["id"]), "approve")["status_after"]
        == "approved"
    )
    old = client_for(members["viewer"]).get(f"/api/v1/proposals/{proposal.pk}/").json()
    assert old["status"] == "superseded" and [d["decision"] for d in old["decisions"]] == [
        "request_changes"
    ]


def test_only_assigned_reviewers_decide_and_never_on_their_own_version(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    not_assigned = _decide(members["reviewer"], proposal, "approve", code=403)
    assert not_assigned["error"]["code"] == "not_assigned"
    # The editor is the author: assigning them is refused.
    response = client_for(members["editor"]).put(
        f"/api/v1/proposals/{proposal.pk}/reviewers/", {"reviewers": ["editor-user"]}, format="json"
    )
    assert (
        response.status_code == 400 and response.json()["error"]["code"] == "author_cannot_review"
    )
    _assign(proposal, members, "owner")
    # The owner revises: the new version is theirs, so their assignment no longer lets
    # them decide on it.
    new = _post(members["owner"], f"/api/v1/proposals/{proposal.pk}/revise/", {})
    denied = _post(
        members["owner"], f"/api/v1/proposals/{new['id']}/decisions/", {"decision": "approve"}, 403
    )
    assert denied["error"]["code"] == "own_proposal"


def test_removing_a_reviewer_drops_their_approval_from_the_count(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    _put(
        members["owner"],
        f"/api/v1/projects/{proposal.project_id}/review-rule/",
        {"approvals_required": 2},
    )
    _assign(proposal, members, "reviewer", "owner")
    _decide(members["reviewer"], proposal, "approve")
    _assign(proposal, members, "owner")
    body = client_for(members["owner"]).get(f"/api/v1/proposals/{proposal.pk}/").json()
    assert body["approvals"] == {"count": 0, "required": 2}
    assert _decide(members["owner"], proposal, "approve")["status_after"] == "open"


def test_listing_filters_by_status(
    proposal: Proposal, members: dict[str, AbstractUser], clip: Clip
) -> None:
    _post(members["editor"], f"/api/v1/proposals/{proposal.pk}/revise/", {})
    url = f"/api/v1/projects/{proposal.project_id}/proposals/"
    client = client_for(members["viewer"])
    assert [p["status"] for p in client.get(url).json()["results"]] == ["open", "superseded"]
    assert [p["version"] for p in client.get(url, {"status": "open"}).json()["results"]] == [2]
    assert client.get(url, {"status": "merged"}).status_code == 400


def test_lowering_the_rule_approves_versions_that_already_have_enough(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    url = f"/api/v1/projects/{proposal.project_id}/review-rule/"
    _put(members["owner"], url, {"approvals_required": 2})
    _assign(proposal, members, "reviewer", "owner")
    assert _decide(members["reviewer"], proposal, "approve")["status_after"] == "open"
    _put(members["owner"], url, {"approvals_required": 1})
    proposal.refresh_from_db()
    assert proposal.status == "approved"
    by_rule = Activity.objects.get(verb="proposal.approved")
    assert by_rule.data == {"by_rule": True, "approvals": 1, "approvals_required": 1}
    _put(members["owner"], url, {"approvals_required": 3})  # raising it reopens nothing
    proposal.refresh_from_db()
    assert proposal.status == "approved"


def test_listing_proposals_costs_the_same_queries_for_one_or_many(
    proposal: Proposal, members: dict[str, AbstractUser], clip: Clip
) -> None:
    _assign(proposal, members, "reviewer")
    _decide(members["reviewer"], proposal, "approve")
    url = f"/api/v1/projects/{proposal.project_id}/proposals/"
    client = client_for(members["viewer"])
    with CaptureQueriesContext(connection) as one:
        assert len(client.get(url).json()["results"]) == 1
    for _ in range(3):
        other = finish_proposal(finish_transition(clip, clip), members["editor"])
        _assign(other, members, "reviewer", "owner")
    with CaptureQueriesContext(connection) as many:
        body = client.get(url).json()["results"]
    assert len(body) == 4 and body[-1]["approvals"] == {"count": 1, "required": 1}
    assert len(many) == len(one)
