"""The PFNN Walk page in headless Chromium: draw a path on the map (presets, clicks, a
drag, a right-click), press Walk, watch the run, then the walk plays on the clip's rig
with the path on the ground, its measures and downloads; the list replays it after a
reload, and a viewer (who cannot generate) can play it too.

The clip goes through the real pipeline in-process; the generation's run is executed
by a worker thread in this process (``pipeline.execute``, the Celery task's body) fed
by ``run_pipeline.delay``, as in ``test_upload_to_transition.py``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.browser import (
    CANVAS_PROBE,
    SAMPLE_DIR,
    RunWorker,
    log_in,
    processed_clip,
    quiet_pipeline,
    running_worker,
    screenshot,
)

SAMPLE = SAMPLE_DIR / "games105" / "walk60.bvh"
WAIT_MS = 120_000
PLAYER_CANVAS = "#walk [data-canvas] canvas"
# Three clicks on the map (x, z metres): 4 m up, then 2 m left and 2 m up.
CLICKS = [(0.0, -3.0), (0.0, 1.0), (2.0, 3.0)]
# The map's layout (static/js/walk/path.js, mapView): margins around the ±10 m square.
MAP_MARGIN = {"left": 30, "right": 14, "top": 14, "bottom": 24}
MAP_HALF_M = 10


@pytest.fixture
def walk_clip(transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any) -> Any:
    """walk60 (GAMES-105) processed in a project of "walker" (owner) and "watcher" (viewer)."""
    quiet_pipeline(settings, tmp_path, monkeypatch)
    return processed_clip("Walks", "walker", SAMPLE)


@pytest.fixture
def worker(walk_clip: Any, monkeypatch: Any) -> Iterator[RunWorker]:
    """From here on, queued runs (the walk's) are executed by a thread."""
    yield from running_worker(monkeypatch)


def map_pixel(box: dict[str, float], x: float, z: float) -> tuple[float, float]:
    """Page coordinates of ground point (x, z) on the map (+z up, +x to the left)."""
    m = MAP_MARGIN
    width = box["width"] - m["left"] - m["right"]
    height = box["height"] - m["top"] - m["bottom"]
    scale = min(width, height) / (2 * MAP_HALF_M + 0.6)
    cx = box["x"] + m["left"] + width / 2
    cy = box["y"] + m["top"] + height / 2
    return cx - x * scale, cy - z * scale


def _points(page: Any) -> int:
    return int(page.locator("#path-editor").get_attribute("data-points") or -1)


def _length_m(page: Any) -> float:
    return float(page.locator("#path-editor").get_attribute("data-length-m") or "nan")


def draw_path(page: Any) -> None:
    """Presets, Clear, three clicks, a right-click, a drag: the path ends as 3 points."""
    walk = page.locator("[data-walk-button]")
    assert walk.is_disabled()
    assert "at least two points" in page.locator("[data-walk-reason]").inner_text()
    page.click("[data-path-preset=zigzag]")
    assert _points(page) == 5
    page.click("[data-path-preset=straight]")
    assert _points(page) == 2 and _length_m(page) == 10.0
    summary = page.locator("[data-path-summary]")
    assert summary.inner_text() == "2 points · 10.00 m · about 7.7 s at 1.30 m/s"
    assert walk.is_enabled() and page.locator("[data-walk-reason]").is_hidden()
    page.click("[data-clear]")
    assert _points(page) == 0 and walk.is_disabled()

    box = page.locator("#path-editor canvas").bounding_box()
    assert box is not None and box["width"] > 300 and abs(box["width"] - box["height"]) < 2
    for x, z in CLICKS:
        page.mouse.click(*map_pixel(box, x, z))
    assert _points(page) == 3
    assert abs(_length_m(page) - (4 + 2 * math.sqrt(2))) < 0.15, _length_m(page)
    page.mouse.click(*map_pixel(box, *CLICKS[-1]), button="right")  # remove the last
    assert _points(page) == 2 and abs(_length_m(page) - 4) < 0.15
    page.mouse.click(*map_pixel(box, *CLICKS[-1]))
    # Drag the middle point 1 m to the right of the screen (x = -1).
    page.mouse.move(*map_pixel(box, *CLICKS[1]))
    page.mouse.down()
    page.mouse.move(*map_pixel(box, -0.5, 1.0), steps=4)
    page.mouse.move(*map_pixel(box, -1.0, 1.0), steps=4)
    page.mouse.up()
    assert _points(page) == 3
    expected = math.hypot(1, 4) + math.hypot(3, 2)
    assert abs(_length_m(page) - expected) < 0.15, (_length_m(page), expected)
    assert re.fullmatch(
        r"3 points · \d+\.\d\d m · about \d+\.\d s at 1\.30 m/s", summary.inner_text()
    )
    assert walk.is_enabled()


def check_playing(page: Any) -> dict[str, Any]:
    """The walk is drawn (blue skeleton, orange path), moves, and its measures have units."""
    player = page.locator("#walk")
    page.wait_for_timeout(300)
    first = page.evaluate(CANVAS_PROBE, PLAYER_CANVAS)
    assert first["width"] > 300 and first["blue"] > 200, first  # the skeleton
    assert first["orange"] > 50, first  # the requested path on the ground
    assert page.locator("#walk [data-play]").get_attribute("aria-pressed") == "true"
    frame = player.get_attribute("data-frame")
    page.wait_for_timeout(700)
    later = page.evaluate(CANVAS_PROBE, PLAYER_CANVAS)
    assert later["hash"] != first["hash"] and later["blue"] > 200, (first, later)
    assert player.get_attribute("data-frame") != frame
    measures = page.locator("[data-measures]").inner_text()
    for unit in (r"\d m\b", r"\d m/s\b", r"\d rad\b", r"\d cycles/s\b", r"\d+ at \d+\.\d\d fps"):
        assert re.search(unit, measures), (unit, measures)
    return later


def walk_and_play(page: Any) -> str:
    """Press Walk, see the run in the form and the list, then the walk plays."""
    page.click("[data-walk-button]")
    page.wait_for_selector("[data-walk-run] .run-status", timeout=WAIT_MS)
    page.wait_for_selector("#walk[data-ready=true]", timeout=WAIT_MS)
    generation = page.locator("#walk").get_attribute("data-generation") or ""
    assert (
        generation
        and page.locator("[data-walk-run] .run-status").get_attribute("data-status") == "succeeded"
    )
    item = page.locator(f"li[data-generation-id='{generation}']")
    assert item.get_attribute("data-status") == "succeeded"
    assert item.locator("[data-play-generation]").is_enabled()
    assert " m/s" in item.locator("[data-part=measures]").inner_text()
    assert page.locator("[data-walk-error]").is_hidden()
    assert page.locator("[data-walk-button]").is_enabled()
    check_playing(page)
    links = page.locator("[data-downloads] a[href]")
    assert links.count() >= 3, page.locator("[data-downloads]").inner_text()
    return generation


def replay(page: Any, generation: str) -> None:
    """After a reload the walk is in the list (rendered by the server); Play plays it."""
    page.reload()
    item = page.locator(f"li[data-generation-id='{generation}']")
    item.wait_for()
    assert page.locator("#walk").get_attribute("data-ready") == "false"
    item.locator("[data-play-generation]").click()
    page.wait_for_selector("#walk[data-ready=true]", timeout=WAIT_MS)
    assert page.locator("#walk").get_attribute("data-generation") == generation
    check_playing(page)
    page.locator("#walk").focus()
    page.keyboard.press("k")  # pause
    assert page.locator("#walk [data-play]").get_attribute("aria-pressed") == "false"


def test_draw_a_path_walk_it_and_play_it(
    live_server: Any, walk_clip: Any, worker: RunWorker, browser: Any
) -> None:
    base = live_server.url
    url = f"{base}/clips/{walk_clip.pk}/walk/"
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, base, "walker")
    page.goto(url)
    assert page.locator(".breadcrumbs [aria-current=page]").inner_text() == "Walk"
    assert page.locator(f".page-head a[href='/clips/{walk_clip.pk}/']").count() == 1
    draw_path(page)
    screenshot(page, "walk-editor", ".walk-editor")
    generation = walk_and_play(page)
    screenshot(page, "walk")
    replay(page, generation)

    watcher = browser.new_page(viewport={"width": 1280, "height": 1100})
    watcher.on("pageerror", lambda error: errors.append(str(error)))
    log_in(watcher, base, "watcher")
    watcher.goto(url)
    assert watcher.locator("#path-editor").count() == 0  # viewers do not generate
    assert watcher.locator("[data-walk-button]").count() == 0
    watcher.locator(f"li[data-generation-id='{generation}'] [data-play-generation]").click()
    watcher.wait_for_selector("#walk[data-ready=true]", timeout=WAIT_MS)
    check_playing(watcher)
    assert not errors, errors
