"""A transition whose best join misses the limits says so and is bridged through another
clip of the project: the report, the page (verdict, both joins, the bridge in the
player) and the bridge's downloads. Synthetic clips of the tiny humanoid: A slows down
while still walking forward, B walks backwards, C turns round; D stands."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import AbstractUser
from django.test import Client
from django.urls import reverse

from motioncore import bvh
from support.straight_motion import FPS, rigid, sine_bell
from support.web import processed
from webapp.projects.models import Project
from webapp.runs import pipeline
from webapp.runs.models import Status
from webapp.transitions.models import Transition
from webapp.transitions.services import transition_create


@pytest.fixture(autouse=True)
def _quiet_worker(recorded_runs: list[int]) -> list[int]:
    return recorded_runs


def _written(folder: Path, name: str, positions: np.ndarray) -> Path:
    path = folder / f"{name}.bvh"
    bvh.save(rigid(positions), path)
    return path


def _motions(folder: Path) -> dict[str, Path]:
    bell = sine_bell()
    t = np.arange(181) / FPS
    return {
        "slowing": _written(folder, "slowing", bell.translations[:100, 0, 2]),
        "backwards": _written(folder, "backwards", -1.0 * t),
        "turnaround": _written(folder, "turnaround", 1.2 * t - 0.8 * t**2),
    }


def _run_transition(project: Project, editor: AbstractUser, clips: dict[str, Any]) -> Transition:
    created = transition_create(
        user=editor,  # type: ignore[arg-type]
        clip_a_id=clips["slowing"].pk,
        clip_b_id=clips["backwards"].pk,
        parameters={"alpha": 0.6, "theta_max_deg": 75.0, "measure": "speed", "blend": "auto"},
    )
    pipeline.execute(run_id=created.run.pk)
    created.refresh_from_db()
    assert created.run.status == Status.SUCCEEDED, created.run.error
    return created


def test_a_missed_join_is_bridged_through_a_clip_of_the_project(
    project: Project, members: dict[str, AbstractUser], media_root: object, tmp_path: Path
) -> None:
    editor = members["editor"]
    clips = {name: processed(project, editor, path) for name, path in _motions(tmp_path).items()}
    made = _run_transition(project, editor, clips)
    report = made.result
    assert report["verdict"]["good"] is False
    found = report["bridge"]
    assert found["found"] and found["searched_clips"] == 1
    assert found["via"]["clip"] == clips["turnaround"].pk
    joins = found["joins"]
    assert all(j["metrics"]["velocity_continuity"] < 0.15 for j in joins)

    client = Client()
    client.force_login(editor)
    html = client.get(reverse("transition", args=[made.pk])).content.decode()
    assert 'data-verdict="bridge"' in html and "No good direct transition" in html
    assert "Bridge through turnaround.bvh" in html and "data-bridge-joins" in html
    sources = json.loads(
        re.search(r'<script id="compare-sources" type="application/json">(.*?)</script>', html)[1]  # type: ignore[index]
    )
    layout = sources["bridge"]["layout"]
    assert sources["bridge"]["label"] == "Bridge via turnaround.bvh"
    assert layout["bridge"]["blend_start_frame"] >= layout["blend_stop_frame"]
    download = reverse("api:transition-download", args=[made.pk, "bridge.bvh"])
    assert download in html
    body = b"".join(client.get(download).streaming_content)  # type: ignore[attr-defined]
    assert bvh.load(body).num_frames == found["frames"] == layout["frames"]


def test_without_a_helpful_clip_the_page_says_there_is_no_good_transition(
    project: Project, members: dict[str, AbstractUser], media_root: object, tmp_path: Path
) -> None:
    editor = members["editor"]
    motions = _motions(tmp_path)
    motions["turnaround"] = _written(tmp_path, "standing", np.zeros(120))
    clips = {name: processed(project, editor, path) for name, path in motions.items()}
    made = _run_transition(project, editor, clips)
    assert made.result["bridge"] == {"found": False, "searched_clips": 1}
    client = Client()
    client.force_login(editor)
    html = client.get(reverse("transition", args=[made.pk])).content.decode()
    assert 'data-verdict="none"' in html and "there is no good transition" in html
    assert "bridge.bvh" not in html
