"""The transition pages: the clip page's "Transitions" card and form, the transition page
(run status, the comparison table, the compare player's sources, downloads), who may do
what, and the presenters behind them.

Real clips (GAMES-105 walk and run, same skeleton; CMU 131_02, another skeleton) go
through the real pipeline in-process; broker messages are recorded, not sent.
"""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import Client
from django.urls import reverse

from support.web import SAMPLES, processed
from webapp.clips.models import ArtifactKind, Clip
from webapp.clips.selectors import clip_artifact_json
from webapp.core.tables import Cell
from webapp.projects.models import Project
from webapp.runs import pipeline
from webapp.runs.models import Status
from webapp.transitions import presenters
from webapp.transitions.models import Transition

WALK = SAMPLES / "games105" / "walk_forward.bvh"
RUN = SAMPLES / "games105" / "run_forward.bvh"
CMU = SAMPLES / "cmu-bvh11" / "131_02.bvh"
FORM = {"alpha": "0.6", "theta_max_deg": "75", "measure": "speed", "blend": "crossfade"}


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


def _client(user: AbstractUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def clips(
    project: Project, members: dict[str, AbstractUser], media_root: object
) -> dict[str, Clip]:
    editor = members["editor"]
    return {name: processed(project, editor, path) for name, path in (("walk", WALK), ("run", RUN))}


def _sources(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="compare-sources" type="application/json">(.*?)</script>', html)
    assert found, "the page has no compare sources"
    return dict(json.loads(found.group(1)))


def test_the_clip_page_offers_a_transition_form_to_editors(
    clips: dict[str, Clip], members: dict[str, AbstractUser], project: Project
) -> None:
    cmu = processed(project, members["editor"], CMU)
    page = _client(members["editor"]).get(reverse("clip", args=[clips["walk"].pk])).content
    html = page.decode()
    assert "data-transition-form" in html
    assert f'<option value="{clips["run"].pk}">run_forward.bvh</option>' in html
    # Another skeleton is listed but cannot be chosen, and says why.
    disabled = re.search(rf'<option value="{cmu.pk}" disabled title="([^"]+)">', html)
    assert disabled and "joints" in disabled.group(1)
    viewer_page = _client(members["viewer"]).get(reverse("clip", args=[clips["walk"].pk]))
    assert b"data-transition-form" not in viewer_page.content
    assert b"No transitions yet." in viewer_page.content


def test_the_form_starts_a_transition_whose_page_shows_progress_then_the_comparison(
    clips: dict[str, Clip],
    members: dict[str, AbstractUser],
    _quiet_worker: list[int],
    django_capture_on_commit_callbacks: Any,
) -> None:
    client = _client(members["editor"])
    walk, run = clips["walk"], clips["run"]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("transition-new", args=[walk.pk]),
            {**FORM, "clip_b": run.pk, "blend_s": "0.1"},
        )
    transition = Transition.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("transition", args=[transition.pk])
    assert transition.parameters == {
        "alpha": 0.6,
        "theta_max_deg": 75.0,
        "measure": "speed",
        "blend_s": 0.1,
        "blend": "crossfade",
        "blend_min_s": 0.1,
        "blend_max_s": 0.5,
    }
    assert _quiet_worker[-1] == transition.run.pk  # queued for a worker

    waiting = client.get(response["Location"]).content.decode()
    assert 'data-status="queued"' in waiting and "data-reload-when-runs-finish" in waiting
    assert "compare-sources" not in waiting  # nothing to play yet

    pipeline.execute(run_id=transition.run.pk)
    transition.refresh_from_db()
    assert transition.run.status == Status.SUCCEEDED, transition.run.error
    html = client.get(response["Location"]).content.decode()
    assert len(re.findall(r'<tr data-method="(\w+)">', html)) == 4
    assert "α 0.6, θ_max 75.0°, speed, blend crossfade over 0.1 s" in html
    chosen = transition.result["entry"]
    assert "data-search-choices" in html and f"{chosen['cost']['total']:.3f}" in html
    sources = _sources(html)
    assert list(sources) == ["mtp", "end", "fixed70", "threshold"]
    for method, source in sources.items():
        arrays = json.loads(b"".join(client.get(source["url"]).streaming_content))  # type: ignore[attr-defined]
        layout = source["layout"]
        assert arrays["frames"] == layout["frames"], method
        assert layout["blend_start_frame"] <= layout["blend_stop_frame"] <= layout["frames"]
        cut = transition.result["metrics"][method]["cut_frame"]
        assert layout["cut_frame"] == cut
    # Every download is linked.
    for name in ("transition.bvh", "transition.json", "viewer-end.json"):
        assert reverse("api:transition-download", args=[transition.pk, name]) in html
    listed = client.get(reverse("clip", args=[run.pk])).content.decode()
    assert reverse("transition", args=[transition.pk]) in listed  # B's page lists it too
    project_page = client.get(reverse("project", args=[walk.project_id])).content.decode()
    assert reverse("transition", args=[transition.pk]) in project_page
    assert "walk_forward.bvh → run_forward.bvh" in project_page


def test_a_blend_left_empty_is_chosen_from_the_mismatch_and_explained(
    clips: dict[str, Clip],
    members: dict[str, AbstractUser],
    django_capture_on_commit_callbacks: Any,
) -> None:
    client = _client(members["editor"])
    form = {**FORM, "blend": "auto", "blend_s": "", "blend_min_s": "0.2", "blend_max_s": "0.3"}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("transition-new", args=[clips["walk"].pk]), {**form, "clip_b": clips["run"].pk}
        )
    transition = Transition.objects.get()
    assert transition.parameters["blend_s"] is None and transition.parameters["blend"] == "auto"
    pipeline.execute(run_id=transition.run.pk)
    transition.refresh_from_db()
    assert transition.run.status == Status.SUCCEEDED, transition.run.error
    chosen = transition.result["methods"]["mtp"]["blending"]
    assert chosen["automatic_length"] and chosen["automatic_method"]
    assert 0.2 <= transition.result["blend_s"] <= 0.3
    assert transition.result["blend"] in ("crossfade", "inertialize")
    html = client.get(response["Location"]).content.decode()
    assert "blend auto over 0.2–0.3 s by the mismatch" in html
    assert "data-blends" in html and escape(chosen["reason"]) in html


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"alpha": "2"}, "less than or equal to 1"),
        ({"measure": "velocity"}, "Select a valid choice"),
        ({"clip_b": ""}, "Clip B"),
        ({"blend_min_s": "0.4", "blend_max_s": "0.2"}, "shorter than the shortest blend"),
    ],
)
def test_bad_form_input_is_a_400_page_and_starts_nothing(
    clips: dict[str, Clip], members: dict[str, AbstractUser], change: dict[str, str], message: str
) -> None:
    data = {**FORM, "clip_b": str(clips["run"].pk), "blend_s": "0.12", **change}
    response = _client(members["editor"]).post(
        reverse("transition-new", args=[clips["walk"].pk]), data
    )
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Transition.objects.exists()


def test_other_skeletons_viewers_and_outsiders_are_refused(
    clips: dict[str, Clip], members: dict[str, AbstractUser], project: Project
) -> None:
    cmu = processed(project, members["editor"], CMU)
    url = reverse("transition-new", args=[clips["walk"].pk])
    data = {**FORM, "blend_s": "0.12"}
    other = _client(members["editor"]).post(url, {**data, "clip_b": cmu.pk})
    assert other.status_code == 400 and b"different skeletons" in other.content
    viewer = _client(members["viewer"]).post(url, {**data, "clip_b": clips["run"].pk})
    assert viewer.status_code == 403
    outsider = _client(members["outsider"]).post(url, {**data, "clip_b": clips["run"].pk})
    assert outsider.status_code == 404
    assert not Transition.objects.exists()
    assert _client(members["editor"]).get(url).status_code == 405


def test_the_transition_page_is_for_members_only(
    clips: dict[str, Clip], members: dict[str, AbstractUser]
) -> None:
    _client(members["editor"]).post(
        reverse("transition-new", args=[clips["walk"].pk]),
        {**FORM, "clip_b": clips["run"].pk, "blend_s": "0.12"},
    )
    url = reverse("transition", args=[Transition.objects.get().pk])
    assert _client(members["viewer"]).get(url).status_code == 200
    assert _client(members["outsider"]).get(url).status_code == 404
    assert Client().get(url).status_code == 302  # to the log-in page


def test_the_raw_viewer_arrays_say_where_the_cleaned_clip_starts(clips: dict[str, Clip]) -> None:
    raw = clip_artifact_json(clips["walk"], ArtifactKind.VIEWER_RAW)
    assert raw is not None and raw["start_s"] == 0.0  # nothing trimmed from this take


# --- presenters ----------------------------------------------------------------------------


def test_the_search_choices_show_the_chosen_pair_and_the_next_best_with_costs() -> None:
    cost = {"total": 0.41, "pose_m": 0.2, "velocity_m_per_s": 0.1, "phase_rad": None}
    entry = {"frame": 70, "time_s": 1.17, "cost": {**cost, "continuity": 0.08}, "widened": True}
    runner = {"cut": {"frame": 40, "time_s": 0.67}, "entry": {**entry, "widened": False}}
    result = {"cut": {"frame": 52, "time_s": 0.87}, "entry": entry, "next_best": runner}
    chosen, second = presenters.search_choices(result)
    assert (chosen.label, chosen.cut, chosen.cost) == ("Chosen", "frame 52 · 0.87 s", "0.410")
    assert chosen.entry == "frame 70 · 1.17 s (past B's first second)"
    assert chosen.terms == "pose 0.200 m, velocity 0.100 m/s, continuity 0.080"
    assert (second.label, second.cut, second.entry) == (
        "Next best",
        "frame 40 · 0.67 s",
        "frame 70 · 1.17 s",
    )
    assert len(presenters.search_choices({**result, "next_best": None})) == 1
    # A report written before the joint search (no costs) or before the run: nothing.
    assert presenters.search_choices({"cut": result["cut"], "entry": {"frame": 3}}) == []
    assert presenters.search_choices({}) == []


def test_comparison_rows_mark_each_columns_best_and_tolerate_gaps() -> None:
    metric = {
        "velocity_continuity": 0.1,
        "momentum_retention": 0.8,
        "energy_loss": 0.2,
        "foot_slide_mps": None,
        "pose_discontinuity_m": 0.05,
        "max_joint_acceleration_m_per_s2": 40.0,
        "cut_frame": 10,
        "entry_frame": 3,
    }
    worse = {**metric, "velocity_continuity": 0.3, "momentum_retention": 0.5, "cut_frame": 50}
    result = {
        "metrics": {"end": worse, "mtp": metric},
        "methods": {"end": {"cut": {"frame": 50, "time_s": 0.5, "reason": "fell back"}}},
    }
    rows = presenters.comparison_rows(result)
    assert [r.method for r in rows] == ["mtp", "end"]  # the table's order, not the report's
    mtp, end = rows
    assert mtp.cells[0] == Cell("0.100", True)
    assert end.cells[0] == Cell("0.300", False)
    assert mtp.cells[1].best and not end.cells[1].best  # higher retention is better
    assert mtp.cells[3] == Cell("—", False)  # no skate measured
    assert mtp.cells[2].best and end.cells[2].best  # a tie marks both
    assert (end.cut, end.note) == ("50 · 0.50 s", "fell back")
    assert mtp.cut == "10"  # no time without the methods section
    assert presenters.comparison_rows({}) == []


def test_a_failed_transition_page_says_why_and_offers_nothing_to_play(
    clips: dict[str, Clip], members: dict[str, AbstractUser]
) -> None:
    client = _client(members["editor"])
    client.post(
        reverse("transition-new", args=[clips["walk"].pk]),
        {**FORM, "clip_b": clips["run"].pk, "blend_s": "0.12"},
    )
    run = Transition.objects.get().run
    run.parameters = {**run.parameters, "blend": "sideways"}  # refused by motioncore
    run.save(update_fields=["parameters"])
    pipeline.execute(run_id=run.pk)
    html = client.get(reverse("transition", args=[Transition.objects.get().pk])).content.decode()
    assert 'data-status="failed"' in html and "blend" in html
    assert "could not be built" in html
    assert "compare-sources" not in html and "data-comparison" not in html
    assert "(after a successful run)" in html
