"""Speed of the clip page's α/θ re-scoring in the browser, against node and motioncore.

When the user moves the α or θ slider (or changes the measure or the next clip), the
clip page re-scores MTP candidates and re-labels the phases in the browser with
``static/js/analysis/rescore.js``, a port of the part of
:func:`motioncore.analysis.analyze` after ``features``. The issue's target: under 16 ms
(one animation frame) for a 10,000-frame clip, in the browser. In one run this script
times, on the same curves and the same cycle of settings:

1. **browser**: ``rescore()`` in headless Debian Chromium. ``bench/rescore_harness.html``
   is served over HTTP from the repository root (COOP/COEP, as ``viewer_bench.py``
   does, so ``performance.now()`` has 5 µs resolution), imports
   ``/static/js/analysis/rescore.js`` and fetches the tiled curves as JSON (the page gets
   plain arrays, as it does from the server's ``analysis.json``);
2. **node**: ``bench/rescore_bench.mjs --json`` (the same module in node); its settings
   cycle, frame count and clip are the ones all three use, and a fingerprint of its tiled
   curves must equal the ones Python tiles here;
3. **motioncore**: :func:`motioncore.analysis.analyze`, the function
   ``tests/fixtures/make_rescore_fixtures.py`` computes the expected results with, on
   :class:`~motioncore.analysis.Features` rebuilt from the same sent curves (as the
   generator's ``sent()`` does; built once, outside the timed window, as the server
   holds them). The next clip is a one-frame ``Features`` whose
   ``initial_velocity_local()`` is exactly the setting's ``nextLocalVelocity`` (checked),
   so ``analyze`` turns it by each frame's heading as the browser does. Two rows:
   ``analyze()`` plus the candidates with their breakdowns, the best cut and the frames
   passing each condition (what ``rescore()`` returns eagerly: the same output, the
   reference for the ratios), and ``analyze()`` alone (those built lazily; a floor).

The clip is CMU 131_02's sent curves (``tests/fixtures/rescore/clip_cmu_131_02.json``,
120 Hz) tiled forwards then backwards in time to 10,000 frames, exactly as the .mjs tiles
them. Each implementation does 20 warm-up runs, then ``--runs`` (200) timed ones, run
``r`` at setting ``r mod 4``; median and p95 use the .mjs's quantile (sorted sample
``floor(q·n)``) for all rows.

Parity: one untimed run per setting in each implementation; the number of candidates
and the chosen cut (best frame), and also the candidate order, the frames passing each
condition, the cut frames and the reason, must be equal between motioncore and the
browser (and node). A mismatch is printed as ``PARITY MISMATCH`` and the exit code is 1.
Otherwise it is 0, whether the 16 ms target passes or fails.

    .venv/bin/python bench/rescore_bench.py [--frames 10000] [--runs 200]   # ~15 s
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(REPO_ROOT))

from viewer_bench import CHROMIUM, FLAGS, serve  # noqa: E402

from motioncore import analysis  # noqa: E402
from motioncore.analysis import Features, mtp  # noqa: E402

NODE_BENCH = BENCH_DIR / "rescore_bench.mjs"
HARNESS = "/bench/rescore_harness.html"
SOURCE = REPO_ROOT / "tests" / "fixtures" / "rescore" / "clip_cmu_131_02.json"
TARGET_MS = 16.0
PAGE_TIMEOUT_MS = 300_000
NODE_TIMEOUT_S = 300
COMPARED = ("candidates", "best", "order", "frames_passing", "cuts", "reason")
"""Per-setting results compared; the first two are the parity the brief asks for."""


def quantile(samples: list[float], q: float) -> float:
    """The .mjs's quantile: the sorted sample at ``floor(q·n)``."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, math.floor(q * len(ordered)))]


def source_frame(i: int, n: int) -> int:
    """Frame ``i`` of the tiled clip: forwards, backwards, forwards, … through ``n`` frames."""
    period = 2 * (n - 1)
    k = i % period
    return k if k < n else period - k


def tiled_curves(curves: dict[str, list[Any]], n: int) -> dict[str, list[Any]]:
    """The .mjs's ``tiledCurves``: every curve (``width`` values a frame) tiled to ``n``."""
    src = len(curves["speed_m_per_s"])
    out: dict[str, list[Any]] = {}
    for key, values in curves.items():
        width = len(values) // src
        tiled: list[Any] = []
        for i in range(n):
            j = source_frame(i, src)
            tiled.extend(values[j * width : (j + 1) * width])
        out[key] = tiled
    return out


def fingerprint(curves: dict[str, list[Any]]) -> list[list[Any]]:
    """The .mjs's ``fingerprint``: per key, length, nulls and Σ value·(i mod 7 + 1), summed
    in index order as plain doubles (so equal curves give bit-equal sums)."""
    out: list[list[Any]] = []
    for key in sorted(curves):
        total, nulls = 0.0, 0
        for i, v in enumerate(curves[key]):
            if v is None:
                nulls += 1
            else:
                total += v * ((i % 7) + 1)
        out.append([key, len(curves[key]), nulls, total])
    return out


def features(curves: dict[str, list[Any]], fps: float, periodic: bool) -> Features:
    """Features rebuilt from the sent curves, as the fixture generator's ``sent()`` does."""
    phase = [np.nan if p is None else p for p in curves["gait_phase_rad"]]
    return Features(
        fps=fps,
        speed=np.array(curves["speed_m_per_s"], dtype=np.float64),
        energy=np.array(curves["energy_j_per_kg"], dtype=np.float64),
        pca=np.array(curves["pca_m_per_s"], dtype=np.float64),
        com_velocity=np.array(curves["com_velocity_m_per_s"], dtype=np.float64).reshape(-1, 3),
        heading=np.array(curves["heading_rad"], dtype=np.float64),
        gait_phase=np.array(phase, dtype=np.float64),
        gait={"periodic": periodic},
    )


def next_clip(local: list[float] | None, fps: float) -> Features | None:
    """A one-frame next clip facing +Z whose ``initial_velocity_local()`` is ``local``
    exactly (the mean of one row, turned by a zero yaw)."""
    if local is None:
        return None
    one = np.zeros(1)
    return Features(
        fps=fps,
        speed=one,
        energy=one,
        pca=one,
        com_velocity=np.array([local], dtype=np.float64),
        heading=one,
        gait_phase=np.full(1, np.nan),
        gait={"periodic": False},
    )


Setting = tuple[float, float, str, Features | None]


def python_settings(settings: list[dict[str, Any]], fps: float) -> list[Setting]:
    """The .mjs's settings as ``analyze`` arguments (α, θ_max, measure, next clip)."""
    return [
        (
            float(s["alpha"]),
            float(s["thetaMaxDeg"]),
            s["measure"],
            next_clip(s["nextLocalVelocity"], fps),
        )
        for s in settings
    ]


def analyze(feats: Features, setting: Setting) -> analysis.Analysis:
    """:func:`motioncore.analysis.analyze` at one setting (what the fixtures expect)."""
    alpha, theta, method, nxt = setting
    return analysis.analyze(
        feats,
        alpha=alpha,
        theta_max_deg=theta,
        measure=method,  # type: ignore[arg-type]
        next_features=nxt,
    )


def frames_passing(result: mtp.MTPResult) -> dict[str, int]:
    """``MTPResult.as_dict()["frames_passing"]``."""
    counts = result.passed.sum(axis=1)
    return {c: int(n) for c, n in zip(mtp.CONDITIONS, counts, strict=True)}


def analyze_with_output(feats: Features, setting: Setting) -> analysis.Analysis:
    """``analyze`` plus what ``rescore()`` returns eagerly and motioncore builds lazily:
    every candidate with its breakdown, the best cut, the frames passing each condition."""
    result = analyze(feats, setting)
    _ = result.mtp.candidates, result.mtp.best, frames_passing(result.mtp)
    return result


def summary(result: analysis.Analysis) -> dict[str, Any]:
    """The per-setting results the JavaScript sides report (``summary()`` in the .mjs)."""
    m = result.mtp
    return {
        "candidates": len(m.candidates),
        "best": m.best_frame,
        "order": m.order.tolist(),
        "frames_passing": frames_passing(m),
        "cuts": result.cuts.tolist(),
        "reason": m.reason,
    }


def time_python(
    step: Callable[[Features, Setting], analysis.Analysis],
    feats: Features,
    settings: list[Setting],
    warmup: int,
    runs: int,
) -> list[float]:
    """Warm-up runs, then ``runs`` timed ones (ms), run ``r`` at setting ``r mod len``."""
    gc.collect()
    samples: list[float] = []
    for r in range(warmup + runs):
        setting = settings[r % len(settings)]
        t0 = time.perf_counter()
        step(feats, setting)
        ms = (time.perf_counter() - t0) * 1e3
        if r >= warmup:
            samples.append(ms)
    return samples


def run_node(frames: int, runs: int) -> dict[str, Any]:
    """``node bench/rescore_bench.mjs --json``, parsed."""
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is not on PATH: bench/rescore_bench.mjs needs it")
    command = [node, str(NODE_BENCH), "--frames", str(frames), "--runs", str(runs), "--json"]
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=REPO_ROOT, timeout=NODE_TIMEOUT_S
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def run_browser(data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The harness page in headless Chromium on ``data``: its ``window.result`` and the
    browser's version."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(dir=BENCH_DIR) as scratch:
        path = Path(scratch) / "rescore-data.json"
        path.write_text(json.dumps(data, allow_nan=False))
        server, base = serve(REPO_ROOT)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                try:
                    version = browser.version
                    context = browser.new_context()
                    page = context.new_page()
                    errors: list[str] = []
                    page.on("pageerror", lambda error: errors.append(str(error)))
                    url = f"{base}{HARNESS}?data=/{path.relative_to(REPO_ROOT).as_posix()}"
                    page.goto(url)
                    try:
                        page.wait_for_function(
                            "window.result !== undefined", timeout=PAGE_TIMEOUT_MS
                        )
                    except Exception:
                        print(f"the harness page failed: {errors}", file=sys.stderr)
                        raise
                    result: dict[str, Any] = page.evaluate("window.result")
                    context.close()
                finally:
                    browser.close()
        finally:
            server.shutdown()
    if "error" in result:
        raise SystemExit(f"the harness page failed: {result['error']}")
    return result, version


def describe(setting: dict[str, Any]) -> str:
    nxt = setting["nextLocalVelocity"]
    return (
        f"α={setting['alpha']} θ={setting['thetaMaxDeg']}° {setting['measure']}, "
        f"next={'none' if nxt is None else nxt}"
    )


def parity(
    settings: list[dict[str, Any]],
    python: list[dict[str, Any]],
    others: dict[str, list[dict[str, Any]]],
) -> list[str]:
    """Mismatches between motioncore's per-setting results and each JavaScript side's."""
    problems = []
    for name, results in others.items():
        for s, (ref, got) in enumerate(zip(python, results, strict=True)):
            for key in COMPARED:
                if ref[key] != got[key]:
                    shown = f"{ref[key]!r} vs {got[key]!r}"
                    if key == "order":
                        pairs = zip(ref[key], got[key], strict=False)
                        at = next((i for i, (x, y) in enumerate(pairs) if x != y), None)
                        shown = f"{len(ref[key])} vs {len(got[key])} frames, first difference at "
                        shown += f"{min(len(ref[key]), len(got[key])) if at is None else at}"
                    problems.append(
                        f"setting {s} ({describe(settings[s])}): {key} differs, "
                        f"motioncore vs {name}: {shown}"
                    )
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=10_000, help="frames of the tiled clip")
    parser.add_argument("--runs", type=int, default=200, help="timed runs per implementation")
    args = parser.parse_args(argv)

    # node first: its settings cycle, clip and warm-up count are the ones everyone uses
    node = run_node(args.frames, args.runs)
    fixture = json.loads(SOURCE.read_text())
    curves = tiled_curves(fixture["curves"], node["frames"])
    if fingerprint(curves) != node["fingerprint"]:
        print("PARITY MISMATCH: Python's tiled curves differ from the .mjs's:")
        print(f"  python {fingerprint(curves)}\n  node   {node['fingerprint']}")
        return 1
    fps, periodic, settings = node["fps"], node["periodic"], node["settings"]
    warmup, runs = node["warmup"], node["runs"]

    data = {
        "curves": curves,
        "fps": fps,
        "periodic": periodic,
        "settings": settings,
        "warmup": warmup,
        "runs": runs,
    }
    browser, chromium = run_browser(data)

    feats = features(curves, fps, periodic)
    py_settings = python_settings(settings, fps)
    py_results = []
    for setting, py_setting in zip(settings, py_settings, strict=True):
        result = analyze_with_output(feats, py_setting)
        local = None if result.next_local is None else result.next_local.tolist()
        wanted = setting["nextLocalVelocity"]
        if local != (None if wanted is None else [float(x) for x in wanted]):
            raise SystemExit(f"next velocity {local} is not the setting's {wanted}")
        py_results.append(summary(result))
    py_full = time_python(analyze_with_output, feats, py_settings, warmup, runs)
    py_analyze = time_python(analyze, feats, py_settings, warmup, runs)

    rows = [
        (f"browser: rescore.js in Chromium {chromium}", browser["samples_ms"]),
        (f"node {node['node']}: rescore.js", node["samples_ms"]),
        ("motioncore: analyze() + candidates, best, frames passing", py_full),
        ("motioncore: analyze() only (candidates lazy; a floor)", py_analyze),
    ]
    ref_median, ref_p95 = quantile(py_full, 0.5), quantile(py_full, 0.95)

    loads = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"rescore: {node['frames']} frames (CMU 131_02's sent curves tiled), "
        f"{len(settings)} settings cycled, {warmup} warm-up + {runs} timed runs each; "
        f"{os.cpu_count()} CPUs, load average {loads}; Python {platform.python_version()}, "
        f"numpy {np.__version__}; cross-origin isolated: "
        f"{str(browser['crossOriginIsolated']).lower()}"
    )
    for s, (setting, res) in enumerate(zip(settings, py_results, strict=True)):
        print(
            f"  setting {s}: {describe(setting)}: {res['candidates']} candidates, "
            f"best frame {res['best']}"
        )
    print(
        "\n| implementation | median ms | p95 ms | python/this median | python/this p95 |"
        "\n|---|---:|---:|---:|---:|"
    )
    for name, samples in rows:
        median, p95 = quantile(samples, 0.5), quantile(samples, 0.95)
        print(
            f"| {name} | {median:.2f} | {p95:.2f} | {ref_median / median:.2f} | "
            f"{ref_p95 / p95:.2f} |"
        )
    print(
        "\npython = motioncore analyze() + candidates, best, frames passing (the same output "
        "as rescore()); python/this > 1: this is faster"
    )

    problems = parity(
        settings, py_results, {"browser": browser["results"], "node": node["results"]}
    )
    print()
    for problem in problems:
        print(f"PARITY MISMATCH  {problem}")
    if not problems:
        compared = ", ".join(COMPARED)
        print(
            f"PARITY OK  motioncore = browser = node on all {len(settings)} settings ({compared})"
        )
    browser_p95 = quantile(browser["samples_ms"], 0.95)
    verdict = "PASS" if browser_p95 < TARGET_MS else "FAIL"
    print(
        f"{verdict}  browser p95 < {TARGET_MS:.0f} ms for a {node['frames']}-frame clip "
        f"({browser_p95:.2f} ms)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
