"""Edit-to-new-animation latency of the score editor, 8 and 32 bars, in headless Chromium.

The issue's acceptance: "the result of an 8-bar score within 2 s of the last edit". The
app serves the pages from this process (a throwaway SQLite database and media folder,
as ``motornerve_page.py``); each score (walking, a step a beat and an arm gesture every
two beats, 4/4 at 120 bpm: 8 bars = 16 s, 32 bars = 64 s of motion) is uploaded and
animated through the real pipeline, then its page is opened as its owner. Each edit
moves the first step a beat later or back (the editor's ] and [ keys, dispatched on the
player) and times, in the page, from the key to the moment the player holds the new
animation (the editor's ``data-previews`` count rises): the debounce
(``live-preview.js`` DEBOUNCE_MS), the request, the server's synthesis, the JSON and
the player's rebuild. The server's synthesis alone is the answer's ``synthesis_ms``.

Baseline in the same run: animating the same score the way a saved version is (its
clip's first run: the ``score`` stage, then ``clean`` and ``analyze``, in process), the
path an edit would take without the editor's preview. Ratios: median edit latency
over the 2 s target and over that baseline.

    .venv/bin/python bench/score_edit_latency.py [--edits 9] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(REPO_ROOT))

from motornerve_page import serve, start_django  # noqa: E402
from viewer_bench import CHROMIUM, FLAGS  # noqa: E402

TARGET_S = 2.0
TEMPO_BPM = 120
METER = 4
BARS = (8, 32)
READY_TIMEOUT_MS = 120_000
EDIT = """async (n) => {
  const panel = document.querySelector('[data-editor]');
  const root = document.getElementById('score-player');
  const before = Number(panel.dataset.previews);
  const shown = new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (Number(panel.dataset.previews) > before) { watch.disconnect(); resolve(); }
    });
    watch.observe(panel, {attributes: true});
  });
  const started = performance.now();
  root.dispatchEvent(new KeyboardEvent('keydown', {key: n % 2 ? '[' : ']', bubbles: true}));
  await shown;
  return {ms: performance.now() - started, server_ms: Number(panel.dataset.previewMs)};
}"""


def walking_score(bars: int) -> dict[str, Any]:
    """A step a beat, alternating feet from the right, and the arms forward and down in
    turn every two beats."""
    beats = bars * METER
    symbols: list[dict[str, Any]] = []
    for beat in range(beats):
        side = "support_right" if beat % 2 == 0 else "support_left"
        symbols.append(_direction(side, beat, "forward", "middle"))
    for beat in range(0, beats - 1, 2):
        arm = "arm_right" if beat % 4 == 0 else "arm_left"
        level = "middle" if beat % 8 < 4 else "low"
        symbols.append(_direction(arm, beat, "forward", level))
    return {
        "format": "kinetograph-score/1",
        "title": f"Walking, {bars} bars",
        "tempo_bpm": TEMPO_BPM,
        "meter": METER,
        "measures": bars,
        "symbols": symbols,
    }


def _direction(column: str, beat: int, direction: str, level: str) -> dict[str, Any]:
    return {
        "column": column,
        "kind": "direction",
        "beat": beat,
        "duration": 1,
        "direction": direction,
        "level": level,
    }


def make_score(bars: int, user: Any, project: Any) -> tuple[int, float]:
    """The score uploaded and animated by its clip's first run (timed: the baseline)."""
    from webapp.laban.services import score_upload_create
    from webapp.runs import pipeline

    data = json.dumps(walking_score(bars)).encode()
    score = score_upload_create(project=project, user=user, name=f"walk{bars}.json", data=data)
    run = score.clip.runs.get()
    started = time.perf_counter()
    pipeline.execute(run_id=run.pk)
    elapsed = time.perf_counter() - started
    run.refresh_from_db()
    if run.status != "succeeded":
        raise SystemExit(f"the run animating {bars} bars did not succeed: {run.error}")
    return score.pk, elapsed


def owner() -> tuple[Any, Any, str]:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from webapp.projects.models import Membership, Project, Role

    user = get_user_model().objects.create_user(username="bench")
    project = Project.objects.create(name="Score editor bench")
    Membership.objects.create(project=project, user=user, role=Role.OWNER)
    client = Client()
    client.force_login(user)
    return user, project, client.cookies[settings.SESSION_COOKIE_NAME].value


def measure(browser: Any, base: str, cookie: str, score: int, edits: int) -> list[dict[str, Any]]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.add_cookies([{"name": "sessionid", "value": cookie, "url": base}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base}/scores/{score}/")
    page.wait_for_selector("[data-editor][data-state=ready]", timeout=READY_TIMEOUT_MS)
    page.click("#staff .staff__symbol[data-index='0']")
    samples = [page.evaluate(EDIT, n) for n in range(edits + 1)][1:]  # the first warms up
    context.close()
    if errors:
        raise SystemExit(f"the score page raised: {errors}")
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=9, help="timed edits per score")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        start_django(Path(folder))
        from webapp.laban.editing import PREVIEW_DECIMALS

        user, project, cookie = owner()
        scores = {bars: make_score(bars, user, project) for bars in BARS}
        server, base = serve()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                for bars, (score, baseline_s) in scores.items():
                    samples = measure(browser, base, cookie, score, args.edits)
                    total = statistics.median(s["ms"] for s in samples) / 1000.0
                    server_s = statistics.median(s["server_ms"] for s in samples) / 1000.0
                    rows.append(
                        {
                            "bars": bars,
                            "seconds_of_motion": bars * METER * 60.0 / TEMPO_BPM,
                            "edits": len(samples),
                            "edit_to_animation_median_s": total,
                            "edit_to_animation_max_s": max(s["ms"] for s in samples) / 1000.0,
                            "synthesis_median_s": server_s,
                            "saved_version_run_s": baseline_s,
                        }
                    )
                browser.close()
        finally:
            server.shutdown()
    print(f"Score editor: edit → new animation in the player (Chromium, {args.edits} edits)")
    print(f"preview arrays rounded to {PREVIEW_DECIMALS} decimals; target {TARGET_S:g} s\n")
    print(
        "| bars | motion s | median s | max s | synthesis s | saved-version run s "
        "| median / target | median / run |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['bars']} | {r['seconds_of_motion']:.0f} | {r['edit_to_animation_median_s']:.3f} "
            f"| {r['edit_to_animation_max_s']:.3f} | {r['synthesis_median_s']:.3f} "
            f"| {r['saved_version_run_s']:.2f} "
            f"| {r['edit_to_animation_median_s'] / TARGET_S:.2f} "
            f"| {r['edit_to_animation_median_s'] / r['saved_version_run_s']:.2f} |"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
