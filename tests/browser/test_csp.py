"""Every kind of page keeps the Content-Security-Policy (issue 16, finding 8): headless
Chromium opens the log-in page, home, a project, the upload page, a clip, a transition,
a proposal, two proposals compared, a score, the PFNN walk page, the MotorNerve drive
pages (of a clip and of a project, with the weights shipped or not), the notifications
and the account page, lets each load its players, and finds no ``securitypolicyviolation``
event, no CSP console message and no page error. A style attribute written into one
of them afterwards is reported, so the listener is known to work.

The clips and the transition go through the real pipeline in-process before the browser
starts (as in ``test_review.py``); the score is uploaded with its service.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import NoReverseMatch, reverse

from motioncore import parameters as p
from motioncore.motornerve import network, packed
from support.browser import PASSWORD, SAMPLE_DIR, log_in
from support.web import finish_proposal
from webapp.clips.services import clip_upload_create
from webapp.projects.models import Membership, Project, Role
from webapp.runs import pipeline, services, tasks
from webapp.transitions.services import transition_create

WALK = SAMPLE_DIR / "games105" / "walk_forward.bvh"
RUN = SAMPLE_DIR / "games105" / "run_forward.bvh"
SCORE = SAMPLE_DIR / "scores" / "walk_forward.json"
SETTLE_MS = 1500
WAIT_MS = 60_000

# Installed before every document: keeps the page's CSP violations for the test.
LISTEN = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
  const where = `${e.sourceFile || ''}:${e.lineNumber}`;
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI || ''} ${where}`);
});
"""


@pytest.fixture
def site(transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: Any) -> Any:
    """A project of "author" (editor) with two processed clips, a succeeded transition,
    two proposals of it and a score."""
    from support.web import animated_score

    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setattr(services, "heartbeat_interval_s", lambda: 3600.0)
    monkeypatch.setattr(tasks.run_pipeline, "delay", lambda run_id: None)
    author = get_user_model().objects.create_user(username="author", password=PASSWORD)
    project = Project.objects.create(name="Policy")
    Membership.objects.create(project=project, user=author, role=Role.EDITOR)
    clips = []
    for path in (WALK, RUN):
        clip = clip_upload_create(
            project=project, user=author, name=path.name, data=path.read_bytes()
        ).clip
        pipeline.execute(run_id=clip.runs.get().pk)
        clips.append(clip)
    transition = transition_create(
        user=author,
        clip_a_id=clips[0].pk,
        clip_b_id=clips[1].pk,
        parameters=p.resolved({}, p.TRANSITION),
    )
    pipeline.execute(run_id=transition.run.pk)
    transition.refresh_from_db()
    assert transition.run.status == "succeeded", transition.run.error
    methods = list(transition.result["methods"])
    proposals = [finish_proposal(transition, author, method=m) for m in methods[:2]]
    score = animated_score(project=project, user=author, name=SCORE.name, data=SCORE.read_bytes())
    return SimpleNamespace(
        project=project, clip=clips[0], transition=transition, proposals=proposals, score=score
    )


def pages(site: Any) -> list[str]:
    """The paths of every kind of page, after log-in."""
    a, b = site.proposals
    return [
        "/",
        f"/projects/{site.project.pk}/",
        f"/projects/{site.project.pk}/upload/",
        f"/clips/{site.clip.pk}/",
        f"/clips/{site.clip.pk}/walk/",
        f"/clips/{site.clip.pk}/drive/",
        f"/projects/{site.project.pk}/drive/",
        f"/transitions/{site.transition.pk}/",
        f"/proposals/{a.pk}/",
        f"/proposals/compare/?a={a.pk}&b={b.pk}",
        f"/scores/{site.score.pk}/",
        "/notifications/",
        *account_pages(),
    ]


def account_pages() -> list[str]:
    """The account page, where this checkout has one."""
    with contextlib.suppress(NoReverseMatch):
        return [reverse("account")]
    return []


def visit(page: Any, url: str, found: list[str]) -> None:
    """Open ``url``, let it load its data and start its player, collect violations."""
    response = page.goto(url)
    assert response is not None and response.ok, (url, response and response.status)
    assert "default-src 'self'" in (response.headers.get("content-security-policy") or ""), url
    page.wait_for_load_state("networkidle", timeout=WAIT_MS)
    page.wait_for_timeout(SETTLE_MS)
    found += [f"{url}: {v}" for v in page.evaluate("window.__csp")]


def ship_fixture_weights(monkeypatch: Any, tmp_path: Path) -> None:
    """From here on the shipped MotorNerve weights are the parity fixture's small network
    (tests/fixtures/motornerve/): the Drive page then runs it and draws the character."""
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "motornerve"
    manifest = json.loads((fixture / "network.json").read_text())
    path = tmp_path / "motornerve-v2.npz"
    packed.unpack(manifest, (fixture / "network.bin").read_bytes()).save(path)
    monkeypatch.setattr(network, "SHIPPED_WEIGHTS", path)


def test_every_page_keeps_the_policy(
    live_server: Any, site: Any, browser: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    """Issue 16, finding 8: no page breaks its Content-Security-Policy."""
    base = live_server.url
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=False)
    context.add_init_script(LISTEN)
    page = context.new_page()
    found: list[str] = []
    page.on("pageerror", lambda error: found.append(f"page error: {error}"))
    page.on(
        "console",
        lambda message: (
            found.append(f"console: {message.text}")
            if "Content Security Policy" in message.text or "Refused to" in message.text
            else None
        ),
    )
    visit(page, f"{base}/accounts/login/", found)
    log_in(page, base, "author")
    for path in pages(site):
        visit(page, f"{base}{path}", found)
    ship_fixture_weights(monkeypatch, tmp_path)
    visit(page, f"{base}/clips/{site.clip.pk}/drive/", found)
    assert page.locator("#drive").get_attribute("data-ready") == "true"
    assert found == []
    # The listener does report: a style attribute written as markup is refused.
    page.evaluate("document.body.insertAdjacentHTML('beforeend', '<b style=\"color:red\">x</b>')")
    page.wait_for_timeout(300)
    assert any("style-src" in v for v in page.evaluate("window.__csp"))
    context.close()
