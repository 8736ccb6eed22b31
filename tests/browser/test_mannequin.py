"""The mannequin in the players (headless Chromium): the clip page draws the skinned
body made from the clip's own skeleton by default, the bones overlay on demand, and with
the default camera the character stays in frame over a 10 m walk; picking an uploaded
character redraws the clip on it; the clip's GLB download opens in three.js' loader in
the page, its skinned joints where motioncore's forward kinematics puts them (< 1 mm).

What is measured is pixels: the body's pixels are those that change when the Body box
is ticked at the same frame (the mannequin and its shadow), wherever they are.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from motioncore import bvh, fk
from support.browser import (
    CANVAS_PROBE,
    DIFFERENCE,
    SAMPLE_DIR,
    SNAPSHOT,
    body_pixels,
    log_in,
    processed_clip,
    quiet_pipeline,
    screenshot,
    set_range,
)
from support.web import finish_character

WALK = SAMPLE_DIR / "games105" / "walk60.bvh"
BODY_PIXELS_MIN = 2500
"""Pixels a standing mannequin covers at least in the 1280 × 1100 page's player."""
EDGE_PX = 4
"""The body's pixels keep this far from the canvas's edges: it is in frame, not cut."""


def _long_walk(tmp_path: Path, metres: float = 10.0) -> Path:
    """walk60 (GAMES-105, 3.6 m) walked again from where it ended until it has covered
    ``metres`` along the ground: a real walk, its cycle repeated, as one BVH."""
    clip = bvh.load(WALK)
    root = int(clip.skeleton.roots[0])
    hips = fk.positions(clip)[:, root]
    step = hips[-1] - hips[0]
    step[1] = 0.0
    repeats = int(np.ceil(metres / np.linalg.norm(step[[0, 2]])))
    translations = np.concatenate(
        [
            clip.translations
            + np.where(np.arange(clip.skeleton.num_joints)[:, None] == root, k * step, 0.0)
            for k in range(repeats)
        ]
    )
    rotations = np.concatenate([clip.rotations] * repeats)
    path = tmp_path / "walk_10m.bvh"
    path.write_text(bvh.dump(replace(clip, rotations=rotations, translations=translations)))
    return path


@pytest.fixture
def walk(transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any) -> Any:
    """walk60, processed (made before the browser: the ORM is not for its event loop)."""
    quiet_pipeline(settings, tmp_path, monkeypatch)
    return processed_clip("Mannequin", "animator", WALK)


@pytest.fixture
def walk_and_character(
    transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any
) -> Any:
    """walk60 processed, and the suite's own character uploaded to its project."""
    quiet_pipeline(settings, tmp_path, monkeypatch)
    clip = processed_clip("Mannequin", "animator", WALK)
    return clip, finish_character(clip.project, clip.uploaded_by)


@pytest.fixture
def long_walk(transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any) -> Any:
    """The 10 m walk, processed."""
    quiet_pipeline(settings, tmp_path, monkeypatch)
    return processed_clip("Mannequin", "animator", _long_walk(tmp_path))


def _player(browser: Any, base: str, clip: Any, errors: list[str]) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, base, "animator")
    page.goto(f"{base}/clips/{clip.pk}/")
    page.wait_for_selector("#viewer[data-ready=true]", timeout=20_000)
    page.wait_for_selector("#viewer[data-body-kind=mannequin]", timeout=20_000)
    page.wait_for_timeout(150)
    return page


def test_the_mannequin_is_the_default_view_and_the_bones_an_overlay(
    live_server: Any, walk: Any, browser: Any
) -> None:
    errors: list[str] = []
    page = _player(browser, live_server.url, walk, errors)
    assert page.is_checked("input[data-body]") and not page.is_checked("input[data-bones]")
    body = body_pixels(page)
    assert body["count"] > BODY_PIXELS_MIN, body
    assert page.evaluate(CANVAS_PROBE)["blue"] > BODY_PIXELS_MIN / 2  # the clip's colour, lighter
    screenshot(page, "mannequin", "#viewer")
    page.evaluate(SNAPSHOT, "bodyAlone")
    page.check("input[data-bones]")  # the bones over the body
    page.wait_for_timeout(150)
    page.evaluate(SNAPSHOT, "withBones")
    overlay = page.evaluate(DIFFERENCE, ["bodyAlone", "withBones"])
    assert overlay["count"] > 300, overlay
    assert errors == []


def test_the_default_camera_keeps_a_10_m_walk_in_frame(
    live_server: Any, long_walk: Any, browser: Any
) -> None:
    errors: list[str] = []
    page = _player(browser, live_server.url, long_walk, errors)
    last = int(page.get_attribute("input[data-scrub]", "max"))
    for frame in (0, last // 3, (2 * last) // 3, last):
        set_range(page, "input[data-scrub]", frame)
        page.wait_for_timeout(150)
        body = body_pixels(page)
        assert body["count"] > BODY_PIXELS_MIN, (frame, body)
        assert body["left"] >= EDGE_PX and body["right"] < body["width"] - EDGE_PX, (frame, body)
        assert body["top"] >= EDGE_PX and body["bottom"] < body["height"] - EDGE_PX, (frame, body)
    screenshot(page, "mannequin-walk-10m", "#viewer")
    assert errors == []


def test_picking_a_character_redraws_the_clip_on_it(
    live_server: Any, walk_and_character: Any, browser: Any
) -> None:
    clip, character = walk_and_character
    errors: list[str] = []
    page = _player(browser, live_server.url, clip, errors)
    pick = page.locator("[data-character-pick]")
    pick.wait_for(state="visible", timeout=10_000)
    set_range(page, "input[data-scrub]", 60)
    page.wait_for_timeout(150)
    page.evaluate(SNAPSHOT, "onMannequin")
    page.select_option("[data-character]", str(character.pk))
    page.wait_for_selector(f"#viewer[data-character-shown='{character.pk}']", timeout=20_000)
    page.wait_for_timeout(200)
    page.evaluate(SNAPSHOT, "onCharacter")
    changed = page.evaluate(DIFFERENCE, ["onMannequin", "onCharacter"])
    assert changed["count"] > BODY_PIXELS_MIN / 2, changed  # another body, drawn
    assert body_pixels(page)["count"] > BODY_PIXELS_MIN
    assert "retargeted onto hero.glb" in page.locator("[data-character-status]").inner_text()
    screenshot(page, "character-picked", "#viewer")
    page.select_option("[data-character]", "")  # back to the mannequin
    page.wait_for_selector("#viewer[data-character-shown='']", timeout=10_000)
    page.wait_for_timeout(200)
    page.evaluate(SNAPSHOT, "againMannequin")
    assert page.evaluate(DIFFERENCE, ["onMannequin", "againMannequin"])["count"] < 50
    assert errors == []


LOAD_GLB = """async ([url, frames, fps]) => {
  const { AnimationMixer, LoopOnce, Vector3 } = await import('three');
  const { GLTFLoader } = await import('three/addons/loaders/GLTFLoader.js');
  const response = await fetch(url, { credentials: 'same-origin' });
  const gltf = await new GLTFLoader().parseAsync(await response.arrayBuffer(), '');
  let skinned = null, count = 0;
  gltf.scene.traverse((o) => { if (o.isSkinnedMesh) { skinned = o; count += 1; } });
  const mixer = new AnimationMixer(gltf.scene);
  const action = mixer.clipAction(gltf.animations[0]);
  action.setLoop(LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  const played = [];
  for (const frame of frames) {
    mixer.setTime(frame / fps);
    gltf.scene.updateMatrixWorld(true);
    played.push(skinned.skeleton.bones.map((b) => b.getWorldPosition(new Vector3()).toArray()));
  }
  const durations = gltf.animations.map((a) => a.duration);
  return { status: response.status, skinned: count, played, durations };
}"""
MM = 0.001


def test_the_glb_download_opens_in_the_loader_where_fk_puts_the_joints(
    live_server: Any, walk: Any, browser: Any
) -> None:
    errors: list[str] = []
    page = _player(browser, live_server.url, walk, errors)
    cleaned = bvh.load(
        page.request.get(f"{live_server.url}/api/v1/clips/{walk.pk}/download/cleaned.bvh/").body()
    )
    frames = [0, cleaned.num_frames // 3, (2 * cleaned.num_frames) // 3, cleaned.num_frames - 1]
    url = f"/api/v1/clips/{walk.pk}/download/cleaned.glb/"
    loaded = page.evaluate(LOAD_GLB, [url, frames, cleaned.fps])
    assert loaded["status"] == 200 and loaded["skinned"] == 1, loaded["status"]
    assert loaded["durations"] == [pytest.approx((cleaned.num_frames - 1) / cleaned.fps, abs=1e-3)]
    error = np.linalg.norm(np.asarray(loaded["played"]) - fk.positions(cleaned)[frames], axis=-1)
    assert error.max() < MM, float(error.max())
    assert errors == []
