"""A bridged transition in headless Chromium: A slows while still walking forward, B
walks backwards, the project holds a clip C that turns round. The transition page says
the direct join misses the limits, shows both joins of the bridge, and plays the bridge
against the direct MTP join; the readout walks through A, a blend, C, a blend and B.
The clips and the run go through the real pipeline in-process before the browser starts.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from django.contrib.auth import get_user_model

from motioncore import bvh
from support.browser import CANVAS_PROBE, PASSWORD, log_in, screenshot
from support.straight_motion import FPS, rigid, sine_bell
from webapp.clips.services import clip_upload_create
from webapp.projects.models import Membership, Project, Role
from webapp.runs import pipeline, services, tasks
from webapp.transitions.services import transition_create

WAIT_MS = 60_000


def _motions() -> dict[str, bytes]:
    bell = sine_bell()
    t = np.arange(181) / FPS
    positions = {
        "slowing": bell.translations[:100, 0, 2],
        "backwards": -1.0 * t,
        "turnaround": 1.2 * t - 0.8 * t**2,
    }
    return {name: bvh.dump(rigid(z)).encode() for name, z in positions.items()}


@pytest.fixture
def bridged(transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any) -> Any:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setattr(services, "heartbeat_interval_s", lambda: 3600.0)
    monkeypatch.setattr(tasks.run_pipeline, "delay", lambda run_id: None)
    editor = get_user_model().objects.create_user(username="editor", password=PASSWORD)
    project = Project.objects.create(name="Turns")
    Membership.objects.create(project=project, user=editor, role=Role.EDITOR)
    clips = {}
    for name, data in _motions().items():
        clip = clip_upload_create(project=project, user=editor, name=f"{name}.bvh", data=data).clip
        pipeline.execute(run_id=clip.runs.get().pk)
        clips[name] = clip
    made = transition_create(
        user=editor,
        clip_a_id=clips["slowing"].pk,
        clip_b_id=clips["backwards"].pk,
        parameters={"alpha": 0.6, "theta_max_deg": 75.0, "measure": "speed", "blend": "auto"},
    )
    pipeline.execute(run_id=made.run.pk)
    made.refresh_from_db()
    assert made.run.status == "succeeded", made.run.error
    assert made.result["bridge"]["found"]
    return SimpleNamespace(transition=made)


def test_the_page_shows_the_missed_join_and_plays_the_bridge(
    live_server: Any, bridged: Any, browser: Any
) -> None:
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_server.url, "editor")
    page.goto(f"{live_server.url}/transitions/{bridged.transition.pk}/")
    verdict = page.locator("#verdict")
    assert verdict.get_attribute("data-verdict") == "bridge"
    assert "No good direct transition: velocity continuity" in verdict.inner_text()
    assert page.locator("[data-bridge-joins] tbody tr").count() == 2
    compare = page.locator("#compare[data-ready=true]")
    compare.wait_for(timeout=WAIT_MS)
    page.select_option("[data-side='1']", "bridge")
    page.wait_for_function("document.querySelector('#compare').dataset.side1 === 'bridge'")
    page.wait_for_timeout(300)
    right = page.evaluate(CANVAS_PROBE, "[data-canvas='1'] canvas")
    assert right["orange"] > 200, right
    seen: list[str] = []
    compare.focus()
    for _ in range(600):  # frame by frame along the shared clock
        page.keyboard.press("ArrowRight")
        readout = page.locator("#compare [data-readout]").inner_text()
        part = readout.split(" · right ")[-1].split(" ")[0]
        if not seen or seen[-1] != part:
            seen.append(part)
        if part == "B":
            break
    assert seen[-5:] == ["A", "blend", "C", "blend", "B"], seen
    screenshot(page, "transition-bridge")
    assert not errors, errors
