"""The score page in headless Chromium: a Labanotation score's animation plays in the 3-D
player with its footprints, the score is drawn as an SVG staff beside it (one element
per symbol), the staff's cursor rises with playback, and when paused a click on the
staff or a drag of the cursor seeks the player; the metronome toggles.

The score is uploaded with the service (synchronous: it parses, animates and stores);
the clip made from it queues its standard pipeline run, which this test does not need
(``run_pipeline.delay`` is a no-op here).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from support.browser import CANVAS_PROBE, log_in, screenshot, staff_bar_y, walk_score

SYMBOLS = 8
SECONDS_PER_BEAT = 0.5
FPS = 60
WAIT_MS = 60_000
PLAYER = "#score-player"
PLAYER_CANVAS = "#score-player [data-canvas] canvas"


@pytest.fixture
def score(transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any) -> Any:
    return walk_score(settings, tmp_path, monkeypatch)


def _beat(page: Any) -> float:
    return float(page.locator("#staff").get_attribute("data-beat") or "nan")


def _frame(page: Any) -> int:
    return int(page.locator(PLAYER).get_attribute("data-frame") or -1)


def _frame_of(beat: float) -> int:
    return round(beat * SECONDS_PER_BEAT * FPS)


def check_page(page: Any, score: Any) -> None:
    """Breadcrumbs, the clip link, the staff's symbols and lines, measures, downloads."""
    title = score.title or score.name
    assert page.locator(".breadcrumbs [aria-current=page]").inner_text() == title
    assert page.locator(f".breadcrumbs a[href='/projects/{score.project.pk}/']").count() == 1
    assert page.locator(f".page-head a[href='/clips/{score.clip.pk}/']").count() == 1
    staff = page.locator("#staff")
    assert staff.get_attribute("data-symbols") == str(SYMBOLS)
    symbols = staff.locator(".staff__symbol")
    assert symbols.count() == SYMBOLS
    for i in range(SYMBOLS):
        tooltip = symbols.nth(i).locator("title").text_content() or ""
        assert tooltip.startswith("Direction: forward, middle level ·"), tooltip
        assert re.search(r"(left|right) support · beat \d, 1 beat$", tooltip), tooltip
    # Supports alternate right, left …, one beat each, in the support columns.
    columns = [symbols.nth(i).get_attribute("data-column") for i in range(SYMBOLS)]
    assert columns == ["support_right", "support_left"] * 4, columns
    assert staff.locator(".staff__line").count() == 3
    bars = staff.locator(".staff__bar-number").all_text_contents()
    assert bars == ["1", "2", "3", "4", "5"], bars
    measures = page.locator("[data-measures]").inner_text()
    for unit in (r"\d m²/s⁴", r"\d cm²", r"\d mm", r"\d cm\b", r"Steps\s+8\b"):
        assert re.search(unit, measures), (unit, measures)
    links = page.locator("[data-downloads] a[href]")
    assert links.count() >= 3, page.locator("[data-downloads]").inner_text()


def check_playing(page: Any) -> None:
    """Play: the skeleton is drawn and moves, the cursor's beat rises; a click on the
    staff while playing does not seek."""
    first = page.evaluate(CANVAS_PROBE, PLAYER_CANVAS)
    assert first["width"] > 300 and first["blue"] > 200, first  # the skeleton
    page.click(f"{PLAYER} [data-play]")
    assert page.locator(f"{PLAYER} [data-play]").get_attribute("aria-pressed") == "true"
    beat, frame = _beat(page), _frame(page)
    page.wait_for_timeout(900)
    later = page.evaluate(CANVAS_PROBE, PLAYER_CANVAS)
    assert later["hash"] != first["hash"] and later["blue"] > 200, (first, later)
    assert _beat(page) > beat + 0.3, (beat, _beat(page))
    assert _frame(page) != frame
    box = page.locator("#staff").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, staff_bar_y(page, 2))  # ignored while playing
    assert page.locator(f"{PLAYER} [data-play]").get_attribute("aria-pressed") == "true"
    page.click(f"{PLAYER} [data-play]")  # pause
    assert page.locator(f"{PLAYER} [data-play]").get_attribute("aria-pressed") == "false"


def check_seeking(page: Any) -> None:
    """Paused: a click on the staff goes to that beat, a drag of the cursor follows it."""
    staff = page.locator("#staff")
    staff.scroll_into_view_if_needed()
    box = staff.bounding_box()
    x = box["x"] + box["width"] / 2
    page.mouse.click(x, staff_bar_y(page, 4))
    assert abs(_frame(page) - _frame_of(4)) <= 1, _frame(page)
    assert abs(_beat(page) - 4) < 0.05, _beat(page)
    cursor = page.locator("#staff .staff__cursor-line").bounding_box()
    assert cursor is not None and abs(cursor["y"] + cursor["height"] / 2 - staff_bar_y(page, 4)) < 2
    # Drag the cursor up to beat 8, through beat 6.
    page.mouse.move(x, cursor["y"] + cursor["height"] / 2)
    page.mouse.down()
    page.mouse.move(x, staff_bar_y(page, 6), steps=4)
    assert abs(_frame(page) - _frame_of(6)) <= 1, _frame(page)
    page.mouse.move(x, staff_bar_y(page, 8), steps=4)
    page.mouse.up()
    assert abs(_frame(page) - _frame_of(8)) <= 1, _frame(page)
    assert abs(_beat(page) - 8) < 0.05, _beat(page)
    assert page.locator("[data-beat-readout]").inner_text() == "Bar 5 · beat 1 of 2"
    # The keys: ↑ one beat, Page Down one bar.
    staff.focus()
    page.keyboard.press("ArrowUp")
    assert abs(_frame(page) - _frame_of(9)) <= 1, _frame(page)
    page.keyboard.press("PageDown")
    assert abs(_frame(page) - _frame_of(8)) <= 1, _frame(page)


def test_score_page_plays_the_staff_and_seeks(live_server: Any, score: Any, browser: Any) -> None:
    base = live_server.url
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, base, "notator")
    page.goto(f"{base}/scores/{score.pk}/")
    page.wait_for_selector(f"{PLAYER}[data-ready=true]", timeout=WAIT_MS)
    check_page(page, score)
    status = page.locator(f"{PLAYER} [data-viewer-status]").inner_text()
    assert "120 bpm, 5 bars of 2 beats · " in status, status
    assert _frame(page) == 0 and _beat(page) == 0
    check_playing(page)
    check_seeking(page)

    metronome = page.locator("[data-metronome]")
    assert metronome.get_attribute("aria-pressed") == "false"
    metronome.click()  # no sound is asserted: headless Chromium may have no audio
    assert metronome.get_attribute("aria-pressed") == "true"
    page.click(f"{PLAYER} [data-play]")
    page.wait_for_timeout(600)
    page.click(f"{PLAYER} [data-play]")
    metronome.click()
    assert metronome.get_attribute("aria-pressed") == "false"
    page.locator(PLAYER).focus()
    page.keyboard.press("m")
    assert metronome.get_attribute("aria-pressed") == "true"

    screenshot(page, "score")
    screenshot(page, "score-staff", "#staff")
    assert not errors, errors
