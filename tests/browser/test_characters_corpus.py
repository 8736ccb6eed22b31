"""Each humanoid test character of ../shared/data/gltf, uploaded to a project, plays a
corpus walk on the clip page (headless Chromium): picked in the Character list, the
clip is retargeted onto it and drawn with its own body. With KINETOGRAPH_SCREENSHOTS
set, one picture per character (docs/screenshots/character-*.png)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from support.browser import (
    body_pixels,
    log_in,
    processed_clip,
    quiet_pipeline,
    screenshot,
    set_range,
)
from support.paths import SHARED_DATA_ABSENT, shared_data_dir
from webapp.characters.services import character_create

GLTF = shared_data_dir() / "gltf"
WALK = shared_data_dir() / "bvh" / "cmu-3dsmax-jinny42" / "69_01.bvh"
"""CMU 69_01, walking forward (a permissive corpus walk)."""
BODY_PIXELS_MIN = 1500
"""Pixels a character covers at least in the 1280-wide page's player (the smallest,
RiggedFigure, is a thin proxy)."""


def _humanoids() -> list[Any]:
    manifest = GLTF / "MANIFEST.csv"
    if not manifest.is_file() or not WALK.is_file():
        return [pytest.param(None, marks=pytest.mark.skip(reason=SHARED_DATA_ABSENT))]
    with manifest.open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["humanoid"] == "yes"]
    return [
        pytest.param(GLTF / r["relative_path"], id=r["relative_path"].split("/")[0]) for r in rows
    ]


@pytest.fixture
def walk_and_character(
    request: Any, transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any
) -> Any:
    path: Path = request.param
    quiet_pipeline(settings, tmp_path, monkeypatch)
    clip = processed_clip("Characters", "animator", WALK)
    character = character_create(
        project=clip.project, user=clip.uploaded_by, name=path.name, data=path.read_bytes()
    )
    return clip, character


@pytest.mark.parametrize("walk_and_character", _humanoids(), indirect=True)
def test_the_character_plays_a_corpus_walk(
    live_server: Any, walk_and_character: Any, browser: Any
) -> None:
    clip, character = walk_and_character
    assert character.report["roles"]["is_humanoid"]
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_server.url, "animator")
    page.goto(f"{live_server.url}/clips/{clip.pk}/")
    page.wait_for_selector("#viewer[data-ready=true]", timeout=20_000)
    page.locator("[data-character-pick]").wait_for(state="visible", timeout=10_000)
    page.select_option("[data-character]", str(character.pk))
    page.wait_for_selector(f"#viewer[data-character-shown='{character.pk}']", timeout=30_000)
    last = int(page.get_attribute("input[data-scrub]", "max") or 0)
    set_range(page, "input[data-scrub]", last // 2)
    page.wait_for_timeout(300)
    status = page.locator("[data-character-status]").inner_text()
    assert status.startswith("the clip retargeted onto"), status
    body = body_pixels(page)
    assert body["count"] > BODY_PIXELS_MIN, body  # its own body, drawn
    stem = Path(character.name).stem.split("-")[0].lower()
    screenshot(page, f"character-{stem}", "#viewer")
    assert errors == []
