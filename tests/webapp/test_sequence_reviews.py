"""A sequence's joins reviewed like a transition's cut: a join proposed (API and the
sequence page's form), commented at its frames in the sequence clip, decided, revised
from a sequence with the join set by hand; bad proposals refused with nothing stored.
Sequences are rendered by the real pipeline in-process on real clips (GAMES-105 run and
walk)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import Client

from support.web import SAMPLES, client_for, processed
from webapp.clips.models import Clip
from webapp.projects.models import Project
from webapp.reviews.models import Proposal
from webapp.runs import pipeline
from webapp.runs.models import Status
from webapp.sequences.models import Sequence

WALK = SAMPLES / "games105" / "walk60.bvh"
RUN = SAMPLES / "games105" / "run_forward.bvh"


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


@pytest.fixture
def clips(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> dict[str, Clip]:
    editor = members["editor"]
    return {"run": processed(project, editor, RUN), "walk": processed(project, editor, WALK)}


def _render(user: AbstractUser, project: Project, ids: list[int], **extra: Any) -> Sequence:
    body = {"project": project.pk, "clips": ids, **extra}
    response = client_for(user).post("/api/v1/sequences/", body, format="json")
    assert response.status_code == 201, response.content
    made = Sequence.objects.get(pk=response.json()["id"])
    pipeline.execute(run_id=made.run.pk)
    made.refresh_from_db()
    assert made.run.status == Status.SUCCEEDED, made.run.error
    return made


def _browser(user: AbstractUser) -> Client:
    """A logged-in browser session (the pages), beside the API's ``client_for``."""
    browser = Client()
    browser.force_login(user)
    return browser


def _propose(user: AbstractUser, project: Project, body: dict[str, Any]) -> Any:
    return client_for(user).post(f"/api/v1/projects/{project.pk}/proposals/", body, format="json")


def test_a_join_is_proposed_commented_at_its_frames_and_approved(
    clips: dict[str, Clip], members: dict[str, AbstractUser], project: Project
) -> None:
    ids = [clips["run"].pk, clips["walk"].pk, clips["walk"].pk]
    made = _render(members["editor"], project, ids)
    join = made.result["joins"][1]
    response = _propose(members["editor"], project, {"sequence": made.pk, "join": 2})
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["sequence"], body["join_number"], body["transition"]) == (made.pk, 2, None)
    assert (body["clip_a"], body["clip_b"]) == (clips["walk"].pk, clips["walk"].pk)
    assert body["cut_frame"] == join["cut"]["frame"]  # one frame rate: no conversion
    assert body["entry_frame"] == join["entry"]["frame"]
    chosen = body["metrics"]["mtp"]
    assert chosen["velocity_continuity"] == join["metrics"]["velocity_continuity"]
    assert body["blend"]["layout"]["blend_start_frame"] == join["layout"]["blend_start_frame"]
    assert body["transition_frames"] == made.result["frames"]
    assert body["title"].endswith(f"(join 2 of sequence {made.pk})")
    proposal = body["id"]

    editor = client_for(members["editor"])
    assigned = editor.put(
        f"/api/v1/proposals/{proposal}/reviewers/",
        {"reviewers": [members["reviewer"].username]},
        format="json",
    )
    assert assigned.status_code == 200, assigned.content
    reviewer = client_for(members["reviewer"])
    start, stop = join["layout"]["blend_start_frame"], join["layout"]["blend_stop_frame"]
    comment = reviewer.post(
        f"/api/v1/proposals/{proposal}/comments/",
        {"body": "The left foot pops here.", "frame_start": start, "frame_end": stop},
        format="json",
    )
    assert comment.status_code == 201, comment.content
    assert (comment.json()["frame_start"], comment.json()["frame_end"]) == (start, stop)
    decided = reviewer.post(
        f"/api/v1/proposals/{proposal}/decisions/", {"decision": "approve"}, format="json"
    )
    assert decided.status_code == 201, decided.content
    assert Proposal.objects.get(pk=proposal).status == "approved"

    page = _browser(members["viewer"]).get(f"/sequences/{made.pk}/").content.decode()
    assert 'data-join-review="2"' in page and body["title"] in page
    assert "data-propose-join" not in page  # viewers do not propose
    shown = _browser(members["viewer"]).get(f"/proposals/{proposal}/").content.decode()
    assert f"join 2 of sequence {made.pk}" in shown
    assert f"/api/v1/sequences/{made.pk}/download/viewer.json/" in shown  # the player's clip
    report = client_for(members["viewer"]).get(f"/api/v1/proposals/{proposal}/report.json")
    assert report.json()["proposal"]["sequence"] == made.pk


def test_a_join_proposal_is_revised_from_the_sequence_with_the_join_set_by_hand(
    clips: dict[str, Clip], members: dict[str, AbstractUser], project: Project
) -> None:
    walk = clips["walk"].pk
    first = _render(members["editor"], project, [walk, walk])
    proposal = _propose(members["editor"], project, {"sequence": first.pk, "join": 1}).json()
    adjusted = _render(members["editor"], project, [walk, walk], edits=[{"cut": 120, "entry": 10}])
    editor = client_for(members["editor"])
    revised = editor.post(
        f"/api/v1/proposals/{proposal['id']}/revise/",
        {"sequence": adjusted.pk, "join": 1},
        format="json",
    )
    assert revised.status_code == 201, revised.content
    v2 = revised.json()
    assert (v2["version"], v2["thread"], v2["sequence"]) == (2, proposal["thread"], adjusted.pk)
    assert (v2["cut_frame"], v2["entry_frame"]) == (120, 10)
    assert v2["parameters"]["cut"]["reason"] == "set by hand"
    assert Proposal.objects.get(pk=proposal["id"]).status == "superseded"

    other = _render(members["editor"], project, [clips["run"].pk, walk])
    refused = editor.post(
        f"/api/v1/proposals/{v2['id']}/revise/", {"sequence": other.pk, "join": 1}, format="json"
    )
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "different_clips"

    browser = _browser(members["editor"])
    page = browser.get(f"/proposals/{v2['id']}/").content.decode()
    assert "data-revise-join-form" in page and f'value="{first.pk}:1"' in page
    posted = browser.post(
        f"/proposals/{v2['id']}/revise-join/", {"source": f"{first.pk}:1", "title": ""}
    )
    assert posted.status_code == 302
    v3 = Proposal.objects.get(thread_id=proposal["thread"], version=3)
    assert (v3.sequence_id, v3.cut_frame) == (first.pk, proposal["cut_frame"])


def test_the_sequence_page_proposes_a_join_with_its_reviewers(
    clips: dict[str, Clip], members: dict[str, AbstractUser], project: Project
) -> None:
    walk = clips["walk"].pk
    made = _render(members["editor"], project, [walk, walk])
    editor = _browser(members["editor"])
    page = editor.get(f"/sequences/{made.pk}/").content.decode()
    assert 'data-propose-join="1"' in page
    posted = editor.post(
        f"/sequences/{made.pk}/joins/1/propose/",
        {"title": "Walk loop", "reviewers": [members["reviewer"].username]},
    )
    assert posted.status_code == 302
    made_proposal = Proposal.objects.get(sequence=made)
    assert posted["Location"] == f"/proposals/{made_proposal.pk}/"
    assert made_proposal.title == "Walk loop"
    assert [a.reviewer.username for a in made_proposal.thread.reviewers.all()] == [
        members["reviewer"].username
    ]
    missing = editor.post(f"/sequences/{made.pk}/joins/7/propose/", {"title": "x"}, follow=True)
    assert "Nothing was proposed. The sequence has joins 1 to 1, not 7." in missing.content.decode()
    assert Proposal.objects.count() == 1


def test_bad_join_proposals_are_refused_and_store_nothing(
    clips: dict[str, Clip], members: dict[str, AbstractUser], project: Project
) -> None:
    walk = clips["walk"].pk
    made = _render(members["editor"], project, [walk, walk])
    pending = Sequence.objects.get(
        pk=client_for(members["editor"])
        .post("/api/v1/sequences/", {"project": project.pk, "clips": [walk, walk]}, format="json")
        .json()["id"]
    )
    elsewhere = Project.objects.create(name="Elsewhere")
    cases: list[tuple[AbstractUser, Project, dict[str, Any], int, str]] = [
        (members["editor"], project, {"sequence": made.pk, "join": 2}, 400, "join_out_of_range"),
        (members["editor"], project, {"sequence": made.pk, "join": 0}, 400, "validation_error"),
        (members["editor"], project, {"sequence": made.pk}, 400, "validation_error"),
        (members["editor"], project, {"join": 1}, 400, "validation_error"),
        (members["editor"], project, {"sequence": made.pk, "join": 1, "transition": 1}, 400, ""),
        (members["editor"], project, {"sequence": made.pk, "join": 1, "method": "end"}, 400, ""),
        (members["editor"], project, {}, 400, "validation_error"),
        (members["editor"], project, {"sequence": pending.pk, "join": 1}, 409, ""),
        (members["reviewer"], project, {"sequence": made.pk, "join": 1}, 403, ""),
        (members["outsider"], project, {"sequence": made.pk, "join": 1}, 404, ""),
        (members["editor"], elsewhere, {"sequence": made.pk, "join": 1}, 404, ""),
    ]
    for user, where, body, code, error in cases:
        response = _propose(user, where, body)
        assert response.status_code == code, (body, response.content)
        if error:
            assert response.json()["error"]["code"] == error, response.content
    assert Proposal.objects.count() == 0
