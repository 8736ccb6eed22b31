"""Frame intervals of the MotorNerve Drive page in headless Chromium, with the character
standing, walking and running, against the clip page's player in the same run.

The issue's acceptance: "the Drive page holds 60 fps with the character". The app serves
the pages from this process (a throwaway SQLite database and media folder; walk60.bvh
through the real pipeline); in one Chromium, each page in a fresh context:

- (a) baseline: the clip page ``/clips/<id>/``, its player playing the clip (Space);
- (b) the Drive page ``/clips/<id>/drive/``, the character standing;
- (c) the same page while W is held (walking), then W + Shift (running);
- diagnostics (``--no-diagnostics`` drops them): (a') the clip page with Body on, (b')
  the Drive page standing with Body off. The Drive page shows the capsule body by
  default and the clip page does not; these rows tell the body's cost from the page's.

Each phase samples ``--seconds`` (10) after ``--settle-s`` (1). An injected sampler
records every ``requestAnimationFrame`` timestamp, and an init script times the page's
own rAF callbacks per frame ("rAF work"). Per phase: median and p95 frame interval,
fps = 1000 / median, the share of intervals over 20 ms, rAF work, the page's network
step (``window.__drive.stepMs``, its running mean; median over the phase), its own fps
reading, the 60 Hz drive frames played per second, and ratios to (a). "Holds 60 fps":
median interval <= 16.67 + 0.5 ms and at most 5% of intervals over 20 ms.

Headless Chromium with --disable-gpu draws WebGL with SwiftShader, on the CPU (the
renderer string is printed): a pessimistic bound for a machine with a GPU, and one that
moves with the machine's load (load average at the start, the end and per phase).

Weights: ``--weights FILE.npz``, else the shipped file (``network.SHIPPED_WEIGHTS``) if
it exists, else untrained full-size ``network.random_weights(seed=0)`` (the same
arithmetic per step; the pose it makes is no walk). Exit 0 whatever the verdicts; 1
when a page fails to load or raises, with its errors. bench/README.md has the numbers.

    .venv/bin/python bench/motornerve_page.py [--seconds 10] [--rounds 1] [--json PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import logging
import os
import secrets
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(REPO_ROOT))

from viewer_bench import CHROMIUM, FLAGS, percentile  # noqa: E402

SAMPLE = REPO_ROOT / "tests" / "data" / "games105" / "walk60.bvh"
VIEWPORT = {"width": 1280, "height": 900}
READY_TIMEOUT_MS = 120_000
FRAME_MS_60 = 1000.0 / 60.0
MEDIAN_SLACK_MS = 0.5
LONG_FRAME_MS = 20.0
LONG_SHARE_MAX = 0.05
BASELINE = "(a) clip page player"
DRIVE = ("(b) drive: standing", "(c) drive: W (walk)", "(c) drive: W+Shift (run)")
BODY_ON = "(a') clip page player, Body on"
BODY_OFF = "(b') drive: standing, Body off"
PHASES = (BASELINE, *DRIVE)
DIAGNOSTICS = (BODY_ON, BODY_OFF)

CLIP_READY = "() => document.querySelector('#viewer')?.dataset.ready === 'true'"
DRIVE_READY = "() => window.__drive && (window.__drive.ready || Boolean(window.__drive.error))"
"""Ready, or failed saying why (``window.__drive.error``)."""
# Before the page's scripts: time every requestAnimationFrame callback the page asks
# for, summed per frame (keyed by the frame's timestamp) while a sampler runs.
RAF_TIMER = """(() => {
  const raw = window.requestAnimationFrame.bind(window);
  const work = {on: false, ms: new Map()};
  Object.defineProperty(window, '__rafWork', {value: {raw, work}});
  window.requestAnimationFrame = (callback) => raw((t) => {
    const started = performance.now();
    try { callback(t); } finally {
      if (work.on) work.ms.set(t, (work.ms.get(t) ?? 0) + performance.now() - started);
    }
  });
})();"""
SAMPLER_START = """() => {
  const {raw, work} = window.__rafWork;
  const s = {t: [], step: [], frames: [], fps: [], on: true};
  window.__rafSampler = s;
  work.ms.clear(); work.on = true;
  const tick = (now) => {
    if (!s.on) return;
    s.t.push(now);
    const d = window.__drive;
    if (d && d.ready) { s.step.push(d.stepMs); s.frames.push(d.frames); s.fps.push(d.fps); }
    raw(tick);
  };
  raw(tick);
}"""
SAMPLER_STOP = """() => {
  const s = window.__rafSampler, work = window.__rafWork.work;
  s.on = false; work.on = false;
  const ms = s.t.map((t) => work.ms.get(t) ?? 0);
  return {t: s.t, work: ms, step: s.step, frames: s.frames, fps: s.fps};
}"""
# The canvas's size, and its bluish pixels (the character's colour): is it drawn?
CANVAS_INFO = """(selector) => {
  const source = document.querySelector(selector);
  const copy = document.createElement('canvas');
  copy.width = source.width; copy.height = source.height;
  const context = copy.getContext('2d');
  context.drawImage(source, 0, 0);
  const data = context.getImageData(0, 0, copy.width, copy.height).data;
  let blue = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 2] > data[i] + 60 && data[i + 2] > 150) blue += 1;
  }
  return {width: source.width, height: source.height, blue};
}"""
RENDERER = """() => {
  const gl = document.createElement('canvas').getContext('webgl2');
  return gl.getParameter(gl.getExtension('WEBGL_debug_renderer_info').UNMASKED_RENDERER_WEBGL);
}"""


class PageFailure(Exception):
    """A page did not load, did not get ready, or raised."""


@dataclass
class Phase:
    """One phase's pooled samples (ms) and what the page said at its end."""

    name: str
    intervals: list[float] = field(default_factory=list)
    work: list[float] = field(default_factory=list)
    step_ms: list[float] = field(default_factory=list)
    page_fps: list[float] = field(default_factory=list)
    drive_frames_per_s: list[float] = field(default_factory=list)
    load_1m: list[float] = field(default_factory=list)
    end: list[dict[str, Any]] = field(default_factory=list)

    def add(self, raw: dict[str, Any], end: dict[str, Any]) -> None:
        t = raw["t"]
        self.intervals += [b - a for a, b in itertools.pairwise(t)]
        self.work += raw["work"]
        self.step_ms += raw["step"]
        self.page_fps += raw["fps"]
        if len(raw["frames"]) > 1 and t[-1] > t[0]:
            span_s = (t[-1] - t[0]) / 1000
            self.drive_frames_per_s.append((raw["frames"][-1] - raw["frames"][0]) / span_s)
        self.end.append(end)

    def summary(self) -> dict[str, Any]:
        gaps = self.intervals
        med = statistics.median(gaps)
        long_share = sum(g > LONG_FRAME_MS for g in gaps) / len(gaps)

        def mid(values: list[float]) -> float | None:
            return statistics.median(values) if values else None

        return {
            "frames": len(gaps),
            "median_ms": med,
            "p95_ms": percentile(gaps, 0.95),
            "fps": 1000 / med,
            "work_median_ms": statistics.median(self.work),
            "over_20ms_share": long_share,
            "step_ms": mid(self.step_ms),
            "page_fps": mid(self.page_fps),
            "drive_frames_per_s": mid(self.drive_frames_per_s),
            "load_1m": self.load_1m,
            "holds_60": med <= FRAME_MS_60 + MEDIAN_SLACK_MS and long_share <= LONG_SHARE_MAX,
            "end": self.end,
        }


# --- the app -----------------------------------------------------------------------------


def start_django(var_dir: Path) -> None:
    """Settings on a throwaway folder (SQLite, media), migrated."""
    for name in ("DATABASE_URL", "REDIS_URL", "KINETOGRAPH_STORAGE", "KINETOGRAPH_MEDIA_ROOT"):
        os.environ.pop(name, None)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="webapp.settings",
        KINETOGRAPH_VAR_DIR=str(var_dir),
        DJANGO_SECRET_KEY=secrets.token_urlsafe(40),
        KINETOGRAPH_LOG_LEVEL="ERROR",
    )
    (var_dir / "staticfiles").mkdir()  # STATIC_ROOT: served from static/ by the handler
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", interactive=False, verbosity=0)


def _identity(path: Path) -> str:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return f"{path.stat().st_size / 1e6:.1f} MB, sha256 {digest[:16]}…"


def choose_weights(given: Path | None, folder: Path) -> str:
    """Point the shipped weights at what this run drives with; says which."""
    from motioncore.motornerve import network

    if given is not None:
        if not given.is_file():
            raise SystemExit(f"--weights {given}: no such file")
        network.SHIPPED_WEIGHTS = given.resolve()
        return f"--weights {given} ({_identity(given)})"
    shipped = network.SHIPPED_WEIGHTS
    if shipped.is_file():
        return f"the shipped file {shipped.relative_to(REPO_ROOT)} ({_identity(shipped)})"
    weights = network.random_weights(seed=0)
    path = folder / "random-seed0.npz"
    weights.save(path)
    network.SHIPPED_WEIGHTS = path
    count = weights.parameter_count / 1e6
    return (
        f"untrained network.random_weights(seed=0), default Shape, {count:.2f} M parameters "
        f"(no shipped file {shipped.relative_to(REPO_ROOT)})"
    )


def make_clip() -> tuple[int, str]:
    """walk60 uploaded by an owner and run through the pipeline here (the queued message
    stays in the throwaway broker folder): the clip's id and the owner's session cookie."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from webapp.clips.services import clip_upload_create
    from webapp.projects.models import Membership, Project, Role
    from webapp.runs import pipeline

    user = get_user_model().objects.create_user(username="bench")
    project = Project.objects.create(name="Drive bench")
    Membership.objects.create(project=project, user=user, role=Role.OWNER)
    data = SAMPLE.read_bytes()
    clip = clip_upload_create(project=project, user=user, name=SAMPLE.name, data=data).clip
    run = clip.runs.get()
    pipeline.execute(run_id=run.pk)
    run.refresh_from_db()
    if run.status != "succeeded":
        raise SystemExit(f"the pipeline did not succeed on {SAMPLE.name}: {run.status}")
    client = Client()
    client.force_login(user)
    return clip.pk, client.cookies[settings.SESSION_COOKIE_NAME].value


def serve() -> tuple[Any, str]:
    """The app (and its static files) on a free loopback port, on threads."""
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    class Quiet(WSGIRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadedWSGIServer(("127.0.0.1", 0), Quiet)
    server.set_app(StaticFilesHandler(get_wsgi_application()))  # (configures logging again)
    logging.getLogger("django.request").setLevel(logging.ERROR)  # no 404 for /favicon.ico
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


# --- the pages ---------------------------------------------------------------------------


class Page:
    """A fresh context and page, logged in, collecting the page's errors."""

    def __init__(self, browser: Any, base: str, cookie: str) -> None:
        self.context = browser.new_context(viewport=VIEWPORT, bypass_csp=True)
        self.context.add_cookies([{"name": "sessionid", "value": cookie, "url": base}])
        self.context.add_init_script(RAF_TIMER)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.console: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on(
            "console", lambda m: self.console.append(m.text) if m.type == "error" else None
        )

    def open(self, url: str, ready: str) -> None:
        """Go to ``url`` and wait until the function ``ready`` is true (a failure to
        load, a page error or a timeout: :class:`PageFailure`)."""
        response = self.page.goto(url)
        if response is None or response.status >= 400:
            self.fail(f"{url}: HTTP {response.status if response else 'no response'}")
        try:
            self.page.wait_for_function(ready, timeout=READY_TIMEOUT_MS)
        except Exception as error:
            self.fail(f"{url}: not ready after {READY_TIMEOUT_MS} ms ({error})")
        self.check(url)

    def check(self, where: str) -> None:
        if self.errors:
            self.fail(f"{where}: the page raised")

    def fail(self, message: str) -> None:
        lines = [message, *(f"  page error: {e}" for e in self.errors)]
        lines += [f"  console error: {c}" for c in self.console]
        raise PageFailure("\n".join(lines))

    def sample(self, phase: Phase, settle_s: float, seconds: float, canvas: str) -> None:
        self.page.wait_for_timeout(settle_s * 1000)
        phase.load_1m.append(os.getloadavg()[0])
        self.page.evaluate(SAMPLER_START)
        self.page.wait_for_timeout(seconds * 1000)
        raw = self.page.evaluate(SAMPLER_STOP)
        end = self.page.evaluate("() => JSON.parse(JSON.stringify(window.__drive ?? null))")
        info = self.page.evaluate(CANVAS_INFO, canvas)
        keep = ("rootSpeed", "action", "stepMs", "fps", "frames", "error")
        shown = {k: end[k] for k in keep} if end else {}
        phase.add(raw, {**shown, "canvas": info})
        self.check(phase.name)

    def close(self) -> None:
        self.context.close()


def clip_phases(
    browser: Any, base: str, cookie: str, clip: int, args: Any, phases: dict[str, Phase]
) -> str:
    """(a): the clip page's player playing walk60 (it loops); then (a') with the body on.
    The WebGL renderer."""
    page = Page(browser, base, cookie)
    canvas = "#viewer [data-canvas] canvas"
    try:
        page.open(f"{base}/clips/{clip}/", CLIP_READY)
        page.page.locator("#viewer").focus()
        page.page.keyboard.press(" ")
        if page.page.locator("#viewer [data-play]").get_attribute("aria-pressed") != "true":
            page.fail("the clip page's player did not start playing on Space")
        page.sample(phases[BASELINE], args.settle_s, args.seconds, canvas)
        if BODY_ON in phases:
            page.page.check("#viewer input[data-body]")
            page.page.wait_for_selector("#viewer[data-body-shown=true]")
            page.sample(phases[BODY_ON], args.settle_s, args.seconds, canvas)
        renderer: str = page.page.evaluate(RENDERER)
        return renderer
    finally:
        page.close()


def drive_phases(
    browser: Any, base: str, cookie: str, clip: int, args: Any, phases: dict[str, Phase]
) -> None:
    """(b) standing, (c) W, then W + Shift, on one Drive page; then (b') with the body
    off, the keys let go."""
    page = Page(browser, base, cookie)
    url = f"{base}/clips/{clip}/drive/"
    canvas = "#drive [data-canvas] canvas"
    try:
        page.open(url, DRIVE_READY)
        error = page.page.evaluate("() => window.__drive.error")
        if error:
            page.fail(f"{url}: {error}")
        page.page.locator("#drive").focus()
        stand, walk, run = (phases[name] for name in DRIVE)
        page.sample(stand, args.settle_s, args.seconds, canvas)
        page.page.keyboard.down("w")
        page.sample(walk, args.settle_s, args.seconds, canvas)
        page.page.keyboard.down("Shift")
        page.sample(run, args.settle_s, args.seconds, canvas)
        page.page.keyboard.up("Shift")
        page.page.keyboard.up("w")
        if BODY_OFF in phases:
            page.page.uncheck("#drive input[data-body]")
            page.page.locator("#drive").focus()
            page.sample(phases[BODY_OFF], max(args.settle_s, 2.0), args.seconds, canvas)
    finally:
        page.close()


def measure(base: str, cookie: str, clip: int, args: Any) -> tuple[dict[str, Phase], str, str]:
    """Every phase, ``args.rounds`` times (the first page alternating); the renderer and
    the browser's version."""
    from playwright.sync_api import sync_playwright

    names = PHASES + (() if args.no_diagnostics else DIAGNOSTICS)
    phases = {name: Phase(name) for name in names}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            renderer = ""
            for r in range(args.rounds):
                if r % 2:
                    drive_phases(browser, base, cookie, clip, args, phases)
                renderer = clip_phases(browser, base, cookie, clip, args, phases)
                if not r % 2:
                    drive_phases(browser, base, cookie, clip, args, phases)
            version: str = browser.version
        finally:
            browser.close()
    return phases, renderer, version


# --- the report --------------------------------------------------------------------------


def _opt(value: float | None, fmt: str) -> str:
    return "—" if value is None else format(value, fmt)


def print_table(summaries: dict[str, dict[str, Any]]) -> None:
    base = summaries[BASELINE]
    print(
        "| phase | frames | median ms | p95 ms | fps | > 20 ms | median / (a) | p95 / (a) "
        "| fps / (a) | rAF work ms | network step ms | page's fps | drive frames/s | load 1m |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, s in summaries.items():
        loads = "/".join(f"{x:.1f}" for x in s["load_1m"])
        print(
            f"| {name} | {s['frames']} | {s['median_ms']:.2f} | {s['p95_ms']:.2f} | "
            f"{s['fps']:.1f} | {100 * s['over_20ms_share']:.1f}% | "
            f"{s['median_ms'] / base['median_ms']:.2f} | {s['p95_ms'] / base['p95_ms']:.2f} | "
            f"{s['fps'] / base['fps']:.2f} | {s['work_median_ms']:.2f} | "
            f"{_opt(s['step_ms'], '.2f')} | {_opt(s['page_fps'], '.1f')} | "
            f"{_opt(s['drive_frames_per_s'], '.1f')} | {loads} |"
        )
    print(
        "\nrAF work: the page's requestAnimationFrame callbacks, ms per frame (median): its "
        "JavaScript and WebGL calls, and any wait on the GPU process inside them; "
        "rasterising runs in the GPU process and shows only in the interval"
    )


def _ends(s: dict[str, Any]) -> list[str]:
    lines = []
    for end in s["end"]:
        c = end["canvas"]
        drawn = f"canvas {c['width']}x{c['height']}, {c['blue']} bluish (skeleton) pixels"
        if end.get("action") is not None:
            drawn += f"; root speed {end['rootSpeed']:.2f} m/s, action {end['action']}"
        lines.append(f"      at its end: {drawn}")
    return lines


def print_verdicts(summaries: dict[str, dict[str, Any]]) -> None:
    print(
        f"\n'holds 60 fps': median interval <= {FRAME_MS_60 + MEDIAN_SLACK_MS:.2f} ms and "
        f"<= {100 * LONG_SHARE_MAX:.0f}% of intervals over {LONG_FRAME_MS:.0f} ms"
    )
    for name, s in summaries.items():
        verdict = ("PASS" if s["holds_60"] else "FAIL") if name in PHASES else "info"
        print(
            f"{verdict}  {name}: {s['median_ms']:.2f} ms median, "
            f"{100 * s['over_20ms_share']:.1f}% over {LONG_FRAME_MS:.0f} ms"
        )
        print("\n".join(_ends(s)))
    if not summaries[BASELINE]["holds_60"]:
        print("(the baseline itself does not hold 60 fps here: the machine or its load limits)")


def print_header(meta: dict[str, Any]) -> None:
    start, end = (", ".join(f"{x:.2f}" for x in meta[k]) for k in ("load_start", "load_end"))
    print(
        f"MotorNerve Drive page vs the clip page's player: headless Chromium "
        f"{meta['chromium']}, --disable-gpu: WebGL by software ({meta['renderer']}), "
        f"viewport {VIEWPORT['width']}x{VIEWPORT['height']}; {meta['rounds']} round(s) of "
        f"{meta['seconds']:g} s per phase after {meta['settle_s']:g} s settling; "
        f"clip {SAMPLE.name}"
    )
    print(f"weights: {meta['weights']}")
    print(f"{meta['cpus']} CPUs; load average at the start {start}, at the end {end}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="sampled seconds per phase")
    parser.add_argument("--settle-s", type=float, default=1.0, help="uncounted seconds first")
    parser.add_argument("--rounds", type=int, default=1, help="pages per phase, order alternated")
    parser.add_argument("--weights", type=Path, help="an .npz of network.Weights")
    parser.add_argument("--json", type=Path, help="write every sample and summary here")
    parser.add_argument(
        "--no-diagnostics", action="store_true", help="skip the Body on / Body off rows"
    )
    args = parser.parse_args(argv)

    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="motornerve-page-") as scratch:
        start_django(Path(scratch))
        weights = choose_weights(args.weights, Path(scratch))
        clip, cookie = make_clip()
        server, base = serve()
        try:
            phases, renderer, version = measure(base, cookie, clip, args)
        except PageFailure as failure:
            print(f"PAGE FAILURE  {failure}", file=sys.stderr)
            return 1
        finally:
            server.shutdown()
    load_end = os.getloadavg()

    summaries = {name: p.summary() for name, p in phases.items()}
    meta = {
        "chromium": version,
        "renderer": renderer,
        "weights": weights,
        "seconds": args.seconds,
        "settle_s": args.settle_s,
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "load_start": load_start,
        "load_end": load_end,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    print_header(meta)
    print_table(summaries)
    print_verdicts(summaries)
    if args.json:
        phases_out = {
            name: {**summaries[name], "intervals_ms": p.intervals, "work_ms": p.work}
            for name, p in phases.items()
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({**meta, "phases": phases_out}, indent=1))
        print(f"\nsamples: {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
