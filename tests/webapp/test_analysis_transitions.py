"""The analysis stage, ``GET clips/{id}/analysis/`` and transitions, end to end in-process.

Real clips (GAMES-105 walk and run, same skeleton) go through the real pipeline
(``pipeline.execute``, what a worker does); broker messages are recorded, not sent.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import AbstractUser, User

from motioncore import analysis, bvh
from support.web import SAMPLES, client_for, finish_transition, processed
from webapp.clips.models import Artifact, ArtifactKind, Clip
from webapp.projects.models import Membership, Project, Role
from webapp.runs import pipeline
from webapp.runs.models import Run, Status
from webapp.transitions.models import Transition

WALK = SAMPLES / "games105" / "walk_forward.bvh"
RUN = SAMPLES / "games105" / "run_forward.bvh"


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


def _editor(members: dict[str, AbstractUser]) -> User:
    user = members["editor"]
    assert isinstance(user, User)
    return user


@pytest.fixture
def walk(project: Project, members: dict[str, AbstractUser], media_root: object) -> Clip:
    return processed(project, _editor(members), WALK)


@pytest.fixture
def run_clip(project: Project, members: dict[str, AbstractUser], media_root: object) -> Clip:
    return processed(project, _editor(members), RUN)


def test_the_pipeline_stores_the_analysis_and_its_features(walk: Clip) -> None:
    run = walk.runs.get()
    assert run.stages == ["ingest", "clean", "analyze"]
    assert set(run.timings) == {"ingest", "clean", "analyze"}
    kinds = set(Artifact.objects.filter(run=run).values_list("kind", flat=True))
    assert {ArtifactKind.ANALYSIS, ArtifactKind.ANALYSIS_FEATURES} <= kinds
    stored = Artifact.objects.get(run=run, kind=ArtifactKind.ANALYSIS)
    with stored.file.open("rb") as handle:
        body = json.loads(handle.read())
    assert body["available"] is True
    assert body["parameters"]["alpha"] == 0.6 and body["frames"] == walk.frames
    features = Artifact.objects.get(run=run, kind=ArtifactKind.ANALYSIS_FEATURES)
    with features.file.open("rb") as handle:
        loaded = analysis.Features.from_npz(handle.read())
    assert loaded.num_frames == walk.frames


def test_analysis_endpoint_recomputes_at_the_requested_parameters(
    walk: Clip, members: dict[str, AbstractUser]
) -> None:
    client = client_for(members["viewer"])
    url = f"/api/v1/clips/{walk.pk}/analysis/"
    low = client.get(url, {"alpha": 0.5, "theta_max_deg": 90, "measure": "speed"})
    high = client.get(url, {"alpha": 0.9, "theta_max_deg": 90, "measure": "energy"})
    assert low.status_code == 200 and high.status_code == 200
    assert "Deprecation" not in low.headers
    lo, hi = low.json(), high.json()
    assert lo["parameters"]["alpha"] == 0.5 and hi["parameters"]["measure"] == "energy"
    assert hi["parameters"]["curve_unit"] == "J/kg"
    assert len(lo["curves"]["speed_m_per_s"]) == walk.frames
    # The same clip and measure, a higher alpha: every candidate keeps more of its peak.
    expected = _offline(walk, alpha=0.5)
    assert [c["frame"] for c in lo["candidates"]] == expected
    assert all(
        c["breakdown"]["retention"]["value"] >= 0.9 for c in hi["candidates"]
    )  # the threshold is applied


def test_the_earlier_parameter_names_still_work_and_are_marked_deprecated(
    walk: Clip, members: dict[str, AbstractUser]
) -> None:
    url = f"/api/v1/clips/{walk.pk}/analysis/"
    client = client_for(members["viewer"])
    old = client.get(url, {"theta": 60, "method": "energy"})
    new = client.get(url, {"theta_max_deg": 60, "measure": "energy"})
    assert old.status_code == 200 and old.json() == new.json()
    assert old.headers["Deprecation"] == "true"
    assert "'theta' is now 'theta_max_deg'" in old.headers["Warning"]
    assert "'method' is now 'measure'" in old.headers["Warning"]
    both = client.get(url, {"theta": 30, "theta_max_deg": 60, "measure": "energy"})
    assert both.json()["parameters"]["theta_max_deg"] == 60.0  # today's name wins
    saved = client_for(members["editor"]).put(
        url, {"alpha": 0.7, "theta": 50, "method": "pca"}, format="json"
    )
    assert saved.status_code == 200 and saved.headers["Deprecation"] == "true"
    assert saved.json()["saved_parameters"] == {
        "alpha": 0.7,
        "theta_max_deg": 50.0,
        "measure": "pca",
    }


def test_parameters_saved_under_the_earlier_names_are_read(
    walk: Clip, members: dict[str, AbstractUser]
) -> None:
    walk.analysis_parameters = {"alpha": 0.7, "theta_max_deg": 50.0, "method": "energy"}
    walk.save(update_fields=["analysis_parameters"])
    body = client_for(members["viewer"]).get(f"/api/v1/clips/{walk.pk}/analysis/").json()
    assert body["parameters"]["measure"] == "energy"
    assert body["saved_parameters"] == {"alpha": 0.7, "theta_max_deg": 50.0, "measure": "energy"}


def _offline(clip: Clip, *, alpha: float) -> list[int]:
    """Candidate frames computed straight from the cleaned BVH, without the web layer."""
    cleaned = Artifact.objects.get(run=clip.runs.get(), kind=ArtifactKind.CLEANED_BVH)
    with cleaned.file.open("rb") as handle:
        feats = analysis.features(bvh.load(handle.read()))
    result = analysis.analyze(feats, alpha=alpha, theta_max_deg=90.0)
    return [c.frame for c in result.mtp.candidates]


def test_analysis_endpoint_validates_and_scopes(
    walk: Clip, run_clip: Clip, members: dict[str, AbstractUser]
) -> None:
    client = client_for(members["viewer"])
    url = f"/api/v1/clips/{walk.pk}/analysis/"
    bad = client.get(url, {"alpha": 2})
    assert bad.status_code == 400 and "alpha" in bad.json()["error"]["details"]["fields"]
    assert client.get(url, {"measure": "magic"}).status_code == 400
    with_next = client.get(url, {"next_clip": run_clip.pk, "theta_max_deg": 60})
    assert with_next.status_code == 200
    assert with_next.json()["parameters"]["direction_checked"] is True
    assert client_for(members["outsider"]).get(url).status_code == 404
    assert client.get(url.replace("/analysis/", "/analysis")).status_code in (200, 301)


def test_saved_parameters_become_the_defaults(walk: Clip, members: dict[str, AbstractUser]) -> None:
    url = f"/api/v1/clips/{walk.pk}/analysis/"
    viewer, editor = client_for(members["viewer"]), client_for(members["editor"])
    assert viewer.get(url).json()["parameters"]["alpha"] == 0.6  # seed 000's default
    saved = editor.put(url, {"alpha": 0.8, "theta_max_deg": 60, "measure": "energy"}, format="json")
    assert saved.status_code == 200, saved.content
    assert saved.json()["saved_parameters"] == {
        "alpha": 0.8,
        "theta_max_deg": 60.0,
        "measure": "energy",
    }
    plain = viewer.get(url).json()
    assert plain["parameters"]["alpha"] == 0.8 and plain["parameters"]["measure"] == "energy"
    assert viewer.get(url, {"alpha": 0.5}).json()["parameters"]["alpha"] == 0.5  # query wins
    walk.refresh_from_db()
    assert walk.analysis_parameters["theta_max_deg"] == 60.0
    assert (
        viewer.put(
            url, {"alpha": 0.7, "theta_max_deg": 60, "measure": "speed"}, format="json"
        ).status_code
        == 403
    )
    assert (
        editor.put(
            url, {"alpha": 3, "theta_max_deg": 60, "measure": "speed"}, format="json"
        ).status_code
        == 400
    )
    for body in ("null", "[1, 2]"):  # not a JSON object: a 400, not a server error
        refused = editor.put(url, body, content_type="application/json")
        assert refused.status_code == 400 and b"must be a JSON object" in refused.content
        created = editor.post("/api/v1/transitions/", body, content_type="application/json")
        assert created.status_code == 400
    walk.refresh_from_db()
    assert walk.analysis_parameters["alpha"] == 0.8  # refused saves change nothing


def test_saving_before_an_analysis_exists_saves_nothing(
    clip: Clip, members: dict[str, AbstractUser]
) -> None:
    url = f"/api/v1/clips/{clip.pk}/analysis/"
    response = client_for(members["editor"]).put(
        url, {"alpha": 0.7, "theta_max_deg": 60, "measure": "speed"}, format="json"
    )
    assert response.status_code == 404
    clip.refresh_from_db()
    assert clip.analysis_parameters == {}


def test_a_clip_too_short_to_analyse_still_succeeds_and_says_why(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    """A one-frame T-pose: ingest and clean succeed, the analysis says why it is missing."""
    tpose = processed(project, _editor(members), SAMPLES / "makehuman" / "tpose.bvh")
    stored = Artifact.objects.get(run=tpose.runs.get(), kind=ArtifactKind.ANALYSIS)
    with stored.file.open("rb") as handle:
        body = json.loads(handle.read())
    assert body == {
        "available": False,
        "reason": "a clip needs at least 3 frames to be analysed; this one has 1",
        "frames": 1,
    }
    response = client_for(members["viewer"]).get(f"/api/v1/clips/{tpose.pk}/analysis/")
    assert response.status_code == 404
    assert (
        "cannot be analysed: a clip needs at least 3 frames" in response.json()["error"]["message"]
    )


def test_analysis_endpoint_404s_before_an_analysis_exists(
    clip: Clip, members: dict[str, AbstractUser]
) -> None:
    response = client_for(members["viewer"]).get(f"/api/v1/clips/{clip.pk}/analysis/")
    assert response.status_code == 404
    assert "no analysis yet" in response.json()["error"]["message"]


def test_transition_run_produces_clip_table_and_engine_parameters(
    walk: Clip, run_clip: Clip, members: dict[str, AbstractUser]
) -> None:
    client = client_for(members["editor"])
    created = client.post(
        "/api/v1/transitions/",
        {"clip_a": walk.pk, "clip_b": run_clip.pk, "alpha": 0.6, "theta_max_deg": 80},
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["run"]["status"] == "queued" and body["result"] == {}
    assert all(url is None for url in body["downloads"].values())
    transition = Transition.objects.get(pk=body["id"])
    assert transition.run.stages == ["transition"] and transition.run.clip_id == walk.pk

    pipeline.execute(run_id=transition.run.pk)
    detail = client.get(f"/api/v1/transitions/{transition.pk}/").json()
    assert detail["run"]["status"] == "succeeded", detail["run"]["error"]
    result = detail["result"]
    assert set(result["metrics"]) == {"mtp", "end", "fixed70", "threshold"}
    for metrics in result["metrics"].values():
        assert {"velocity_continuity", "momentum_retention", "energy_loss"} <= set(metrics)
    assert {"cut", "entry", "blend_s", "engine"} <= set(result)
    assert result["sources"]["a"].startswith("cleaned")
    assert 0.0 <= result["engine"]["unity"]["exit_time"] <= 1.0

    downloaded = client.get(detail["downloads"]["transition.bvh"])
    assert downloaded.status_code == 200
    clip = bvh.load(b"".join(downloaded.streaming_content))  # type: ignore[attr-defined]
    assert clip.skeleton.num_joints == bvh.load(WALK).skeleton.num_joints
    report = client.get(detail["downloads"]["transition.json"])
    assert json.loads(b"".join(report.streaming_content))["metrics"] == result["metrics"]  # type: ignore[attr-defined]
    listed = client.get(f"/api/v1/projects/{walk.project_id}/transitions/").json()
    assert [t["id"] for t in listed["results"]] == [transition.pk]
    # The clip's own latest run is still its pipeline run, not the transition.
    clip_body = client.get(f"/api/v1/clips/{walk.pk}/").json()
    assert clip_body["latest_run"]["stages"] == ["ingest", "clean", "analyze"]


def test_transition_requests_are_checked(
    walk: Clip, run_clip: Clip, members: dict[str, AbstractUser], project: Project
) -> None:
    client = client_for(members["editor"])
    url = "/api/v1/transitions/"
    assert client.post(url, {"clip_a": walk.pk}, format="json").status_code == 400
    bad_blend = client.post(
        url, {"clip_a": walk.pk, "clip_b": run_clip.pk, "blend": "cut"}, format="json"
    )
    assert bad_blend.status_code == 400
    reviewer = client_for(members["reviewer"])
    forbidden = reviewer.post(url, {"clip_a": walk.pk, "clip_b": run_clip.pk}, format="json")
    assert forbidden.status_code == 403
    other = Project.objects.create(name="Other")
    Membership.objects.create(project=other, user=members["editor"], role=Role.EDITOR)
    elsewhere = processed(other, _editor(members), SAMPLES / "games105" / "walk60.bvh")
    mixed = client.post(url, {"clip_a": walk.pk, "clip_b": elsewhere.pk}, format="json")
    assert mixed.status_code == 400 and mixed.json()["error"]["code"] == "different_projects"
    assert Transition.objects.count() == 0 and not Run.objects.filter(stages=["transition"])


def test_different_skeletons_are_refused_before_any_run(
    walk: Clip, project: Project, members: dict[str, AbstractUser], media_root: object
) -> None:
    other = processed(project, _editor(members), SAMPLES / "cmu-bvh11" / "131_02.bvh")
    response = client_for(members["editor"]).post(
        "/api/v1/transitions/", {"clip_a": walk.pk, "clip_b": other.pk}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "different_skeletons"
    assert "joints" in response.json()["error"]["message"]


def test_a_failed_transition_run_says_why(
    walk: Clip, run_clip: Clip, members: dict[str, AbstractUser]
) -> None:
    """Parameters the motion library refuses (edited after the request was checked) fail
    the run with the library's reason; nothing half-made is downloadable."""
    client = client_for(members["editor"])
    body = client.post(
        "/api/v1/transitions/", {"clip_a": walk.pk, "clip_b": run_clip.pk}, format="json"
    ).json()
    transition = Transition.objects.get(pk=body["id"])
    run = transition.run
    run.parameters = {**run.parameters, "blend": "sideways"}
    run.save(update_fields=["parameters"])
    pipeline.execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Status.FAILED and "blend" in run.error
    detail = client.get(f"/api/v1/transitions/{transition.pk}/").json()
    assert detail["result"] == {} and all(v is None for v in detail["downloads"].values())
    assert np.isfinite(run.progress)


def test_listing_transitions_costs_the_same_queries_for_one_or_many(
    walk: Clip, members: dict[str, AbstractUser], django_assert_max_num_queries: Any
) -> None:
    finish_transition(walk, walk)
    client = client_for(members["viewer"])
    url = f"/api/v1/projects/{walk.project_id}/transitions/"
    with django_assert_max_num_queries(12) as one:
        assert len(client.get(url).json()["results"]) == 1
    for _ in range(5):
        finish_transition(walk, walk)
    with django_assert_max_num_queries(len(one.captured_queries)):
        assert len(client.get(url).json()["results"]) == 6
