"""What a review refuses, and why: frames outside their clip, unknown joints, mentions of
non-members, replies across threads, proposals of unfinished or foreign transitions,
revisions between other clips; and the pure helpers behind them (snapshot, mentions)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser, User

from support.web import client_for, finish_proposal, finish_transition, make_user, transition_report
from webapp.clips.models import Clip
from webapp.clips.services import clip_upload_create
from webapp.core.errors import ServiceError
from webapp.projects.models import Membership, Project, Role
from webapp.reviews import pins, snapshot
from webapp.reviews.comments import comment_create
from webapp.reviews.decisions import review_rule_set
from webapp.reviews.models import Comment, Proposal
from webapp.runs.models import Status


def _comment(user: AbstractUser, proposal: Proposal, **body: Any) -> Any:
    url = f"/api/v1/proposals/{proposal.pk}/comments/"
    return client_for(user).post(url, {"body": "Look here", **body}, format="json")


def _error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content[:300]
    error: dict[str, Any] = response.json()["error"]
    return error


# --- frames and joints --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pin", "ok"),
    [
        ({"frame_start": 49}, True),  # the transition clip has 50 frames
        ({"frame_start": 50}, False),
        ({"frame_clip": "a", "frame_start": 0, "frame_end": 44}, True),  # clip A: 45 frames
        ({"frame_clip": "a", "frame_start": 40, "frame_end": 45}, False),
        ({"frame_clip": "b", "frame_start": 45}, False),
    ],
)
def test_frames_must_lie_inside_their_clip(
    proposal: Proposal, members: dict[str, AbstractUser], pin: dict[str, int], ok: bool
) -> None:
    response = _comment(members["reviewer"], proposal, **pin)
    if ok:
        assert response.status_code == 201, response.content[:300]
        return
    error = _error(response, 400)
    assert error["code"] == "frame_out_of_range"
    assert "outside" in error["message"] and "frames 0 to" in error["message"]
    assert set(error["details"]["fields"]) <= {"frame_start", "frame_end"}
    assert not Comment.objects.exists()


def test_a_frame_range_needs_a_start_and_its_order(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    backwards = _error(_comment(members["reviewer"], proposal, frame_start=9, frame_end=3), 400)
    assert backwards["code"] == "invalid_frame_range" and "before" in backwards["message"]
    no_start = _error(_comment(members["reviewer"], proposal, frame_end=3), 400)
    assert no_start["code"] == "invalid_frame_range"
    negative = _error(_comment(members["reviewer"], proposal, frame_start=-1), 400)
    assert negative["code"] == "validation_error"


def test_joints_must_be_joints_of_the_skeleton(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    error = _error(_comment(members["reviewer"], proposal, joint="LeftKnee"), 400)
    assert error["code"] == "unknown_joint" and "'LeftKnee'" in error["message"]
    assert "lKnee" in error["details"]["joints"]
    assert _comment(members["reviewer"], proposal, joint="lKnee").status_code == 201


def test_a_parameter_set_is_checked(proposal: Proposal, members: dict[str, AbstractUser]) -> None:
    bad = _comment(members["reviewer"], proposal, parameter_set={"alpha": 3})
    assert _error(bad, 400)["details"]["fields"]["parameter_set"]["alpha"]
    good = _comment(members["reviewer"], proposal, parameter_set={"alpha": 0.7, "method": "end"})
    assert good.status_code == 201 and good.json()["parameter_set"] == {
        "alpha": 0.7,
        "method": "end",
    }


# --- mentions -----------------------------------------------------------------------------------


def test_mentions_of_non_members_are_refused(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    make_user("stranger")
    body = "Ask @outsider and @stranger, or @nobody-at-all."
    error = _error(_comment(members["reviewer"], proposal, body=body), 400)
    assert error["code"] == "unknown_mention"
    assert error["details"]["names"] == ["outsider", "stranger", "nobody-at-all"]
    assert "@outsider" in error["message"]
    assert not Comment.objects.exists()


def test_members_are_mentioned_and_addresses_are_not_mentions(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    body = "@viewer-user, see frame 12. Mail ana@studio.test or ask @owner-user."
    response = _comment(members["reviewer"], proposal, body=body)
    assert response.status_code == 201, response.content[:300]
    assert response.json()["mentions"] == ["owner-user", "viewer-user"]


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ("@ana please", ["ana"]),
        ("thanks @ana.", ["ana"]),
        ("@ana.b and @ana.b again", ["ana.b"]),
        ("ana@example.com", []),
        ("(@bo) [@cy]", ["bo", "cy"]),
        ("@", []),
        ("email@@x", []),
    ],
)
def test_mention_parsing(body: str, names: list[str]) -> None:
    assert pins.mentioned_names(body) == names


# --- replies and resolving ----------------------------------------------------------------------


def test_replies_stay_in_their_thread_and_attach_to_the_top_comment(
    proposal: Proposal, members: dict[str, AbstractUser], clip: Clip
) -> None:
    reviewer = members["reviewer"]
    top = _comment(reviewer, proposal).json()
    reply = _comment(reviewer, proposal, reply_to=top["id"]).json()
    deeper = _comment(reviewer, proposal, reply_to=reply["id"]).json()
    assert deeper["reply_to"] == top["id"]
    other = finish_proposal(finish_transition(clip, clip), members["editor"])
    elsewhere = _error(_comment(reviewer, other, reply_to=top["id"]), 400)
    assert elsewhere["code"] == "invalid_parent"
    resolve = client_for(reviewer).post(f"/api/v1/comments/{reply['id']}/resolve/")
    assert _error(resolve, 400)["code"] == "not_top_level"


def test_resolving_twice_is_one_resolution(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    top = _comment(members["reviewer"], proposal).json()
    client = client_for(members["editor"])
    first = client.post(f"/api/v1/comments/{top['id']}/resolve/").json()
    second = client.post(f"/api/v1/comments/{top['id']}/resolve/").json()
    assert first["resolved_by"] == second["resolved_by"] == "editor-user"
    assert first["resolved_at"] == second["resolved_at"]
    reopened = client.delete(f"/api/v1/comments/{top['id']}/resolve/").json()
    assert reopened["resolved_at"] is None and reopened["resolved_by"] is None
    verbs = list(proposal.activities.values_list("verb", flat=True).order_by("id"))
    assert verbs == [
        "proposal.created",
        "comment.created",
        "comment.resolved",
        "comment.unresolved",
    ]


def test_an_empty_comment_is_refused(proposal: Proposal, members: dict[str, AbstractUser]) -> None:
    assert _error(_comment(members["reviewer"], proposal, body="   "), 400)["details"]["fields"]
    reviewer = members["reviewer"]
    assert isinstance(reviewer, User)
    with pytest.raises(ServiceError, match="needs some text"):
        comment_create(user=reviewer, proposal_id=proposal.pk, body=" \n")


# --- proposing and revising ---------------------------------------------------------------------


def _propose(user: AbstractUser, project_id: int, **body: Any) -> Any:
    url = f"/api/v1/projects/{project_id}/proposals/"
    return client_for(user).post(url, body, format="json")


def test_a_transition_must_have_finished(
    clip: Clip, project: Project, members: dict[str, AbstractUser]
) -> None:
    transition = finish_transition(clip, clip)
    transition.run.status = Status.RUNNING
    transition.run.save()
    error = _error(_propose(members["editor"], project.pk, transition=transition.pk), 409)
    assert error["code"] == "transition_not_finished" and "running" in error["message"]


def test_the_method_must_be_in_the_report(
    clip: Clip, project: Project, members: dict[str, AbstractUser]
) -> None:
    transition = finish_transition(clip, clip)
    transition.result = transition_report()
    transition.save()
    error = _error(
        _propose(members["editor"], project.pk, transition=transition.pk, method="fixed70"), 400
    )
    assert error["code"] == "unknown_method" and "mtp, end" in error["message"]
    unknown = _propose(members["editor"], project.pk, transition=transition.pk, method="best")
    assert _error(unknown, 400)["code"] == "validation_error"


def test_a_report_that_does_not_fit_the_clips_is_refused(
    clip: Clip, project: Project, members: dict[str, AbstractUser]
) -> None:
    transition = finish_transition(clip, clip)
    transition.result = transition_report(cut=45)  # clip A has frames 0 to 44
    transition.save()
    error = _error(_propose(members["editor"], project.pk, transition=transition.pk), 400)
    assert error["code"] == "frame_out_of_range" and "cut frame 45" in error["message"]
    assert not Proposal.objects.exists()


def test_a_transition_of_another_project_is_404(
    clip: Clip, project: Project, members: dict[str, AbstractUser]
) -> None:
    transition = finish_transition(clip, clip)
    transition.result = transition_report()
    transition.save()
    other = Project.objects.create(name="Other")
    Membership.objects.create(project=other, user=members["editor"], role=Role.EDITOR)
    response = _propose(members["editor"], other.pk, transition=transition.pk)
    assert _error(response, 404)["code"] == "not_found"


def test_a_revision_stays_between_the_same_clips(
    proposal: Proposal, members: dict[str, AbstractUser], sample_bvh: bytes
) -> None:
    editor = members["editor"]
    assert isinstance(editor, User)
    other_clip = clip_upload_create(
        project=proposal.project, user=editor, name="other.bvh", data=sample_bvh + b"\n"
    ).clip
    elsewhere = finish_transition(other_clip, other_clip)
    elsewhere.result = transition_report()
    elsewhere.save()
    url = f"/api/v1/proposals/{proposal.pk}/revise/"
    response = client_for(editor).post(url, {"transition": elsewhere.pk}, format="json")
    assert _error(response, 400)["code"] == "different_clips"
    proposal.refresh_from_db()
    assert proposal.status == "open"


def test_a_revision_needs_a_transition_once_the_old_one_is_gone(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    assert proposal.transition is not None
    proposal.transition.delete()
    url = f"/api/v1/proposals/{proposal.pk}/revise/"
    response = client_for(members["editor"]).post(url, {}, format="json")
    assert _error(response, 400)["code"] == "transition_missing"
    kept = client_for(members["viewer"]).get(f"/api/v1/proposals/{proposal.pk}/").json()
    assert kept["transition"] is None and kept["metrics"]["mtp"]["momentum_retention"] == 0.696


def test_the_rule_is_between_one_and_twenty(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    url = f"/api/v1/projects/{project.pk}/review-rule/"
    owner = members["owner"]
    assert client_for(owner).get(url).json()["approvals_required"] == 1
    for bad in (0, 21):
        assert client_for(owner).put(url, {"approvals_required": bad}).status_code == 400
    assert isinstance(owner, User)
    with pytest.raises(ServiceError, match="between 1 and 20"):
        review_rule_set(user=owner, project_id=project.pk, approvals_required=0)


# --- the snapshot -------------------------------------------------------------------------------


def test_the_snapshot_copies_the_method_and_the_whole_table() -> None:
    report = transition_report(cut=12, entry=3, frames=40)
    run = {"alpha": 0.5, "method": "energy", "blend_s": 0.2}
    snap = snapshot.take(report, run, "mtp")
    assert (snap.cut_frame, snap.entry_frame, snap.transition_frames) == (12, 3, 40)
    assert (snap.alpha, snap.measure) == (0.6, "speed")  # the report's values win
    assert snap.metrics == report["metrics"] and snap.metrics is not report["metrics"]
    assert snap.parameters["engine"] == report["engine"] and snap.parameters["run"] == run
    end = snapshot.take(report, run, "end")
    assert (end.cut_frame, end.parameters["engine"]) == (44, None)  # engine: MTP's only
    old = snapshot.take({"metrics": {"mtp": {"cut_frame": 7, "entry_frame": 2}}}, run, "mtp")
    assert (old.cut_frame, old.alpha, old.measure, old.transition_frames) == (
        7,
        0.5,
        "energy",
        None,
    )
    with pytest.raises(snapshot.SnapshotError, match="no 'pca'"):
        snapshot.take(report, run, "pca")
    with pytest.raises(snapshot.SnapshotError) as broken:
        snapshot.take({"metrics": {"mtp": {}}}, run, "mtp")
    assert broken.value.code == "incomplete_report"


def test_the_snapshot_does_not_follow_later_changes_of_the_run(
    proposal: Proposal, members: dict[str, AbstractUser]
) -> None:
    assert proposal.transition is not None
    proposal.transition.result = transition_report(cut=10)
    proposal.transition.save()
    body = client_for(members["viewer"]).get(f"/api/v1/proposals/{proposal.pk}/").json()
    assert body["cut_frame"] == 30 and body["metrics"]["mtp"]["cut_frame"] == 30
