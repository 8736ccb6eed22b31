"""PFNN walks through the API: ``POST pfnn/generate/`` queues a run with the ``pfnn``
stage on the rig clip; the real pipeline (in-process) walks the path with the shipped
weights and stores the walk on the rig, on the canonical skeleton, its viewer arrays
and its measures."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser

from motioncore import bvh
from motioncore.skeleton import canonical
from support.web import SAMPLES, client_for, processed
from webapp.pfnn.models import Generation
from webapp.projects.models import Project
from webapp.runs import pipeline
from webapp.runs.models import Status

WALK = SAMPLES / "games105" / "walk60.bvh"
URL = "/api/v1/pfnn/generate/"


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


def _content(response: Any) -> bytes:
    return b"".join(response.streaming_content)


def test_a_walk_is_put_on_the_clip_rig_with_its_measures_and_downloads(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    clip = processed(project, members["editor"], WALK)
    client = client_for(members["editor"])
    body = {"clip": clip.pk, "path": [[0, 0], [0, 4], [2, 6]], "speed_mps": 1.2}
    created = client.post(URL, body, format="json")
    assert created.status_code == 201, created.content
    walk = created.json()
    assert walk["run"]["status"] == "queued" and walk["result"] == {}
    assert walk["parameters"]["mode"] == "constant" and walk["parameters"]["foot_lock"] is True
    assert all(url is None for url in walk["downloads"].values())

    generation = Generation.objects.get(pk=walk["id"])
    assert generation.run.stages == ["pfnn"] and generation.run.clip_id == clip.pk
    pipeline.execute(run_id=generation.run.pk)
    detail = client.get(f"/api/v1/pfnn/generations/{walk['id']}/").json()
    assert detail["run"]["status"] == Status.SUCCEEDED, detail["run"]["error"]
    result = detail["result"]
    assert result["path_rms_m"] < 0.2 and result["foot_slide_mps"] < 0.05
    frames = round((4 + 8**0.5) / 1.2 * 60)
    assert result["frames"] == frames and result["fps"] == 60.0

    on_rig = bvh.load(_content(client.get(detail["downloads"]["walk.bvh"])))
    assert on_rig.skeleton.names == bvh.load(WALK).skeleton.names
    assert on_rig.num_frames == frames
    canonical_walk = bvh.load(_content(client.get(detail["downloads"]["walk-canonical.bvh"])))
    assert canonical_walk.skeleton.names == canonical.NAMES
    viewer = json.loads(_content(client.get(detail["downloads"]["viewer.json"])))
    assert viewer["frames"] == frames and viewer["joints"] == on_rig.skeleton.num_joints
    report = json.loads(_content(client.get(detail["downloads"]["report.json"])))
    assert report["weights"] == "pfnn-v1.npz" and report["path_rms_m"] == result["path_rms_m"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"path": [[0, 0]]}, "path"),
        ({"path": [[0, 0], [0, 0.01]]}, "path"),
        ({"path": [[0, 0], [0, 500]]}, "path"),  # 385 s at 1.3 m/s
        ({"speed_mps": 9}, "speed_mps"),
        ({"mode": "fast"}, "mode"),
        ({"path": [[0, 0, 1], [0, 3, 1]]}, "path"),
    ],
)
def test_bad_requests_say_what_is_wrong_and_start_nothing(
    project: Project,
    members: dict[str, AbstractUser],
    media_root: object,
    change: dict[str, Any],
    field: str,
) -> None:
    clip = processed(project, members["editor"], WALK)
    body = {"clip": clip.pk, "path": [[0, 0], [0, 3]], "speed_mps": 1.3, **change}
    response = client_for(members["editor"]).post(URL, body, format="json")
    assert response.status_code == 400, response.content
    assert field in json.dumps(response.json()["error"])
    assert not Generation.objects.exists()


def test_what_a_short_walk_cannot_measure_is_null_not_nan(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    clip = processed(project, members["editor"], WALK)
    client = client_for(members["editor"])
    body = {"clip": clip.pk, "path": [[0, 0], [0, 3]], "seconds": 0.5}
    walk = client.post(URL, body, format="json").json()
    generation = Generation.objects.get(pk=walk["id"])
    pipeline.execute(run_id=generation.run.pk)
    result = client.get(f"/api/v1/pfnn/generations/{walk['id']}/").json()["result"]
    assert result["frames"] == 30 and result["phase_drift_rad"] is None  # < 3 left strikes


def test_the_walk_page_offers_the_editor_to_editors_and_lists_walks_to_members(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    from django.test import Client

    from support.web import finish_generation

    clip = processed(project, members["editor"], WALK)
    finish_generation(clip)
    url = f"/clips/{clip.pk}/walk/"

    def page(role: str) -> Any:
        client = Client()
        client.force_login(members[role])
        return client.get(url)

    editor, viewer = page("editor"), page("viewer")
    assert editor.status_code == viewer.status_code == 200
    assert b"/api/v1/pfnn/generate/" in editor.content
    assert b'id="path-editor"' in editor.content and b'id="path-editor"' not in viewer.content
    assert b"data-generation-id" in viewer.content  # the walk is listed for everyone
    assert page("outsider").status_code == 404
    clip_page = Client()
    clip_page.force_login(members["viewer"])
    assert url.encode() in clip_page.get(f"/clips/{clip.pk}/").content  # linked from the clip
