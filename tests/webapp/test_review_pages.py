"""The review pages: the proposal page for each role (who sees which form), its forms
(decide, revise, reviewers) and the transition page's "Propose this cut" form posting to
the services and redirecting, refusals shown with nothing stored, compare, the activity
log, notifications and the header's unread count, the project page's proposals card.

Proposals come from the ``proposal`` fixture (a transition report of the stored shape on
a 45-frame clip into itself: MTP cut 30, entry 5, a 50-frame transition clip; the
end-of-clip baseline at 44); broker messages are recorded, not sent.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser, User
from django.test import Client
from django.urls import reverse

from support.web import finish_proposal, finish_transition
from webapp.core.errors import ServiceError
from webapp.reviews import proposing
from webapp.reviews.comments import comment_create
from webapp.reviews.decisions import reviewers_assign
from webapp.reviews.models import Activity, Comment, Decision, Notification, Proposal
from webapp.reviews.services import proposal_revise
from webapp.transitions.models import Transition

FORMS = {
    "comment": "data-comment-form",
    "decide": "data-decision-form",
    "revise": "data-revise-form",
    "reviewers": "data-reviewers-form",
}


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


def _client(user: AbstractUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _user(members: dict[str, AbstractUser], role: str) -> User:
    user = members[role]
    assert isinstance(user, User)
    return user


def _html(response: Any) -> str:
    return str(response.content.decode())


def _forms(html: str) -> set[str]:
    return {name for name, marker in FORMS.items() if marker in html}


def _json_script(html: str, element_id: str) -> Any:
    found = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html)
    assert found, f"the page has no #{element_id}"
    return json.loads(found.group(1))


def _assign(proposal: Proposal, members: dict[str, AbstractUser], *names: str) -> None:
    usernames = [f"{name}-user" for name in names]
    reviewers_assign(user=_user(members, "editor"), proposal_id=proposal.pk, usernames=usernames)


def _page(user: AbstractUser, proposal: Proposal) -> str:
    response = _client(user).get(reverse("proposal", args=[proposal.pk]))
    assert response.status_code == 200, response.content[:300]
    return _html(response)


# --- the proposal page for each role ------------------------------------------------------


def test_each_role_sees_the_forms_it_may_use(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    assert _forms(_page(members["viewer"], proposal)) == set()
    assert _forms(_page(members["reviewer"], proposal)) == {"comment"}  # not assigned
    assert _forms(_page(members["editor"], proposal)) == {"comment", "revise", "reviewers"}
    assert _forms(_page(members["owner"], proposal)) == {"comment", "revise", "reviewers"}
    _assign(proposal, members, "reviewer", "owner")
    assert _forms(_page(members["reviewer"], proposal)) == {"comment", "decide"}
    assert _forms(_page(members["owner"], proposal)) == {
        "comment",
        "decide",
        "revise",
        "reviewers",
    }
    viewer = _page(members["viewer"], proposal)
    assert "Viewers read the thread" in viewer
    outsider = _client(members["outsider"]).get(reverse("proposal", args=[proposal.pk]))
    assert outsider.status_code == 404


def test_an_assigned_author_gets_no_decision_buttons_and_is_told_why(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    # The owner revises: the owner is then the author of v2 while assigned.
    _assign(proposal, members, "owner")
    v2 = proposal_revise(user=_user(members, "owner"), proposal_id=proposal.pk)
    html = _page(members["owner"], v2)
    assert "decide" not in _forms(html)
    assert "you wrote this version" in html


def test_the_decision_buttons_follow_the_status(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    _assign(proposal, members, "reviewer")
    buttons = re.findall(r'name="decision" value="(\w+)"', _page(members["reviewer"], proposal))
    assert buttons == ["approve", "request_changes", "reject"]
    response = _client(members["reviewer"]).post(
        reverse("proposal-decide", args=[proposal.pk]), {"decision": "request_changes"}
    )
    assert response.status_code == 302
    buttons = re.findall(r'name="decision" value="(\w+)"', _page(members["reviewer"], proposal))
    assert buttons == ["request_changes", "reject"]  # approving waits for a revision


def test_the_page_shows_status_reviewers_parameters_metrics_and_reports(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    _assign(proposal, members, "reviewer")
    html = _page(members["viewer"], proposal)
    assert 'data-status="open"' in html and ">Open</span>" in html
    assert "0 of 1 approval" in html
    assert "reviewer-user" in html and "no decision yet" in html
    # Parameters with their units; the cut and the entry with their times (60 fps report).
    for text in ("α (momentum fraction)", "0.6", "75°", "frame 30 · 0.50 s", "frame 5 · 0.08 s"):
        assert text in html, text
    assert "50 frames" in html and "crossfade over 0.12 s" in html
    # The metrics snapshot with units, the proposed method marked.
    for unit in ("(m/s)", "(m)", "(m/s²)"):
        assert unit in html, unit
    assert re.search(r'<tr data-method="mtp" class="is-chosen"', html)
    assert '<tr data-method="end">' in html
    assert f"/api/v1/proposals/{proposal.pk}/report.json" in html
    assert f"/api/v1/proposals/{proposal.pk}/report.csv" in html
    source = _json_script(html, "proposal-source")
    assert source["url"].endswith("/download/viewer.json/")
    assert source["layout"]["frames"] == 50


def test_the_thread_and_what_a_comment_may_pin_reach_the_script(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    comment_create(
        user=_user(members, "reviewer"),
        proposal_id=proposal.pk,
        body="Foot slides here @editor-user",
        frame_start=12,
        frame_end=20,
        joint=proposal.clip_a.report["joint_list"][0]["name"],
    )
    html = _page(members["reviewer"], proposal)
    config = _json_script(html, "review-config")
    assert config["me"] == "reviewer-user" and config["canComment"] is True
    assert config["canResolveAll"] is False
    assert config["commentsUrl"] == f"/api/v1/proposals/{proposal.pk}/comments/"
    assert config["resolveUrl"] == "/api/v1/comments/0/resolve/"
    assert config["joints"][0] == proposal.clip_a.report["joint_list"][0]["name"]
    assert "editor-user" in config["members"]
    assert config["parameters"] == {
        "alpha": 0.6,
        "theta_max_deg": 75.0,
        "measure": "speed",
        "method": "mtp",
        "blend": "crossfade",
    }
    [comment] = config["comments"]
    assert (comment["frame_start"], comment["frame_end"]) == (12, 20)
    assert comment["mentions"] == ["editor-user"]
    joints = re.findall(r'<option value="([^"]*)">', html.split("data-comment-form")[1])
    assert joints[0] == "" and len(joints) == len(config["joints"]) + 1


def test_a_proposal_whose_run_is_gone_still_shows_its_thread(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    Transition.objects.filter(pk=proposal.transition_id).delete()
    html = _page(members["reviewer"], proposal)
    assert "viewer arrays are gone" in html and "data-canvas" not in html
    assert _json_script(html, "proposal-source") is None
    assert "data-comment-form" in html and "frame 30 · 0.50 s" in html
    editor = _page(members["editor"], proposal)
    assert "data-revise-form" not in editor and "data-no-revision-source" in editor


# --- the proposal page's forms ------------------------------------------------------------


def test_an_assigned_reviewer_approves_with_a_note(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    _assign(proposal, members, "reviewer")
    client = _client(members["reviewer"])
    response = client.post(
        reverse("proposal-decide", args=[proposal.pk]),
        {"decision": "approve", "note": "Clean push-off."},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("proposal", args=[proposal.pk]) + "#decide"
    proposal.refresh_from_db()
    assert proposal.status == "approved"
    html = _html(client.get(response["Location"]))
    assert "1 of 1 approval" in html and "“Clean push-off.”" in html
    assert "decide" not in _forms(html) and "revise" not in _forms(
        _page(members["editor"], proposal)
    )


def test_refused_decisions_are_shown_and_store_nothing(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    url = reverse("proposal-decide", args=[proposal.pk])
    # Not assigned: the service's 403, the page with its sentence, the note kept.
    response = _client(members["reviewer"]).post(url, {"decision": "approve", "note": "ok!"})
    assert response.status_code == 403
    html = _html(response)
    assert 'data-form-error="decide"' in html and "you are not assigned" in html
    # A verdict that does not exist: 400, the form's message.
    _assign(proposal, members, "reviewer")
    response = _client(members["reviewer"]).post(url, {"decision": "maybe", "note": "typed"})
    assert response.status_code == 400
    html = _html(response)
    assert "Select a valid choice" in html and ">typed</textarea>" in html
    # A viewer: 403 too.
    assert _client(members["viewer"]).post(url, {"decision": "reject"}).status_code == 403
    assert not Decision.objects.exists()
    proposal.refresh_from_db()
    assert proposal.status == "open"


def test_an_editor_revises_into_a_new_version_that_keeps_the_thread(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    comment_create(user=_user(members, "reviewer"), proposal_id=proposal.pk, body="Early?")
    client = _client(members["editor"])
    html = _page(members["editor"], proposal)
    sources = re.findall(r'<select name="transition"><option value="(\d+)"', html)
    assert sources == [str(proposal.transition_id)]
    response = client.post(
        reverse("proposal-revise", args=[proposal.pk]),
        {"transition": proposal.transition_id, "method": "end", "title": "", "summary": "Later."},
    )
    assert response.status_code == 302
    v2 = Proposal.objects.get(thread=proposal.thread, version=2)
    assert response["Location"] == reverse("proposal", args=[v2.pk]) + "#revise"
    assert (v2.method, v2.cut_frame, v2.title, v2.summary) == ("end", 44, proposal.title, "Later.")
    proposal.refresh_from_db()
    assert proposal.status == "superseded"
    old = _page(members["viewer"], proposal)
    assert 'data-status="superseded"' in old and f'href="/proposals/{v2.pk}/"' in old
    new = _html(client.get(response["Location"]))
    assert f"/proposals/compare/?a={proposal.pk}&amp;b={v2.pk}" in new
    assert [c["body"] for c in _json_script(new, "review-config")["comments"]] == ["Early?"]


def test_refused_revisions_are_shown_and_store_nothing(
    proposal: Proposal, members: dict[str, AbstractUser], clip: Any
) -> None:
    url = reverse("proposal-revise", args=[proposal.pk])
    other = finish_transition(clip, clip)  # not succeeded in the report's sense: no methods
    bad = [
        ({"transition": proposal.transition_id, "method": "sideways"}, 400, "Select a valid"),
        ({"transition": 999999, "method": "mtp"}, 400, "Select a valid"),
        ({"transition": other.pk, "method": "mtp"}, 400, "cut (it has: none)"),
        ({"transition": proposal.transition_id, "method": "fixed70"}, 400, "(it has: mtp, end)"),
    ]
    for data, status, message in bad:
        response = _client(members["editor"]).post(url, {**data, "title": "Kept title"})
        assert response.status_code == status, (data, response.status_code)
        html = _html(response)
        assert 'data-form-error="revise"' in html and message in html, (data, message)
        assert 'value="Kept title"' in html
    assert _client(members["reviewer"]).post(url, {"method": "end"}).status_code in {400, 403}
    assert Proposal.objects.count() == 1 and not Transition.objects.filter(proposals__version=2)


def test_an_editor_replaces_the_reviewers(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    html = _page(members["editor"], proposal)
    offered = re.findall(r'<option value="([\w-]+)"', html.split('id="assign-reviewers"')[1])
    offered = offered[: offered.index("mtp")] if "mtp" in offered else offered
    assert "editor-user" not in offered and "viewer-user" not in offered  # author, too low
    assert {"owner-user", "reviewer-user"} <= set(offered)
    url = reverse("proposal-reviewers", args=[proposal.pk])
    response = _client(members["editor"]).post(url, {"reviewers": ["reviewer-user", "owner-user"]})
    assert response.status_code == 302
    assert sorted(a.reviewer.username for a in proposal.thread.reviewers.all()) == [
        "owner-user",
        "reviewer-user",
    ]
    html = _page(members["editor"], proposal)
    assert re.search(r'<option value="reviewer-user" selected>', html)
    # Someone who may not review: the form refuses, the set stays.
    response = _client(members["editor"]).post(url, {"reviewers": ["viewer-user"]})
    assert response.status_code == 400 and "Select a valid choice" in _html(response)
    assert proposal.thread.reviewers.count() == 2
    assert _client(members["reviewer"]).post(url, {"reviewers": []}).status_code == 403
    assert proposal.thread.reviewers.count() == 2


# --- the transition page's form -----------------------------------------------------------


def test_the_transition_page_offers_the_propose_form_to_editors(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    url = reverse("transition", args=[proposal.transition_id])
    html = _html(_client(members["editor"]).get(url))
    assert "data-propose-form" in html
    form = html.split("data-propose-form")[1]
    assert re.findall(r'<option value="(\w+)">', form.split('name="reviewers"')[0]) == [
        "mtp",
        "end",
    ]
    reviewers = re.findall(r'<option value="([\w-]+)">', form.split('name="reviewers"')[1])
    assert reviewers == ["owner-user", "reviewer-user"]  # not the editor, not the viewer
    assert f'href="/proposals/{proposal.pk}/"' in html  # the proposals already made
    viewer = _html(_client(members["viewer"]).get(url))
    assert "data-propose-form" not in viewer and f'href="/proposals/{proposal.pk}/"' in viewer


def test_proposing_from_the_transition_page(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    url = reverse("transition-propose", args=[proposal.transition_id])
    response = _client(members["editor"]).post(
        url,
        {
            "method": "end",
            "title": "End cut",
            "summary": "Baseline.",
            "reviewers": ["reviewer-user"],
        },
    )
    assert response.status_code == 302
    made = Proposal.objects.get(title="End cut")
    assert response["Location"] == reverse("proposal", args=[made.pk])
    assert (made.method, made.version, made.summary) == ("end", 1, "Baseline.")
    assert [a.reviewer.username for a in made.thread.reviewers.all()] == ["reviewer-user"]


def test_refused_proposals_are_shown_on_the_transition_page_and_store_nothing(
    proposal: Proposal, members: dict[str, AbstractUser], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = reverse("transition-propose", args=[proposal.transition_id])
    before = (Proposal.objects.count(), Activity.objects.count(), Notification.objects.count())
    client = _client(members["editor"])
    cases = [
        ({"method": "fixed70"}, "cut (it has: mtp, end)"),  # the report has no such cut
        ({"method": "mtp", "reviewers": ["editor-user"]}, "Select a valid choice"),
        ({"method": "mtp", "title": "x" * 201}, "at most 200 characters"),
    ]
    for data, message in cases:
        response = client.post(url, data, follow=True)
        assert response.redirect_chain[-1][0].endswith("#propose"), data
        html = _html(response)
        assert "Nothing was proposed." in html and message in html, (data, message)

    # The reviewers are assigned in the same transaction: their refusal undoes the proposal.
    def refuse(**kwargs: Any) -> None:
        raise ServiceError("No reviewers today.", code="role_too_low")

    monkeypatch.setattr(proposing, "reviewers_assign", refuse)
    response = client.post(url, {"method": "mtp", "reviewers": ["reviewer-user"]}, follow=True)
    assert "No reviewers today." in _html(response)
    after = (Proposal.objects.count(), Activity.objects.count(), Notification.objects.count())
    assert after == before
    viewer = _client(members["viewer"]).post(url, {"method": "mtp"}, follow=True)
    assert "Nothing was proposed." in _html(viewer) and Proposal.objects.count() == before[0]


# --- compare, activity, notifications, the project page -------------------------------------


def test_two_proposals_compared(proposal: Proposal, members: dict[str, AbstractUser]) -> None:
    v2 = proposal_revise(user=_user(members, "editor"), proposal_id=proposal.pk, method="end")
    client = _client(members["viewer"])
    url = reverse("proposal-compare")
    html = _html(client.get(url, {"a": proposal.pk, "b": v2.pk}))
    sources = _json_script(html, "compare-sources")
    assert list(sources) == [f"p{proposal.pk}", f"p{v2.pk}"]
    assert sources[f"p{v2.pk}"]["url"].endswith("/download/viewer-end.json/")
    assert html.count("data-metrics") == 2 and html.count("Foot slide (m/s)") == 3
    summary = html.split("data-compare-summary")[1].split("</table>")[0]
    retention = re.search(r"Retention</th>(.*?)</tr>", summary)
    assert retention and re.findall(r'<td class="num">(.*?)</td>', retention.group(1)) == [
        "<strong>0.696</strong>",
        "0.416",
    ]
    assert "End of clip" in summary and "Foot slide (m/s)</th>" in summary
    assert "frame 30 · 0.50 s" in html and "frame 44 · 0.73 s" in html
    assert len(re.findall(r"<select data-side=", html)) == 2
    for query in ({"a": proposal.pk}, {"a": "x", "b": v2.pk}, {"a": v2.pk, "b": v2.pk}):
        assert client.get(url, query).status_code == 400, query
    outsider = _client(members["outsider"]).get(url, {"a": proposal.pk, "b": v2.pk})
    assert outsider.status_code == 404


def test_the_activity_log_newest_first(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    _assign(proposal, members, "reviewer")
    comment_create(user=_user(members, "reviewer"), proposal_id=proposal.pk, body="Looks good")
    other = finish_proposal(finish_transition(proposal.clip_a, proposal.clip_a), members["owner"])
    url = reverse("project-activity", args=[proposal.project_id])
    html = _html(_client(members["viewer"]).get(url))
    verbs = re.findall(r'class="activity__item" data-verb="([\w.]+)"', html)
    assert verbs == [
        "proposal.created",
        "comment.created",
        "proposal.reviewers_assigned",
        "proposal.created",
    ]
    assert "<strong>reviewer-user</strong> commented on" in html and "“Looks good”" in html
    assert "reviewers: reviewer-user" in html
    one = _html(_client(members["viewer"]).get(url, {"proposal": proposal.pk}))
    assert len(re.findall(r'class="activity__item"', one)) == 3 and other.title in html
    assert _client(members["outsider"]).get(url).status_code == 404


def test_notifications_the_header_count_and_marking_read(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    client = _client(members["reviewer"])
    assert 'data-unread="0"' in _html(client.get(reverse("home")))
    _assign(proposal, members, "reviewer")
    comment_create(user=_user(members, "editor"), proposal_id=proposal.pk, body="@reviewer-user?")
    html = _html(client.get(reverse("home")))
    assert (
        'data-unread="2"' in html
        and '<span class="count-badge" aria-hidden="true">2</span>' in html
    )
    page = _html(client.get(reverse("notifications")))
    rows = re.findall(r'data-notification="(\d+)" data-unread="(\w+)"', page)
    assert [unread for _, unread in rows] == ["true", "true"]
    assert "<strong>editor-user</strong> commented on" in page
    assert f'href="/proposals/{proposal.pk}/"' in page
    response = client.post(reverse("notifications-read"), {"id": rows[1][0]}, follow=True)
    page = _html(response)
    assert "1 notification marked read." in page and 'data-unread="1"' in page
    rows = re.findall(r'data-notification="(\d+)" data-unread="(\w+)"', page)
    assert [unread for _, unread in rows] == ["true", "false"]  # unread first
    page = _html(client.post(reverse("notifications-read"), follow=True))
    assert "1 notification marked read." in page and 'data-unread="0"' in page
    assert client.post(reverse("notifications-read"), {"id": "x"}).status_code == 400
    editor = _html(_client(members["editor"]).get(reverse("notifications")))
    assert "data-notification=" not in editor and "No notifications." in editor  # their own acts


def test_the_project_page_lists_each_proposal_once(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    v2 = proposal_revise(user=_user(members, "editor"), proposal_id=proposal.pk, method="end")
    html = _html(_client(members["viewer"]).get(reverse("project", args=[proposal.project_id])))
    rows = re.findall(r'<tr data-proposal="(\d+)">', html)
    assert rows == [str(v2.pk)]
    assert "v2" in html and ">Open</span>" in html and "editor-user" in html
    assert f'href="/projects/{proposal.project_id}/activity/"' in html
    assert not Comment.objects.exists()


def test_owners_set_the_approval_rule_on_the_project_page(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    project_url = reverse("project", args=[proposal.project_id])
    assert "data-rule-form" not in _html(_client(members["editor"]).get(project_url))
    owner = _client(members["owner"])
    html = _html(owner.get(project_url))
    assert "data-rule-form" in html and "<strong data-approvals-required>1</strong>" in html
    url = reverse("project-review-rule", args=[proposal.project_id])
    html = _html(owner.post(url, {"approvals_required": "2"}, follow=True))
    assert "A version now needs 2 approvals." in html
    assert "<strong data-approvals-required>2</strong>" in html
    assert "0 of 2 approvals" in _page(members["viewer"], proposal)
    for bad in ("0", "21", "two"):
        html = _html(owner.post(url, {"approvals_required": bad}, follow=True))
        assert "The rule was not changed." in html, bad
    html = _html(_client(members["editor"]).post(url, {"approvals_required": "1"}, follow=True))
    assert "The rule was not changed. This needs the owner role" in html
    assert "<strong data-approvals-required>2</strong>" in _html(owner.get(project_url))


def test_opening_a_proposal_reads_its_notifications_with_a_post(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    """The page's GET leaves them unread and hands their ids to its script, which POSTs
    them to the API once the page is open (static/js/review/mark-read.js)."""
    client = _client(members["reviewer"])
    _assign(proposal, members, "reviewer")
    comment_create(user=_user(members, "editor"), proposal_id=proposal.pk, body="@reviewer-user?")
    unread = Notification.objects.filter(user=_user(members, "reviewer"), read_at__isnull=True)
    assert unread.count() == 2
    other = Notification.objects.create(  # about nothing in this thread
        user=_user(members, "reviewer"),
        activity=Activity.objects.create(
            project=proposal.project, actor=_user(members, "owner"), verb="rule.changed"
        ),
    )
    html = _html(client.get(reverse("proposal", args=[proposal.pk])))
    assert 'data-unread="3"' in html and unread.count() == 3  # the GET read nothing
    posted = _json_script(html, "review-config")["unread"]
    thread = sorted(set(unread.values_list("pk", flat=True)) - {other.pk})
    assert posted == {"ids": thread, "url": reverse("api:notifications-read")}
    answer = client.post(posted["url"], {"ids": posted["ids"]}, content_type="application/json")
    assert answer.json() == {"marked": 2, "unread_count": 1}
    assert list(unread.values_list("pk", flat=True)) == [other.pk]
    again = _json_script(
        _html(client.get(reverse("proposal", args=[proposal.pk]))), "review-config"
    )
    assert again["unread"]["ids"] == []
