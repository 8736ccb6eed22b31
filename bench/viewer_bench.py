"""Frame times of the clip player in headless Chromium, for a CMU (31-joint) and an
iClone (~100-joint) rig, and how soon a one-minute 120 Hz clip shows its first frame,
against three.js' own BVH path as the peer, in the same run.

Serves the repository over HTTP and, for each clip, plays it through two pages:

- ours (``bench/viewer_harness.html``): the server's ready-to-play arrays
  (:func:`motioncore.export.viewer_arrays`, exactly what the pipeline stores) drawn by the
  player's own modules (``SkeletonView`` on the player's ``Stage``);
- peer (``bench/viewer_peer_harness.html``): the BVH file itself, fetched as text,
  ``BVHLoader.parse``, a ``SkeletonHelper`` on the root bone and an ``AnimationMixer``
  playing the clip (three.js r187, vendored by ``scripts/vendor-three``), on the same
  ``Stage`` (renderer, canvas size, lights, grid, camera preset). BVHLoader keeps the
  file's units (CMU 131_02: 0.0564 m, iClone: cm), so the peer's rig hangs under a group
  scaled by the file's metres per unit (``clip.source.metres_per_unit``) and is framed
  like ours.

Each page plays 600 frames through ``requestAnimationFrame``, one clip frame per
animation frame. Reported per rig: per-frame work (ours: skeleton update + WebGL render;
peer: ``mixer.update`` + render; ms, median and p95) and the interval between animation
frames (ms; median, p95; 16.7 ms is 60 fps); for the one-minute clip the time from
starting the load (fetch + parse + build + first render) and from navigation start
(adds loading the modules) to the first rendered frame. The ratio column is peer / ours:
above 1 means ours is faster. Every page gets a fresh browser context (no shared cache;
reusing one page halved the frame rate of the second run); ``--rounds`` alternates
which player goes first and pools the samples. The server sends COOP/COEP headers so the
pages are cross-origin isolated and ``performance.now()`` is not coarsened to 0.1 ms.

Headless Chromium renders with SwiftShader (a CPU rasteriser; the WebGL renderer string is
printed), so the numbers are a pessimistic bound for a machine with a GPU, and the
frame interval includes rasterising in Chromium's GPU process, which the per-frame work
(the JavaScript side only) does not. The peer draws lines only; ours draws the bone
lines and a sphere impostor per joint (one point each, ``viewer/joint-sprites.js``).

bench/README.md has the latest table (both players at 60 fps on both rigs; per-frame
work equal within noise; the one-minute clip's first frame 1.1-1.4x sooner with ours)
and what the peer showed first: tessellated joint spheres halved our iClone frame rate
under SwiftShader, which is why the joints are impostors now.

    python bench/viewer_bench.py [--rounds 2] [--frames 600]    # ~2-2.5 min
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import statistics
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

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
CMU_NAME = "CMU 131_02 (31 joints + end sites)"
MINUTE_NAME = "one minute at 120 Hz"
MINUTE_FRAMES = 7200
FIRST_FRAME_TARGET_MS = 1500.0
FRAME_BUDGET_MS = 1000.0 / 60.0
WARMUP_FRAMES = 10
PLAYERS = ("ours", "peer")


def repeated(clip: Clip, frames: int) -> Clip:
    """``clip`` played end to end until ``frames`` long (for the one-minute clip)."""
    times = -(-frames // clip.num_frames)
    rot = [clip.rotations] * times
    tr = [clip.translations] * times
    return clip.with_arrays(
        rotations=np.concatenate(rot)[:frames], translations=np.concatenate(tr)[:frames]
    )


def repeated_bvh(path: Path, frames: int) -> str:
    """The BVH text of :func:`repeated`: ``path``'s MOTION lines, end to end, ``frames`` of
    them, and its ``Frames:`` line set to match (the hierarchy and values as in the file)."""
    text = path.read_text()
    head, sep, rest = text.partition("Frame Time:")
    time_line, _, body = rest.partition("\n")
    lines = [line for line in body.splitlines(keepends=True) if line.strip()]
    if not sep or not lines or "Frames:" not in head:
        raise ValueError(f"{path}: no MOTION block to repeat")
    lines[-1] = lines[-1].rstrip("\r\n") + "\n"
    motion = [lines[i % len(lines)] for i in range(frames)]
    before = head.rpartition("Frames:")[0]
    return f"{before}Frames: {frames}\n{sep}{time_line}\n{''.join(motion)}"


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with COOP/COEP (cross-origin isolation: 5 µs timers), no access log."""

    def end_headers(self) -> None:
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(Handler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class Case:
    """One clip as both players load it: ours' arrays (JSON) and the peer's BVH text."""

    name: str
    arrays: str  # URL path of the viewer arrays
    bvh: str  # URL path of the BVH file
    metres_per_unit: float
    joints: dict[str, int] = field(default_factory=dict)
    work: dict[str, list[float]] = field(default_factory=lambda: {p: [] for p in PLAYERS})
    gaps: dict[str, list[float]] = field(default_factory=lambda: {p: [] for p in PLAYERS})


def write_case(name: str, clip: Clip, bvh_text: str, folder: Path, index: int) -> Case:
    if clip.source.up_axis != "Y":
        raise ValueError(f"{name}: the peer page frames Y-up files only")
    arrays = folder / f"{index}.json"
    arrays.write_text(json.dumps(export.viewer_arrays(clip)))
    text = folder / f"{index}.bvh"
    text.write_text(bvh_text)
    return Case(
        name,
        "/" + arrays.relative_to(REPO_ROOT).as_posix(),
        "/" + text.relative_to(REPO_ROOT).as_posix(),
        float(clip.source.metres_per_unit),
    )


def run(browser: Any, base: str, player: str, case: Case, frames: int) -> dict[str, Any]:
    """Play ``case`` with ``player`` in a fresh context and page; the page's window.result."""
    if player == "ours":
        query = {"arrays": case.arrays, "frames": frames}
        url = f"{base}/bench/viewer_harness.html?{urlencode(query)}"
    else:
        query = {"bvh": case.bvh, "scale": repr(case.metres_per_unit), "frames": frames}
        url = f"{base}/bench/viewer_peer_harness.html?{urlencode(query)}"
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        try:
            page.wait_for_function("window.result !== undefined", timeout=300_000)
        except Exception:
            print(f"{player} failed on {case.name}: {errors}", file=sys.stderr)
            raise
        result: dict[str, Any] = page.evaluate("window.result")
    finally:
        context.close()
    return result


def order(round_index: int) -> tuple[str, ...]:
    """Who goes first alternates between rounds."""
    return PLAYERS if round_index % 2 == 0 else PLAYERS[::-1]


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def p95(values: list[float]) -> float:
    return percentile(values, 0.95)


def ratio(peer: float, ours: float) -> str:
    return f"{peer / ours:.2f}" if ours > 0 else "n/a"


@dataclass
class FirstFrame:
    """The one-minute clip's first frame, per player: ms from the start of the load (fetch +
    parse + build + first render) and from navigation start (adds loading the modules)."""

    clip_frames: dict[str, int] = field(default_factory=dict)
    load: dict[str, list[float]] = field(default_factory=lambda: {p: [] for p in PLAYERS})
    navigation: dict[str, list[float]] = field(default_factory=lambda: {p: [] for p in PLAYERS})


def measure(
    base: str, cases: list[Case], long: Case, rounds: int, frames: int
) -> tuple[FirstFrame, set[str], set[bool]]:
    """Fill ``cases`` with both players' samples; time the first frame of ``long``."""
    from playwright.sync_api import sync_playwright

    first = FirstFrame()
    renderers: set[str] = set()
    isolated: set[bool] = set()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for case in cases:
            for r in range(rounds):
                for player in order(r):
                    res = run(browser, base, player, case, frames)
                    case.joints[player] = res["joints"]
                    case.work[player] += res["work"][WARMUP_FRAMES:]
                    case.gaps[player] += res["intervals"][WARMUP_FRAMES:]
                    renderers.add(res["renderer"])
                    isolated.add(res["crossOriginIsolated"])
        for r in range(rounds):
            for player in order(r):
                res = run(browser, base, player, long, 30)
                first.clip_frames[player] = res["clipFrames"]
                first.navigation[player].append(res["firstFrameMs"])
                first.load[player].append(res["firstFrameMs"] - res["loadStartMs"])
        browser.close()
    return first, renderers, isolated


def print_peer_table(cases: list[Case], first: FirstFrame) -> None:
    print("\n| rig | metric | ours | peer | peer/ours |")
    print("|---|---|---:|---:|---:|")
    for case in cases:
        label = f"{case.name}, {case.joints['ours']} / {case.joints['peer']} joints"
        for metric, stat, samples in (
            ("work median ms", median, case.work),
            ("work p95 ms", p95, case.work),
            ("interval median ms", median, case.gaps),
            ("interval p95 ms", p95, case.gaps),
        ):
            ours, peer = stat(samples["ours"]), stat(samples["peer"])
            print(f"| {label} | {metric} | {ours:.3f} | {peer:.3f} | {ratio(peer, ours)} |")
    frames = first.clip_frames
    label = f"{MINUTE_NAME} ({frames['ours']} / {frames['peer']} frames)"
    for metric, samples in (
        ("first frame ms, load start → drawn", first.load),
        ("first frame ms, navigation start → drawn", first.navigation),
    ):
        ours, peer = median(samples["ours"]), median(samples["peer"])
        print(f"| {label} | {metric} | {ours:.0f} | {peer:.0f} | {ratio(peer, ours)} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="runs per player and clip")
    parser.add_argument("--frames", type=int, default=600, help="frames played per run")
    args = parser.parse_args(argv)

    sources = {CMU_NAME: CMU}
    if ICLONE.exists():
        sources["iClone 007_02 (~100 joints)"] = ICLONE
    else:
        print(f"(no {ICLONE}: the iClone rig needs ../shared/data)")
    clips = {name: bvh.load(path) for name, path in sources.items()}
    minute = repeated(clips[CMU_NAME], MINUTE_FRAMES)
    with tempfile.TemporaryDirectory(dir=REPO_ROOT / "bench") as scratch:
        folder = Path(scratch)
        cases = [
            write_case(name, clip, sources[name].read_text(), folder, i)
            for i, (name, clip) in enumerate(clips.items())
        ]
        long = write_case(MINUTE_NAME, minute, repeated_bvh(CMU, MINUTE_FRAMES), folder, len(cases))
        server, base = serve(REPO_ROOT)
        try:
            first, renderers, isolated = measure(base, cases, long, args.rounds, args.frames)
        finally:
            server.shutdown()

    print("| rig | joints | work median ms | work p95 | interval median ms | p95 |")
    print("|---|---:|---:|---:|---:|---:|")
    for case in cases:
        work, gaps = case.work["ours"], case.gaps["ours"]
        print(
            f"| {case.name} | {case.joints['ours']} | {median(work):.2f} | {p95(work):.2f} | "
            f"{median(gaps):.2f} | {p95(gaps):.2f} |"
        )
    first_ms = median(first.navigation["ours"])
    print(
        f"\nOne-minute 120 Hz clip ({first.clip_frames['ours']} frames): "
        f"first frame at {first_ms:.0f} ms"
    )
    print(
        "\nvs the peer, three.js BVHLoader.parse + SkeletonHelper + AnimationMixer "
        f"(same run, same Stage; {args.rounds} round(s) of {args.frames} frames per player "
        f"and rig, first {WARMUP_FRAMES} frames of each run dropped; "
        "peer/ours > 1: ours is faster)"
    )
    print(
        f"WebGL renderer: {', '.join(sorted(renderers))}; "
        f"cross-origin isolated: {', '.join(str(i).lower() for i in sorted(isolated))}"
    )
    print_peer_table(cases, first)
    print()

    verdict = "PASS" if first_ms < FIRST_FRAME_TARGET_MS else "FAIL"
    print(f"{verdict}  first frame of a 1-minute 120 Hz clip < 1.5 s ({first_ms:.0f} ms)")
    for case in cases:
        work_p95, interval = p95(case.work["ours"]), median(case.gaps["ours"])
        ok = work_p95 < FRAME_BUDGET_MS
        print(
            f"{'PASS' if ok else 'FAIL'}  {case.name}: p95 work per frame < 16.7 ms "
            f"({work_p95:.2f} ms)"
        )
        smooth = interval <= FRAME_BUDGET_MS + 0.5
        print(
            f"{'PASS' if smooth else 'FAIL'}  {case.name}: median frame interval is 60 fps "
            f"({interval:.2f} ms)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
