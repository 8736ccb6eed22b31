"""Foot contacts and cleaning on every corpus locomotion clip, as a markdown table.

For each clip of category ``locomotion…`` in ``../shared/data/MANIFEST.csv``:

* the duty factor (share of each steady stride a foot is on the ground,
  :mod:`motioncore.analysis.duty`) of the contacts :func:`motioncore.contacts.detect`
  finds, per foot, with the band the clip's gait calls for and whether it holds;
* the share of consecutive strikes that alternate feet, over the steady part;
* foot slide while planted (median, and 95th percentile after) and the deepest
  foot point under the floor, before and after :func:`motioncore.clean.clean`, by
  the independent measures (:mod:`motioncore.measures`; the same foot points before
  and after, the floor estimated by the measures themselves).

    python bench/contacts_report.py --markdown docs/contacts-report.md
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from motioncore import bvh, clean, contacts, fk, measures, skeleton  # noqa: E402
from motioncore.analysis import duty as gait_duty  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "data"


def _rows(data: Path) -> list[dict[str, str]]:
    with (data / "MANIFEST.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [r for r in rows if r["category"].startswith("locomotion")]


def clip_line(data: Path, row: dict[str, str]) -> dict[str, object]:
    """Everything the table shows about one clip."""
    clip = bvh.load(data / row["relative_path"])
    roles = skeleton.infer(clip.skeleton)
    g_rot, g_pos = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    found = contacts.detect(clip, roles, positions=g_pos, rotations=g_rot)
    part = gait_duty.steady(g_pos[:, roles.require("hips")[0]], clip.fps)
    froude = part.froude(found.leg_m)
    words = f"{row['description']} {row['category']}"
    masks = {f.side: f.contact for f in found.feet}
    duty = {s: gait_duty.duty_factor(m, clip.fps, part.frames) for s, m in masks.items()}
    out, report = clean.clean(clip)
    drop = report.leading_frames_dropped
    raw = clip.with_arrays(clip.rotations[drop:], clip.translations[drop:])
    before = measures.measure(raw)
    after = measures.measure(out, feet=before.geometry)
    return {
        "clip": row["relative_path"].removeprefix("bvh/"),
        "fps": clip.fps,
        "speed": part.speed_mps,
        "froude": froude,
        "band": gait_duty.expected_band(words, froude),
        "duty": duty,
        "alternation": gait_duty.alternation(masks["left"], masks["right"], clip.fps, part.frames)
        if len(masks) == 2
        else float("nan"),
        "slide_before": before.slide_median_mps,
        "slide_after": after.slide_median_mps,
        "p95_after": after.slide_p95_mps,
        "under_before_cm": 100 * before.penetration_worst_m,
        "under_after_cm": 100 * after.penetration_worst_m,
    }


def _num(value: object, digits: int = 2) -> str:
    if not isinstance(value, int | float) or not np.isfinite(value):
        return "—"
    return f"{value:.{digits}f}"


def markdown(lines: list[dict[str, object]], seconds: float) -> str:
    """The report: a summary, then one row per clip."""
    graded = [ln for ln in lines if any(np.isfinite(d) for d, _ in ln["duty"].values())]  # type: ignore[attr-defined]
    inside = [
        ln
        for ln in graded
        if all(
            ln["band"][0] <= d <= ln["band"][1]  # type: ignore[index]
            for d, _ in ln["duty"].values()  # type: ignore[attr-defined]
            if np.isfinite(d)
        )
    ]
    out = [
        "# Foot contacts and cleaning on the corpus",
        "",
        "Made by `python bench/contacts_report.py --markdown docs/contacts-report.md` "
        f"({len(lines)} locomotion clips, {seconds:.0f} s). Duty factor: the median share of "
        "a foot's steady strides (steady speed, not turning; at least 2 strides) it is on "
        "the ground (`motioncore.analysis.duty`); band: the gait's (walk 0.50-0.72, run "
        "0.20-0.45, either 0.20-0.72, sideways 0.20-0.90). Alternation: share of strike pairs "
        "by opposite feet. Slide: median horizontal speed of the slowest foot point while "
        "planted, m/s, and its 95th percentile after cleaning; under: the deepest foot "
        "point under the floor, cm; both by `motioncore.measures`, never by the contacts "
        "the cleanup used.",
        "",
        f"**{len(graded)}** clips have steady strides; **{len(inside)}** of them are inside "
        "their band exactly (the test also allows one frame of the stride).",
        "",
        "| clip | fps | speed m/s | Froude | band | duty L | duty R | alternation "
        "| slide before | slide after | p95 after | under before cm | under after cm |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for ln in lines:
        duty = ln["duty"]
        lo, hi = ln["band"]  # type: ignore[misc]
        out.append(
            f"| {ln['clip']} | {_num(ln['fps'], 0)} | {_num(ln['speed'])} | "
            f"{_num(ln['froude'])} | {lo:.2f}-{hi:.2f} | "
            f"{_num(duty.get('left', (None,))[0])} | {_num(duty.get('right', (None,))[0])} | "  # type: ignore[attr-defined]
            f"{_num(ln['alternation'])} | {_num(ln['slide_before'], 3)} | "
            f"{_num(ln['slide_after'], 3)} | {_num(ln['p95_after'], 3)} | "
            f"{_num(ln['under_before_cm'], 1)} | {_num(ln['under_after_cm'], 1)} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the corpus folder")
    parser.add_argument("--markdown", type=Path, help="write the table here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    lines = [clip_line(args.data, row) for row in _rows(args.data)]
    text = markdown(lines, time.perf_counter() - start)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    print(text.split("\n| clip")[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
