"""What the browser tests share: the ``browser`` fixture (Debian Chromium, headless,
driven by Playwright), the canvas probe, logging in, screenshots.

Needs Debian's ``chromium`` and the ``playwright`` package (CI installs both); a module
importing this is skipped, with the reason, when either is missing. ``tests/browser/
conftest.py`` gives the fixture to the browser tests, so that only they load Playwright.
"""

from __future__ import annotations

import os
import queue
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip("Debian chromium is not installed (apt install chromium)", allow_module_level=True)

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-unsafe-swiftshader",
    "--use-angle=swiftshader",
]
SAMPLE_DIR = Path(__file__).resolve().parents[1] / "data"
PASSWORD = "pw-browser-user"

# Count the blue (left / single skeleton) and orange (right skeleton) pixels of the
# canvas matching `selector` and hash the picture (the WebGL canvas keeps its drawing
# buffer, so it can be copied into a 2-D canvas and read back).
CANVAS_PROBE = """(selector) => {
  const source = document.querySelector(selector || '#viewer canvas');
  const copy = document.createElement('canvas');
  copy.width = source.width; copy.height = source.height;
  const context = copy.getContext('2d');
  context.drawImage(source, 0, 0);
  const data = context.getImageData(0, 0, copy.width, copy.height).data;
  let blue = 0, orange = 0, hash = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 2] > data[i] + 60 && data[i + 2] > 150) blue += 1;
    if (data[i] > 180 && data[i] > data[i + 2] + 90 && data[i + 1] > 90) orange += 1;
    hash = (hash * 31 + data[i] + 7 * data[i + 1] + 13 * data[i + 2]) % 1000000007;
  }
  return {blue, orange, hash, width: copy.width, height: copy.height};
}"""


class CspBypassingBrowser:
    """The launched browser, whose pages and contexts bypass the site's
    Content-Security-Policy unless asked not to (``bypass_csp=False``, as
    ``tests/browser/test_csp.py`` does): Playwright's ``wait_for_function`` evaluates its
    string with ``eval``, which the policy's script-src (no 'unsafe-eval') refuses."""

    def __init__(self, launched: Any) -> None:
        self._launched = launched

    def new_context(self, **options: Any) -> Any:
        return self._launched.new_context(**{"bypass_csp": True, **options})

    def new_page(self, **options: Any) -> Any:
        return self._launched.new_page(**{"bypass_csp": True, **options})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._launched, name)


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless Debian Chromium (use it after the fixtures that touch the database:
    Playwright's event loop then runs in this thread and Django refuses the ORM); see
    :class:`CspBypassingBrowser`."""
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield CspBypassingBrowser(launched)
        launched.close()


def log_in(page: Any, base: str, username: str) -> None:
    """Log in through the login form and land on the home page."""
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def set_range(page: Any, selector: str, value: float) -> None:
    """Move a range input to ``value`` as a user would (an ``input`` event)."""
    page.eval_on_selector(
        selector,
        "(el, v) => { el.value = String(v);"
        " el.dispatchEvent(new Event('input', {bubbles: true})); }",
        value,
    )


SCREENSHOTS_ENV = "KINETOGRAPH_SCREENSHOTS"


def screenshot(page: Any, name: str, selector: str | None = None) -> None:
    """Save ``name``.png of the page (or of ``selector``) into the folder named by
    ``$KINETOGRAPH_SCREENSHOTS`` (how ``docs/screenshots/`` is made); nothing without it:

        KINETOGRAPH_SCREENSHOTS=docs/screenshots scripts/test tests/browser
    """
    folder = os.environ.get(SCREENSHOTS_ENV)
    if not folder:
        return
    path = Path(folder) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    if selector is None:
        page.screenshot(path=str(path), full_page=True)
    else:
        page.locator(selector).screenshot(path=str(path))


class RunWorker:
    """Executes queued runs one at a time on a thread, as a Celery worker would
    (``pipeline.execute``, the task's body); feed it with
    ``monkeypatch.setattr(tasks.run_pipeline, "delay", worker.queue.put)``."""

    def __init__(self) -> None:
        self.queue: queue.Queue[int | None] = queue.Queue()
        self.errors: list[BaseException] = []
        self.thread = threading.Thread(target=self._work, daemon=True)

    def _work(self) -> None:
        from django.db import connection

        from webapp.runs import pipeline

        while (run_id := self.queue.get()) is not None:
            try:
                pipeline.execute(run_id=run_id)
            except BaseException as error:  # reported by the test
                self.errors.append(error)
            finally:
                connection.close()

    def stop(self, timeout_s: float = 60.0) -> None:
        """Finish the queued runs and end the thread."""
        self.queue.put(None)
        self.thread.join(timeout=timeout_s)


def running_worker(monkeypatch: Any) -> Iterator[RunWorker]:
    """For a fixture (``yield from``): from here on queued runs are executed by a
    :class:`RunWorker` thread; its errors fail the test when the fixture ends."""
    from webapp.runs import tasks

    running = RunWorker()
    monkeypatch.setattr(tasks.run_pipeline, "delay", running.queue.put)
    running.thread.start()
    yield running
    running.stop()
    assert not running.errors, running.errors


def quiet_pipeline(settings: Any, tmp_path: Path, monkeypatch: Any) -> None:
    """For a fixture: media under ``tmp_path``, no heartbeats, queued runs left queued
    (:func:`running_worker` executes them where a test needs it)."""
    from webapp.runs import services, tasks

    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setattr(services, "heartbeat_interval_s", lambda: 3600.0)
    monkeypatch.setattr(tasks.run_pipeline, "delay", lambda run_id: None)


def processed_clip(project_name: str, owner_name: str, sample: Path) -> Any:
    """``sample`` uploaded through the real pipeline to a new project owned by
    ``owner_name`` with a viewer ``watcher`` (both with :data:`PASSWORD`)."""
    from django.contrib.auth import get_user_model

    from webapp.clips.services import clip_upload_create
    from webapp.projects.models import Membership, Project, Role
    from webapp.runs import pipeline

    users = get_user_model().objects
    owner = users.create_user(username=owner_name, password=PASSWORD)
    viewer = users.create_user(username="watcher", password=PASSWORD)
    project = Project.objects.create(name=project_name)
    Membership.objects.create(project=project, user=owner, role=Role.OWNER)
    Membership.objects.create(project=project, user=viewer, role=Role.VIEWER)
    clip = clip_upload_create(
        project=project, user=owner, name=sample.name, data=sample.read_bytes()
    ).clip
    pipeline.execute(run_id=clip.runs.get().pk)
    return clip


def walk_score(settings: Any, tmp_path: Path, monkeypatch: Any) -> Any:
    """``tests/data/scores/walk_forward.json`` (8 steps, 120 bpm, 5 bars of 2) uploaded
    and animated by its clip's first run in a project of "notator" (owner); the runs
    its clip would queue afterwards are not started (``run_pipeline.delay`` is a no-op)."""
    from django.contrib.auth import get_user_model

    from support.web import animated_score
    from webapp.projects.models import Membership, Project, Role
    from webapp.runs import services, tasks

    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setattr(services, "heartbeat_interval_s", lambda: 3600.0)
    monkeypatch.setattr(tasks.run_pipeline, "delay", lambda run_id: None)
    owner = get_user_model().objects.create_user(username="notator", password=PASSWORD)
    project = Project.objects.create(name="Scores")
    Membership.objects.create(project=project, user=owner, role=Role.OWNER)
    name = "walk_forward.json"
    data = (SAMPLE_DIR / "scores" / name).read_bytes()
    return animated_score(project=project, user=owner, name=name, data=data)


def staff_bar_y(page: Any, beat: int) -> float:
    """The page y of the score staff's bar line at ``beat``."""
    line = page.locator(f"#staff .staff__bar[data-beat='{beat}'] .staff__bar-in").first
    box = line.bounding_box()
    assert box is not None, beat
    return float(box["y"] + box["height"] / 2)


# --- the body drawn in a player (#viewer) --------------------------------------------------

SNAPSHOT = """(key) => {
  const source = document.querySelector('#viewer canvas');
  const copy = document.createElement('canvas');
  copy.width = source.width; copy.height = source.height;
  const context = copy.getContext('2d');
  context.drawImage(source, 0, 0);
  window[key] = context.getImageData(0, 0, copy.width, copy.height).data;
}"""
DIFFERENCE = """([a, b]) => {
  const x = window[a], y = window[b];
  const width = document.querySelector('#viewer canvas').width;
  let count = 0, left = Infinity, right = -1, top = Infinity, bottom = -1;
  for (let i = 0; i < x.length; i += 4) {
    const d = Math.abs(x[i] - y[i]) + Math.abs(x[i + 1] - y[i + 1]) + Math.abs(x[i + 2] - y[i + 2]);
    if (d < 24) continue;
    count += 1;
    const p = i / 4, px = p % width, py = Math.floor(p / width);
    left = Math.min(left, px); right = Math.max(right, px);
    top = Math.min(top, py); bottom = Math.max(bottom, py);
  }
  const height = x.length / 4 / width;
  return {count, left, right, top, bottom, width, height};
}"""


def body_pixels(page: Any) -> dict[str, int]:
    """The body's pixels in the player at the frame shown: the Body box ticked against
    unticked (it stays ticked); ``count`` and their bounding box (``left`` … ``bottom``,
    canvas pixels; ``width``, ``height``)."""
    page.evaluate(SNAPSHOT, "withBody")
    page.uncheck("input[data-body]")
    page.wait_for_timeout(120)
    page.evaluate(SNAPSHOT, "withoutBody")
    page.check("input[data-body]")
    page.wait_for_timeout(120)
    found: dict[str, int] = page.evaluate(DIFFERENCE, ["withBody", "withoutBody"])
    return found
