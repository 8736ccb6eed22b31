"""The sequencer in headless Chromium: three clips of one skeleton put on the timeline,
dragged into order, rendered by a run (a worker thread executes it), played across both
joins, the sequence exported as BVH with the expected frame count, and its second join
proposed for review from the page (the proposal's player plays the sequence clip), and
that join's cut dragged on the bar into a new sequence. The clips go
through the real pipeline in-process before the browser starts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from motioncore import bvh
from support.browser import PASSWORD, SAMPLE_DIR, RunWorker, log_in, running_worker, screenshot
from webapp.clips.services import clip_upload_create
from webapp.projects.models import Membership, Project, Role
from webapp.runs import pipeline, services, tasks

WALK = SAMPLE_DIR / "games105" / "walk60.bvh"  # 3 s at 60 Hz
RUN = SAMPLE_DIR / "games105" / "run_forward.bvh"  # 0.75 s at 60 Hz
WAIT_MS = 60_000
RECORD_PARTS = """() => {
  const player = document.querySelector('#sequence-player');
  window.__parts = [player.dataset.part];
  new MutationObserver(() => {
    const part = player.dataset.part;
    if (window.__parts[window.__parts.length - 1] !== part) window.__parts.push(part);
  }).observe(player, {attributes: true, attributeFilter: ['data-part']});
}"""


@pytest.fixture
def studio(
    transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any
) -> Iterator[SimpleNamespace]:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setattr(services, "heartbeat_interval_s", lambda: 3600.0)
    editor = get_user_model().objects.create_user(username="editor", password=PASSWORD)
    project = Project.objects.create(name="Locomotion")
    Membership.objects.create(project=project, user=editor, role=Role.EDITOR)
    monkeypatch.setattr(tasks.run_pipeline, "delay", lambda run_id: None)
    clips = {}
    for path in (WALK, RUN):  # processed here, before the worker takes the page's runs
        clip = clip_upload_create(
            project=project, user=editor, name=path.name, data=path.read_bytes()
        ).clip
        pipeline.execute(run_id=clip.runs.get().pk)
        clips[path.name] = clip
    worker: RunWorker
    for worker in running_worker(monkeypatch):
        yield SimpleNamespace(project=project, clips=clips, worker=worker)


def test_three_clips_dragged_into_order_render_play_and_export(
    live_server: Any, studio: SimpleNamespace, browser: Any
) -> None:
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_server.url, "editor")
    page.goto(f"{live_server.url}/projects/{studio.project.pk}/")
    page.click("text=New sequence")
    walk, run = studio.clips[WALK.name], studio.clips[RUN.name]
    # walk, run, walk on the timeline; then the run dragged to the front.
    for clip in (walk, run, walk):
        page.click(f"[data-add='{clip.pk}']")
    timeline = page.locator("[data-timeline]")
    assert timeline.get_attribute("data-count") == "3"
    items = page.locator("[data-timeline] > li")
    items.nth(1).drag_to(items.nth(0), target_position={"x": 20, "y": 2})
    order = [items.nth(i).get_attribute("data-clip") for i in range(3)]
    assert order == [str(run.pk), str(walk.pk), str(walk.pk)], order
    screenshot(page, "sequence-builder")
    page.click("[data-render]")
    page.wait_for_url("**/sequences/*/")
    player = page.locator("#sequence-player[data-ready=true]")
    player.wait_for(timeout=WAIT_MS)  # the page reloads itself when the run has finished
    sequence_id = page.url.rstrip("/").split("/")[-1]
    made = page.request.get(f"{live_server.url}/api/v1/sequences/{sequence_id}/").json()
    assert made["clips"] == [run.pk, walk.pk, walk.pk]
    assert page.locator("[data-joins] tbody tr").count() == 2

    page.evaluate(RECORD_PARTS)
    player.focus()
    page.keyboard.press(" ")  # play through both joins
    page.wait_for_function(
        "() => document.querySelector('#sequence-player').dataset.part === 'clip 3'",
        timeout=WAIT_MS,
    )
    page.keyboard.press("k")
    parts = page.evaluate("() => window.__parts")
    for part in ("join 1", "clip 2", "join 2", "clip 3"):
        assert part in parts, parts
    assert parts.index("join 1") < parts.index("clip 2") < parts.index("join 2")
    screenshot(page, "sequence")

    link = page.locator("a[download]", has_text="Sequence clip (BVH)")
    body = page.request.get(f"{live_server.url}{link.get_attribute('href')}").body()
    exported = bvh.load(body)
    last = made["result"]["segments"][-1]
    assert exported.num_frames == made["result"]["frames"]
    assert exported.num_frames == last["start"] + last["last"] - last["first"] + 1

    # Join 2 proposed for review from the page: the proposal plays the sequence clip.
    page.click("[data-propose-details='2'] summary")
    page.locator("[data-propose-join='2'] input[name=title]").fill("Walk into walk")
    page.click("[data-propose-join='2'] button[type=submit]")
    page.wait_for_url("**/proposals/*/")
    page.wait_for_selector("#proposal-player[data-ready=true]", timeout=WAIT_MS)
    proposal_id = page.url.rstrip("/").split("/")[-1]
    proposal = page.request.get(f"{live_server.url}/api/v1/proposals/{proposal_id}/").json()
    assert (proposal["sequence"], proposal["join_number"]) == (int(sequence_id), 2)
    assert proposal["transition_frames"] == made["result"]["frames"]
    assert "join 2 of sequence" in page.content()
    screenshot(page, "sequence-join-review")

    # Join 2's handle dragged earlier on the bar, then a frame later by key: the form
    # gets the new cut (entry left to the search) and renders a sequence cut there.
    page.goto(f"{live_server.url}/sequences/{sequence_id}/")
    page.locator("#sequence-player[data-ready=true]").wait_for(timeout=WAIT_MS)
    handle = page.locator("[data-join-handle='2']")
    at = int(handle.get_attribute("aria-valuenow") or -1)
    cut = int(page.locator("input[name=cut-2]").input_value())
    box = handle.bounding_box()
    bar = page.locator("[data-sequence-bar]").bounding_box()
    assert box is not None and bar is not None
    frames = made["result"]["frames"]
    dx = -20 * bar["width"] / frames  # about 20 frames earlier
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx / 2, y)
    page.mouse.move(x + dx, y)
    page.mouse.up()
    handle.press("ArrowRight")
    moved = int(handle.get_attribute("aria-valuenow") or -1)
    assert at - 25 <= moved <= at - 15, (at, moved)
    assert page.locator("#sequence-player").get_attribute("data-frame") == str(moved)
    assert int(page.locator("input[name=cut-2]").input_value()) == cut + moved - at
    assert page.locator("input[name=entry-2]").input_value() == ""
    page.click("[data-adjust-joins] button[type=submit]")
    page.wait_for_url(lambda url: url.rstrip("/").split("/")[-1] != sequence_id)
    page.locator("#sequence-player[data-ready=true]").wait_for(timeout=WAIT_MS)
    again = page.url.rstrip("/").split("/")[-1]
    remade = page.request.get(f"{live_server.url}/api/v1/sequences/{again}/").json()
    assert remade["edits"][1] == {"cut": cut + moved - at, "entry": None}
    assert remade["result"]["joins"][1]["cut"]["frame"] == cut + moved - at
    assert not errors, errors
