"""Frame times of the clip player in headless Chromium, for a CMU (31-joint) and an
iClone (~100-joint) rig, and how soon a one-minute 120 Hz clip shows its first frame.

Serves the repository over HTTP (the player's own modules from ``static/`` and
``bench/viewer_harness.html``), writes the server's ready-to-play arrays
(:func:`motioncore.export.viewer_arrays`, exactly what the pipeline stores) for each
clip, and lets the harness play 600 frames through ``requestAnimationFrame``.

Reported per rig: per-frame work (skeleton update + WebGL render, ms; median, p95)
and the interval between animation frames (ms; median, p95; 16.7 ms is 60 fps).
Each rig gets a fresh page (reusing one page halved the frame rate of the second run).
Headless Chromium renders with SwiftShader (a CPU rasteriser), so the numbers are a
pessimistic bound for a machine with a GPU. No peer is timed yet (three.js'
BVHLoader + SkeletonHelper is the natural one; its loader is not vendored).

    python bench/viewer_bench.py
"""

from __future__ import annotations

import functools
import http.server
import json
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from motioncore import bvh, export  # noqa: E402
from motioncore.clip import Clip  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
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
CMU = REPO_ROOT / "tests" / "data" / "cmu-bvh11" / "131_02.bvh"
ICLONE = REPO_ROOT.parent / "shared" / "data" / "bvh" / "cmu-iclone" / "007_02.bvh"
FIRST_FRAME_TARGET_MS = 1500.0
FRAME_BUDGET_MS = 1000.0 / 60.0


def repeated(clip: Clip, frames: int) -> Clip:
    """``clip`` played end to end until ``frames`` long (for the one-minute clip)."""
    times = -(-frames // clip.num_frames)
    rot = [clip.rotations] * times
    tr = [clip.translations] * times
    return clip.with_arrays(
        rotations=np.concatenate(rot)[:frames], translations=np.concatenate(tr)[:frames]
    )


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(page: Any, base: str, arrays: str, frames: int) -> dict[str, Any]:
    page.goto(f"{base}/bench/viewer_harness.html?arrays=/{arrays}&frames={frames}")
    page.wait_for_function("window.result !== undefined", timeout=300_000)
    result: dict[str, Any] = page.evaluate("window.result")
    return result


def main() -> int:
    from playwright.sync_api import sync_playwright

    clips = {"CMU 131_02 (31 joints + end sites)": bvh.load(CMU)}
    if ICLONE.exists():
        clips["iClone 007_02 (~100 joints)"] = bvh.load(ICLONE)
    else:
        print(f"(no {ICLONE}: the iClone rig needs ../shared/data)")
    minute = repeated(clips["CMU 131_02 (31 joints + end sites)"], 7200)
    with tempfile.TemporaryDirectory(dir=REPO_ROOT / "bench") as scratch:
        folder = Path(scratch)
        files = {}
        for name, clip in {**clips, "one minute at 120 Hz": minute}.items():
            path = folder / f"{len(files)}.json"
            path.write_text(json.dumps(export.viewer_arrays(clip)))
            files[name] = path.relative_to(REPO_ROOT).as_posix()
        server, base = serve(REPO_ROOT)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                header = "| rig | joints | work median ms | work p95 | interval median ms | p95 |"
                print(header)
                print("|---|---:|---:|---:|---:|---:|")
                verdicts = []
                for name in clips:
                    page = browser.new_page(viewport={"width": 1280, "height": 720})
                    r = run(page, base, files[name], 600)
                    page.close()
                    work, gaps = r["work"][10:], r["intervals"][10:]
                    print(
                        f"| {name} | {r['joints']} | {statistics.median(work):.2f} | "
                        f"{percentile(work, 0.95):.2f} | {statistics.median(gaps):.2f} | "
                        f"{percentile(gaps, 0.95):.2f} |"
                    )
                    verdicts.append((name, percentile(work, 0.95), statistics.median(gaps)))
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                r = run(page, base, files["one minute at 120 Hz"], 30)
                first = r["firstFrameMs"]
                frames = r["clipFrames"]
                print(f"\nOne-minute 120 Hz clip ({frames} frames): first frame at {first:.0f} ms")
                browser.close()
        finally:
            server.shutdown()
    ok_first = first < FIRST_FRAME_TARGET_MS
    verdict = "PASS" if ok_first else "FAIL"
    print(f"{verdict}  first frame of a 1-minute 120 Hz clip < 1.5 s ({first:.0f} ms)")
    for name, p95, interval in verdicts:
        ok = p95 < FRAME_BUDGET_MS
        print(f"{'PASS' if ok else 'FAIL'}  {name}: p95 work per frame < 16.7 ms ({p95:.2f} ms)")
        smooth = interval <= FRAME_BUDGET_MS + 0.5
        print(
            f"{'PASS' if smooth else 'FAIL'}  {name}: median frame interval is 60 fps "
            f"({interval:.2f} ms)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
