"""Sequences through the API: three real clips of one skeleton (GAMES-105 run, walk,
walk) joined in order by a run, each join measured; a join set by hand; who may do
what; bad input refused with nothing started. Runs go through the real pipeline
in-process; broker messages are recorded, not sent."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import Client
from django.urls import reverse

from motioncore import bvh
from support.web import SAMPLES, client_for, processed
from webapp.clips.models import Clip
from webapp.projects.models import Project
from webapp.runs import pipeline
from webapp.runs.models import Status
from webapp.sequences.models import Sequence

WALK = SAMPLES / "games105" / "walk60.bvh"
RUN = SAMPLES / "games105" / "run_forward.bvh"
CMU = SAMPLES / "cmu-bvh11" / "131_02.bvh"


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


@pytest.fixture
def clips(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> dict[str, Clip]:
    editor = members["editor"]
    return {"run": processed(project, editor, RUN), "walk": processed(project, editor, WALK)}


def _post(user: AbstractUser, body: dict[str, Any]) -> Any:
    return client_for(user).post("/api/v1/sequences/", body, format="json")


def test_a_sequence_runs_and_every_join_is_measured(
    clips: dict[str, Clip], members: dict[str, AbstractUser], project: Project
) -> None:
    ids = [clips["run"].pk, clips["walk"].pk, clips["walk"].pk]
    response = _post(members["editor"], {"project": project.pk, "clips": ids})
    assert response.status_code == 201, response.content
    made = Sequence.objects.get(pk=response.json()["id"])
    assert made.clips == ids and made.edits == [None, None]
    assert made.parameters["blend"] == "auto" and made.parameters.get("blend_s") is None
    pipeline.execute(run_id=made.run.pk)
    made.refresh_from_db()
    assert made.run.status == Status.SUCCEEDED, made.run.error
    report = made.result
    assert [c["id"] for c in report["clips"]] == ids
    assert [(j["from_clip"], j["to_clip"]) for j in report["joins"]] == [(0, 1), (1, 2)]
    assert all("velocity_continuity" in j["metrics"] for j in report["joins"])
    detail = client_for(members["viewer"]).get(f"/api/v1/sequences/{made.pk}/").json()
    assert detail["run"]["status"] == "succeeded"
    url = detail["downloads"]["sequence.bvh"]
    body = b"".join(client_for(members["viewer"]).get(url).streaming_content)
    assert bvh.load(body).num_frames == report["frames"]
    listed = client_for(members["viewer"]).get(f"/api/v1/projects/{project.pk}/sequences/")
    assert [s["id"] for s in listed.json()["results"]] == [made.pk]


def test_a_join_set_by_hand_is_kept(
    clips: dict[str, Clip], members: dict[str, AbstractUser], project: Project
) -> None:
    ids = [clips["walk"].pk, clips["walk"].pk]
    body = {"project": project.pk, "clips": ids, "edits": [{"cut": 120, "entry": 10}]}
    response = _post(members["editor"], body)
    assert response.status_code == 201, response.content
    made = Sequence.objects.get(pk=response.json()["id"])
    pipeline.execute(run_id=made.run.pk)
    made.refresh_from_db()
    assert made.run.status == Status.SUCCEEDED, made.run.error
    join = made.result["joins"][0]
    assert (join["cut"]["frame"], join["entry"]["frame"]) == (120, 10)
    assert join["cut"]["reason"] == "set by hand"


@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        ({"clips": "one"}, 400, "clips"),
        ({"edits": [None, None]}, 400, "join edits"),
        ({"blend_min_s": 0.4, "blend_max_s": 0.2}, 400, "longest blend"),
        ({"other_project": True}, 400, "is not in project"),
        ({"cmu": True}, 400, "another skeleton"),
    ],
)
def test_bad_sequences_are_refused_and_start_nothing(
    clips: dict[str, Clip],
    members: dict[str, AbstractUser],
    project: Project,
    change: dict[str, Any],
    status: int,
    words: str,
) -> None:
    editor = members["editor"]
    body: dict[str, Any] = {"project": project.pk, "clips": [clips["run"].pk, clips["walk"].pk]}
    if change.pop("other_project", False):
        body["project"] = Project.objects.create(name="Elsewhere").pk
    if change.pop("cmu", False):
        body["clips"].append(processed(project, editor, CMU).pk)
    if change.get("clips") == "one":
        body["clips"] = body["clips"][:1]
        change = {}
    response = _post(editor, {**body, **change})
    assert response.status_code == status, response.content
    assert words in response.content.decode()
    assert not Sequence.objects.exists()


def test_viewers_may_read_but_not_start_and_outsiders_see_nothing(
    clips: dict[str, Clip], members: dict[str, AbstractUser], project: Project
) -> None:
    body = {"project": project.pk, "clips": [clips["run"].pk, clips["walk"].pk]}
    assert _post(members["viewer"], body).status_code == 403
    assert _post(members["outsider"], body).status_code == 404
    assert not Sequence.objects.exists()


def test_the_builder_page_is_for_editors_and_refuses_a_short_timeline(
    clips: dict[str, Clip], members: dict[str, AbstractUser], project: Project
) -> None:
    editor, viewer = Client(), Client()
    editor.force_login(members["editor"])
    viewer.force_login(members["viewer"])
    url = reverse("sequence-new", args=[project.pk])
    page = editor.get(url).content.decode()
    assert f'data-add="{clips["walk"].pk}"' in page and "data-timeline" in page
    assert viewer.get(url).status_code == 403
    form = {"alpha": "0.6", "theta_max_deg": "75", "measure": "speed", "blend": "auto"}
    short = editor.post(url, {**form, "clips": [str(clips["walk"].pk)]})
    assert short.status_code == 400 and "2 to 32 clips" in short.content.decode()
    assert not Sequence.objects.exists()
    made = editor.post(url, {**form, "clips": [str(clips["run"].pk), str(clips["walk"].pk)]})
    assert made.status_code == 302
    assert Sequence.objects.get().clips == [clips["run"].pk, clips["walk"].pk]
    project_page = editor.get(reverse("project", args=[project.pk])).content.decode()
    assert reverse("sequence", args=[Sequence.objects.get().pk]) in project_page


def test_joins_typed_on_the_page_render_a_new_sequence_with_them(
    clips: dict[str, Clip], members: dict[str, AbstractUser], project: Project
) -> None:
    editor = Client()
    editor.force_login(members["editor"])
    ids = [clips["walk"].pk, clips["walk"].pk]
    response = _post(members["editor"], {"project": project.pk, "clips": ids})
    first = Sequence.objects.get(pk=response.json()["id"])
    pipeline.execute(run_id=first.run.pk)
    page = editor.get(reverse("sequence", args=[first.pk])).content.decode()
    assert "data-adjust-joins" in page and 'name="cut-1"' in page
    url = reverse("sequence-adjust", args=[first.pk])
    assert editor.post(url, {"cut-1": "minus one"}).status_code == 400
    moved = editor.post(url, {"cut-1": "100", "entry-1": ""})
    assert moved.status_code == 302
    second = Sequence.objects.exclude(pk=first.pk).get()
    assert second.clips == ids and second.edits == [{"cut": 100, "entry": None}]
    pipeline.execute(run_id=second.run.pk)
    second.refresh_from_db()
    join = second.result["joins"][0]
    assert join["cut"]["frame"] == 100 and join["cut"]["reason"] == "set by hand"
