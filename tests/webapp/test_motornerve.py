"""MotorNerve through the API: a drive (an intent timeline on a clip's rig) and a
training (weights from the project's clips) are runs of the ``motornerve`` kind; bad
timelines are 400s naming the field, trainings on unusable clips fail with the reason
and change nothing else; a recording becomes a clip that loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import AbstractUser
from django.test import Client

from motioncore import bvh
from motioncore.clip import Clip as MotionClip
from motioncore.motornerve import network
from motioncore.skeleton import canonical
from support.humanoid import chain_skeleton
from support.web import SAMPLES, client_for, processed
from webapp.clips.models import Clip
from webapp.motornerve import stages
from webapp.motornerve.models import Drive, Training
from webapp.projects.models import Project
from webapp.runs import pipeline
from webapp.runs.models import Run, Status

WALK = SAMPLES / "games105" / "walk60.bvh"
DRIVES = "/api/v1/motornerve/drives/"
TIMELINE = {
    "duration_s": 3.0,
    "keys": [
        {"t": 0.0, "action": "idle"},
        {"t": 0.5, "action": "walk", "speed_mps": 1.3, "direction_deg": 0},
        {"t": 2.0, "action": "walk", "speed_mps": 1.3, "direction_deg": -90},
    ],
}
SMALL = network.Shape(channels=32, kernel=5, gru=16, intent_hidden=(32, 32), fusion=(64, 64, 32))


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


@pytest.fixture
def small_weights(monkeypatch: pytest.MonkeyPatch) -> network.Weights:
    """Untrained small weights in place of the shipped ones (what the stage does, fast)."""
    weights = network.random_weights(SMALL, seed=2, scale=0.5)
    monkeypatch.setattr(stages, "shipped_weights", lambda: weights)
    return weights


def _content(response: Any) -> bytes:
    return b"".join(response.streaming_content)


def test_a_drive_plays_the_timeline_on_the_clip_rig_with_measures_and_downloads(
    project: Project, members: dict[str, AbstractUser], media_root: object, small_weights: object
) -> None:
    clip = processed(project, members["editor"], WALK)
    client = client_for(members["editor"])
    created = client.post(DRIVES, {"clip": clip.pk, "timeline": TIMELINE}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["run"]["status"] == "queued" and body["result"] == {}
    assert body["parameters"]["timeline"]["keys"][1]["speed_mps"] == 1.3
    assert all(url is None for url in body["downloads"].values())
    drive = Drive.objects.get(pk=body["id"])
    assert drive.run.stages == [stages.DRIVE_STAGE] and drive.run.clip_id == clip.pk

    pipeline.execute(run_id=drive.run.pk)
    detail = client.get(f"{DRIVES}{drive.pk}/").json()
    assert detail["run"]["status"] == Status.SUCCEEDED, detail["run"]["error"]
    frames = 181
    assert detail["result"]["frames"] == frames and detail["result"]["fps"] == 60.0
    for key in ("foot_skate_per_step_m", "max_joint_speed_degps", "penetration_worst_m"):
        assert key in detail["result"]
    on_rig = bvh.load(_content(client.get(detail["downloads"]["drive.bvh"])))
    assert on_rig.skeleton.names == bvh.load(WALK).skeleton.names
    assert on_rig.num_frames == frames
    canonical_drive = bvh.load(_content(client.get(detail["downloads"]["drive-canonical.bvh"])))
    assert canonical_drive.skeleton.names == canonical.NAMES
    viewer = json.loads(_content(client.get(detail["downloads"]["viewer.json"])))
    assert viewer["frames"] == frames
    report = json.loads(_content(client.get(detail["downloads"]["report.json"])))
    assert report["weights"] == "motornerve-v2.npz"


@pytest.mark.parametrize(
    ("raw_keys", "field"),
    [
        ('[{"t": 0, "speed_mps": NaN}]', "keys[0].speed_mps"),
        ('[{"t": 0}, {"t": 1, "direction_deg": Infinity}]', "keys[1].direction_deg"),
        ('[{"t": 0, "speed_mps": 12}]', "keys[0].speed_mps"),
        ('[{"t": 0, "action": "wave"}]', "keys[0].action"),
        ('[{"t": 0}, {"t": 2}, {"t": 1}]', "keys[2].t"),
        ('[{"t": 0, "strength": -1}]', "keys[0].strength"),
    ],
)
def test_a_bad_timeline_is_a_400_naming_the_field_and_starts_nothing(
    project: Project,
    members: dict[str, AbstractUser],
    media_root: object,
    raw_keys: str,
    field: str,
) -> None:
    clip = processed(project, members["editor"], WALK)
    runs = Run.objects.count()
    text = f'{{"clip": {clip.pk}, "timeline": {{"keys": {raw_keys}}}}}'
    response = client_for(members["editor"]).post(DRIVES, text, content_type="application/json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert field in error["details"]["fields"]["timeline"], error
    assert not Drive.objects.exists() and Run.objects.count() == runs


def test_only_editors_drive_and_outsiders_see_nothing(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    clip = processed(project, members["editor"], WALK)
    body = {"clip": clip.pk, "timeline": TIMELINE}
    assert client_for(members["viewer"]).post(DRIVES, body, format="json").status_code == 403
    assert client_for(members["reviewer"]).post(DRIVES, body, format="json").status_code == 403
    assert client_for(members["outsider"]).post(DRIVES, body, format="json").status_code == 404
    assert not Drive.objects.exists()


def test_a_recording_becomes_a_clip_of_the_project_that_loads(
    project: Project, members: dict[str, AbstractUser], media_root: object, small_weights: object
) -> None:
    clip = processed(project, members["editor"], WALK)
    client = client_for(members["editor"])
    body = {"clip": clip.pk, "timeline": TIMELINE, "record": True, "name": "my drive"}
    drive = Drive.objects.get(pk=client.post(DRIVES, body, format="json").json()["id"])
    pipeline.execute(run_id=drive.run.pk)
    drive.refresh_from_db()
    assert drive.run.status == Status.SUCCEEDED, drive.run.error
    recorded = Clip.objects.get(pk=drive.result["recorded_clip"])
    assert recorded.project == project and recorded.name == "my drive.bvh"
    assert recorded.frames == 181
    first = recorded.runs.get()  # its own upload pipeline, queued
    pipeline.execute(run_id=first.pk)
    first.refresh_from_db()
    assert first.status == Status.SUCCEEDED, first.error
    page = Client()
    page.force_login(members["viewer"])
    assert page.get(f"/clips/{recorded.pk}/").status_code == 200
    # The run again (a retry) adds no second clip: the same bytes are the same clip.
    assert Clip.objects.filter(project=project).count() == 2


def _trainings(project: Project) -> str:
    return f"/api/v1/projects/{project.pk}/motornerve/trainings/"


def _footless(path: Path) -> Path:
    """A BVH of a hips-chest chain (no legs), 2 s at 30 fps."""
    rig = chain_skeleton()
    frames = 60
    rotations = np.tile([1.0, 0.0, 0.0, 0.0], (frames, 3, 1))
    translations = np.broadcast_to(rig.offsets, (frames, 3, 3)).copy()
    path.write_text(bvh.dump(MotionClip(rig, rotations, translations, 30.0)), encoding="utf-8")
    return path


def test_a_training_on_clips_without_feet_fails_with_the_reason_and_changes_nothing(
    project: Project, members: dict[str, AbstractUser], media_root: object, tmp_path: Path
) -> None:
    paths = (WALK, SAMPLES / "cmu-bvh11" / "131_02.bvh", _footless(tmp_path / "torso.bvh"))
    clips = [processed(project, members["editor"], p) for p in paths]
    before = {c.pk: (c.sha256, c.frames) for c in Clip.objects.all()}
    artifacts = sum(c.artifacts.count() for c in Clip.objects.all())
    client = client_for(members["editor"])
    created = client.post(_trainings(project), {"clips": [c.pk for c in clips]}, format="json")
    assert created.status_code == 201, created.content
    training = Training.objects.get(pk=created.json()["id"])
    pipeline.execute(run_id=training.run.pk)
    training.refresh_from_db()
    assert training.run.status == Status.FAILED
    assert (
        "feet" in training.run.error
        or "humanoid" in training.run.error
        or "s of motion" in training.run.error
    ), training.run.error
    assert training.result == {}
    assert {c.pk: (c.sha256, c.frames) for c in Clip.objects.all()} == before
    assert sum(c.artifacts.count() for c in Clip.objects.all()) == artifacts
    detail = client.get(f"/api/v1/motornerve/trainings/{training.pk}/").json()
    assert detail["run"]["status"] == "failed" and all(
        v is None for v in detail["downloads"].values()
    )


def test_a_training_that_names_no_epochs_takes_the_deployments_setting(
    project: Project, members: dict[str, AbstractUser], media_root: object, settings: Any
) -> None:
    settings.MOTORNERVE_TRAIN_EPOCHS = 7
    clip = processed(project, members["editor"], WALK)
    client = client_for(members["editor"])
    response = client.post(_trainings(project), {"clips": [clip.pk]}, format="json")
    assert response.status_code == 201, response.content
    assert Training.objects.get(pk=response.json()["id"]).run.parameters["epochs"] == 7
    body = {"clips": [clip.pk], "epochs": 3}
    response = client.post(_trainings(project), body, format="json")
    assert Training.objects.get(pk=response.json()["id"]).run.parameters["epochs"] == 3


def test_a_training_takes_only_the_projects_own_clips(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    clip = processed(project, members["editor"], WALK)
    other = Project.objects.create(name="Other")
    client = client_for(members["editor"])
    response = client.post(_trainings(project), {"clips": [clip.pk, 999_999]}, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "unknown_clip"
    response = client.post(
        _trainings(project), {"clips": [clip.pk], "interact": [5]}, format="json"
    )
    assert response.status_code == 400
    assert (
        client_for(members["viewer"])
        .post(_trainings(project), {"clips": [clip.pk]}, format="json")
        .status_code
        == 403
    )
    assert (
        client_for(members["editor"])
        .get(f"/api/v1/projects/{other.pk}/motornerve/trainings/")
        .status_code
        == 404
    )
    assert not Training.objects.exists()


def test_a_training_on_the_projects_clips_gives_weights_a_drive_can_use(
    project: Project,
    members: dict[str, AbstractUser],
    media_root: object,
    shared_data: Path,
    settings: Any,
) -> None:
    settings.MOTORNERVE_TRAIN_WINDOWS = 128
    folder = shared_data / "bvh" / "cmu-3dsmax-jinny42"
    clips = [
        processed(project, members["editor"], folder / f"69_{n}.bvh") for n in ("06", "10", "68")
    ]
    client = client_for(members["editor"])
    body = {"name": "mine", "clips": [c.pk for c in clips], "interact": [clips[2].pk], "epochs": 2}
    created = client.post(_trainings(project), body, format="json")
    assert created.status_code == 201, created.content
    training = Training.objects.get(pk=created.json()["id"])
    pipeline.execute(run_id=training.run.pk)
    detail = client.get(f"/api/v1/motornerve/trainings/{training.pk}/").json()
    assert detail["run"]["status"] == "succeeded", detail["run"]["error"]
    # Training flushes subnormal floats to zero while it runs, and only then.
    assert np.float32(1e-40) * np.float32(2.0) != 0.0
    assert detail["result"]["epochs"] == 2 and detail["result"]["parameters"] > 2_000_000
    assert detail["result"]["minutes"]["train"]["walk"] > 0
    weights = network.Weights.load(
        __import__("io").BytesIO(_content(client.get(detail["downloads"]["weights.npz"])))
    )
    assert weights.parameter_count == detail["result"]["parameters"]
    log = _content(client.get(detail["downloads"]["training.jsonl"])).decode().splitlines()
    assert len(log) == 2 and json.loads(log[-1])["epoch"] == 2
    listed = client.get(_trainings(project)).json()
    assert [t["id"] for t in listed] == [training.pk]

    drive_body = {"clip": clips[0].pk, "timeline": TIMELINE, "training": training.pk}
    drive = client.post(DRIVES, drive_body, format="json")
    assert drive.status_code == 201, drive.content
    made = Drive.objects.get(pk=drive.json()["id"])
    pipeline.execute(run_id=made.run.pk)
    made.refresh_from_db()
    assert made.run.status == Status.SUCCEEDED, made.run.error
    assert made.training_id == training.pk and made.result["frames"] == 181
