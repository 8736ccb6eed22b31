"""Frame times of the players' mannequin and of an uploaded character, against the
skeleton view they replaced, in headless Chromium, for a CMU (31-joint) and an iClone
(~100-joint) rig, in the same run.

For each rig, three views of the same clip play on the player's ``Stage`` through
``bench/mannequin_harness.html`` (served with ``bench/viewer_bench.py``'s static server):

- ``skeleton``: the bones overlay alone (joint impostors and bone lines): what every
  player drew before the mannequin;
- ``mannequin``: the body made from the clip's own skeleton
  (:func:`motioncore.character.mannequin.mannequin`, written by
  :func:`~motioncore.character.glb.rest_glb_bytes`, exactly what ``POST mannequins/``
  answers), posed each frame from the joints' positions (``bone-frames.js``) and skinned;
- ``character``: the clip retargeted onto a character (Mannequiny from
  ``../shared/data/gltf`` when present, else the suite's own character: the canonical
  mannequin as a GLB) with its body (``body.glb``).

Each page plays ``--frames`` frames, one clip frame per animation frame, following the
hips. Reported per rig and view: per-frame JavaScript work (update + render call, ms,
median and p95) and the interval between animation frames (median and p95; 16.7 ms is
60 fps), and the ratio of each body's median work to the skeleton view's. A fresh
browser context per page; ``--rounds`` rotates the order. Headless Chromium draws with
SwiftShader (a CPU rasteriser): the skinning and rasterising of the body run on the CPU,
so the intervals are a pessimistic bound for a machine with a GPU.

    python bench/mannequin_frames.py [--rounds 2] [--frames 600]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "bench"))

from viewer_bench import (  # noqa: E402
    CHROMIUM,
    CMU,
    FLAGS,
    FRAME_BUDGET_MS,
    ICLONE,
    WARMUP_FRAMES,
    median,
    p95,
    serve,
)

from motioncore import bvh, export  # noqa: E402
from motioncore.character.bones import translated_bones  # noqa: E402
from motioncore.character.glb import rest_glb_bytes  # noqa: E402
from motioncore.character.mannequin import mannequin  # noqa: E402
from motioncore.character.rig import CharacterRig, clip_on_rig, read_rig  # noqa: E402
from motioncore.clip import Clip  # noqa: E402
from motioncore.skeleton import canonical  # noqa: E402

VIEWS = ("skeleton", "mannequin", "character")
MANNEQUINY = REPO_ROOT.parent / "shared" / "data" / "gltf" / "Mannequiny" / "mannequiny-0.3.0.glb"


def character() -> tuple[str, CharacterRig]:
    if MANNEQUINY.exists():
        return "Mannequiny (45 joints)", read_rig(MANNEQUINY.read_bytes())
    skeleton = canonical.skeleton()
    return "the suite's own character", read_rig(rest_glb_bytes(skeleton, mannequin(skeleton)))


def write(folder: Path, name: str, data: bytes) -> str:
    path = folder / name
    path.write_bytes(data)
    return "/" + path.relative_to(REPO_ROOT).as_posix()


def pages(folder: Path, index: int, clip: Clip, rig: CharacterRig) -> dict[str, dict[str, Any]]:
    """The harness query of each view of ``clip``."""
    arrays = write(folder, f"{index}.json", json.dumps(export.viewer_arrays(clip)).encode())
    body = mannequin(clip.skeleton, skip=translated_bones(clip))
    on = clip_on_rig(clip, rig)
    return {
        "skeleton": {"arrays": arrays, "mode": "skeleton"},
        "mannequin": {
            "arrays": arrays,
            "mode": "body",
            "body": write(folder, f"{index}.mannequin.glb", rest_glb_bytes(clip.skeleton, body)),
        },
        "character": {
            "arrays": write(
                folder, f"{index}.on.json", json.dumps(export.viewer_arrays(on)).encode()
            ),
            "mode": "body",
            "body": write(folder, "character.glb", rest_glb_bytes(rig.skeleton, rig.mesh)),
        },
    }


def play(browser: Any, base: str, query: dict[str, Any], frames: int) -> dict[str, Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/bench/mannequin_harness.html?{urlencode({**query, 'frames': frames})}")
        try:
            page.wait_for_function("window.result !== undefined", timeout=300_000)
        except Exception:
            print(f"failed: {query} {errors}", file=sys.stderr)
            raise
        result: dict[str, Any] = page.evaluate("window.result")
        return result
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--frames", type=int, default=600)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    rigs = {"CMU 131_02 (31 joints + end sites)": CMU}
    if ICLONE.exists():
        rigs["iClone 007_02 (~100 joints)"] = ICLONE
    else:
        print(f"(no {ICLONE}: the iClone rig needs ../shared/data)")
    who, rig = character()
    samples: dict[tuple[str, str], dict[str, list[float]]] = {}
    joints: dict[tuple[str, str], int] = {}
    renderers: set[str] = set()
    with tempfile.TemporaryDirectory(dir=REPO_ROOT / "bench") as scratch:
        folder = Path(scratch)
        queries = {
            name: pages(folder, i, bvh.load(path), rig)
            for i, (name, path) in enumerate(rigs.items())
        }
        server, base = serve(REPO_ROOT)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                for r in range(args.rounds):
                    for name, views in queries.items():
                        order = VIEWS[r % 3 :] + VIEWS[: r % 3]
                        for view in order:
                            result = play(browser, base, views[view], args.frames)
                            got = samples.setdefault((name, view), {"work": [], "gaps": []})
                            got["work"] += result["work"][WARMUP_FRAMES:]
                            got["gaps"] += result["intervals"][WARMUP_FRAMES:]
                            joints[(name, view)] = result["joints"]
                            renderers.add(result["renderer"])
                browser.close()
        finally:
            server.shutdown()

    print(f"Character: {who}; WebGL renderer: {', '.join(sorted(renderers))}")
    print(
        f"{args.rounds} round(s) of {args.frames} frames per view, first {WARMUP_FRAMES} dropped\n"
    )
    print(
        "| rig | view | joints | work median ms | work p95 | × skeleton (median work) "
        "| interval median ms | p95 |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    verdicts = []
    for name in queries:
        base_work = median(samples[(name, "skeleton")]["work"])
        for view in VIEWS:
            got = samples[(name, view)]
            work, gaps = got["work"], got["gaps"]
            print(
                f"| {name} | {view} | {joints[(name, view)]} | {median(work):.2f} "
                f"| {p95(work):.2f} | {median(work) / base_work:.2f} | {median(gaps):.2f} "
                f"| {p95(gaps):.2f} |"
            )
            held = median(gaps) < FRAME_BUDGET_MS * 1.1
            verdicts.append(
                f"{'PASS' if held else 'FAIL'}  {name}, {view}: 60 fps held "
                f"(median interval {median(gaps):.1f} ms)"
            )
    print()
    print("\n".join(verdicts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
