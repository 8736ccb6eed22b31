"""Bounded work (issue 16): what an upload or a run may ask for is limited by settings,
checked before anything is allocated, and refused with a 4xx naming the limit
(findings 2 and 9); score synthesis and long analyses never run inside a request
(finding 4); the score upload checks the role before it reads the body (finding 3);
score amounts are range-checked (finding 12); a run over its budget fails with the
reason (finding 2)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser, User
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.parsers import MultiPartParser

from motioncore import parameters
from support.web import SAMPLES, client_for, processed
from webapp.clips.models import Clip
from webapp.clips.services import clip_upload_create
from webapp.laban.models import Score
from webapp.projects.models import Project
from webapp.runs import pipeline
from webapp.runs.models import Run, Status

WALK = SAMPLES / "games105" / "walk60.bvh"  # 182 frames at 60 Hz, 25 joints
SCORE = SAMPLES / "scores" / "walk_forward.json"
HEADER = "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xrotation Yrotation Zrotation\n"


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


def _editor(members: dict[str, AbstractUser]) -> User:
    user = members["editor"]
    assert isinstance(user, User)
    return user


def _upload(user: AbstractUser | None, project: Project, name: str, data: bytes) -> Any:
    file = SimpleUploadedFile(name, data)
    return client_for(user).post(
        f"/api/v1/projects/{project.pk}/clips/", {"file": file}, format="multipart"
    )


def _deep(levels: int) -> bytes:
    joint = "JOINT j\n{\n  OFFSET 0 1 0\n  CHANNELS 3 Xrotation Yrotation Zrotation\n"
    text = HEADER + joint * levels + "}\n" * (levels + 1)
    text += "MOTION\nFrames: 1\nFrame Time: 0.1\n" + "0 " * (3 * (levels + 1)) + "\n"
    return text.encode()


def test_a_tiny_file_declaring_a_million_frames_is_refused(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    """Finding 2: 125 bytes, ``Frames: 1000000``, a ``CHANNELS 0`` root: over the frame
    limit (413); under it, refused all the same (400: the frame lines of a skeleton without
    channels are counted, never trusted). Nothing is stored."""
    text = b"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 0\n}\nMOTION\nFrames: 1000000\n"
    text += b"Frame Time: 0.0333\n"
    response = _upload(members["editor"], project, "tiny.bvh", text)
    assert response.status_code == 413, response.content
    assert response.json()["error"]["details"]["limit"] == "max_frames"
    under = _upload(members["editor"], project, "tiny.bvh", text.replace(b"1000000", b"100000"))
    assert under.status_code == 400, under.content
    assert "declares 100000 frames but 0 frame lines" in under.json()["error"]["message"]
    assert not Clip.objects.exists()


@pytest.mark.parametrize(
    ("setting", "value", "limit"),
    [
        ("MOTION_MAX_FRAMES", 100, "max_frames"),
        ("MOTION_MAX_DURATION_S", 2, "max_duration_s"),
        ("MOTION_MAX_FRAME_JOINTS", 1000, "max_frame_joints"),
        ("MOTION_MAX_JOINTS", 10, "max_joints"),
    ],
)
def test_an_upload_over_a_limit_is_a_413_naming_it(
    settings: Any,
    project: Project,
    members: dict[str, AbstractUser],
    media_root: object,
    setting: str,
    value: int,
    limit: str,
) -> None:
    """Finding 2: frames, duration, frames × joints and joints each have a setting; a file
    over one is a 413 ``limit_exceeded`` that names the limit and its variable."""
    setattr(settings, setting, value)
    response = _upload(members["editor"], project, "walk.bvh", WALK.read_bytes())
    assert response.status_code == 413, response.content
    error = response.json()["error"]
    assert error["code"] == "limit_exceeded" and error["details"]["limit"] == limit
    assert error["details"]["setting"].startswith("KINETOGRAPH_MAX_")
    assert error["details"]["maximum"] == value
    assert not Clip.objects.exists()


def test_a_thousand_nested_joints_are_a_413_not_a_500(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    """Finding 9: ~1,000 nested ``JOINT``\\ s raised RecursionError (500); now the nesting
    limit refuses them (and the anonymous request is a 401 before any parsing)."""
    response = _upload(members["editor"], project, "deep.bvh", _deep(1000))
    assert response.status_code == 413, response.content
    assert response.json()["error"]["details"]["limit"] == "max_depth"
    assert _upload(None, project, "deep.bvh", _deep(1000)).status_code == 401
    assert _upload(members["editor"], project, "ok.bvh", _deep(20)).status_code == 201


def test_a_run_on_a_clip_a_lowered_limit_no_longer_allows_fails_with_the_reason(
    settings: Any, project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    """Finding 2, per run: the limits are checked again when a run reads the clip."""
    clip = processed(project, _editor(members), WALK)
    settings.MOTION_MAX_FRAMES = 100
    run = client_for(members["editor"]).post(f"/api/v1/clips/{clip.pk}/runs/", {}).json()
    pipeline.execute(run_id=run["id"])
    failed = Run.objects.get(pk=run["id"])
    assert failed.status == Status.FAILED and "at most 100 frames" in failed.error


def test_a_run_over_its_artifact_budget_fails_with_the_reason(
    settings: Any, project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    """Finding 2: the artifacts of one run are capped; past the cap the run fails, says
    why, and the file that would have passed it is not written."""
    settings.RUN_MAX_ARTIFACT_BYTES = 200_000
    clip = clip_upload_create(
        project=project, user=_editor(members), name="walk.bvh", data=WALK.read_bytes()
    ).clip
    pipeline.execute(run_id=clip.runs.get().pk)
    run = clip.runs.get()
    assert run.status == Status.FAILED
    assert "KINETOGRAPH_RUN_MAX_ARTIFACT_BYTES" in run.error
    assert sum(a.size_bytes for a in run.artifacts.all()) <= 200_000


@pytest.fixture
def no_synthesis_in_requests(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Record every call of the score synthesis (it must happen in runs only)."""
    from motioncore.laban import synthesize as module
    from webapp.laban import stages

    calls: list[str] = []
    real = module.synthesize

    def recorded(*args: Any, **kwargs: Any) -> Any:
        calls.append("synthesize")
        return real(*args, **kwargs)

    monkeypatch.setattr(stages, "synthesize", recorded)
    yield calls


def test_a_score_upload_does_not_animate_in_the_request(
    project: Project,
    members: dict[str, AbstractUser],
    media_root: object,
    no_synthesis_in_requests: list[str],
) -> None:
    """Finding 4: the upload validates and queues; the animation is the clip's first run
    (with progress), not request work."""
    file = SimpleUploadedFile("walk.json", SCORE.read_bytes())
    created = client_for(members["editor"]).post(
        f"/api/v1/projects/{project.pk}/scores/", {"file": file}, format="multipart"
    )
    assert created.status_code == 201, created.content
    assert no_synthesis_in_requests == [] and created.json()["measures"] is None
    pipeline.execute(run_id=created.json()["run"]["id"])
    assert no_synthesis_in_requests == ["synthesize"]
    assert Score.objects.get().animation["footprints"]


def test_the_score_upload_checks_the_role_before_reading_the_body(
    monkeypatch: pytest.MonkeyPatch,
    project: Project,
    members: dict[str, AbstractUser],
    media_root: object,
) -> None:
    """Finding 3: a viewer's upload is refused without parsing the multipart body; a body
    over the score limit is refused before it is read."""
    parsed: list[int] = []
    real = MultiPartParser.parse

    def recorded(self: MultiPartParser, *args: Any, **kwargs: Any) -> Any:
        parsed.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(MultiPartParser, "parse", recorded)
    file = SimpleUploadedFile("walk.json", SCORE.read_bytes())
    url = f"/api/v1/projects/{project.pk}/scores/"
    refused = client_for(members["viewer"]).post(url, {"file": file}, format="multipart")
    assert refused.status_code == 403 and parsed == []
    big = client_for(members["editor"]).generic(
        "POST", url, b"x" * 1024, CONTENT_TYPE="multipart/form-data; boundary=b",
        CONTENT_LENGTH=str(3 * 1024 * 1024 + 1),
    )  # fmt: skip
    assert big.status_code == 413 and parsed == []


def test_an_over_deep_or_absurd_score_is_a_400(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    """Findings 9 and 12: a score 2,000 levels deep (RecursionError, 500) and a curved
    path of ``amount_deg: 1e308`` (accepted, animated) are refused with 400."""
    url = f"/api/v1/projects/{project.pk}/scores/"
    client = client_for(members["editor"])
    deep = b'{"format": "kinetograph-score/1", "meta": ' + b"[" * 2000 + b"]" * 2000 + b"}"
    response = client.post(url, {"file": SimpleUploadedFile("d.json", deep)}, format="multipart")
    assert response.status_code == 400 and "nested 2001 levels" in response.content.decode()
    score = json.loads((SAMPLES / "scores" / "curved_path.json").read_text())
    (path,) = [s for s in score["symbols"] if s["kind"] == "path"]
    path["amount_deg"] = 1e308
    body = json.dumps(score).encode()
    absurd = client.post(url, {"file": SimpleUploadedFile("a.json", body)}, format="multipart")
    assert absurd.status_code == 400 and "amount_deg must be at most" in absurd.content.decode()
    assert not Score.objects.exists()


def test_a_long_clip_is_analysed_from_storage_or_pointed_at_a_run(
    settings: Any, project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    """Finding 4: past ``ANALYSIS_SYNC_MAX_FRAMES`` the analysis GET never recomputes: the
    stored analysis at its own parameters, else a 409 pointing at a run; that run's
    analysis is then served."""
    clip = processed(project, _editor(members), WALK)
    settings.ANALYSIS_SYNC_MAX_FRAMES = 100
    client = client_for(members["editor"])
    url = f"/api/v1/clips/{clip.pk}/analysis/"
    stored = client.get(url)
    assert stored.status_code == 200
    assert stored.json()["parameters"]["alpha"] == parameters.ALPHA.default
    other = client.get(url, {"alpha": 0.75})
    assert other.status_code == 409 and other.json()["error"]["code"] == "analysis_too_long"
    assert other.json()["error"]["details"]["run_url"] == f"/api/v1/clips/{clip.pk}/runs/"
    run = client.post(f"/api/v1/clips/{clip.pk}/runs/", {"alpha": 0.75}, format="json").json()
    pipeline.execute(run_id=run["id"])
    again = client.get(url, {"alpha": 0.75})
    assert again.status_code == 200 and again.json()["parameters"]["alpha"] == 0.75


def test_the_request_budget_holds_on_the_largest_inputs_allowed(
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
    project: Project,
    members: dict[str, AbstractUser],
    media_root: object,
) -> None:
    """Finding 4, the budget: a request analyses at most ``ANALYSIS_SYNC_MAX_FRAMES``
    frames (a clip at the limit is recomputed, one frame over it is not) and never runs
    a pipeline stage (cleaning, feature extraction, synthesis)."""
    from motioncore import analysis, clean
    from webapp.clips import analysis as clip_analysis

    analysed: list[int] = []
    real = analysis.analyze

    def counted(features: Any, **kwargs: Any) -> Any:
        analysed.append(features.num_frames)
        return real(features, **kwargs)

    clip = processed(project, _editor(members), WALK)  # the pipeline ran: now only requests
    monkeypatch.setattr(clip_analysis.analysis, "analyze", counted)
    monkeypatch.setattr(analysis, "features", _forbidden)  # what the stages call
    monkeypatch.setattr(clean, "clean", _forbidden)
    client = client_for(members["viewer"])
    url = f"/api/v1/clips/{clip.pk}/analysis/"
    settings.ANALYSIS_SYNC_MAX_FRAMES = clip.frames  # the largest clip recomputed
    assert client.get(url, {"alpha": 0.7}).status_code == 200
    settings.ANALYSIS_SYNC_MAX_FRAMES = clip.frames - 1  # one frame too many
    assert client.get(url, {"alpha": 0.7}).status_code == 409
    assert client.get(url).status_code == 200  # the stored one
    assert analysed == [clip.frames]


def _forbidden(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a pipeline stage ran inside a request")


def test_a_score_clip_joins_transitions_once_animated(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    """Until its first run has animated it, a score's clip has no motion: a transition
    from it is refused (409), not queued to fail in a worker."""
    walk = processed(project, _editor(members), WALK)
    file = SimpleUploadedFile("walk.json", SCORE.read_bytes())
    client = client_for(members["editor"])
    score = client.post(
        f"/api/v1/projects/{project.pk}/scores/", {"file": file}, format="multipart"
    ).json()
    body = {"clip_a": score["clip"], "clip_b": walk.pk}
    refused = client.post("/api/v1/transitions/", body, format="json")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "no_motion_yet"
    pipeline.execute(run_id=score["run"]["id"])
    assert Clip.objects.get(pk=score["clip"]).frames > 0
