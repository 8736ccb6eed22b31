"""Labanotation scores in the web app: upload through the API (validated, added to the
project as a clip whose first run animates it: ``pipeline.execute`` here, what a worker
does), refusals that list every problem, downloads, and the project page's upload form."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from motioncore import bvh
from motioncore.laban.synthesize import STEPS
from motioncore.skeleton import canonical
from support.web import SAMPLES, client_for
from webapp.clips.models import Clip
from webapp.laban.models import Score
from webapp.projects.models import Project
from webapp.runs import pipeline, services

WALK = SAMPLES / "scores" / "walk_forward.json"


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


def _upload(user: AbstractUser, project: Project, name: str, data: bytes) -> Any:
    file = SimpleUploadedFile(name, data, content_type="application/json")
    return client_for(user).post(
        f"/api/v1/projects/{project.pk}/scores/", {"file": file}, format="multipart"
    )


def _content(response: Any) -> bytes:
    return bytes(response.content)


def _animated(user: AbstractUser, body: dict[str, Any]) -> dict[str, Any]:
    """Run the score's first run as a worker would; the score as the API shows it then."""
    pipeline.execute(run_id=body["run"]["id"])
    animated: dict[str, Any] = client_for(user).get(f"/api/v1/scores/{body['id']}/").json()
    return animated


def test_an_uploaded_score_is_animated_and_becomes_a_clip(
    project: Project,
    members: dict[str, AbstractUser],
    media_root: object,
    django_capture_on_commit_callbacks: Any,
    recorded_runs: list[int],
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(members["editor"], project, "walk_forward.json", WALK.read_bytes())
    assert response.status_code == 201, response.content
    queued = response.json()
    assert queued["measures"] is None and queued["run"]["status"] == "queued"  # not animated yet
    assert (
        client_for(members["viewer"]).get(queued["downloads"]["animation.bvh"]).status_code == 404
    )
    body = _animated(members["editor"], queued)
    assert body["run"]["status"] == "succeeded", body["run"]
    assert body["title"] == "Eight steps forward" and body["measures"]["steps"] == 8
    assert body["measures"]["ground_skate_m"] < 0.01 and body["measures"]["eps_physics_m2_s4"] < 10
    clip = Clip.objects.get(pk=body["clip"])
    assert clip.name == "walk_forward.json" and recorded_runs == [clip.runs.get().pk]
    assert clip.frames == body["measures"]["frames"] and clip.fps == 60  # filled in by the run
    client = client_for(members["viewer"])
    animation = bvh.load(_content(client.get(body["downloads"]["animation.bvh"])))
    assert animation.skeleton.names == canonical.NAMES
    viewer = json.loads(_content(client.get(body["downloads"]["animation.json"])))
    assert viewer["frames"] == body["measures"]["frames"] == animation.num_frames
    score = json.loads(_content(client.get(body["downloads"]["score.json"])))
    assert score["format"] == "kinetograph-score/1" and len(score["symbols"]) == 8
    prints = json.loads(_content(client.get(body["downloads"]["footprints.json"])))
    assert prints["seconds_per_beat"] == 0.5 and len(prints["footprints"]) == 10
    listed = client.get(f"/api/v1/projects/{project.pk}/scores/").json()
    assert [s["id"] for s in listed["results"]] == [body["id"]]
    again = _upload(members["editor"], project, "copy.json", WALK.read_bytes())
    assert again.json()["id"] == body["id"] and Score.objects.count() == 1  # same bytes


def test_a_microsoft_gesture_uploads_too(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    suite = {"wave": {"Position0": _pose("1"), "Position1": _pose("800", "Right", "High")}}
    response = _upload(members["editor"], project, "wave.json", json.dumps(suite).encode())
    assert response.status_code == 201, response.content
    assert response.json()["title"] == "wave"


def test_a_labanwriter_text_uploads_with_its_unread_records_reported(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    text = (SAMPLES / "labanwriter" / "walk.lw4.txt").read_bytes()
    response = _upload(members["editor"], project, "walk.lw4", text)
    assert response.status_code == 201, response.content
    body = _animated(members["editor"], response.json())
    notes = body["import_notes"]
    assert notes["records"] > 0 and notes["ignored_records"]  # kept and reported, not dropped
    assert all(r["reason"] for r in notes["ignored_records"])
    assert body["measures"]["steps"] > 0
    walk = _upload(members["editor"], project, "walk_forward.json", WALK.read_bytes())
    _animated(members["editor"], walk.json())
    assert walk.json()["import_notes"] is None
    browser = Client()
    browser.force_login(members["viewer"])
    page = browser.get(f"/scores/{body['id']}/")
    html = page.content.decode()
    assert page.status_code == 200 and "data-import-notes" in html
    for record in notes["ignored_records"]:  # every record set aside is listed
        assert f"<td>{record['line']}</td>" in html
    walk_page = browser.get(f"/scores/{walk.json()['id']}/")
    assert "data-import-notes" not in walk_page.content.decode()


def _pose(ms: str, direction: str = "Place", level: str = "Low") -> dict[str, Any]:
    limb = [direction, level]
    return {
        "start time": [ms],
        "duration": ["1"],
        "head": ["Forward", "Normal"],
        "right elbow": limb,
        "right wrist": limb,
        "left elbow": ["Place", "Low"],
        "left wrist": ["Place", "Low"],
        "rotation": ["ToRight", "0"],
    }


def test_an_invalid_score_lists_every_problem_and_stores_nothing(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    bad = json.loads(WALK.read_text())
    bad["symbols"][0]["direction"] = "up"
    bad["symbols"][3]["beat"] = 20
    response = _upload(members["editor"], project, "bad.json", json.dumps(bad).encode())
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_score"
    problems = error["details"]["problems"]
    assert any(p.startswith("symbol 0 (direction in support_right at beat 0)") for p in problems)
    assert any("symbol 3" in p and "after the score's" in p for p in problems)
    assert not Score.objects.exists() and not Clip.objects.exists()
    junk = _upload(members["editor"], project, "junk.json", b"{not json")
    assert junk.status_code == 400 and "not a JSON score" in junk.json()["error"]["message"]


def test_who_may_upload_and_read(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    assert _upload(members["viewer"], project, "w.json", WALK.read_bytes()).status_code == 403
    assert _upload(members["outsider"], project, "w.json", WALK.read_bytes()).status_code == 404
    created = _upload(members["editor"], project, "w.json", WALK.read_bytes()).json()
    assert (
        client_for(members["outsider"]).get(f"/api/v1/scores/{created['id']}/").status_code == 404
    )
    assert client_for(members["viewer"]).get(f"/api/v1/scores/{created['id']}/").status_code == 200


def test_the_project_page_uploads_a_score_and_shows_its_page(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    client = Client()
    client.force_login(members["editor"])
    page = client.get(f"/projects/{project.pk}/").content.decode()
    assert "data-score-form" in page
    file = SimpleUploadedFile("walk.json", WALK.read_bytes(), content_type="application/json")
    response = client.post(f"/projects/{project.pk}/scores/new/", {"file": file})
    score = Score.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/scores/{score.pk}/"
    waiting = client.get(f"/scores/{score.pk}/").content.decode()
    assert "run-status" in waiting and "score-view.js" not in waiting  # the run's progress
    assert "animation.bvh" not in waiting and "score.json" in waiting  # no link to a 404
    pipeline.execute(run_id=score.clip.runs.get().pk)
    shown = client.get(f"/scores/{score.pk}/").content.decode()
    assert "score-view.js" in shown and "run-status" not in shown
    bad = SimpleUploadedFile("bad.json", b'{"format": "kinetograph-score/1"}')
    refused = client.post(f"/projects/{project.pk}/scores/new/", {"file": bad})
    assert refused.status_code == 400 and b"tempo_bpm" in refused.content
    listed = client.get(f"/projects/{project.pk}/").content.decode()
    assert f"/scores/{score.pk}/" in listed


def test_the_animation_run_reports_each_step_of_the_synthesis(
    project: Project, members: dict[str, AbstractUser], media_root: object, monkeypatch: Any
) -> None:
    """The score's run tells its progress at every step of the synthesis (timing and
    footprints, centre path, foot keys, gestures, IK), in order and rising."""
    told: list[tuple[float, str]] = []
    record = services.run_progress

    def spy(*, run: Any, percent: float, stage: str) -> bool:
        told.append((percent, stage))
        return record(run=run, percent=percent, stage=stage)

    monkeypatch.setattr(services, "run_progress", spy)
    body = _animated(
        members["editor"], _upload(members["editor"], project, "w.json", WALK.read_bytes()).json()
    )
    assert body["run"]["status"] == "succeeded", body["run"]
    animating = [(p, s) for p, s in told if s.startswith("Animating the score: ")]
    steps = [s.removeprefix("Animating the score: ") for _, s in animating]
    assert steps == [name for _, name in STEPS]
    percents = [p for p, _ in animating]
    assert percents == sorted(percents) and percents[0] < percents[-1]
