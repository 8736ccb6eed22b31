"""The score editor in headless Chromium: drag a support symbol a beat later and the
player gets an animation whose footprint moved; undo brings it back; a symbol moved
onto another is marked with the server's problem; an arm gesture added from the
palette moves the arm; one bar more lengthens the staff and the animation; saving makes
version 2 (version 1 stays listed).

The animations compared are the preview answers the page received and played (the
``data-previews`` count says the player took each one).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.browser import log_in, screenshot, staff_bar_y, walk_score

SECONDS_PER_BEAT = 0.5
WAIT_MS = 60_000
PLAYER = "#score-player"
EDITOR = "[data-editor]"


@pytest.fixture
def score(transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any) -> Any:
    return walk_score(settings, tmp_path, monkeypatch)


def _symbol(page: Any, index: int) -> Any:
    return page.locator(f"#staff .staff__symbol[data-index='{index}']")


def _previewed(page: Any, count: int, action: Any) -> dict[str, Any]:
    """Do ``action``; the preview the page received for it, once the player shows it."""
    with page.expect_response(lambda r: r.url.endswith("/preview/"), timeout=WAIT_MS) as answer:
        action()
    page.wait_for_selector(f"{EDITOR}[data-previews='{count}']", timeout=WAIT_MS)
    body: dict[str, Any] = json.loads(answer.value.text())
    return body


def _last_left_print_s(preview: dict[str, Any]) -> float:
    prints = [p for p in preview["animation"]["footprints"] if p["side"] == "left"]
    return float(prints[-1]["start_s"])


def _joint_at(preview: dict[str, Any], words: tuple[str, ...], frame: int) -> list[float]:
    viewer = preview["viewer"]
    names = [n.lower() for n in viewer["names"]]
    joint = next(i for i, n in enumerate(names) if all(w in n for w in words))
    start = (frame * viewer["joints"] + joint) * 3
    return [float(v) for v in viewer["positions"][start : start + 3]]


def test_edit_a_score_see_it_animate_undo_and_save_version_2(
    live_server: Any, score: Any, browser: Any
) -> None:
    base = live_server.url
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 1300})
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, base, "notator")
    page.goto(f"{base}/scores/{score.pk}/")
    page.wait_for_selector(f"{EDITOR}[data-state=ready]", timeout=WAIT_MS)
    left_7 = _symbol(page, 7)  # the last step: left, beat 7
    assert left_7.get_attribute("data-column") == "support_left"
    assert left_7.get_attribute("data-beat") == "7"

    # Drag it one beat later (up the staff): the left foot's last print comes later.
    box = left_7.bounding_box()
    beat_px = (staff_bar_y(page, 6) - staff_bar_y(page, 8)) / 2

    def drag() -> None:
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x, y - beat_px / 2, steps=3)
        page.mouse.move(x, y - beat_px, steps=3)
        page.mouse.up()

    moved = _previewed(page, 1, drag)
    assert _symbol(page, 7).get_attribute("data-beat") == "8"
    assert _last_left_print_s(moved) >= 8 * SECONDS_PER_BEAT
    assert page.locator(f"{PLAYER} [data-viewer-status]").inner_text().startswith("Edited: ")
    screenshot(page, "score-editor")

    # Undo (Ctrl+Z): the symbol and the print are back.
    page.locator(PLAYER).focus()
    undone = _previewed(page, 2, lambda: page.keyboard.press("Control+z"))
    assert _symbol(page, 7).get_attribute("data-beat") == "7"
    original = score.animation["footprints"]
    assert _last_left_print_s(undone) == pytest.approx(
        [p for p in original if p["side"] == "left"][-1]["start_s"]
    )

    # A step moved onto another: the server's problem is drawn on the symbol it names.
    _symbol(page, 6).click()  # right, beat 6
    page.locator(PLAYER).focus()
    page.keyboard.press("[")
    page.keyboard.press("[")  # beat 4, where the right foot's step 4 already is
    page.wait_for_selector(f"{EDITOR}[data-state=invalid]", timeout=WAIT_MS)
    assert "is-invalid" in (_symbol(page, 6).get_attribute("class") or "")
    problems = page.locator("[data-editor-problems] li").all_inner_texts()
    assert problems and problems[0].startswith("symbol 6 "), problems
    page.keyboard.press("Control+z")
    _previewed(page, 3, lambda: page.keyboard.press("Control+z"))
    assert "is-invalid" not in (_symbol(page, 6).get_attribute("class") or "")

    # An arm gesture from the palette at beat 2: the right hand rises by beat 3.
    page.keyboard.press("Escape")
    page.select_option(f"{EDITOR} [name=sign]", "direction:forward")
    page.select_option(f"{EDITOR} [name=column]", "arm_right")
    page.select_option(f"{EDITOR} [name=level]", "high")
    page.locator(PLAYER).focus()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")  # the cursor on beat 2
    with_arm = _previewed(page, 4, lambda: page.click(f"{EDITOR} [data-edit=add]"))
    assert page.locator("#staff").get_attribute("data-symbols") == "9"
    frame = round(3 * SECONDS_PER_BEAT * 60)
    before = _joint_at(undone, ("right", "hand"), frame)
    after = _joint_at(with_arm, ("right", "hand"), frame)
    assert after[1] - before[1] > 0.5, (before, after)  # metres higher: the arm is up

    # One bar more (the header): the staff and the animation are a bar longer.
    def one_bar_more() -> None:
        page.fill(f"{EDITOR} [name=measures]", "6")
        page.keyboard.press("Tab")  # the field's change

    longer = _previewed(page, 5, one_bar_more)
    assert longer["viewer"]["frames"] == with_arm["viewer"]["frames"] + 2 * SECONDS_PER_BEAT * 60
    assert page.locator("#staff .staff__bar[data-bar='6']").count() == 1

    # Save: version 2 opens; version 1 is listed beside it.
    page.click(f"{EDITOR} [data-save]")
    page.wait_for_url(lambda url: f"/scores/{score.pk}/" not in url, timeout=WAIT_MS)
    current = page.locator("[data-versions] [aria-current=page]")
    assert current.get_attribute("data-version") == "2"
    assert page.locator(f"[data-versions] a[href='/scores/{score.pk}/']").count() == 1
    listed = page.request.get(f"{base}/api/v1/scores/{score.pk}/versions/").json()
    assert [v["version"] for v in listed] == [1, 2]
    saved = page.request.get(f"{base}/api/v1/scores/{listed[1]['id']}/download/score.json/")
    saved_score = json.loads(saved.text())
    assert (len(saved_score["symbols"]), saved_score["measures"]) == (9, 6)
    assert not errors, errors
