"""The score editor's server side: the preview animates an edited score without storing
anything, names each problem by its symbol, and is bounded; a saved edit is the next
version (its own clip and run; the older versions stay); templates start a score."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import Client
from django.test.utils import override_settings

from support.web import SAMPLES, animated_score, client_for
from webapp.clips.models import Clip
from webapp.laban.editing import TEMPLATES
from webapp.laban.models import Score
from webapp.projects.models import Project
from webapp.runs import pipeline
from webapp.runs.models import Run

WALK = SAMPLES / "scores" / "walk_forward.json"


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


@pytest.fixture
def walk(project: Project, members: dict[str, AbstractUser], media_root: object) -> Score:
    return animated_score(
        project=project, user=members["editor"], name="walk_forward.json", data=WALK.read_bytes()
    )


def _edited(score: Score, change: Any) -> dict[str, Any]:
    edited: dict[str, Any] = json.loads(json.dumps(score.score))
    change(edited)
    return edited


def _later(edited: dict[str, Any]) -> None:
    """The last step (L, beat 7) a beat later: the body is in the air on beat 7 (no
    support written), and the left foot lands on beat 8."""
    assert edited["symbols"][7]["column"] == "support_left"
    edited["symbols"][7]["beat"] = 8


def _stored() -> tuple[int, int, int]:
    return Score.objects.count(), Clip.objects.count(), Run.objects.count()


def test_the_preview_animates_the_edit_and_stores_nothing(
    walk: Score, members: dict[str, AbstractUser]
) -> None:
    before = _stored()
    original = client_for(members["editor"]).post(
        f"/api/v1/scores/{walk.pk}/preview/", {"score": walk.score}, format="json"
    )
    edited = client_for(members["editor"]).post(
        f"/api/v1/scores/{walk.pk}/preview/", {"score": _edited(walk, _later)}, format="json"
    )
    assert original.status_code == edited.status_code == 200, edited.content[:300]
    assert _stored() == before
    a, b = original.json(), edited.json()
    assert a["animation"]["footprints"] == walk.animation["footprints"]  # what the run made
    assert b["viewer"]["format"] == "kinetograph-viewer/1" and b["synthesis_ms"] > 0
    prints_a, prints_b = a["animation"]["footprints"], b["animation"]["footprints"]
    spb = 60.0 / walk.score["tempo_bpm"]
    # the last left print is made on beat 8 (4 s), not during beat 7; the earlier as before
    assert prints_a[-1]["side"] == prints_b[-1]["side"] == "left"
    assert 7 * spb < prints_a[-1]["start_s"] < 8 * spb <= prints_b[-1]["start_s"]
    assert prints_b[:-2] == prints_a[:-2]
    frames = b["viewer"]["frames"]
    assert len(b["viewer"]["positions"]) == frames * b["viewer"]["joints"] * 3


def test_the_preview_names_each_problem_by_its_symbol(
    walk: Score, members: dict[str, AbstractUser]
) -> None:
    def overlap(edited: dict[str, Any]) -> None:
        edited["symbols"][5]["column"] = "support_right"  # L's step onto R's step 4 (4-5)
        edited["symbols"][5]["beat"] = 4.5

    response = client_for(members["editor"]).post(
        f"/api/v1/scores/{walk.pk}/preview/", {"score": _edited(walk, overlap)}, format="json"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_score"
    named = {p.split(" ", 2)[1] for p in error["details"]["problems"]}
    assert "5" in named, error["details"]["problems"]


@override_settings(SCORE_PREVIEW_MAX_DURATION_S=4)
def test_a_preview_past_its_bound_is_refused_naming_the_setting(
    walk: Score, members: dict[str, AbstractUser]
) -> None:
    response = client_for(members["editor"]).post(
        f"/api/v1/scores/{walk.pk}/preview/", {"score": walk.score}, format="json"
    )
    assert response.status_code == 413
    assert response.json()["error"]["details"]["setting"] == (
        "KINETOGRAPH_SCORE_PREVIEW_MAX_DURATION_S"
    )


@pytest.mark.parametrize(
    "body",
    [{}, {"score": []}, {"score": {"format": "other"}}, {"score": "x"}],
    ids=["no score", "a list", "wrong format", "a string"],
)
def test_bad_edits_are_refused_and_nothing_is_stored(
    walk: Score, members: dict[str, AbstractUser], body: dict[str, Any]
) -> None:
    before = _stored()
    for url in (f"/api/v1/scores/{walk.pk}/preview/", f"/api/v1/scores/{walk.pk}/versions/"):
        response = client_for(members["editor"]).post(url, body, format="json")
        assert response.status_code == 400, (url, response.content[:200])
    assert _stored() == before


def test_a_saved_edit_is_version_2_animated_by_its_own_run_and_version_1_stays(
    walk: Score, members: dict[str, AbstractUser], recorded_runs: list[int]
) -> None:
    client = client_for(members["editor"])
    response = client.post(
        f"/api/v1/scores/{walk.pk}/versions/", {"score": _edited(walk, _later)}, format="json"
    )
    assert response.status_code == 201, response.content[:300]
    body = response.json()
    assert (body["version"], body["origin"]) == (2, walk.pk)
    assert body["name"] == "walk_forward-v2.json" and body["clip"] != walk.clip_id
    pipeline.execute(run_id=body["run"]["id"])
    v2 = Score.objects.get(pk=body["id"])
    assert v2.animation["footprints"] != walk.animation["footprints"]
    walk.refresh_from_db()
    assert walk.version == 1 and walk.animation  # unchanged, still playable
    # a third version from version 2 numbers after the family's newest
    third = client.post(
        f"/api/v1/scores/{v2.pk}/versions/",
        {"score": _edited(v2, lambda s: s["symbols"].pop())},
        format="json",
    )
    assert third.json()["version"] == 3 and third.json()["origin"] == walk.pk
    listed = client.get(f"/api/v1/scores/{walk.pk}/versions/").json()
    assert [v["version"] for v in listed] == [1, 2, 3]
    # the first version unchanged: refused, naming it
    unchanged = client.post(
        f"/api/v1/scores/{v2.pk}/versions/", {"score": walk.score}, format="json"
    )
    assert unchanged.status_code == 409
    assert unchanged.json()["error"]["details"]["score"] == walk.pk
    # the same score again: refused, naming the score it already is
    again = client.post(
        f"/api/v1/scores/{walk.pk}/versions/", {"score": _edited(walk, _later)}, format="json"
    )
    assert again.status_code == 409
    assert again.json()["error"]["details"]["score"] == v2.pk


def test_viewers_neither_preview_nor_save(walk: Score, members: dict[str, AbstractUser]) -> None:
    client = client_for(members["viewer"])
    for url in (f"/api/v1/scores/{walk.pk}/preview/", f"/api/v1/scores/{walk.pk}/versions/"):
        assert client.post(url, {"score": walk.score}, format="json").status_code == 403


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_each_template_starts_a_score_that_animates(
    template: str, project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    response = client_for(members["editor"]).post(
        f"/api/v1/projects/{project.pk}/scores/from-template/", {"template": template}, "json"
    )
    assert response.status_code == 201, response.content[:300]
    pipeline.execute(run_id=response.json()["run"]["id"])
    made = Score.objects.get(pk=response.json()["id"])
    assert made.animation["footprints"] and made.name == f"{template}.json"


def test_the_project_page_starts_a_score_from_a_template_and_the_score_page_lists_versions(
    walk: Score, project: Project, members: dict[str, AbstractUser]
) -> None:
    client = Client()
    client.force_login(members["editor"])
    page = client.get(f"/projects/{project.pk}/").content.decode()
    assert "data-score-template-form" in page
    made = client.post(f"/projects/{project.pk}/scores/from-template/", {"template": "jump"})
    assert made.status_code == 302
    score = Score.objects.get(name="jump.json")
    assert made.url == f"/scores/{score.pk}/"
    unknown = client.post(f"/projects/{project.pk}/scores/from-template/", {"template": "x"})
    assert unknown.status_code == 400
    detail = client.get(f"/scores/{walk.pk}/").content.decode()
    assert "data-editor" in detail and "Save as version 2" in detail
    assert 'data-version="1"' in detail
    viewer = Client()
    viewer.force_login(members["viewer"])
    assert "data-editor" not in viewer.get(f"/scores/{walk.pk}/").content.decode()
