"""The whole path in headless Chromium: upload two real clips through the upload page,
watch their runs' progress, play one in the clip player, re-score its cut points with a
slider, start a transition into the other from the clip page and play the comparison.

Runs are executed by a worker thread in this process (``pipeline.execute``, the Celery
task's body) fed by ``run_pipeline.delay``; a gate holds the analyze stage until the
page has shown the run part-way, so the progress bar is seen moving, not only done.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from support.browser import (
    CANVAS_PROBE,
    PASSWORD,
    SAMPLE_DIR,
    RunWorker,
    log_in,
    screenshot,
    set_range,
)
from support.web import stage_replaced
from webapp.projects.models import Membership, Project, Role
from webapp.runs import registry, services, tasks

CLIP_A = SAMPLE_DIR / "games105" / "walk60.bvh"
CLIP_B = SAMPLE_DIR / "games105" / "walk_forward.bvh"
WAIT_MS = 60_000
TOOLTIP_SWEEP = """() => {
  const overlay = document.querySelectorAll('[data-plot] canvas')[1];
  const tip = document.querySelector('.curves__tooltip');
  const box = overlay.getBoundingClientRect();
  for (let x = 0; x < box.width; x += 1) {
    for (let y = 0; y < box.height / 2; y += 2) {
      overlay.dispatchEvent(new PointerEvent('pointermove',
        {clientX: box.left + x, clientY: box.top + y, bubbles: true}));
      if (!tip.hidden) return {x, y, text: tip.textContent};
    }
  }
  return null;
}"""


class Worker(RunWorker):
    """A :class:`RunWorker` whose ``gate`` holds the analyze stage."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def held(self, stage: Callable[..., None]) -> Callable[..., None]:
        def wrapper(context: Any, progress: Callable[..., None]) -> None:
            progress(0.0, "Analysing (held by the test)")
            if not self.gate.wait(WAIT_MS / 1000):
                raise TimeoutError("the test never released the analyze stage")
            stage(context, progress)

        return wrapper


@pytest.fixture
def worker(
    transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any
) -> Iterator[Worker]:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setattr(services, "heartbeat_interval_s", lambda: 3600.0)
    running = Worker()
    monkeypatch.setattr(tasks.run_pipeline, "delay", running.queue.put)
    with stage_replaced("analyze", running.held(registry.step("analyze").function)):
        running.thread.start()
        yield running
        running.gate.set()
        running.stop()
    assert not running.errors, running.errors


@pytest.fixture
def owner(transactional_db: None) -> Project:
    user = get_user_model().objects.create_user(username="uploader", password=PASSWORD)
    project = Project.objects.create(name="Walks")
    Membership.objects.create(project=project, user=user, role=Role.OWNER)
    return project


def _upload_both(page: Any, base: str, project: Project, worker: Worker) -> dict[str, str]:
    """Upload A and B, check that a run is shown part-way, release it; clip URLs by name."""
    page.goto(f"{base}/projects/{project.pk}/upload/")
    page.set_input_files("input[type=file]", [str(CLIP_A), str(CLIP_B)])
    # The first clip's run stops in the analyze stage until released: the page shows it
    # running, part-way, with the stage's message.
    page.wait_for_function(
        "() => [...document.querySelectorAll('.upload-item .run-status')].some(s =>"
        " s.dataset.status === 'running' && s.querySelector('[data-role=stage]').textContent"
        ".includes('held by the test') && s.querySelector('[data-role=bar]').value > 0"
        " && s.querySelector('[data-role=bar]').value < 100)",
        timeout=WAIT_MS,
    )
    screenshot(page, "upload")
    worker.gate.set()
    links = page.locator(".upload-item [data-role=link]:not([hidden]) a")
    page.wait_for_function(
        "() => document.querySelectorAll('.upload-item [data-role=link]:not([hidden])').length"
        " === 2",
        timeout=WAIT_MS,
    )
    # Both runs finished (the links show as soon as the uploads are stored).
    page.wait_for_function(
        "() => document.querySelectorAll('.upload-item .run-status[data-status=succeeded]')"
        ".length === 2",
        timeout=WAIT_MS,
    )
    assert page.locator(".upload-item [data-role=error]:not([hidden])").count() == 0
    names = [links.nth(i).inner_text() for i in range(2)]
    urls = [links.nth(i).get_attribute("href") for i in range(2)]
    return {
        clip.name: str(url)
        for clip in (CLIP_A, CLIP_B)
        for name, url in zip(names, urls, strict=True)
        if clip.name in name
    }


def _player_and_slider(page: Any) -> None:
    """The player draws and moves; α re-scores the candidate markers."""
    page.wait_for_selector("#viewer[data-ready=true]", timeout=WAIT_MS)
    page.wait_for_timeout(200)
    first = page.evaluate(CANVAS_PROBE)
    assert first["blue"] > 200, first  # the skeleton, not a blank canvas
    page.locator("#viewer").focus()
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    page.wait_for_timeout(200)
    assert page.locator("#viewer").get_attribute("data-frame") == "20"
    assert page.evaluate(CANVAS_PROBE)["hash"] != first["hash"]
    screenshot(page, "clip")

    curves = page.locator("[data-curves]")
    page.wait_for_selector("[data-curves][data-candidates]", timeout=WAIT_MS)
    before = curves.get_attribute("data-candidates")
    plot_before = page.evaluate(CANVAS_PROBE, "[data-plot] canvas")
    set_range(page, "[data-alpha]", 0.9)
    page.wait_for_function(
        f"document.querySelector('[data-curves]').dataset.candidates !== '{before}'",
        timeout=WAIT_MS,
    )
    page.wait_for_timeout(100)
    assert page.evaluate(CANVAS_PROBE, "[data-plot] canvas")["hash"] != plot_before["hash"]
    # A candidate's tooltip: sweep the plot with pointer moves until one shows.
    spot = page.evaluate(TOOLTIP_SWEEP)
    assert spot is not None, "no candidate marker answers the pointer"
    assert spot["text"].startswith("frame ") and "retention: " in spot["text"], spot
    assert "deceleration: " in spot["text"] and "margin" in spot["text"]
    page.locator("[data-plot] canvas").nth(1).hover(position={"x": spot["x"], "y": spot["y"]})
    assert page.locator(".curves__tooltip").is_visible()
    screenshot(page, "curves", "#viewer")
    # The transition form takes the slider's α.
    assert page.locator("[data-transition-form] input[name=alpha]").input_value() == "0.9"


def test_upload_watch_play_rescore_and_preview_a_transition(
    live_server: Any, owner: Project, worker: Worker, browser: Any
) -> None:
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_server.url, "uploader")
    clip_urls = _upload_both(page, live_server.url, owner, worker)

    page.goto(f"{live_server.url}{clip_urls[CLIP_A.name]}")
    _player_and_slider(page)

    page.select_option("[data-clip-b]", label=CLIP_B.name)
    page.click("[data-transition-form] button[type=submit]")
    page.wait_for_url("**/transitions/*/")
    compare = page.locator("#compare[data-ready=true]")
    compare.wait_for(timeout=WAIT_MS)  # the page reloads itself when the run has finished
    assert page.locator("[data-comparison] tbody tr").count() == 4
    assert page.locator("[data-comparison] tr[data-method=mtp] th").inner_text().startswith("MTP")
    assert compare.get_attribute("data-side0") == "mtp"
    assert compare.get_attribute("data-side1") == "end"
    page.wait_for_timeout(300)
    left = page.evaluate(CANVAS_PROBE, "[data-canvas='0'] canvas")
    right = page.evaluate(CANVAS_PROBE, "[data-canvas='1'] canvas")
    assert left["blue"] > 200 and right["orange"] > 200, (left, right)

    compare.focus()
    page.keyboard.press(" ")  # play both, synced
    page.wait_for_timeout(700)
    page.keyboard.press("k")
    frame = int(compare.get_attribute("data-frame") or 0)
    assert frame > 0
    readout = page.locator("#compare [data-readout]").inner_text()
    assert " · left " in readout and " · right " in readout, readout
    # The cuts are lined up: the side whose cut comes later starts first, so within
    # 0.7 s at least one side has moved (which one depends on where the cuts fall).
    moved = [page.evaluate(CANVAS_PROBE, f"[data-canvas='{i}'] canvas") for i in (0, 1)]
    assert moved[0]["hash"] != left["hash"] or moved[1]["hash"] != right["hash"]
    screenshot(page, "transition")
    page.check("[data-mode-choice][value=overlay]")
    page.wait_for_timeout(200)
    screenshot(page, "transition-overlay", "#compare")

    page.check("[data-mode-choice][value=toggle]")
    assert page.locator("[data-pane='1']").is_hidden()
    assert compare.get_attribute("data-shown") == "left"
    page.wait_for_timeout(200)
    shown_left = page.evaluate(CANVAS_PROBE, "[data-canvas='0'] canvas")
    assert shown_left["blue"] > 200 and shown_left["orange"] < 50, shown_left
    compare.focus()
    page.keyboard.press("t")
    assert compare.get_attribute("data-shown") == "right"
    page.wait_for_timeout(200)
    shown_right = page.evaluate(CANVAS_PROBE, "[data-canvas='0'] canvas")
    assert shown_right["orange"] > 200 and shown_right["blue"] < 50, shown_right

    page.select_option("[data-side='1']", "fixed70")
    page.wait_for_function("document.querySelector('#compare').dataset.side1 === 'fixed70'")
    assert not errors, errors
