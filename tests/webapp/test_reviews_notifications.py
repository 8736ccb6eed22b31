"""What a review write leaves behind: the activity log, in-app notifications, emails
(Django's locmem backend in tests; console by default) and webhook deliveries; and
the review report as JSON and CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractUser, User
from django.core import mail
from pytest_django import DjangoCaptureOnCommitCallbacks

from support.web import client_for
from webapp.projects.models import Membership, Project
from webapp.reviews.comments import comment_create, comment_resolve
from webapp.reviews.decisions import decision_record, reviewers_assign
from webapp.reviews.export import COMMENT_COLUMNS
from webapp.reviews.models import Activity, Notification, Proposal
from webapp.webhooks import tasks as webhook_tasks
from webapp.webhooks.models import Delivery, Webhook
from webapp.webhooks.services import webhooks_notify_event


def _user(members: dict[str, AbstractUser], who: str) -> User:
    user = members[who]
    assert isinstance(user, User)
    return user


@pytest.fixture
def with_emails(members: dict[str, AbstractUser]) -> None:
    for who in ("owner", "editor", "reviewer", "viewer"):
        members[who].email = f"{who}@studio.test"
        members[who].save()


@pytest.fixture
def broker() -> Iterator[mock.MagicMock]:
    with mock.patch.object(webhook_tasks.deliver, "delay") as delay:
        yield delay


def _notified(activity: Activity) -> list[str]:
    return sorted(n.user.username for n in activity.notifications.select_related("user"))


# --- notifications ------------------------------------------------------------------------------


def test_the_author_reviewers_and_mentioned_are_notified_never_the_actor(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    editor, reviewer = _user(members, "editor"), _user(members, "reviewer")
    reviewers_assign(
        user=editor, proposal_id=proposal.pk, usernames=["reviewer-user", "owner-user"]
    )
    assigned = Activity.objects.get(verb="proposal.reviewers_assigned")
    assert _notified(assigned) == ["owner-user", "reviewer-user"]
    assert assigned.data == {
        "reviewers": ["owner-user", "reviewer-user"],
        "added": ["owner-user", "reviewer-user"],
        "removed": [],
    }

    comment = comment_create(
        user=reviewer, proposal_id=proposal.pk, body="@viewer-user watch frame 20"
    )
    assert _notified(Activity.objects.get(comment=comment)) == [
        "editor-user",
        "owner-user",
        "viewer-user",
    ]

    reviewers_assign(user=editor, proposal_id=proposal.pk, usernames=["owner-user"])
    removed = Activity.objects.filter(verb="proposal.reviewers_assigned").first()
    assert removed is not None and removed.data["removed"] == ["reviewer-user"]
    assert _notified(removed) == ["owner-user", "reviewer-user"]  # the removed one learns it


def test_people_who_left_the_project_are_not_notified(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    editor = _user(members, "editor")
    reviewers_assign(user=editor, proposal_id=proposal.pk, usernames=["reviewer-user"])
    Membership.objects.filter(user=members["reviewer"]).delete()
    comment_create(user=_user(members, "owner"), proposal_id=proposal.pk, body="Fine by me")
    assert _notified(Activity.objects.get(verb="comment.created")) == ["editor-user"]


def test_notifications_api_lists_counts_and_marks_read(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    reviewer = _user(members, "reviewer")
    for n in range(3):
        comment_create(user=reviewer, proposal_id=proposal.pk, body=f"Note {n}")
    editor = client_for(members["editor"])
    listed = editor.get("/api/v1/notifications/").json()
    assert (listed["count"], listed["unread_count"]) == (3, 3)
    first = listed["results"][0]
    assert first["activity"]["verb"] == "comment.created" and first["read_at"] is None
    assert first["activity"]["text"] == f"reviewer-user commented on “{proposal.title}” (version 1)"

    theirs = Notification.objects.create(user=reviewer, activity=Activity.objects.first())
    marked = editor.post(
        "/api/v1/notifications/read/", {"ids": [first["id"], theirs.pk]}, format="json"
    ).json()
    assert marked == {"marked": 1, "unread_count": 2}  # another user's id is ignored
    theirs.refresh_from_db()
    assert theirs.read_at is None
    unread = editor.get("/api/v1/notifications/", {"unread": "true"}).json()
    assert [n["id"] for n in unread["results"]] == [r["id"] for r in listed["results"][1:]]
    everything = editor.post("/api/v1/notifications/read/", {}, format="json").json()
    assert everything == {"marked": 2, "unread_count": 0}
    assert client_for(members["outsider"]).get("/api/v1/notifications/").json()["count"] == 0


# --- email --------------------------------------------------------------------------------------


def test_emails_go_after_commit_to_those_with_an_address(
    proposal: Proposal,
    members: dict[str, AbstractUser],
    with_emails: None,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    members["owner"].email = ""
    members["owner"].save()
    editor = _user(members, "editor")
    with django_capture_on_commit_callbacks() as callbacks:
        reviewers_assign(
            user=editor, proposal_id=proposal.pk, usernames=["reviewer-user", "owner-user"]
        )
    assert mail.outbox == []  # nothing before the commit
    for callback in callbacks:
        callback()
    (sent,) = mail.outbox
    assert sent.to == ["reviewer@studio.test"]
    assert sent.subject == (
        f"[Kinetograph] Project X: editor-user changed the reviewers of “{proposal.title}” "
        "(version 1)"
    )
    assert f"/api/v1/proposals/{proposal.pk}/" in sent.body
    assert sent.from_email == "Kinetograph <kinetograph@localhost>"


def test_a_refused_write_sends_no_email(
    proposal: Proposal,
    members: dict[str, AbstractUser],
    with_emails: None,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(members["reviewer"]).post(
            f"/api/v1/proposals/{proposal.pk}/comments/",
            {"body": "@outsider look"},
            format="json",
        )
    assert response.status_code == 400
    assert mail.outbox == [] and not Activity.objects.filter(verb="comment.created").exists()


# --- webhooks -----------------------------------------------------------------------------------


def test_proposal_events_reach_the_project_webhooks(
    proposal: Proposal,
    project: Project,
    members: dict[str, AbstractUser],
    broker: mock.MagicMock,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    hook = Webhook.objects.create(project=project, url="https://hooks.test/a", secret="s")
    Webhook.objects.create(project=project, url="https://hooks.test/off", secret="s", active=False)
    other = Project.objects.create(name="Other")
    Webhook.objects.create(project=other, url="https://hooks.test/other", secret="s")
    editor, reviewer = _user(members, "editor"), _user(members, "reviewer")
    with django_capture_on_commit_callbacks(execute=True):
        reviewers_assign(user=editor, proposal_id=proposal.pk, usernames=["reviewer-user"])
        comment = comment_create(
            user=reviewer, proposal_id=proposal.pk, body="Slide", frame_start=4, joint="lKnee"
        )
        comment_resolve(user=editor, comment_id=comment.pk)
        decision_record(user=reviewer, proposal_id=proposal.pk, decision="request_changes")
    deliveries = list(Delivery.objects.order_by("id"))
    assert {d.webhook_id for d in deliveries} == {hook.pk}
    assert [d.event for d in deliveries] == [
        "proposal.reviewers_assigned",
        "comment.created",
        "comment.resolved",
        "proposal.changes_requested",
    ]
    assert sorted(c.args[0] for c in broker.call_args_list) == [d.pk for d in deliveries]
    payload = deliveries[1].payload
    assert set(payload) == {"event", "activity", "project", "actor", "proposal", "comment", "data"}
    assert payload["project"] == {"id": project.pk} and payload["actor"] == "reviewer-user"
    assert payload["comment"]["frame_start"] == 4 and payload["comment"]["joint"] == "lKnee"
    assert payload["proposal"]["cut_frame"] == 30
    assert deliveries[-1].payload["proposal"]["status"] == "changes_requested"
    json.dumps(payload)  # what is signed and sent: plain JSON


def test_the_generic_event_fan_out(project: Project, broker: mock.MagicMock) -> None:
    hooks = [
        Webhook.objects.create(project=project, url=f"https://h{i}.test/", secret="x")
        for i in (1, 2)
    ]
    ids = webhooks_notify_event(project_id=project.pk, payload={"event": "proposal.created"})
    assert sorted(Delivery.objects.values_list("webhook_id", flat=True)) == [h.pk for h in hooks]
    assert sorted(ids) == sorted(Delivery.objects.values_list("pk", flat=True))
    assert set(Delivery.objects.values_list("event", flat=True)) == {"proposal.created"}


# --- the activity log ---------------------------------------------------------------------------


def test_the_activity_log_is_per_project_and_per_thread(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    editor, owner = _user(members, "editor"), _user(members, "owner")
    client = client_for(members["viewer"])
    revised = client_for(editor).post(f"/api/v1/proposals/{proposal.pk}/revise/", {}, format="json")
    client_for(owner).put(
        f"/api/v1/projects/{proposal.project_id}/review-rule/", {"approvals_required": 2}
    )
    url = f"/api/v1/projects/{proposal.project_id}/activity/"
    log = client.get(url).json()["results"]
    assert [a["verb"] for a in log] == [
        "review_rule.updated",
        "proposal.revised",
        "proposal.created",
    ]
    assert log[0]["data"] == {"approvals_required": 2, "before": 1} and log[0]["proposal"] is None
    assert log[0]["text"] == "owner-user changed the review rule of Project X"
    assert log[1]["data"]["previous"] == proposal.pk and log[1]["proposal"] == revised.json()["id"]
    thread = client.get(url, {"proposal": proposal.pk}).json()["results"]
    assert [a["verb"] for a in thread] == ["proposal.revised", "proposal.created"]
    assert client_for(members["outsider"]).get(url).status_code == 404


# --- exports ------------------------------------------------------------------------------------


@pytest.fixture
def reviewed(proposal: Proposal, members: dict[str, AbstractUser]) -> Proposal:
    """The proposal with a reviewer's pinned comment (formula-like text), a reply and an
    approval."""
    editor, reviewer = _user(members, "editor"), _user(members, "reviewer")
    reviewers_assign(user=editor, proposal_id=proposal.pk, usernames=["reviewer-user"])
    top = comment_create(
        user=reviewer,
        proposal_id=proposal.pk,
        body="=HYPERLINK(1) knee pops, @editor-user",
        frame_clip="a",
        frame_start=28,
        frame_end=30,
        joint="lKnee",
        parameter_set={"alpha": 0.6},
    )
    comment_create(user=editor, proposal_id=proposal.pk, body="Fixed", parent_id=top.pk)
    comment_resolve(user=reviewer, comment_id=top.pk)
    decision_record(user=reviewer, proposal_id=proposal.pk, decision="approve", note="ok")
    return proposal


def test_the_json_report(reviewed: Proposal, members: dict[str, AbstractUser]) -> None:
    response = client_for(members["viewer"]).get(f"/api/v1/proposals/{reviewed.pk}/report.json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert f'filename="proposal-{reviewed.pk}-v1-review.json"' in response["Content-Disposition"]
    report = json.loads(response.content)
    assert set(report) == {
        "format",
        "generated_at",
        "proposal",
        "decision",
        "parameters",
        "metrics",
        "versions",
        "thread",
    }
    assert report["format"] == "kinetograph-review-report/1"
    assert report["decision"]["status"] == "approved" and report["decision"]["final"] is True
    assert (report["decision"]["approvals"], report["decision"]["approvals_required"]) == (1, 1)
    assert report["decision"]["decisions"][0]["reviewer"] == "reviewer-user"
    assert report["parameters"]["cut_frame"] == 30 and report["parameters"]["method"] == "mtp"
    assert report["metrics"]["chosen"]["momentum_retention"] == 0.696
    assert set(report["metrics"]["table"]) == {"mtp", "end"}
    (top,) = report["thread"]
    assert (top["joint"], top["frame_start"], top["frame_end"]) == ("lKnee", 28, 30)
    assert top["mentions"] == ["editor-user"] and top["resolved_by"] == "reviewer-user"
    assert [r["body"] for r in top["replies"]] == ["Fixed"]


def test_the_csv_report_parses(reviewed: Proposal, members: dict[str, AbstractUser]) -> None:
    response = client_for(members["viewer"]).get(f"/api/v1/proposals/{reviewed.pk}/report.csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    blank = rows.index([])
    head, comments = rows[:blank], rows[blank + 1 :]
    assert head[0] == ["section", "key", "value"]
    cells: dict[tuple[str, str], Any] = {(r[0], r[1]): r[2] for r in head[1:]}
    assert cells[("decision", "status")] == "approved"
    assert cells[("decision", "approvals")] == "1"
    assert cells[("decision", "decision.1")] == "reviewer-user: approve (ok)"
    assert cells[("parameter", "cut_frame")] == "30"
    assert cells[("parameter", "alpha")] == "0.6"
    assert float(cells[("metric", "mtp.momentum_retention")]) == 0.696
    assert cells[("metric", "end.foot_slide_mps")] == ""
    assert len([k for k in cells if k[0] == "metric"]) == 2 * 8
    assert tuple(comments[0]) == COMMENT_COLUMNS
    top, reply = (dict(zip(COMMENT_COLUMNS, row, strict=True)) for row in comments[1:])
    assert top["body"] == "'=HYPERLINK(1) knee pops, @editor-user"  # never a formula
    assert (top["frame_start"], top["frame_end"], top["joint"]) == ("28", "30", "lKnee")
    assert top["mentions"] == "editor-user" and top["resolved_by"] == "reviewer-user"
    assert reply["reply_to"] == top["comment"] and reply["body"] == "Fixed"
    assert json.loads(top["parameter_set"]) == {"alpha": 0.6}


def test_reports_are_for_members_only(reviewed: Proposal, members: dict[str, AbstractUser]) -> None:
    for kind in ("json", "csv"):
        url = f"/api/v1/proposals/{reviewed.pk}/report.{kind}"
        assert client_for(members["outsider"]).get(url).status_code == 404
        assert client_for(None).get(url).status_code == 401
    assert client_for(members["viewer"]).get("/api/v1/proposals/x/report.csv").status_code == 404
