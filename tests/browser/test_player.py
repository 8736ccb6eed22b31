"""The clip page's player in headless Chromium (Playwright): it draws the skeleton and
the picture changes from frame to frame.

Pages come from pytest-django's live server; the clip goes through the real pipeline
in-process (``pipeline.execute``). Chromium and Playwright: :mod:`support.browser`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from support.browser import (
    CANVAS_PROBE,
    PASSWORD,
    SAMPLE_DIR,
    log_in,
    screenshot,
    set_range,
)
from webapp.clips.services import clip_upload_create
from webapp.projects.models import Membership, Project, Role
from webapp.runs import pipeline, services, tasks

SAMPLE = SAMPLE_DIR / "games105" / "walk60.bvh"
ICLONE_WITH_BIND_POSE = Path("bvh") / "cmu-iclone" / "007_05.bvh"


@pytest.fixture
def process(transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any) -> Any:
    """``process(path)``: the clip uploaded by an owner ("player") of a new project and
    run through ingest → clean → analyze."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setattr(services, "heartbeat_interval_s", lambda: 3600.0)
    monkeypatch.setattr(tasks.run_pipeline, "delay", lambda run_id: None)
    user = get_user_model().objects.create_user(username="player", password=PASSWORD)
    project = Project.objects.create(name="Browser")
    Membership.objects.create(project=project, user=user, role=Role.OWNER)

    def processed(path: Path) -> Any:
        clip = clip_upload_create(
            project=project, user=user, name=path.name, data=path.read_bytes()
        ).clip
        pipeline.execute(run_id=clip.runs.get().pk)
        return clip

    return processed


@pytest.fixture
def processed_clip(process: Any) -> Any:
    """walk60 (GAMES-105), processed."""
    return process(SAMPLE)


def _clip_page(browser: Any, base: str, clip: Any, errors: list[str]) -> Any:
    """A logged-in page on the clip (page errors collected in ``errors``)."""
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, base, "player")
    page.goto(f"{base}/clips/{clip.pk}/")
    return page


def test_the_player_draws_the_skeleton_and_frames_change(
    live_server: Any, processed_clip: Any, browser: Any
) -> None:
    errors: list[str] = []
    page = _clip_page(browser, live_server.url, processed_clip, errors)
    page.wait_for_selector("#viewer[data-ready=true]", timeout=20_000)
    page.wait_for_selector("#viewer[data-body-kind=mannequin]", timeout=20_000)
    status = page.locator("[data-viewer-status]").inner_text()
    assert status == "20 joints (+ 5 end sites) · 182 frames at 60.00 fps", status
    page.wait_for_timeout(200)
    first = page.evaluate(CANVAS_PROBE)
    assert first["width"] > 300 and first["blue"] > 200, first  # the body drawn

    page.locator("#viewer").focus()
    for _ in range(30):
        page.keyboard.press("ArrowRight")
    page.wait_for_timeout(200)
    assert page.locator("[data-readout]").inner_text().startswith("frame 30 / 181")
    later = page.evaluate(CANVAS_PROBE)
    assert later["hash"] != first["hash"] and later["blue"] > 200
    screenshot(page, "player", "#viewer")

    page.uncheck("input[data-body]")  # the bones alone, where the body was
    page.wait_for_selector("#viewer[data-body-shown=false]")
    page.wait_for_timeout(200)
    bones = page.evaluate(CANVAS_PROBE)
    assert later["blue"] > 2 * bones["blue"] > 200, (bones, later)  # a body covers more
    screenshot(page, "player-bones", "#viewer")
    page.check("input[data-body]")
    page.wait_for_timeout(200)
    assert page.evaluate(CANVAS_PROBE)["hash"] == later["hash"]
    page.locator("#viewer").focus()

    page.keyboard.press(" ")  # play
    page.wait_for_timeout(500)
    assert int(page.locator("#viewer").get_attribute("data-frame") or 0) > 30
    page.keyboard.press("k")  # pause
    assert page.locator("[data-play]").get_attribute("aria-pressed") == "false"
    assert not errors, errors


def test_curves_show_candidates_and_the_alpha_slider_rescores_them(
    live_server: Any, processed_clip: Any, browser: Any
) -> None:
    errors: list[str] = []
    page = _clip_page(browser, live_server.url, processed_clip, errors)
    page.wait_for_selector("[data-curves][data-candidates]", timeout=20_000)
    before = int(page.locator("[data-curves]").get_attribute("data-candidates") or -1)
    assert before > 0
    assert page.locator("[data-summary]").inner_text().startswith("Best cut: frame ")
    set_range(page, "[data-alpha]", 0.9)
    page.wait_for_function(
        f"document.querySelector('[data-curves]').dataset.candidates !== '{before}'",
        timeout=10_000,
    )
    after = int(page.locator("[data-curves]").get_attribute("data-candidates") or -1)
    assert 0 <= after < before  # a higher α keeps fewer frames
    rescore_ms = float(page.locator("[data-curves]").get_attribute("data-rescore-ms") or "nan")
    assert rescore_ms == rescore_ms  # re-scored in the browser (no server round trip)
    assert page.locator("[data-alpha-value]").inner_text() == "0.90"
    best = int(page.locator("[data-curves]").get_attribute("data-best") or -1)
    box = page.locator("[data-plot] canvas").first.bounding_box()
    assert box is not None and box["height"] > 200
    page.locator("[data-plot] canvas").nth(1).click(position={"x": box["width"] / 2, "y": 40})
    page.wait_for_timeout(200)
    assert int(page.locator("#viewer").get_attribute("data-frame") or -1) > 0  # clicking seeks
    assert best >= -1 and not errors, errors

    page.click("[data-save]")
    page.wait_for_function("document.querySelector('[data-curves]').dataset.saved === 'true'")
    saved = page.evaluate(
        f"fetch('/api/v1/clips/{processed_clip.pk}/analysis/').then(r => r.json())"
    )
    assert saved["saved_parameters"]["alpha"] == 0.9  # (the ORM is off-limits in here)
    page.reload()
    page.wait_for_selector("[data-curves][data-candidates]", timeout=20_000)
    assert page.locator("[data-alpha]").input_value() == "0.9"  # the saved value comes back
    assert int(page.locator("[data-curves]").get_attribute("data-candidates") or -1) == after


def test_the_raw_motion_shows_as_a_ghost_with_the_skate_readout(
    live_server: Any, processed_clip: Any, browser: Any
) -> None:
    errors: list[str] = []
    page = _clip_page(browser, live_server.url, processed_clip, errors)
    page.wait_for_selector("#viewer[data-ready=true]", timeout=20_000)
    skate = page.locator("[data-skate]").inner_text()
    assert "left foot slide" in skate and "m/s" in skate and "under the floor" in skate
    page.wait_for_timeout(200)
    alone = page.evaluate(CANVAS_PROBE)
    page.check("[data-ghost]")
    page.wait_for_selector("#viewer[data-ghost-shown=true]", timeout=10_000)
    page.wait_for_timeout(300)
    with_ghost = page.evaluate(CANVAS_PROBE)
    assert with_ghost["hash"] != alone["hash"]  # the grey skeleton is drawn over the blue one
    page.uncheck("[data-ghost]")
    page.wait_for_selector("#viewer[data-ghost-shown=false]")
    page.wait_for_timeout(300)
    assert page.evaluate(CANVAS_PROBE)["hash"] == alone["hash"]
    assert not errors, errors


@pytest.fixture
def iclone_clip(process: Any, shared_data: Path) -> Any:
    """An iClone CMU retarget (~100 joints) opening with a bind pose, processed."""
    return process(shared_data / ICLONE_WITH_BIND_POSE)


def test_the_ghost_starts_where_the_cleaned_take_starts(
    live_server: Any, iclone_clip: Any, browser: Any
) -> None:
    """iClone's CMU retargets open with a bind pose 2 m away that cleaning drops: the
    ghost (the raw motion) must be shown from the take's first frame, not the T-pose.
    (Playwright's loop runs once ``browser`` is set up: the ORM is used before it.)"""
    clip = iclone_clip
    errors: list[str] = []
    page = _clip_page(browser, live_server.url, clip, errors)
    page.wait_for_selector("#viewer[data-ready=true]", timeout=30_000)
    page.check("[data-ghost]")
    page.wait_for_selector("#viewer[data-ghost-shown=true]", timeout=30_000)
    viewer = page.locator("#viewer")
    assert viewer.get_attribute("data-ghost-frame") == "1"  # raw frame 0 is the bind pose
    viewer.focus()
    page.keyboard.press("Shift+ArrowRight")
    assert viewer.get_attribute("data-ghost-frame") == "11"
    page.click("[data-preset=follow]")
    page.locator("[data-canvas] canvas").hover()
    page.mouse.wheel(0, -400)  # closer: the raw and cleaned legs differ by millimetres
    page.wait_for_timeout(400)
    screenshot(page, "ghost", "#viewer")
    assert not errors, errors
