"""Team review in headless Chromium, two people in two browser contexts: the editor
proposes a finished transition's MTP cut from the transition page, naming the reviewer;
the reviewer opens the proposal, seeks, comments at a frame, and comments on a foot over
a frame range mentioning the editor (a pin bar on the timeline, a ring on the joint while
the frame is inside the range); the editor sees the notifications in the header, revises;
the reviewer approves the new version. Then: v1 superseded, v2 approved, the thread kept
on v2, the notifications, the compare page and the activity log.

The clips (GAMES-105 walk into run) and the transition run go through the real pipeline
in-process (``pipeline.execute``) before the browser starts; nothing is queued after.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
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
from webapp.transitions.services import transition_create

WALK = SAMPLE_DIR / "games105" / "walk_forward.bvh"  # 100 frames at 100 fps
RUN = SAMPLE_DIR / "games105" / "run_forward.bvh"  # 45 frames at 60 fps
FOOT = "lAnkle"
WAIT_MS = 60_000
PLAYER = "#proposal-player"
VIEWER_ARRAYS = re.compile(r"/download/viewer[^/]*\.json/?$")  # the player's arrays
VIEWPORT = {"width": 1280, "height": 1000}

# Pixels of the joint ring (#e0197d): strong red, little green, some blue; the blue
# skeleton, the grid and the labels have none.
RING_PROBE = """(selector) => {
  const source = document.querySelector(selector);
  const copy = document.createElement('canvas');
  copy.width = source.width; copy.height = source.height;
  const context = copy.getContext('2d');
  context.drawImage(source, 0, 0);
  const data = context.getImageData(0, 0, copy.width, copy.height).data;
  let ring = 0;
  for (let i = 0; i < data.length; i += 4) {
    const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
    if (r > 170 && g < 90 && b > 60 && b < 190 && r > b + 40) ring += 1;
  }
  return ring;
}"""


@pytest.fixture
def team(transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any) -> Any:
    """A project with an editor and a reviewer, two processed clips and a succeeded
    transition from the walk into the run."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setattr(services, "heartbeat_interval_s", lambda: 3600.0)
    monkeypatch.setattr(tasks.run_pipeline, "delay", lambda run_id: None)
    users = get_user_model().objects
    editor = users.create_user(username="editor", password=PASSWORD)
    reviewer = users.create_user(username="reviewer", password=PASSWORD)
    project = Project.objects.create(name="Locomotion")
    Membership.objects.create(project=project, user=editor, role=Role.EDITOR)
    Membership.objects.create(project=project, user=reviewer, role=Role.REVIEWER)
    clips = []
    for path in (WALK, RUN):
        clip = clip_upload_create(
            project=project, user=editor, name=path.name, data=path.read_bytes()
        ).clip
        pipeline.execute(run_id=clip.runs.get().pk)
        clips.append(clip)
    parameters = {
        "alpha": 0.6,
        "theta_max_deg": 75.0,
        "measure": "speed",
        "blend_s": 0.12,
        "blend": "crossfade",
    }
    transition = transition_create(
        user=editor, clip_a_id=clips[0].pk, clip_b_id=clips[1].pk, parameters=parameters
    )
    pipeline.execute(run_id=transition.run.pk)
    transition.refresh_from_db()
    assert transition.run.status == "succeeded", transition.run.error
    layout = transition.result["methods"]["mtp"]["layout"]
    return SimpleNamespace(project=project, transition=transition, layout=layout)


def _person(browser: Any, base: str, username: str, errors: list[str]) -> Any:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(f"{username}: {error}"))
    log_in(page, base, username)
    return page


def _unread(page: Any) -> int:
    return int(page.locator(".nav__notifications").get_attribute("data-unread") or -1)


def _status(page: Any) -> str:
    return str(page.locator(".proposal-head [data-status]").get_attribute("data-status"))


def _frame(page: Any) -> int:
    return int(page.locator(PLAYER).get_attribute("data-frame") or -1)


def _seek(page: Any, frame: int) -> None:
    set_range(page, f"{PLAYER} [data-scrub]", frame)
    page.wait_for_function(
        f"document.querySelector('{PLAYER}').dataset.frame === '{frame}'", timeout=WAIT_MS
    )


def _comments(page: Any, count: int) -> None:
    page.wait_for_function(
        f"document.querySelector('[data-thread]').dataset.comments === '{count}'",
        timeout=WAIT_MS,
    )


def propose(page: Any, base: str, team: Any) -> str:
    """The editor proposes the MTP cut with the reviewer; the proposal page's URL."""
    page.goto(f"{base}/transitions/{team.transition.pk}/")
    form = "[data-propose-form]"
    page.select_option(f"{form} select[name=method]", "mtp")
    page.fill(f"{form} input[name=title]", "Walk into run at the push-off")
    page.fill(f"{form} textarea[name=summary]", "MTP keeps the momentum through the switch.")
    page.select_option(f"{form} select[name=reviewers]", ["reviewer"])
    page.click(f"{form} button[type=submit]")
    page.wait_for_url(re.compile(r".*/proposals/\d+/$"))
    assert _status(page) == "open"
    assert page.locator("[data-reviewers] li").inner_text().startswith("reviewer")
    assert "0 of 1 approval" in page.locator("[data-approvals]").inner_text()
    return str(page.url)


def comment_at_frame(page: Any, frame: int) -> None:
    """Seek, pin the comment to the frame shown, post it: it joins the thread and the
    timeline without a reload."""
    page.wait_for_selector(f"{PLAYER}[data-ready=true]", timeout=WAIT_MS)
    _seek(page, frame)
    page.click("[data-pin-frame]")
    assert page.input_value("[data-comment-form] input[name=frame_start]") == str(frame)
    page.fill("#comment-body", "The push-off starts here: a good place to leave the walk.")
    page.click("[data-comment-form] button[type=submit]")
    _comments(page, 1)
    assert page.input_value("#comment-body") == ""  # the form is cleared
    assert page.locator("[data-pin-timeline]").get_attribute("data-pins") == "1"
    seek = page.locator(".comment__seek").first.inner_text()
    assert f"frame {frame} · " in seek and seek.endswith(" s"), seek


def comment_on_the_foot(page: Any, start: int, end: int) -> None:
    """A range on the left ankle mentioning the editor: a bar on the timeline, a ring on
    the foot inside the range only, the mention marked; clicking the bar seeks."""
    _seek(page, start)
    page.click("[data-pin-frame]")
    _seek(page, end)
    page.click("[data-pin-end]")
    page.select_option("[data-comment-form] select[name=joint]", FOOT)
    page.check("[data-comment-form] input[name=pin_parameters]")
    page.fill("#comment-body", "@editor the left foot slides through the blend.")
    page.click("[data-comment-form] button[type=submit]")
    _comments(page, 2)
    assert page.locator("[data-pin-timeline]").get_attribute("data-pins") == "2"
    assert page.locator(".pin-timeline__pin--range.pin-timeline__pin--joint").count() == 1
    assert page.locator("[data-thread] mark.mention").inner_text() == "@editor"
    second = page.locator("[data-thread] > li").nth(1)
    assert f"joint {FOOT}" in second.inner_text() and "α 0.6" in second.inner_text()
    # Inside the range the ring is drawn on the foot; outside it is not.
    page.wait_for_function(
        f"document.querySelector('{PLAYER}').dataset.jointMarkers === '{FOOT}'", timeout=WAIT_MS
    )
    page.wait_for_timeout(200)
    canvas = f"{PLAYER} [data-canvas] canvas"
    inside = page.evaluate(RING_PROBE, canvas)
    assert inside > 100, inside
    assert FOOT in page.locator("[data-marker-caption]").inner_text()
    _seek(page, max(0, start - 10))
    assert page.locator(PLAYER).get_attribute("data-joint-markers") == ""
    page.wait_for_timeout(200)
    outside = page.evaluate(RING_PROBE, canvas)
    assert outside < inside / 10, (inside, outside)
    assert page.evaluate(CANVAS_PROBE, canvas)["blue"] > 200  # the skeleton is still there
    # A click on the range bar seeks to its start, and the ring is back.
    page.click(".pin-timeline__pin--range")
    assert _frame(page) == start
    assert page.locator(PLAYER).get_attribute("data-joint-markers") == FOOT


def test_propose_comment_revise_approve_in_two_browsers(
    live_server: Any, team: Any, browser: Any
) -> None:
    base = live_server.url
    errors: list[str] = []
    editor = _person(browser, base, "editor", errors)
    reviewer = _person(browser, base, "reviewer", errors)

    v1 = propose(editor, base, team)
    reviewer.reload()
    assert _unread(reviewer) == 1  # assigned
    reviewer.goto(v1)
    cut = int(team.layout["blend_start_frame"])
    comment_at_frame(reviewer, cut)
    start, end = max(0, cut - 4), min(int(team.layout["frames"]) - 1, cut + 8)
    comment_on_the_foot(reviewer, start, end)
    reviewer.locator(PLAYER).scroll_into_view_if_needed()
    screenshot(reviewer, "review-proposal")

    # The editor, elsewhere (opening the proposal would read them): two comments on
    # their proposal (one mentions them) in the header.
    editor.goto(f"{base}/")
    assert _unread(editor) == 2
    editor.click(".nav__notifications")
    rows = editor.locator("[data-notifications] > li")
    assert rows.count() == 2
    assert all("reviewer commented on" in rows.nth(i).inner_text() for i in range(2))
    assert editor.locator("[data-notifications] [data-unread=true]").count() == 2
    assert "the left foot slides" in rows.first.inner_text()  # newest first
    screenshot(editor, "review-notifications")
    editor.click("[data-mark-all] button")
    assert _unread(editor) == 0
    assert editor.locator("[data-notifications] [data-unread=true]").count() == 0

    # The editor answers the first comment and resolves it: nested, greyed on the timeline.
    # The player's arrays are held back until a reply is being written: when they come,
    # the page draws the thread again (on a loaded machine that redraw used to land
    # after the click on Reply and take the open form with it).
    held: list[Any] = []
    editor.route(VIEWER_ARRAYS, lambda route: held.append(route))
    editor.goto(v1)
    _comments(editor, 2)  # the page script has drawn the thread (a click before it is lost)
    first = editor.locator("[data-thread] > li").first
    first.locator("button[data-reply]").click()
    first.locator("form.comment__reply textarea").fill("Agreed: I will try the 70 % cut.")
    editor.wait_for_function("document.querySelector('form.comment__reply') !== null")
    assert len(held) == 1 and editor.locator("button.comment__seek[disabled]").count() > 0
    held[0].continue_()
    editor.unroute(VIEWER_ARRAYS)
    editor.wait_for_selector("[data-thread] button.comment__seek:not([disabled])", timeout=WAIT_MS)
    draft = editor.locator("[data-thread] > li").first.locator("form.comment__reply textarea")
    assert draft.input_value() == "Agreed: I will try the 70 % cut."
    first = editor.locator("[data-thread] > li").first
    first.locator("form.comment__reply button[type=submit]").click()
    _comments(editor, 3)
    first = editor.locator("[data-thread] > li").first
    assert "Agreed" in first.locator(".comment__replies").inner_text()
    first.locator("button[data-resolve]").click()
    editor.wait_for_selector("[data-thread] > li[data-resolved=true]", timeout=WAIT_MS)
    assert "resolved by editor" in editor.locator("[data-thread] > li").first.inner_text()
    assert editor.locator(".pin-timeline__pin--resolved").count() == 1

    # The editor revises: the 70 % cut of the same run.
    editor.select_option("[data-revise-form] select[name=method]", "fixed70")
    editor.fill("[data-revise-form] textarea[name=summary]", "Cut later, as asked.")
    editor.click("[data-revise-form] button[type=submit]")
    editor.wait_for_url(re.compile(r".*/proposals/\d+/#revise$"))
    v2 = editor.url.split("#")[0]
    assert v2 != v1 and _status(editor) == "open"
    assert "Version 2" in editor.locator(".proposal-meta").inner_text()

    # The reviewer follows the notification to version 2, finds the thread kept, approves.
    reviewer.goto(f"{base}/")
    assert _unread(reviewer) == 3  # replied, resolved, revised ("assigned" was read on v1)
    reviewer.goto(f"{base}/notifications/")
    revised = reviewer.locator("[data-notifications] > li").first
    assert "editor revised" in revised.inner_text()
    revised.locator("a[href^='/proposals/']").click()
    reviewer.wait_for_url(v2)
    reviewer.wait_for_function(  # the page POSTs them read once it is open
        "document.querySelector('.nav__notifications').dataset.unread === '0'", timeout=WAIT_MS
    )
    _comments(reviewer, 3)
    versions = reviewer.locator("[data-thread] .comment__head .badge--plain").all_inner_texts()
    assert versions == ["v1", "resolved by editor", "v1", "v1"], versions
    reviewer.wait_for_selector(f"{PLAYER}[data-ready=true]", timeout=WAIT_MS)
    assert reviewer.locator("[data-pin-timeline]").get_attribute("data-pins") == "2"
    reviewer.fill("#decision-note", "Clean now.")
    reviewer.click("[data-decision-form] button[value=approve]")
    reviewer.wait_for_url(re.compile(r".*#decide$"))
    assert _status(reviewer) == "approved"
    assert "1 of 1 approval" in reviewer.locator("[data-approvals]").inner_text()
    assert "Clean now." in reviewer.locator("[data-reviewers]").inner_text()
    assert reviewer.locator("[data-decision-form]").count() == 0
    reviewer.goto(v1)
    assert _status(reviewer) == "superseded"

    # Compare the two versions on one clock.
    editor.goto(v2)
    editor.click("[data-compare-previous]")
    compare = editor.locator("#compare[data-ready=true]")
    compare.wait_for(timeout=WAIT_MS)
    editor.wait_for_timeout(300)
    left = editor.evaluate(CANVAS_PROBE, "[data-canvas='0'] canvas")
    right = editor.evaluate(CANVAS_PROBE, "[data-canvas='1'] canvas")
    assert left["blue"] > 200 and right["orange"] > 200, (left, right)
    assert editor.locator("[data-metrics]").count() == 2
    screenshot(editor, "review-compare")

    # The activity log, newest first.
    editor.goto(f"{base}/projects/{team.project.pk}/activity/")
    verbs = [
        editor.locator(".activity__item").nth(i).get_attribute("data-verb")
        for i in range(editor.locator(".activity__item").count())
    ]
    assert verbs == [
        "proposal.approved",
        "proposal.revised",
        "comment.resolved",
        "comment.created",
        "comment.created",
        "comment.created",
        "proposal.reviewers_assigned",
        "proposal.created",
    ], verbs
    assert "reviewer approved" in editor.locator(".activity__item").first.inner_text()
    screenshot(editor, "review-activity")
    assert not errors, errors
