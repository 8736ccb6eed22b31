"""Transition quality on real clip pairs: MTP against the three baselines of seed 000 §6.3.

For every pair (A, B) of same-skeleton clips from the shared corpus
(``../shared/data``, locomotion and momentum categories of ``MANIFEST.csv``), run
:func:`motioncore.transition.compare` at α = 0.6, θ_max = 75°, speed, a 0.12 s
crossfade, with both clips' gait phases, and tabulate the §6.1 metrics for MTP,
end of clip, fixed 70 % and the speed threshold.

Two pair sets (fixed, so runs are comparable; :data:`SETS`): "same action" pairs
clips of one skeleton group (source repository and joint count) that perform the
same motion (the Bandai action in the description, or "walk" for the other
locomotion clips); "mixed" pairs clips of one skeleton group whatever they do.
In each group, clips sorted by path, each clip A is followed by the next one as
B, at most ``--per-group`` pairs per group. Clips are cleaned first with the
defaults (:func:`motioncore.clean.clean`), as the web pipeline does before a
transition (``--raw`` skips it).

Prints, per set, a summary with the two acceptance targets of the
phase-and-momentum issue (MTP keeps more momentum than the end-of-clip cut in
≥ 90 % of pairs; MTP's velocity continuity < 0.15 in ≥ 70 %) and the same counts
for every baseline, and writes the per-pair, per-method table as markdown
(``--markdown``) and everything as JSON (``--json``).

    python bench/transitions_report.py --markdown docs/transitions-report.md
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import re
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from motioncore import analysis, bvh, clean, transition  # noqa: E402
from motioncore.errors import MotionCoreError  # noqa: E402
from motioncore.transition.entry import DEFAULT_WEIGHTS  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "data"
CATEGORIES = ("locomotion", "momentum")
METHODS = ("mtp", "end", "fixed70", "threshold")
METRICS = ("momentum_retention", "velocity_continuity", "energy_loss")
CONTINUITY_TARGET = 0.15
RETENTION_SHARE_TARGET = 0.90
CONTINUITY_SHARE_TARGET = 0.70
MIN_FRAMES = 30


def _action(row: dict[str, str]) -> str | None:
    """The motion a clip performs, where its description names one ("walk", "run",
    "walk turn left", ...); ``None`` for the rest."""
    bandai = re.match(r"Bandai Namco dataset-\d: ([^,]+),", row["description"])
    if bandai:
        return bandai.group(1)
    if row["category"].startswith("locomotion") and re.search(r"\bwalk", row["description"]):
        return "walk"
    return None


def corpus_groups(data: Path, *, by_action: bool) -> dict[str, list[Path]]:
    """Skeleton group (source repository, joint count[, action]) → clip paths, sorted."""
    groups: dict[str, list[Path]] = defaultdict(list)
    with (data / "MANIFEST.csv").open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            path = row["relative_path"]
            if not path.endswith(".bvh") or not row["category"].startswith(CATEGORIES):
                continue
            if int(row["frames"] or 0) < MIN_FRAMES or "duplicate" in row["category"]:
                continue
            key = f"{row['source_repo']} ({row['joint_count']} joints)"
            if by_action:
                action = _action(row)
                if action is None:
                    continue
                key += f" {action}"
            groups[key].append(data / path)
    return {key: sorted(paths) for key, paths in sorted(groups.items())}


def pairs(groups: dict[str, list[Path]], per_group: int) -> list[tuple[str, Path, Path]]:
    """Consecutive (A, B) pairs per group, at most ``per_group`` each."""
    out: list[tuple[str, Path, Path]] = []
    for group, paths in groups.items():
        chain = list(itertools.pairwise(paths))[:per_group]
        out += [(group, a, b) for a, b in chain]
    return out


def run_pair(a_path: Path, b_path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The comparison of one pair (its JSON form, plus timings and clip facts)."""
    a, b = bvh.load(a_path), bvh.load(b_path)
    if not args.raw:
        a, b = clean.clean(a)[0], clean.clean(b)[0]
    started = time.perf_counter()
    phase_a = analysis.features(a).gait_phase
    phase_b = analysis.features(b).gait_phase
    comparison = transition.compare(
        a,
        b,
        alpha=args.alpha,
        theta_max_deg=args.theta,
        measure="speed",
        blend_s=args.blend_s,
        blend="crossfade",
        phase_a=phase_a,
        phase_b=phase_b,
        search_s=args.search_s,
        weights=replace(DEFAULT_WEIGHTS, velocity_s_per_m=args.velocity_weight),
    )
    elapsed = time.perf_counter() - started
    return {
        **comparison.as_dict(),
        "a": a_path.relative_to(DATA).as_posix(),
        "b": b_path.relative_to(DATA).as_posix(),
        "fps": a.fps,
        "frames_a": a.num_frames,
        "frames_b": b.num_frames,
        "seconds": elapsed,
    }


def _num(value: Any, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Shares of pairs meeting each target, per method."""
    n = len(results)
    out: dict[str, Any] = {"pairs": n}
    for method in METHODS:
        cont = [r["metrics"][method]["velocity_continuity"] for r in results]
        ret = [r["metrics"][method]["momentum_retention"] for r in results]
        loss = [r["metrics"][method]["energy_loss"] for r in results]
        pose = [r["metrics"][method]["pose_discontinuity_m"] for r in results]
        beats_end = sum(
            1
            for r in results
            if (r["metrics"][method]["momentum_retention"] or 0.0)
            > (r["metrics"]["end"]["momentum_retention"] or 0.0)
        )
        out[method] = {
            "continuity_below_target": sum(
                1 for c in cont if c is not None and c < CONTINUITY_TARGET
            ),
            "retention_beats_end": beats_end,
            "median_retention": _median(ret),
            "median_continuity": _median(cont),
            "median_energy_loss": _median(loss),
            "median_pose_m": _median(pose),
        }
    return out


def _median(values: list[Any]) -> float | None:
    finite = sorted(v for v in values if v is not None)
    if not finite:
        return None
    mid = len(finite) // 2
    return finite[mid] if len(finite) % 2 else 0.5 * (finite[mid - 1] + finite[mid])


SETS = {
    "same action": "clips of one skeleton performing the same motion (Bandai walk → walk, "
    "run → run, ...; the CMU-derived walks): the transitions a studio makes between takes "
    "and styles",
    "mixed": "consecutive clips of one skeleton whatever they do (dance → dash, punch → run, "
    "walk back → walk left, ...): a stress test, many need a reversal or start from rest",
}


def _table(results: list[dict[str, Any]], stats: dict[str, Any]) -> list[str]:
    n = stats["pairs"]
    lines = [
        "| method | retention > end's | continuity < 0.15 | median retention | "
        "median continuity | median energy loss | median pose jump m |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for method in METHODS:
        s = stats[method]
        lines.append(
            f"| {method} | {s['retention_beats_end']}/{n} | {s['continuity_below_target']}/{n} | "
            f"{_num(s['median_retention'])} | {_num(s['median_continuity'])} | "
            f"{_num(s['median_energy_loss'])} | {_num(s['median_pose_m'])} |"
        )
    lines += [
        "",
        "| A → B | fps | method | cut | entry | R | C | E | slide m/s | pose jump m |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        name = f"{Path(r['a']).stem} → {Path(r['b']).stem}"
        for method in METHODS:
            m = r["metrics"][method]
            lines.append(
                f"| {name if method == 'mtp' else ''} | {r['fps']:g} | {method} | "
                f"{m['cut_frame']} | {m['entry_frame']} | {_num(m['momentum_retention'])} | "
                f"{_num(m['velocity_continuity'])} | {_num(m['energy_loss'])} | "
                f"{_num(m['foot_slide_mps'], 3)} | {_num(m['pose_discontinuity_m'])} |"
            )
    return lines


def markdown(
    sets: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]], args: argparse.Namespace
) -> str:
    """Both pair sets' summaries and per-pair tables as markdown."""
    lines = [
        "# Transition report: MTP against the baselines on real clip pairs",
        "",
        f"Generated by `python bench/transitions_report.py --markdown docs/transitions-report.md` "
        f"(α = {args.alpha}, θ_max = {args.theta}°, speed, {args.blend_s} s crossfade, gait "
        "phase in the entry match, clips cleaned with the defaults first). Metrics as defined in "
        "`motioncore/transition/metrics.py` (seed 000 §6.1): R = momentum retention (the "
        "slowest COM speed through the switch / A's peak speed), C = velocity continuity "
        "(|v_join - v_before| / mean speed: A at the cut against aligned B at the entry), "
        "E = energy loss ((E_peak - lowest E through "
        "the switch) / E_peak). Cut and entry in frames (B's entry at A's frame rate).",
    ]
    for name, (results, stats) in sets.items():
        lines += ["", f"## {name} ({stats['pairs']} pairs)", "", SETS[name] + ".", ""]
        lines += _table(results, stats)
    return "\n".join(lines) + "\n"


def print_summary(name: str, stats: dict[str, Any]) -> None:
    n = stats["pairs"]
    print(f"\n{name}: {n} pairs")
    print(
        f"{'method':<10} {'R > end':>9} {'C < 0.15':>9} {'med R':>7} {'med C':>7} {'med E':>7}"
        f" {'pose m':>7}"
    )
    for method in METHODS:
        s = stats[method]
        print(
            f"{method:<10} {s['retention_beats_end']:>5}/{n:<3}"
            f" {s['continuity_below_target']:>5}/{n:<3}"
            f" {_num(s['median_retention']):>7} {_num(s['median_continuity']):>7}"
            f" {_num(s['median_energy_loss']):>7} {_num(s['median_pose_m']):>7}"
        )
    mtp = stats["mtp"]
    share_r = mtp["retention_beats_end"] / n if n else 0.0
    share_c = mtp["continuity_below_target"] / n if n else 0.0
    print(
        f"{'PASS' if n >= 20 else 'FAIL'}  at least 20 real same-skeleton pairs ({n})\n"
        f"{'PASS' if share_r >= RETENTION_SHARE_TARGET else 'FAIL'}  MTP keeps more momentum "
        f"than the end-of-clip cut in >= 90 % of pairs ({100 * share_r:.1f} %)\n"
        f"{'PASS' if share_c >= CONTINUITY_SHARE_TARGET else 'FAIL'}  MTP velocity continuity "
        f"< 0.15 in >= 70 % of pairs ({100 * share_c:.1f} %)"
    )


def run_set(
    name: str, chosen: list[tuple[str, Path, Path]], args: argparse.Namespace
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every pair of one set; pairs the library refuses are listed with the reason."""
    results: list[dict[str, Any]] = []
    skipped: list[str] = []
    print(f"\n# {name}")
    for group, a, b in chosen:
        try:
            result = run_pair(a, b, args)
        except MotionCoreError as error:
            skipped.append(f"{a.name} → {b.name}: {error}")
            continue
        results.append({**result, "group": group, "set": name})
        mtp = result["metrics"]["mtp"]
        end = result["metrics"]["end"]
        print(
            f"{a.stem[:28]:<28} → {b.stem[:28]:<28} R {_num(mtp['momentum_retention'])}"
            f" (end {_num(end['momentum_retention'])})"
            f" C {_num(mtp['velocity_continuity'])} {result['seconds'] * 1000:6.0f} ms",
            flush=True,
        )
    for line in skipped:
        print("skipped:", line)
    return results, skipped


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the shared corpus folder")
    parser.add_argument("--per-group", type=int, default=12, help="pairs per skeleton group")
    parser.add_argument("--alpha", type=float, default=0.6)
    parser.add_argument("--theta", type=float, default=75.0)
    parser.add_argument("--blend-s", type=float, default=0.12)
    parser.add_argument(
        "--search-s", type=float, default=1.0, help="entry search window at B's start, s"
    )
    parser.add_argument(
        "--velocity-weight",
        type=float,
        default=DEFAULT_WEIGHTS.velocity_s_per_m,
        help="entry cost per m/s of velocity difference (pose costs 1 per metre)",
    )
    parser.add_argument(
        "--sets", nargs="+", choices=list(SETS), default=list(SETS), help="which pair sets"
    )
    parser.add_argument(
        "--raw", action="store_true", help="skip cleaning (the web pipeline cleans first)"
    )
    parser.add_argument("--markdown", type=Path, help="write the table here")
    parser.add_argument(
        "--json", type=Path, default=REPO_ROOT / "bench" / "results" / "transitions.json"
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if not (args.data / "MANIFEST.csv").exists():
        print(f"no corpus at {args.data} (the shared data lives beside the checkout)")
        return 2
    chosen = {
        name: pairs(corpus_groups(args.data, by_action=name == "same action"), args.per_group)
        for name in args.sets
    }
    sets: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {}
    dump: dict[str, Any] = {}
    for name, pair_list in chosen.items():
        results, skipped = run_set(name, pair_list, args)
        sets[name] = (results, summary(results))
        dump[name] = {"summary": sets[name][1], "pairs": results, "skipped": skipped}
    for name, (_, stats) in sets.items():
        print_summary(name, stats)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(dump))
    if args.markdown:
        args.markdown.write_text(markdown(sets, args), encoding="utf-8")
        print(f"table written to {args.markdown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
